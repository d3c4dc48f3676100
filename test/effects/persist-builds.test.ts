// Marble tests of writing the build cache: once per quiet period after the builds settle,
// the last settled state when the service stops, and a failing write never failing the effect.
import { expect } from 'chai';
import { NEVER, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ServiceState } from '../../src/store/state.js';
import { CacheNotWritten, type SavedBuild } from '../../src/io/build-cache.js';
import { persistBuilds$, selectSavedBuilds } from '../../src/effects/persist-builds.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const one = moduleModel('one');
const two = moduleModel('two');
const read = fold([started, { type: 'workspace.read', workspace: workspaceModel([one, two]) }]);
const oneBuilt = fold([startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]), succeeded(1, one, DEV, 'a'), succeeded(1, two, DEV, 'b')], read);
const oneChanged = fold([{ type: 'files.changed', files: { [one.entry!]: 'a2' }, source: 'watcher' }, startedBuild(2, DEV, [{ module: one, generation: 2 }]), succeeded(2, one, DEV, 'a2')], oneBuilt);

describe('persistBuilds$', () => {
  let scheduler: TestScheduler;
  let writes: { frame: number; modules: string[] }[];
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    writes = [];
  });

  const saveBuilds = (builds: readonly SavedBuild[]) => {
    writes.push({ frame: scheduler.now(), modules: builds.map((build) => `${build.module}:${build.record.build}`) });
    return Promise.resolve();
  };

  it('lists the successful builds of the state, failed and pending ones left out', () => {
    expect(selectSavedBuilds(read)).to.deep.equal([]);
    expect(selectSavedBuilds(oneBuilt).map((build) => build.module)).to.deep.equal([one.specifier, two.specifier]);
  });

  it('writes once the settled builds stay quiet for the delay, a burst once', () => {
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ServiceState>('r 9ms b 4ms c', { r: read, b: oneBuilt, c: oneChanged });
      expectObservable(persistBuilds$(NEVER, state$, { saveBuilds, persistDelayMs: 20, scheduler }), '^ 200ms !').toBe('');
    });
    // The unsettled read is never written; b and c, 5 ms apart, make one write of c.
    expect(writes).to.deep.equal([{ frame: 35, modules: [`${one.specifier}:2`, `${two.specifier}:1`] }]);
  });

  it('waits for the requests being answered, then for their quiet time, from the same settled state', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      const state$ = hot<ServiceState>('b', { b: oneBuilt });
      // A page asked before the builds settled is answered at 30 ms, its script from 40 to 45 ms.
      const inProgress$ = cold('1 29ms 0 9ms 1 4ms 0', { 0: 0, 1: 1 });
      expectObservable(persistBuilds$(NEVER, state$, { saveBuilds, persistDelayMs: 20, requestsInProgress$: inProgress$, persistQuietMs: 10, persistAtMostMs: 200, scheduler }), '^ 300ms !').toBe('');
    });
    expect(writes.map((write) => write.frame)).to.deep.equal([55]);
  });

  // The service's count is a BehaviorSubject: each subscriber hears the count now first, as from a cold observable.
  it('writes after the delay alone when no request is being answered', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      const state$ = hot<ServiceState>('b', { b: oneBuilt });
      expectObservable(persistBuilds$(NEVER, state$, { saveBuilds, persistDelayMs: 20, requestsInProgress$: cold('0', { 0: 0 }), persistQuietMs: 10, persistAtMostMs: 200, scheduler }), '^ 100ms !').toBe('');
    });
    expect(writes.map((write) => write.frame)).to.deep.equal([20]);
  });

  it('writes at most as late as told while requests go on', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      const state$ = hot<ServiceState>('b', { b: oneBuilt });
      expectObservable(persistBuilds$(NEVER, state$, { saveBuilds, persistDelayMs: 20, requestsInProgress$: cold('1', { 1: 1 }), persistQuietMs: 10, persistAtMostMs: 60, scheduler }), '^ 100ms !').toBe('');
    });
    expect(writes.map((write) => write.frame)).to.deep.equal([60]);
  });

  it('writes what settled since the last write when it stops, and nothing more', () => {
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ServiceState>('b 50ms c', { b: oneBuilt, c: oneChanged });
      expectObservable(persistBuilds$(NEVER, state$, { saveBuilds, persistDelayMs: 20, scheduler }), '^ 55ms !').toBe('');
    });
    expect(writes.map((write) => write.frame)).to.deep.equal([20, 56]);
    expect(writes[1]!.modules).to.deep.equal([`${one.specifier}:2`, `${two.specifier}:1`]);
  });

  it('says once that the cache cannot be written, and goes on writing later states', async () => {
    const told: string[] = [];
    let calls = 0;
    const failing = () => {
      calls += 1;
      return Promise.reject(new Error('EACCES: permission denied'));
    };
    const { Subject } = await import('rxjs');
    const state$ = new Subject<ServiceState>();
    const subscription = persistBuilds$(NEVER, state$ as Observable<ServiceState>, { saveBuilds: failing, persistDelayMs: 1, logger: (line) => told.push(line) }).subscribe();
    state$.next(oneBuilt);
    await new Promise((resolve) => setTimeout(resolve, 20));
    state$.next(oneChanged);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(subscription.closed).to.equal(false);
    subscription.unsubscribe();
    // The second state's write failed: it is tried once more as the service stops.
    expect(calls).to.equal(3);
    expect(told).to.deep.equal(['core: the build cache cannot be written (EACCES: permission denied); the next start builds every module']);
  });

  it('says it again after a write succeeded, and writes a state whose write failed once more when it stops', async () => {
    const twoChanged = fold([{ type: 'files.changed', files: { [two.entry!]: 'b2' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: two, generation: 2 }]), succeeded(3, two, DEV, 'b2')], oneChanged);
    const told: string[] = [];
    const results: ('full' | 'ok')[] = ['full', 'ok', 'full', 'ok'];
    const written: string[][] = [];
    const saving = (builds: readonly SavedBuild[]) => {
      written.push(builds.map((build) => `${build.module}:${build.record.build}`));
      return results.shift() === 'ok' ? Promise.resolve() : Promise.reject(new CacheNotWritten(new Error('ENOSPC: no space left on device'), true));
    };
    const { Subject } = await import('rxjs');
    const state$ = new Subject<ServiceState>();
    const subscription = persistBuilds$(NEVER, state$ as Observable<ServiceState>, { saveBuilds: saving, persistDelayMs: 1, logger: (line) => told.push(line) }).subscribe();
    for (const state of [oneBuilt, oneChanged, twoChanged]) {
      state$.next(state);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const line = 'core: the build cache cannot be written (ENOSPC: no space left on device); the next start builds what changed since it was last written';
    expect(told).to.deep.equal([line, line]);
    // No state settled since the last failure: that state is written as the service stops.
    subscription.unsubscribe();
    expect(written).to.have.length(4);
    expect(written[3]).to.deep.equal([`${one.specifier}:2`, `${two.specifier}:3`]);
  });
});
