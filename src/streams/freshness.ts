// The check before answering (contract §4, §5): a request is answered only from state built
// from what is on disk now. The watcher is fast but can miss or delay a change; this check
// compares the recorded hashes of the manifests and of the inputs the answer depends on with
// the disk, and reports what differs as `files.changed` before the answer is derived.
//
// All requests arriving in one turn of the event loop share one pass: under load the cost
// of the check is spread over them, and each pass still starts after its requests arrived.
import type { Fact, InputHashes } from '../store/events.js';
import { defaultVariantKey } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import type { FileHashes } from './file-hashes.js';

export type CheckScope =
  /** The manifests only. */
  | { kind: 'workspace' }
  /** The manifests and the inputs of one module variant. */
  | { kind: 'variant'; module: string; variant: string }
  /** The manifests and the inputs of every module's default variant. */
  | { kind: 'all' };

export interface FreshnessCheck {
  check(scope: CheckScope): Promise<void>;
}

export interface FreshnessDeps {
  hashes: FileHashes;
  getState(): ServiceState;
  dispatch(fact: Fact): void;
  /** When the shared pass runs; the next turn of the event loop by default. */
  schedule?(run: () => void): void;
}

export function createFreshnessCheck(deps: FreshnessDeps): FreshnessCheck {
  const schedule = deps.schedule ?? ((run) => void setImmediate(run));
  let pending: { scopes: CheckScope[]; waiting: (() => void)[] } | null = null;

  function pass() {
    const { scopes, waiting } = pending!;
    pending = null;
    try {
      const changed = findChanges(deps.getState(), scopes, deps.hashes);
      if (changed) deps.dispatch({ type: 'files.changed', files: changed, source: 'check' });
    } finally {
      for (const resolve of waiting) resolve();
    }
  }

  return {
    check(scope) {
      return new Promise<void>((resolve) => {
        if (!pending) {
          pending = { scopes: [], waiting: [] };
          schedule(pass);
        }
        pending.scopes.push(scope);
        pending.waiting.push(resolve);
      });
    },
  };
}

/** The paths whose content differs from what the state recorded, with their hashes now. */
export function findChanges(state: ServiceState, scopes: readonly CheckScope[], hashes: FileHashes): InputHashes | null {
  const recorded = new Map<string, Set<string | null>>();
  const expect = (path: string, hash: string | null) => {
    let known = recorded.get(path);
    if (!known) recorded.set(path, (known = new Set()));
    known.add(hash);
  };
  // A stale workspace is being read again anyway.
  if (!state.workspaceStale) {
    for (const [path, hash] of Object.entries(state.workspace.sources)) expect(path, hash);
  }
  const expectInputs = (module: string, variant: string) => {
    const entry = state.builds[module]?.variants[variant];
    // Only a finished build can be stale; a pending or running one reads the disk anyway.
    if (entry?.status !== 'done' || !entry.last) return;
    for (const [path, hash] of Object.entries(entry.last.inputs)) expect(path, hash);
  };
  for (const scope of scopes) {
    if (scope.kind === 'variant') expectInputs(scope.module, scope.variant);
    if (scope.kind === 'all') {
      for (const module of state.workspace.modules) expectInputs(module.specifier, defaultVariantKey(module));
    }
  }
  let changed: InputHashes | null = null;
  for (const [path, known] of recorded) {
    const now = hashes.hash(path);
    if (known.size === 1 && known.has(now)) continue;
    (changed ??= {})[path] = now;
  }
  return changed;
}
