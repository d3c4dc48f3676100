// Where the remote cache joins the start (README "A team's remote cache"): after the local
// cache's restoration, for the module variants it did not restore, before anything is built.
// What the remote gives is verified here and then written to the local cache with the rest.
import type { OutputCache } from '../../outputs/output-cache.js';
import type { Fact, Facts } from '../../store/events.js';
import { isBuildable } from '../../store/reducer.js';
import type { WorkspaceModel } from '../../workspace/model.js';
import { BUILTIN_BUNDLERS } from '../../workspace/read-workspace.js';
import { defaultVariant, variantKey } from '../../workspace/variant.js';
import type { BuildCache } from '../build-cache.js';
import type { CacheIdentity } from '../cache-index.js';
import type { RemoteClient } from './client.js';
import { restoreFromRemote, type RemoteRestoreDeps, type RemoteRestored, type WantedVariant } from './restore.js';
import type { RemoteCacheSettings } from './settings.js';

const BUILTIN = new Set(Object.values(BUILTIN_BUNDLERS));

/** The variants a start builds of every module the built-in bundlers build: the remote's keys. */
export function startVariants(workspace: WorkspaceModel): WantedVariant[] {
  return workspace.modules.filter((module) => isBuildable(module) && BUILTIN.has(module.bundler.specifier)).map((module) => ({ module, variant: variantKey(defaultVariant(module)) }));
}

export interface StartRestoreDeps {
  cache: BuildCache;
  client: RemoteClient;
  settings: RemoteCacheSettings;
  identity: CacheIdentity;
  outputs: OutputCache;
  logger?(message: string): void;
  /** Reads files on the second core (`FileHashes.readAhead`): the downloaded entries' inputs. */
  readAhead?(relatives: readonly string[]): Promise<void>;
  /** The failures of the questions asked earlier in the start (the workspace model's, `model-entry.ts`): counted with the restore's. */
  earlierFailures?(): Partial<Record<string, number>>;
  /** Hashes on the second core (`FileHashes.sha256Ahead`): the pack's parts. */
  sha256Ahead?: RemoteRestoreDeps['sha256Ahead'];
}

/** The local cache's restoration, then the remote's for what it lacked: the facts of both. */
export function createStartRestore(deps: StartRestoreDeps): (workspace: WorkspaceModel) => Promise<Facts> {
  // The worker boots while the workspace is read: the entries' inputs are its first work.
  void deps.readAhead?.([]);
  return async (workspace) => {
    const local = deps.cache.restore(workspace);
    const all = startVariants(workspace);
    const restored = new Set(local.builds.map((build) => `${build.variant} ${build.module}`));
    const wanted = all.filter((one) => !restored.has(`${one.variant} ${one.module.specifier}`));
    if (wanted.length === 0) return local;
    try {
      const remote = await restoreFromRemote(workspace, wanted, all, {
        client: deps.client,
        url: deps.settings.base.href,
        identity: deps.identity,
        publicKey: deps.settings.publicKey,
        check: deps.cache.entryChecker(workspace),
        outputs: deps.outputs,
        ...(deps.readAhead ? { readAhead: deps.readAhead } : {}),
        ...(deps.sha256Ahead ? { sha256Ahead: deps.sha256Ahead } : {}),
        // The start's requests and bytes: the client's one count since it was made, the model's
        // question included (a start restores once, README "A team's remote cache").
        countsSince: { requests: 0, bytes: 0 },
      });
      return [local, withEarlier(remote, deps.earlierFailures?.())] satisfies Fact[];
    } catch (error) {
      // As with the build cache: the team cache never keeps the service from starting.
      deps.logger?.(`core: the team cache could not be used (${(error as Error).message}); its modules are built here`);
      return local;
    }
  };
}

// The start's questions counted together: the run's warning that the team cache failed requests
// is told of the first question refused, whichever it was (README "A team's remote cache").
function withEarlier(remote: RemoteRestored, earlier: Partial<Record<string, number>> | undefined): RemoteRestored {
  if (!earlier) return remote;
  const failures = { ...remote.failures };
  for (const [kind, count] of Object.entries(earlier)) failures[kind] = (failures[kind] ?? 0) + (count ?? 0);
  return { ...remote, failures };
}
