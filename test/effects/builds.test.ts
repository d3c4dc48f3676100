// Marble tests of the build-scheduling pipeline, with the real store and reducer and a
// fake bundler whose builds take a fixed number of frames.
import { expect } from 'chai';
import { map, Observable, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { EVENT_FORMAT, type Fact } from '../../src/store/events.js';
import { createStore } from '../../src/store/store.js';
import type { BuildJob } from '../../src/io/build-runner.js';
import { builds$ } from '../../src/effects/builds.js';
import type { WorkspaceModel } from '../../src/workspace/model.js';

const DEV = 'browser.development';
const PROD = 'browser.production.min';

function workspace(...subpaths: string[]): WorkspaceModel {
  return {
    preview: null,
    packages: [{ name: '@t/app', version: '1.0.0', dir: 'app', dependencies: {} }],
    modules: subpaths.map((subpath) => ({
      specifier: `@t/app/${subpath}`,
      package: '@t/app',
      version: '1.0.0',
      subpath,
      dir: `app/${subpath}`,
      entry: `app/${subpath}/index.ts`,
      platforms: ['web'],
      bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' },
      assets: [],
      diagnostics: [],
    })),
    selection: null,
    diagnostics: [],
    sources: { 'core.json': 'c1' },
  };
}

type Cold = ReturnType<TestScheduler['createColdObservable']>;

// Facts of `input$` are dispatched at their frames; every build takes `buildFrames` frames
// and succeeds with its entry hashed as the job's number.
function harness(cold: (marble: string, values: Record<string, unknown>) => Cold, input$: Observable<Fact>, buildFrames: number) {
  const store = createStore({ now: () => new Date(0) });
  store.dispatch({ type: 'service.started', format: EVENT_FORMAT, root: '/w', service: 'test' });
  const jobs: { job: BuildJob; build$: Cold }[] = [];
  const run = (job: BuildJob): Observable<readonly Fact[]> => {
    const facts: Fact[] = job.modules.map(({ module }) => ({
      type: 'build.succeeded',
      build: job.build,
      module: module.specifier,
      variant: job.variant,
      outputs: { code: { hash: `code-${job.build}`, size: 1 }, styles: null },
      imports: [],
      inputs: { [module.entry!]: `entry-${job.build}` },
    }));
    const build$ = cold(`${'-'.repeat(buildFrames)}(r|)`, { r: facts });
    jobs.push({ job, build$ });
    return build$ as Observable<readonly Fact[]>;
  };
  const facts$ = new Subject<Fact>();
  builds$(store.events$, store.state$, { run, concurrency: 1 }).subscribe((facts) => {
    store.dispatch(facts);
    for (const fact of Array.isArray(facts) ? facts : [facts as Fact]) facts$.next(fact);
  });
  input$.subscribe((fact) => store.dispatch(fact));
  return { store, jobs, facts$, types$: facts$.pipe(map((fact) => fact.type)) };
}

const T = { s: 'build.started', d: 'build.succeeded', c: 'build.cancelled' };
const changed = (hash: string): Fact => ({ type: 'files.changed', files: { 'app/one/index.ts': hash }, source: 'watcher' });

describe('builds$', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
  });

  it('compiles every module of a new workspace in one batch job', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ cold, hot, expectObservable }) => {
      result = harness(cold, hot<Fact>('a', { a: { type: 'workspace.read', workspace: workspace('one', 'two', 'three') } }), 3);
      expectObservable(result.types$, '^ 9ms !').toBe('s 2ms (ddd)', T);
    });
    expect(result.jobs).to.have.length(1);
    expect(result.jobs[0]!.job.modules.map(({ module }) => module.subpath)).to.deep.equal(['one', 'two', 'three']);
    expect(result.jobs[0]!.job.incremental).to.equal(false);
    const statuses = Object.values(result.store.getState().builds).map((builds) => builds.variants[DEV]!.status);
    expect(statuses).to.deep.equal(['done', 'done', 'done']);
  });

  it('runs a job before it records its start: the bundler works while the store takes build.started', () => {
    const order: string[] = [];
    scheduler.run(({ cold, hot }) => {
      const store = createStore({ now: () => new Date(0) });
      store.dispatch({ type: 'service.started', format: EVENT_FORMAT, root: '/w', service: 'test' });
      const run = (job: BuildJob): Observable<readonly Fact[]> => {
        order.push(`run ${job.build}`);
        return cold('-(r|)', { r: [] as Fact[] }) as Observable<readonly Fact[]>;
      };
      builds$(store.events$, store.state$, { run, concurrency: 1 }).subscribe((facts) => {
        for (const fact of Array.isArray(facts) ? facts : [facts as Fact]) if (fact.type === 'build.started') order.push(`started ${fact.build}`);
        store.dispatch(facts);
      });
      hot<Fact>('a', { a: { type: 'workspace.read', workspace: workspace('one') } }).subscribe((fact) => store.dispatch(fact));
    });
    expect(order).to.deep.equal(['run 1', 'started 1']);
  });

  it('rebuilds an edited module on its own, incrementally', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ cold, hot, expectObservable }) => {
      result = harness(cold, hot<Fact>('a 9ms b', { a: { type: 'workspace.read', workspace: workspace('one', 'two') }, b: changed('edited') }), 3);
      expectObservable(result.types$, '^ 19ms !').toBe('s 2ms (dd) 3ms s 2ms d', T);
    });
    expect(result.jobs).to.have.length(2);
    expect(result.jobs[1]!.job.incremental).to.equal(true);
    expect(result.jobs[1]!.job.modules.map(({ module }) => module.subpath)).to.deep.equal(['one']);
    expect(result.store.getState().builds['@t/app/one']!.variants[DEV]!.last!.inputs).to.deep.equal({ 'app/one/index.ts': 'entry-2' });
  });

  it('cancels a build that a newer change made stale, and keeps only the newer result', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ cold, hot, expectObservable }) => {
      // Built at 0..6; edited at 8 (build 2 starts) and again at 9 (build 2 is stale).
      result = harness(cold, hot<Fact>('a 7ms b c', { a: { type: 'workspace.read', workspace: workspace('one') }, b: changed('first edit'), c: changed('second edit') }), 6);
      expectObservable(result.types$, '^ 19ms !').toBe('s 5ms d 1ms s (cs) 2ms d', T);
    });
    expect(result.jobs).to.have.length(3);
    expect(result.jobs[1]!.build$.subscriptions).to.deep.equal([{ subscribedFrame: 8, unsubscribedFrame: 9 }]);
    expect(result.jobs[2]!.build$.subscriptions).to.deep.equal([{ subscribedFrame: 9, unsubscribedFrame: 15 }]);
    const variant = result.store.getState().builds['@t/app/one']!.variants[DEV]!;
    expect(variant.status).to.equal('done');
    expect(variant.last!.build).to.equal(3);
  });

  // README "The build dashboard": a module a manifest's edit brings back (a broken package.json
  // fixed) or declares anew is built because of that change, never told as the startup.
  it('tells the first build of a module that a manifest change brought as a change, and the first start as the startup', () => {
    const started: string[] = [];
    const manifest = (hash: string): Fact => ({ type: 'files.changed', files: { 'core.json': hash }, source: 'watcher' });
    const read = (...subpaths: string[]): Fact => ({ type: 'workspace.read', workspace: { ...workspace(...subpaths), sources: { 'core.json': `c${subpaths.length}` } } });
    scheduler.run(({ cold, hot }) => {
      // Built at 0..2; the manifest broken at 5 (its module gone), fixed at 7 (it is back), and a second module declared at 12.
      const result = harness(cold, hot<Fact>('a 4ms b c 1ms d e 4ms f g', { a: read('one'), b: manifest('broken'), c: read(), d: manifest('fixed'), e: read('one'), f: manifest('declared'), g: read('one', 'two') }), 2);
      result.facts$.subscribe((fact) => {
        if (fact.type === 'build.started') started.push(`${fact.modules.map(({ module }) => module).join(',')} ${fact.reason}`);
      });
    });
    expect(started).to.deep.equal(['@t/app/one startup', '@t/app/one change', '@t/app/two change']);
  });

  it('serves concurrent requests for one output with one build', () => {
    let result!: ReturnType<typeof harness>;
    const request: Fact = { type: 'output.requested', module: '@t/app/one', variant: PROD };
    scheduler.run(({ cold, hot, expectObservable }) => {
      // Three requests for the production output arrive in the same frame, a fourth while it builds.
      result = harness(cold, hot<Fact>('a 9ms (rrr) r', { a: { type: 'workspace.read', workspace: workspace('one') }, r: request }), 3);
      expectObservable(result.types$, '^ 19ms !').toBe('s 2ms d 6ms s 2ms d', T);
    });
    const production = result.jobs.filter(({ job }) => job.variant === PROD);
    expect(production).to.have.length(1);
    expect(result.store.getState().builds['@t/app/one']!.variants[PROD]!.status).to.equal('done');
  });

  it('runs no more jobs at once than its concurrency, plus the lanes kept for requests', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ cold, hot }) => {
      result = harness(cold, hot<Fact>('a 9ms (bc)', { a: { type: 'workspace.read', workspace: workspace('one', 'two') }, b: changed('x'), c: { type: 'files.changed', files: { 'app/two/index.ts': 'y' }, source: 'watcher' } }), 3);
    });
    // The edits of both modules rebuild them one by one; with concurrency 1 the second waits.
    const rebuilds = result.jobs.slice(1);
    expect(rebuilds.map(({ build$ }) => build$.subscriptions[0]!.subscribedFrame)).to.deep.equal([10, 13]);
  });

  it('starts a request in a lane kept for requests while every other lane builds', () => {
    let result!: ReturnType<typeof harness>;
    scheduler.run(({ cold, hot }) => {
      // The first start's batch takes the one lane for 9 frames; the request arrives at frame 2.
      result = harness(cold, hot<Fact>('a 1ms r', { a: { type: 'workspace.read', workspace: workspace('one', 'two') }, r: { type: 'output.requested', module: '@t/app/two', variant: PROD } }), 9);
    });
    const frames = result.jobs.map(({ job, build$ }) => [job.variant, job.modules.map(({ module }) => module.subpath), build$.subscriptions[0]!.subscribedFrame]);
    expect(frames).to.deep.equal([[DEV, ['one', 'two'], 0], [PROD, ['two'], 2]]);
  });
});

