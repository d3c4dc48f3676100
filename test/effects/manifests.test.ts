// Marble tests of re-reading the manifests, with the real store and a fake reader whose
// models are given in order.
import { expect } from 'chai';
import { map, ReplaySubject, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Fact } from '../../src/store/events.js';
import { createStore } from '../../src/store/store.js';
import { manifests$ } from '../../src/effects/manifests.js';
import type { WorkspaceModel } from '../../src/workspace/model.js';
import { moduleModel, started, workspaceModel } from '../helpers/models.js';

const model = (coreHash: string, ...subpaths: string[]): WorkspaceModel => workspaceModel(subpaths.map((subpath) => moduleModel(subpath)), { sources: { 'core.json': coreHash } });
const coreChanged = (hash: string): Fact => ({ type: 'files.changed', files: { 'core.json': hash }, source: 'watcher' });

// Facts of `input$` are dispatched at their frames; each read answers the next model of
// `models` (the last one again when they run out).
function harness(input$: Observable<Fact>, models: WorkspaceModel[], restoreBuilds?: (workspace: WorkspaceModel) => Fact, restoreWorkspace?: () => WorkspaceModel | null) {
  const store = createStore({ now: () => new Date(0) });
  store.dispatch(started);
  const reads: WorkspaceModel[] = [];
  const deepImports: (readonly string[])[] = [];
  const readWorkspace = (deep: readonly string[]) => {
    const next = models[Math.min(reads.length, models.length - 1)]!;
    reads.push(next);
    deepImports.push([...deep]);
    return next;
  };
  // Replayed: the first read happens at frame 0, before expectObservable subscribes.
  const facts$ = new ReplaySubject<Fact>();
  manifests$(store.events$, store.state$, { readWorkspace, ...(restoreBuilds ? { restoreBuilds } : {}), ...(restoreWorkspace ? { restoreWorkspace } : {}) }).subscribe((facts) => {
    store.dispatch(facts);
    // Facts dispatched together show as one group: `(rc)`.
    for (const fact of Array.isArray(facts) ? facts : [facts as Fact]) facts$.next(fact);
  });
  input$.subscribe((fact) => store.dispatch(fact));
  return { store, reads, deepImports, types$: facts$.pipe(map((fact) => fact.type)) };
}

const T = { r: 'workspace.read', u: 'workspace.unchanged', c: 'cache.restored' };

