// `core dist` asks the team's remote cache before building (README "A team's remote cache"):
// each module's production build it holds, verified as a start verifies it (the local cache's
// checks of the entry against this disk, every blob re-hashed), is taken as the bundler's result
// would be: judged, and built again here like any other when a shared file asks for it; the
// rest is built.
import { ESBUILD_VERSION } from '../bundlers/esbuild-service.js';
import { bundlersCodeHash, workspaceReaderCodeHash } from '../code-hash.js';
import { createOutputCache } from '../outputs/output-cache.js';
import { createBuildCache } from '../io/build-cache.js';
import type { FileHashes } from '../io/file-hashes.js';
import { createRemoteClient, START_BUDGET_MS, type ClientLimits } from '../io/remote-cache/client.js';
import { restoreFromRemote, type RemoteRestored } from '../io/remote-cache/restore.js';
import type { RemoteCacheSettings } from '../io/remote-cache/settings.js';
import { BUILTIN_BUNDLERS } from '../workspace/read-workspace.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { variantKey } from '../workspace/variant.js';
import { VERSION } from '../version.js';
import type { BundleResult } from '../bundlers/types.js';
import type { OutputRef } from '../store/events.js';
import type { DistributionJob } from './plan-distribution.js';

const BUILTIN = new Set(Object.values(BUILTIN_BUNDLERS));

export interface RemoteResults {
  /** By module specifier: each a build as the bundler would have returned it. */
  results: Map<string, BundleResult>;
  restored: RemoteRestored;
}

export async function remoteResults(root: string, workspace: WorkspaceModel, jobs: readonly DistributionJob[], deps: { hashes: FileHashes; settings: RemoteCacheSettings; limits?: ClientLimits }): Promise<RemoteResults> {
  const identity = { service: VERSION, esbuild: ESBUILD_VERSION, bundlers: bundlersCodeHash() };
  const outputs = createOutputCache();
  // Only its checker is used: the entries are judged by the very code a local restore runs; nothing is written.
  const checker = createBuildCache(root, root, identity, { hashes: deps.hashes, outputs, reader: workspaceReaderCodeHash() }).entryChecker(workspace);
  const wanted = jobs.filter((job) => BUILTIN.has(job.bundler.specifier)).flatMap((job) => job.modules.map((module) => ({ module, variant: variantKey(job.variant) })));
  // Its questions have a start's budget: past it, the rest is built (README "A team's remote cache").
  const client = createRemoteClient(deps.settings, { budgetMs: START_BUDGET_MS, ...deps.limits });
  let restored: RemoteRestored;
  try {
    restored = await restoreFromRemote(workspace, wanted, wanted, { client, url: deps.settings.base.href, identity, publicKey: deps.settings.publicKey, check: checker, outputs });
  } finally {
    client.close();
  }
  const results = new Map<string, BundleResult>();
  for (const build of restored.builds) {
    const bytes = (ref: OutputRef) => outputs.get(ref.hash)!;
    const chunks = build.outputs.chunks ? Object.fromEntries(Object.entries(build.outputs.chunks).map(([specifier, ref]) => [specifier, bytes(ref)])) : undefined;
    results.set(build.module, {
      specifier: build.module,
      code: bytes(build.outputs.code),
      styles: build.outputs.styles ? bytes(build.outputs.styles) : null,
      inputs: Object.keys(build.inputs),
      // What the build only depended on, as it recorded it: never a file it read, so never a shared file.
      ...(build.resolution ? { resolution: build.resolution } : {}),
      imports: build.imports,
      ...(build.links ? { links: build.links } : {}),
      ...(build.chunkLinks ? { chunkLinks: build.chunkLinks } : {}),
      ...(build.sharedImports ? { sharedImports: build.sharedImports } : {}),
      ...(build.shims ? { shims: build.shims } : {}),
      errors: [],
      ...(build.warnings ? { warnings: build.warnings } : {}),
      ...(chunks ? { chunks } : {}),
    });
  }
  return { results, restored };
}
