// Reads the manifests again whenever one of them (or a directory searched for module.json
// files) changed, and on start: `workspace.read` when the model changed, else
// `workspace.unchanged` with the new hashes of what was read.
import { asapScheduler, concatMap, distinctUntilChanged, filter, from, map, observeOn, of, type Observable } from 'rxjs';
import type { CoreEvent, Fact, Facts } from '../store/events.js';
import type { ServiceState } from '../store/state.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { knownIdentities, type KnownIdentities } from '../workspace/known-identity.js';
import type { EffectScheduling } from './effect.js';

export interface ManifestsDeps extends EffectScheduling {
  /**
   * The model, with the deep imports of packages without `exports` that builds found (README
   * "Exports and sources"), and the name each package directory had before (`known`), kept for
   * one found without a package.json (README "Workspaces").
   */
  readWorkspace(deepImports: readonly string[], known?: KnownIdentities): WorkspaceModel;
  /**
   * The model of an earlier run when none of the manifests and listings it was read from changed
   * (the build cache, README "The build cache"): taken for the first read instead of reading.
   */
  restoreWorkspace?(): WorkspaceModel | null;
  /** The model the build cache saved, whether or not it still holds; null without one: a first read takes the names of its packages from it. */
  savedWorkspace?(): WorkspaceModel | null;
  /**
   * When the build cache has no model that holds (none saved, or a source changed since): the
   * model CI read, from the team's remote cache, when
   * every source it was read from holds here (README "A team's remote cache"), with the fact that
   * counts the answer; null when it cannot be asked. Taken for the first read instead of reading.
   */
  restoreTeamWorkspace?(deepImports: readonly string[]): Promise<{ workspace: WorkspaceModel | null; fact: Fact }> | null;
  /**
   * The builds of an earlier run still valid for the workspace first read (the build cache,
   * README "The build cache"): dispatched with that read, so no build of them ever starts. A
   * promise when the team's remote cache is asked too (README "A team's remote cache"): the
   * read waits for it, for the same reason.
   */
  restoreBuilds?(workspace: WorkspaceModel): Facts | Promise<Facts>;
}

export function manifests$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: ManifestsDeps): Observable<Facts> {
  let current: ServiceState | undefined;
  return state$.pipe(
    // A read that leaves the workspace stale (it opened a package whose deep imports its builds
    // recorded: src/store/reducer.ts) reads again: each read's model is another object.
    map((state) => {
      current = state;
      return !state.workspaceRead || state.workspaceStale ? state.workspace : null;
    }),
    distinctUntilChanged(),
    filter(Boolean),
    // Changes arriving together are read once.
    observeOn(deps.scheduler ?? asapScheduler),
    concatMap((): Observable<Facts> => {
      const before = current!;
      const restored = before.workspaceRead ? null : (deps.restoreWorkspace?.() ?? null);
      const team = before.workspaceRead || restored ? null : (deps.restoreTeamWorkspace?.(before.deepImports ?? []) ?? null);
      // The name a directory had at the last read of this run, else in the model the build cache saved.
      const read = () => deps.readWorkspace(before.deepImports ?? [], knownIdentities(before.workspaceRead ? before.workspace : (deps.savedWorkspace?.() ?? null)));
      if (team) return from(team).pipe(concatMap(({ workspace, fact }) => withBuilds(before, workspace ?? read(), workspace !== null, [fact])));
      return withBuilds(before, restored ?? read(), restored !== null, []);
    }),
  );

  // The read's facts (`told`: what came before it), with the builds restored for a first read.
  function withBuilds(before: ServiceState, workspace: WorkspaceModel, restored: boolean, told: Fact[]): Observable<Facts> {
    if (before.workspaceRead && sameModel(before.workspace, workspace)) return of({ type: 'workspace.unchanged', sources: workspace.sources });
    const read: Fact = restored ? { type: 'workspace.read', workspace, restored: true } : { type: 'workspace.read', workspace };
    if (before.workspaceRead || !deps.restoreBuilds) return of([...told, read]);
    const builds = deps.restoreBuilds(workspace);
    const withRead = (facts: Facts): Facts => [...told, read, ...(Array.isArray(facts) ? facts : [facts as Fact])];
    return builds instanceof Promise ? from(builds.then(withRead)) : of(withRead(builds));
  }
}

function sameModel(a: WorkspaceModel, b: WorkspaceModel): boolean {
  const { sources: _a, ...restA } = a;
  const { sources: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}