describe('builds$ after a build\'s result', () => {
  // Real time: a result's pass waits for `afterResult` (the service gives it the next turn), a
  // request's continuation in the microtasks of that turn comes first; any other fact's pass does not wait.
  it('starts what the result left waiting only when `afterResult` runs the pass; after any other fact at once', async () => {
    const store = createStore({ now: () => new Date(0) });
    store.dispatch({ type: 'service.started', format: EVENT_FORMAT, root: '/w', service: 'test' });
    const started: string[] = [];
    const finish = new Map<number, () => void>();
    const run = (job: BuildJob): Observable<readonly Fact[]> =>
      new Observable<readonly Fact[]>((subscriber) => {
        started.push(`${job.variant} ${job.modules.map(({ module }) => module.subpath).join(',')}`);
        finish.set(job.build, () => {
          subscriber.next(job.modules.map(({ module }) => ({ type: 'build.succeeded', build: job.build, module: module.specifier, variant: job.variant, outputs: { code: { hash: `code-${job.build}`, size: 1 }, styles: null }, imports: [], inputs: { [module.entry!]: `entry-${job.build}` } })));
          subscriber.complete();
        });
      });
    const deferred: (() => void)[] = [];
    const afterResult = (pass: () => void) => {
      deferred.push(pass);
      return () => deferred.splice(deferred.indexOf(pass), 1);
    };
    const subscription = builds$(store.events$, store.state$, { run, concurrency: 1, requestLanes: 0, afterResult }).subscribe((facts) => store.dispatch(facts));
    const microtasks = async () => {
      for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
    };
    try {
      store.dispatch({ type: 'workspace.read', workspace: workspace('one') });
      await microtasks();
      expect(started).to.deep.equal([`${DEV} one`]);
      // A request while the one lane builds: it waits for that build's result.
      store.dispatch({ type: 'output.requested', module: '@t/app/one', variant: PROD });
      await microtasks();
      expect(started).to.have.length(1);
      finish.get(1)!();
      await microtasks();
      expect(started, 'a pass in the microtasks of the result').to.have.length(1);
      expect(deferred).to.have.length(1);
      deferred.shift()!();
      await microtasks();
      expect(started).to.deep.equal([`${DEV} one`, `${PROD} one`]);
      finish.get(2)!();
      await microtasks();
      deferred.shift()!();
      // An edit's pass is not deferred: its build starts in the same turn.
      store.dispatch({ type: 'files.changed', files: { 'app/one/index.ts': 'edited' }, source: 'watcher' });
      await microtasks();
      expect(started).to.have.length(3);
      expect(deferred).to.deep.equal([]);
    } finally {
      subscription.unsubscribe();
    }
  });
});
