// Reads the manifests again whenever one of them (or a directory searched for module.json
// files) changed, and on start: `workspace.read` when the model changed, else
// `workspace.unchanged` with the new hashes of what was read.
import { asapScheduler, distinctUntilChanged, filter, map, observeOn, type Observable } from 'rxjs';
import type { CoreEvent, Fact } from '../store/events.js';
import type { ServiceState } from '../store/state.js';
import type { WorkspaceModel } from '../workspace/model.js';
import type { EffectScheduling } from './effect.js';

export interface ManifestsDeps extends EffectScheduling {
  readWorkspace(): WorkspaceModel;
}

export function manifests$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: ManifestsDeps): Observable<Fact> {
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
    map((): Fact => {
      const workspace = deps.readWorkspace();
      const before = current!;
      if (before.workspaceRead && sameModel(before.workspace, workspace)) return { type: 'workspace.unchanged', sources: workspace.sources };
      return { type: 'workspace.read', workspace };
    }),
  );
}

function sameModel(a: WorkspaceModel, b: WorkspaceModel): boolean {
  const { sources: _a, ...restA } = a;
  const { sources: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}
