// Build scheduling: turns what the state says needs building into build jobs.
//
// - A variant is built when it is pending and wanted (the default variant of every module,
//   or one a request asked for); requested ones go first.
// - One job per variant needing it: requests arriving while it builds wait for the same
//   job (the reducer marks it `building`), so concurrent requests share one build.
// - Modules never built are batched into one bundler call per (bundler, variant); a module
//   built before is rebuilt on its own, incrementally.
// - A job whose every module went stale again (a newer change) is cancelled; the reducer
//   drops any result that is not the one a variant waits for.
// - At most `concurrency` jobs run, plus a few lanes kept for requests.
import { asapScheduler, audit, Observable, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';
import type { BuildReason, CoreEvent, Fact, Facts } from '../store/events.js';
import { selectBuildQueue, selectSharedFileCopies, selectSharedFiles, type BuildTarget } from '../store/selectors.js';
import { bundlerKey } from '../workspace/model.js';
import type { ServiceState } from '../store/state.js';
import type { ModuleModel } from '../workspace/model.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { workspaceBoundaries } from '../workspace/boundaries.js';
import { packageDeclarations, type ModuleDeclaration } from '../workspace/shared-files.js';
import type { BuildJob, RunBuild } from '../io/build-runner.js';
import { guarded, type EffectScheduling } from './effect.js';

export interface BuildsDeps extends EffectScheduling {
  run: RunBuild;
  /** Jobs running at once; requests may use `requestLanes` more. */
  concurrency: number;
  requestLanes?: number;
  /** Modules compiled by one bundler call (fewer when fewer wait). */
  batchSize?: number;
  /** Numbers builds; shared by the restarts of the effect, so a number is never used twice. */
  buildNumbers?: { next(): number };
  /**
   * When the pass after a build's result runs (the service: the next turn of the event loop),
   * returning its cancel: the request that waited for that result is answered first (README
   * "Performance"). Absent: that pass runs as every other.
   */
  afterResult?: (pass: () => void) => () => void;
}

const isResult = (event: CoreEvent): boolean => event.type === 'build.succeeded' || event.type === 'build.failed';

/** Build numbers from 1. */
export const counter = (): { next(): number } => {
  let last = 0;
  return { next: () => ++last };
};

type Running = Map<number, { job: BuildJob; subscription: Subscription }>;

// The running builds no module of which waits for any more: stopped, and told cancelled.
function cancelStale(running: Running, state: ServiceState, subscriber: Subscriber<Facts>) {
  for (const [build, { job, subscription }] of running) {
    const wanted = job.modules.some(({ module }) => state.builds[module.specifier]?.variants[job.variant]?.build === build);
    if (wanted) continue;
    running.delete(build);
    subscription.unsubscribe();
    subscriber.next({ type: 'build.cancelled', build, reason: 'every module of the build changed again before it finished' });
  }
}

// Scheduled after the events of a turn are reduced: a burst of changes makes one pass,
// and the jobs it starts are reduced at once, before the next pass looks at the state.
// After a build's result, later still when `afterResult` says so: nothing of the pass is
// on the way of the answer that waited for it.
function passTiming(event$: Observable<CoreEvent>, scheduler: SchedulerLike, afterResult: BuildsDeps['afterResult']): { passTime: () => Observable<void>; events: Subscription } {
  let lastWasResult = false;
  const events = event$.subscribe((event) => void (lastWasResult = isResult(event)));
  const passTime = () =>
    new Observable<void>((timing) => {
      let cancel: (() => void) | undefined;
      const fire = () => {
        timing.next();
        timing.complete();
      };
      const action = scheduler.schedule(() => {
        if (lastWasResult && afterResult) cancel = afterResult(fire);
        else fire();
      });
      return () => {
        action.unsubscribe();
        cancel?.();
      };
    });
  return { passTime, events };
}

export function builds$(event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: BuildsDeps): Observable<Facts> {
  const requestLanes = deps.requestLanes ?? 2;
  // The lanes a job may take: the plain ones, and the request lanes for a requested one.
  const capacityOf = (requested: boolean) => deps.concurrency + (requested ? requestLanes : 0);
  const batchSize = deps.batchSize ?? 100;
  const buildNumbers = deps.buildNumbers ?? counter();
  return new Observable<Facts>((subscriber) => {
    const running: Running = new Map();
    let orphansCancelled = false;

    // Builds the state waits for that no job of this instance runs: those of an instance that
    // failed (the supervisor restarted it). Cancelled, they are scheduled again.
    function cancelOrphans(state: ServiceState): boolean {
      orphansCancelled = true;
      const orphans = buildingNow(state);
      for (const build of orphans) subscriber.next({ type: 'build.cancelled', build, reason: 'the builds effect restarted after a failure' });
      return orphans.size > 0;
    }

    // The job runs first, then its start is recorded: a loaded bundler is called in this turn,
    // so esbuild works while the store records the start (its result comes in a later turn,
    // after `build.started`, whatever it is).
    function start(job: BuildJob, reason: BuildReason) {
      const subscription = deps.run(job).subscribe({
        next: (fact) => subscriber.next(fact),
        error: (error) => subscriber.error(error),
        complete: () => running.delete(job.build),
      });
      if (!subscription.closed) running.set(job.build, { job, subscription });
      subscriber.next(startedFact(job, reason));
    }

    function schedule(state: ServiceState) {
      // The cancellations make a new state, which the next pass schedules from.
      if (!orphansCancelled && cancelOrphans(state)) return;
      cancelStale(running, state, subscriber);
      // A build that bundled a copy of a file other modules of its package reach too builds again,
      // importing it (README "Shared files"); a build asked to import it records so. One that
      // imported a file shared no more builds again too, bundling it.
      const copies = selectSharedFileCopies(state);
      if (copies.length > 0) return subscriber.next({ type: 'copies.found', copies: copies.map(({ module, variant, build, file, unshared }) => ({ module, variant, build, file, ...(unshared ? { unshared } : {}) })) });
      // Every lane taken: nothing can start, and a first start passes here after each of its
      // facts with 1,000 modules waiting, which need not be looked at or grouped each time.
      if (running.size >= capacityOf(true)) return;
      const queue = selectBuildQueue(state);
      if (queue.length === 0) return;
      // Requested targets come first: with the plain lanes taken, a queue whose first target was
      // not requested holds none that may use the request lanes.
      if (running.size >= capacityOf(queue[0]!.requested)) return;
      for (const group of groupTargets(queue)) {
        const capacity = capacityOf(group.some((target) => target.requested));
        if (running.size >= capacity) continue;
        for (const chunk of chunkTargets(group, batchSize)) {
          if (running.size >= capacity) break;
          start(jobOf(chunk, state, buildNumbers.next()), reasonOf(chunk));
        }
      }
    }

    const { passTime, events } = passTiming(event$, deps.scheduler ?? asapScheduler, deps.afterResult);
    const subscription = state$.pipe(audit(passTime)).subscribe({
      next: guarded(subscriber, schedule),
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    return () => {
      events.unsubscribe();
      subscription.unsubscribe();
      for (const { subscription: job } of running.values()) job.unsubscribe();
      running.clear();
    };
  });
}

/** The builds the state says are running. */
function buildingNow(state: ServiceState): Set<number> {
  const building = new Set<number>();
  for (const builds of Object.values(state.builds)) {
    for (const variant of Object.values(builds.variants)) if (variant.status === 'building' && variant.build !== null) building.add(variant.build);
  }
  return building;
}

/** One bundler call for `chunk`: what each module was last built from, its package, the workspace's boundaries and shared files. */
function jobOf(chunk: BuildTarget[], state: ServiceState, build: number): BuildJob {
  const first = chunk[0]!;
  const index = indexWorkspace(state.workspace);
  return {
    build,
    variant: first.variant,
    bundler: first.module.bundler,
    incremental: chunk.length === 1 && first.rebuilt,
    workspace: workspaceBoundaries(state.workspace),
    shared: Object.fromEntries(selectSharedFiles(state)),
    declarations: declarationsOfPackages(state, chunk),
    modules: chunk.map((target) => {
      const last = state.builds[target.module.specifier]?.variants[target.variant]?.last;
      return {
        module: target.module,
        generation: target.generation,
        previousInputs: last?.inputs ?? null,
        previousCode: last?.outputs?.code.hash ?? null,
        manifest: packageManifest(state, target.module),
        packageDir: index.packages.get(target.module.package)?.dir,
      };
    }),
  };
}

// The declarations of the packages of a job's modules, each list the one the workspace model keeps.
function declarationsOfPackages(state: ServiceState, chunk: readonly BuildTarget[]): Record<string, readonly ModuleDeclaration[]> {
  const byPackage = packageDeclarations(state.workspace);
  const declarations: Record<string, readonly ModuleDeclaration[]> = {};
  for (const { module } of chunk) declarations[module.package] ??= byPackage.get(module.package) ?? [];
  return declarations;
}

const startedFact = (job: BuildJob, reason: BuildReason): Fact => ({
  type: 'build.started',
  build: job.build,
  variant: job.variant,
  bundler: job.bundler.name,
  reason,
  modules: job.modules.map(({ module, generation }) => ({ module: module.specifier, generation })),
});

const reasonOf = (chunk: BuildTarget[]): BuildReason => (chunk.some((target) => target.requested) ? 'request' : chunk.every((target) => target.changed) ? 'change' : 'startup');

// Each pass groups every waiting target, and a first start passes once per finished build: the
// key of a module (the same object until its declaration changes) is made once, not 1,000 times a pass.
const compilationKeys = new WeakMap<ModuleModel, string>();
function compilationKey(module: ModuleModel): string {
  let key = compilationKeys.get(module);
  if (key === undefined) compilationKeys.set(module, (key = `${bundlerKey(module.bundler)}\0${JSON.stringify(module.define ?? null)}`));
  return key;
}

// Targets that can share a bundler call: same variant and bundler. Requested groups first.
function groupTargets(queue: BuildTarget[]): BuildTarget[][] {
  const groups = new Map<string, BuildTarget[]>();
  for (const target of queue) {
    const key = `${target.variant}\0${compilationKey(target.module)}\0${target.rebuilt ? 'again' : 'first'}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(target);
  }
  return [...groups.values()].sort((a, b) => Number(b.some((t) => t.requested)) - Number(a.some((t) => t.requested)));
}

// Modules built before are rebuilt one by one (incrementally); new ones are batched. The
// size is fixed, not a share of what waits: a share shrinks as jobs finish and leaves a
// long tail of ever smaller calls. Chunks are large enough for esbuild to use every core
// within one call and small enough that JavaScript works on one while esbuild builds the next.
function chunkTargets(group: BuildTarget[], size: number): BuildTarget[][] {
  if (group[0]!.rebuilt) return group.map((target) => [target]);
  const chunks: BuildTarget[][] = [];
  for (let index = 0; index < group.length; index += size) chunks.push(group.slice(index, index + size));
  return chunks;
}

/** The package.json that selects the module's bundler, relative to the workspace. */
function packageManifest(state: ServiceState, module: ModuleModel): string | undefined {
  const dir = indexWorkspace(state.workspace).packages.get(module.package)?.dir;
  return dir === undefined ? undefined : dir === '.' || dir === '' ? 'package.json' : `${dir}/package.json`;
}
