// `core dist` asks the team's remote cache before building (README "A team's remote cache"):
// each module's production build it holds, verified as a start verifies it (the local cache's
// checks of the entry against this disk, every blob re-hashed), is judged as a fresh build
// would be and leaves the plan; the rest is built.
import { ESBUILD_VERSION } from '../bundlers/esbuild-service.js';
import { bundlersCodeHash, workspaceReaderCodeHash } from '../code-hash.js';
import { createOutputCache } from '../outputs/output-cache.js';
import { createBuildCache } from '../streams/build-cache.js';
import type { FileHashes } from '../streams/file-hashes.js';
import { createRemoteClient, type ClientLimits } from '../streams/remote-cache/client.js';
import { restoreFromRemote, type RemoteRestored } from '../streams/remote-cache/restore.js';
import type { RemoteCacheSettings } from '../streams/remote-cache/settings.js';
import { BUILTIN_BUNDLERS } from '../workspace/read-workspace.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';
import { variantKey } from '../workspace/variant.js';
import { VERSION } from '../version.js';
import type { AssetContent, ModuleOutcome } from './judge-module.js';
import { judgeModule } from './judge-module.js';
import type { DistributionJob } from './plan-distribution.js';

const BUILTIN = new Set(Object.values(BUILTIN_BUNDLERS));

export interface RemoteOutcomes {
  /** The jobs left to build: without the modules the remote gave. */
  jobs: DistributionJob[];
  outcomes: ModuleOutcome[];
  restored: RemoteRestored;
}

export async function remoteOutcomes(
  root: string,
  workspace: WorkspaceModel,
  jobs: readonly DistributionJob[],
  deps: { hashes: FileHashes; settings: RemoteCacheSettings; limits?: ClientLimits; readAssets(module: ModuleModel): AssetContent[] },
): Promise<RemoteOutcomes> {
  const identity = { service: VERSION, esbuild: ESBUILD_VERSION, bundlers: bundlersCodeHash() };
  const outputs = createOutputCache();
  // Only its checker is used: the entries are judged by the very code a local restore runs; nothing is written.
  const checker = createBuildCache(root, root, identity, { hashes: deps.hashes, outputs, reader: workspaceReaderCodeHash() }).entryChecker(workspace);
  const wanted = jobs.filter((job) => BUILTIN.has(job.bundler.specifier)).flatMap((job) => job.modules.map((module) => ({ module, variant: variantKey(job.variant), target: job.variant.target })));
  const client = createRemoteClient(deps.settings, deps.limits);
  let restored: RemoteRestored;
  try {
    restored = await restoreFromRemote(workspace, wanted, wanted, { client, url: deps.settings.base.href, identity, publicKey: deps.settings.publicKey, check: checker, outputs });
  } finally {
    client.close();
  }
  const given = new Map(restored.builds.map((build) => [build.module, build]));
  const outcomes: ModuleOutcome[] = [];
  for (const { module, target } of wanted) {
    const build = given.get(module.specifier);
    if (!build) continue;
    const code = outputs.get(build.outputs.code.hash)!;
    const styles = build.outputs.styles ? outputs.get(build.outputs.styles.hash)! : null;
    const result = { specifier: module.specifier, code, styles, inputs: Object.keys(build.inputs), imports: build.imports, errors: [], ...(build.warnings ? { warnings: build.warnings } : {}) };
    outcomes.push(judgeModule(workspace, module, target, result, deps.readAssets(module)));
  }
  const left = jobs.map((job) => ({ ...job, modules: job.modules.filter((module) => !given.has(module.specifier)) })).filter((job) => job.modules.length > 0);
  return { jobs: left, outcomes, restored };
}
