// Reads the manifests again whenever one of them (or a directory searched for module.json
// files) changed, and on start: `workspace.read` when the model changed, else
// `workspace.unchanged` with the new hashes of what was read.
import { asapScheduler, distinctUntilChanged, filter, map, observeOn, type Observable } from 'rxjs';
import type { CoreEvent, Fact, Facts } from '../store/events.js';
import type { ServiceState } from '../store/state.js';
import type { WorkspaceModel } from '../workspace/model.js';
import type { EffectScheduling } from './effect.js';

export interface ManifestsDeps extends EffectScheduling {
  /** The model, with the deep imports of packages without `exports` that builds found (README "Exports and sources"). */
  readWorkspace(deepImports: readonly string[]): WorkspaceModel;
  /**
   * The model of an earlier run when none of the manifests and listings it was read from changed
   * (the build cache, README "The build cache"): taken for the first read instead of reading.
   */
  restoreWorkspace?(): WorkspaceModel | null;
  /**
   * The builds of an earlier run still valid for the workspace first read (the build cache,
   * README "The build cache"): dispatched with that read, so no build of them ever starts.
   */
  restoreBuilds?(workspace: WorkspaceModel): Fact;
}

export function manifests$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: ManifestsDeps): Observable<Facts> {
  let current: ServiceState | undefined;
  return state$.pipe(
    map((state) => {
      current = state;
      return !state.workspaceRead || state.workspaceStale;
    }),
    distinctUntilChanged(),
    filter(Boolean),
    // Changes arriving together are read once.
    observeOn(deps.scheduler ?? asapScheduler),
    map((): Facts => {
      const before = current!;
      const restored = before.workspaceRead ? null : (deps.restoreWorkspace?.() ?? null);
      const workspace = restored ?? deps.readWorkspace(before.deepImports ?? []);
      if (before.workspaceRead && sameModel(before.workspace, workspace)) return { type: 'workspace.unchanged', sources: workspace.sources };
      const read: Fact = restored ? { type: 'workspace.read', workspace, restored: true } : { type: 'workspace.read', workspace };
      return !before.workspaceRead && deps.restoreBuilds ? [read, deps.restoreBuilds(workspace)] : read;
    }),
  );
}

function sameModel(a: WorkspaceModel, b: WorkspaceModel): boolean {
  const { sources: _a, ...restA } = a;
  const { sources: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}