describe('manifests$', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
  });

  it('reads the workspace once at start', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-'), [model('c1', 'one')]);
      expectObservable(result.types$, '^ 9ms !').toBe('r', T);
    });
    expect(result.reads).to.have.length(1);
    expect(result.store.getState()).to.include({ workspaceRead: true, workspaceStale: false });
    expect(result.store.getState().workspace.modules.map((m) => m.subpath)).to.deep.equal(['one']);
  });

  it('reads again with the deep imports of packages without exports that a build found', () => {
    let result!: ReturnType<typeof harness>;
    const open = model('c1', 'one');
    open.packages.push({ name: '@t/open', version: '1.0.0', dir: 'open', dependencies: {}, withoutExports: true });
    const requested: Fact = { type: 'output.requested', module: '@t/open/x.js', variant: 'browser.development' };
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-- 5ms a', { a: requested }), [open]);
      expectObservable(result.types$, '^ 19ms !').toBe('r 6ms u', T);
    });
    expect(result.deepImports).to.deep.equal([[], ['@t/open/x.js']]);
  });

  it('restores the build cache with the first read only, in the same dispatch, so no build of it starts', () => {
    let result!: ReturnType<typeof harness>;
    const restored: WorkspaceModel[] = [];
    const restore = (workspace: WorkspaceModel): Fact => {
      restored.push(workspace);
      return { type: 'cache.restored', dir: '/cache', builds: [] };
    };
    const seqs: number[] = [];
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-- 3ms a', { a: coreChanged('c2') }), [model('c1', 'one'), model('c2', 'one', 'two')], restore);
      result.store.state$.subscribe((state) => seqs.push(state.seq));
      expectObservable(result.types$, '^ 9ms !').toBe('(rc) 1ms r', T);
    });
    expect(restored.map((workspace) => workspace.modules.length)).to.deep.equal([1]);
    // One state for the read and the restoration together (seq 2 and 3): nothing saw the read alone.
    expect(seqs).to.deep.equal([1, 3, 4, 5]);
  });

  it('takes the model the build cache restores for the first read only, and restores the builds for it', () => {
    let result!: ReturnType<typeof harness>;
    const restoredFor: WorkspaceModel[] = [];
    const cached = model('c1', 'one', 'cached');
    let asked = 0;
    const restoreWorkspace = () => {
      asked += 1;
      return cached;
    };
    const events: Fact[] = [];
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-- 3ms a', { a: coreChanged('c2') }), [model('c2', 'one', 'two')], (workspace) => (restoredFor.push(workspace), { type: 'cache.restored', dir: '/cache', builds: [] }), restoreWorkspace);
      result.store.events$.subscribe((event) => events.push(event));
      expectObservable(result.types$, '^ 9ms !').toBe('(rc) 1ms r', T);
    });
    expect(asked).to.equal(1);
    expect(result.reads).to.have.length(1); // only the read after the change
    expect(restoredFor).to.deep.equal([cached]);
    expect(events.filter((event) => event.type === 'workspace.read').map((event) => 'restored' in event && event.restored)).to.deep.equal([true, false]);
    expect(result.store.getState().workspace.modules.map((m) => m.subpath)).to.deep.equal(['one', 'two']);
  });

  it('reads the workspace when the build cache has no model to restore', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-'), [model('c1', 'one')], undefined, () => null);
      expectObservable(result.types$, '^ 9ms !').toBe('r', T);
    });
    expect(result.reads).to.have.length(1);
  });

  it('reads a stale workspace once for a burst of changes arriving together', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-- 3ms (abc)', { a: coreChanged('c2'), b: coreChanged('c3'), c: coreChanged('c4') }), [model('c1', 'one'), model('c4', 'one', 'two')]);
      expectObservable(result.types$, '^ 9ms !').toBe('r 4ms r', T);
    });
    expect(result.reads).to.have.length(2);
    expect(result.store.getState().workspace.modules.map((m) => m.subpath)).to.deep.equal(['one', 'two']);
  });

  it('answers workspace.unchanged with the new hashes when the model is the same, workspace.read when it differs', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ hot, expectObservable }) => {
      result = harness(hot<Fact>('-- a 2ms b', { a: coreChanged('c2'), b: coreChanged('c3') }), [model('c1', 'one'), model('c2', 'one'), model('c3', 'one', 'two')]);
      expectObservable(result.types$, '^ 9ms !').toBe('r 1ms u 2ms r', T);
    });
    const state = result.store.getState();
    expect(state.workspace.sources).to.deep.equal({ 'core.json': 'c3' });
    expect(state.workspaceStale).to.equal(false);
  });

  it('reads nothing for a change of a path the workspace was not read from, or one with the hash it had', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ hot, expectObservable }) => {
      const input = hot<Fact>('-- a 2ms b', { a: { type: 'files.changed', files: { 'app/one/index.ts': 'x' }, source: 'watcher' }, b: coreChanged('c1') });
      result = harness(input, [model('c1', 'one')]);
      expectObservable(result.types$, '^ 9ms !').toBe('r', T);
    });
    expect(result.reads).to.have.length(1);
  });

  it('keeps the builds of a workspace read again unchanged', () => {
    let result!: ReturnType<typeof harness>;
    let before: unknown;
    scheduler.run(({ hot }) => {
      result = harness(hot<Fact>('-- a', { a: coreChanged('c2') }), [model('c1', 'one'), model('c2', 'one')]);
      scheduler.schedule(() => (before = result.store.getState().builds), 1);
    });
    expect(result.store.getState().builds).to.equal(before);
  });
});
