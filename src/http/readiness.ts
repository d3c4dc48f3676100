// Waiting, on behalf of a request, until the state answers from the current sources:
// first the check against the disk, then the manifests read again, then the builds.
import { EmptyError, filter, firstValueFrom, type Observable } from 'rxjs';
import type { Fact } from '../store/events.js';
import { selectAnswerable, selectSettled } from '../store/selectors.js';
import type { BuildRecord, ServiceState } from '../store/state.js';
import type { CheckScope, FreshnessCheck } from '../io/freshness.js';
import { isBuildable, isDeepImport, keepsNoMoreDeepImports } from '../store/reducer.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { ServiceError, unbuildable } from './errors.js';

export interface Readiness {
  /** The manifests (and the inputs `scope` names) checked, and the workspace read again if needed. */
  /** `checked`: the disk was looked at just now (the first read at start): no check runs. */
  workspace(scope?: CheckScope, checked?: boolean): Promise<ServiceState>;
  /** A finished build of the variant from the current sources; null when the module is gone. */
  variant(module: string, variant: string): Promise<{ state: ServiceState; record: BuildRecord } | null>;
  /**
   * Every module's default variant built from the current sources: what `/state` answers.
   * `check: false` for a waiter that is no request (the terminal's ready line): the first
   * settled state, without the check against the disk that an answer owes its request.
   */
  settled(check?: boolean): Promise<ServiceState>;
  /**
   * A file of a package without `exports` asked for by its address before any module imported
   * it: the workspace read again with it (README "Exports and sources"). The state after that
   * read; `state` itself when the address names no such file to look for.
   */
  deepModule(state: ServiceState, module: string, variant: string): Promise<ServiceState>;
}

export interface ReadinessDeps {
  state$: Observable<ServiceState>;
  getState(): ServiceState;
  /** The service's supervised dispatch: false when reducing the fact failed (a defect, reported). */
  dispatch(fact: Fact): boolean;
  freshness: FreshnessCheck;
}

export function createReadiness(deps: ReadinessDeps): Readiness {
  const when = (predicate: (state: ServiceState) => boolean): Promise<ServiceState> => {
    const now = deps.getState();
    if (predicate(now)) return Promise.resolve(now);
    return firstValueFrom(deps.state$.pipe(filter(predicate))).catch((error: unknown) => {
      // The store completed first: the service closed while this request waited, an expected
      // end (README "The programmatic API"), answered SERVICE_CLOSING, nothing logged.
      if (error instanceof EmptyError) throw new ServiceError('SERVICE_CLOSING', 'the service is closing: the state this answer waited on will not come');
      throw error;
    });
  };
  const workspaceRead = (state: ServiceState) => state.workspaceRead && !state.workspaceStale;
  // A request whose fact was not reduced would wait for a build nobody starts: it fails now (a 500).
  const request = (module: string, variant: string) => {
    if (!deps.dispatch({ type: 'output.requested', module, variant })) throw new Error(`the request of ${module} (${variant}) could not be reduced`);
  };

  return {
    async workspace(scope = { kind: 'workspace' }, checked = false) {
      if (!checked) await deps.freshness.check(scope);
      return when(workspaceRead);
    },

    async variant(module, variant) {
      for (;;) {
        const state = await when(workspaceRead);
        const builds = state.builds[module];
        if (!builds) return null;
        // The manifest may have broken since the route looked: an unbuildable module has no
        // variants and ignores requests, so waiting for a build would wait forever.
        const declared = indexWorkspace(state.workspace).modules.get(module);
        if (declared && !isBuildable(declared)) {
          throw unbuildable(module, declared.diagnostics);
        }
        const entry = builds.variants[variant];
        if (entry?.status === 'done' && entry.last && selectAnswerable(state, module, variant)) return { state, record: entry.last };
        // A request forces a build only of a variant nobody else is building or queueing.
        if (!entry || (entry.status === 'pending' && !entry.eager && !entry.requested)) {
          request(module, variant);
        }
        // Built, but not yet answerable: the builds of other modules decide (README "Shared files").
        if (entry?.status === 'done') await when((next) => next.builds !== state.builds || !workspaceRead(next));
        else await when((next) => next.builds[module] !== builds || !workspaceRead(next));
      }
    },

    async deepModule(state, module, variant) {
      const index = indexWorkspace(state.workspace);
      if (!isDeepImport(index, module) || index.modules.has(module) || state.deepImports?.includes(module)) return state;
      request(module, variant);
      // Once the reducer took it (or keeps no more), and the workspace was read with it.
      return when((next) => workspaceRead(next) && (next.deepImports?.includes(module) === true || keepsNoMoreDeepImports(next)));
    },

    async settled(check = true) {
      if (check) await deps.freshness.check({ kind: 'all' });
      return when(selectSettled);
    },
  };
}
