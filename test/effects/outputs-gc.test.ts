// Marble tests of the output cache upkeep: at most one pass per period, keeping what the
// last state refers to.
import { expect } from 'chai';
import { EMPTY } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { OutputCache } from '../../src/outputs/output-cache.js';
import type { ServiceState } from '../../src/store/state.js';
import { outputsGc$ } from '../../src/effects/outputs-gc.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const one = moduleModel('one');
const read = fold([started, { type: 'workspace.read', workspace: workspaceModel([one]) }]);
const built = (build: number): ServiceState => fold([startedBuild(build, DEV, [{ module: one, generation: read.builds[one.specifier]!.variants[DEV]!.generation }]), succeeded(build, one, DEV, `e${build}`)], read);

describe('outputsGc$', () => {
  it('retains what the last state of each period refers to, once per period', () => {
    const kept: { at: number; hashes: string[] }[] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    const outputs = { retain: (keep: ReadonlySet<string>) => (kept.push({ at: scheduler.now(), hashes: [...keep] }), 0) } as unknown as OutputCache;
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ServiceState>('a 5ms b 2ms c 200ms d', { a: read, b: built(1), c: built(2), d: built(3) });
      expectObservable(outputsGc$(EMPTY, state$, { outputs, outputsGcPeriodMs: 100, scheduler })).toBe('');
    });
    expect(kept).to.deep.equal([
      { at: 100, hashes: ['code-2'] },
      { at: 310, hashes: ['code-3'] },
    ]);
  });
});
