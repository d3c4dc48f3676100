// What the effects are given (`EffectDeps`, ARCHITECTURE.md "Layers"): the file hashes, the
// output cache, the bundler registry, the build cache and the team's remote cache, made once
// for the service's life. The composition root (src/service.ts) keeps the parts it closes.
import os from 'node:os';
import path from 'node:path';
import { asapScheduler } from 'rxjs';
import { createBundlerRegistry, type BundlerRegistry } from '../bundlers/registry.js';
import { ESBUILD_VERSION, startEsbuildEarly } from '../bundlers/esbuild-service.js';
import { bundlersCodeHash, workspaceReaderCodeHash } from '../code-hash.js';
import { counter } from '../effects/builds.js';
import type { EffectDeps } from '../effects/table.js';
import { createActivity, type Activity } from '../http/activity.js';
import { cacheLocation, createBuildCache, type BuildCache, type SavedBuild } from '../io/build-cache.js';
import { openEventFile } from '../io/event-file.js';
import { createAssetFiles } from '../io/asset-files.js';
import { createBuildRunner } from '../io/build-runner.js';
import { createFileHashes, type FileHashes, type FileHashesOptions } from '../io/file-hashes.js';
import type { WatchProof } from '../io/freshness.js';
import { createRemoteClient, START_BUDGET_MS, type ClientLimits, type RemoteClient } from '../io/remote-cache/client.js';
import type { RemoteCacheSettings } from '../io/remote-cache/settings.js';
import { createStartRestore } from '../io/remote-cache/start-restore.js';
import { teamModel } from '../io/remote-cache/model-entry.js';
import { onePassReader } from '../io/workspace-reads.js';
import { readWithLinks } from '../io/read-links.js';
import { watchTree, type TreeWatcher } from '../io/tree-watcher.js';
import { resolveModule } from '../load-module.js';
import { createOutputCache, type OutputCache } from '../outputs/output-cache.js';
import type { ServiceState } from '../store/state.js';
import { VERSION } from '../version.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { readWorkspace } from '../workspace/read-workspace.js';
import type { KnownIdentities } from '../workspace/known-identity.js';

/** The options of `startService` these parts read (documented on `ServiceOptions`). */
export interface EffectDepsOptions {
  concurrency?: number;
  watchLimit?: number;
  cache?: boolean | string;
  fileHashes?: FileHashesOptions & { now?: () => number };
  remoteCache?: { settings: RemoteCacheSettings; limits?: ClientLimits } | null;
  record?: string;
  effectDeps?: (deps: EffectDeps) => EffectDeps;
}

export interface EffectMachinery {
  deps: EffectDeps;
  hashes: FileHashes;
  outputs: OutputCache;
  registry: BundlerRegistry;
  cache: BuildCache | null;
  /** What the build cache's keys are made of besides the sources: this service, esbuild, the bundlers' code. */
  identity: { service: string; esbuild: string; bundlers: string };
  remoteClient: RemoteClient | null;
  activity: Activity;
  /** The tree watcher's proof of silence while the watch effect runs: it spares the check a stat (README "Addresses"). */
  quiet(): WatchProof | null;
}

export function createEffectDeps(root: string, logger: (message: string) => void, options: EffectDepsOptions): EffectMachinery {
  // Reads ahead on the second core are stamped by the real clock: not with a clock of the tests'.
  const hashes = createFileHashes(root, options.fileHashes?.now, { readAhead: options.fileHashes?.now === undefined, ...options.fileHashes });
  const outputs = createOutputCache();
  let treeWatcher: TreeWatcher | null = null;
  // The builds ask the watcher, when they make their options, whether a link leads out (README
  // "Links and large trees"): none running (before its first walk, between two), no word.
  const registry = createBundlerRegistry(root, resolveModule, { noLinkLeadsOut: () => treeWatcher?.noLinkLeadsOut() === true, linkLeadsOut: () => treeWatcher?.linkLeadsOut() === true });
  const identity = { service: VERSION, esbuild: ESBUILD_VERSION, bundlers: bundlersCodeHash() };
  const cache = options.cache ? createBuildCache(typeof options.cache === 'string' ? path.resolve(options.cache) : cacheLocation(root), root, identity, { hashes, outputs, reader: workspaceReaderCodeHash(), logger }) : null;
  const remote = cache && options.remoteCache ? { ...options.remoteCache, client: createRemoteClient(options.remoteCache.settings, { budgetMs: START_BUDGET_MS, ...options.remoteCache.limits }) } : null;
  if (buildsEverything(cache, remote !== null)) startEsbuildEarly();
  const team = remote ? teamModel({ client: remote.client, url: remote.settings.base.href, identity: { service: VERSION, reader: workspaceReaderCodeHash() }, publicKey: remote.settings.publicKey, hashes }) : null;
  // A machine without a build cache asks for the model while it boots; one whose saved model no
  // longer holds asks at its first read (`manifests$`), README "A team's remote cache".
  if (team && !cache!.hasIndex()) team.ask();
  const activity = createActivity();
  const baseDeps: EffectDeps = {
    root,
    scheduler: asapScheduler,
    logger,
    readWorkspace: cache ? (deepImports, known) => readNotingLinks(cache, hashes, deepImports, known) : (deepImports, known) => readWorkspace(onePassReader(hashes), deepImports, known),
    ...(cache
      ? {
          restoreWorkspace: () => cache.restoreWorkspace(),
          savedWorkspace: () => cache.savedWorkspace(),
          ...(team
            ? {
                // The team's model, once taken, is saved with the links its read asked, as a model read here is.
                restoreTeamWorkspace: (deepImports: readonly string[]) =>
                  team.restore(deepImports)?.then(({ links, ...taken }) => {
                    if (taken.workspace && links) cache.links.set(taken.workspace.sources, links);
                    return taken;
                  }) ?? null,
              }
            : {}),
          restoreBuilds: remote ? createStartRestore({ cache, client: remote.client, settings: remote.settings, identity, outputs, logger, ...(hashes.readAhead ? { readAhead: hashes.readAhead } : {}), ...(hashes.sha256Ahead ? { sha256Ahead: hashes.sha256Ahead } : {}), ...(team ? { earlierFailures: team.failures } : {}) }) : (workspace: WorkspaceModel) => cache.restore(workspace),
          saveBuilds: (builds: readonly SavedBuild[], state: ServiceState) => cache.save(builds, state.workspace),
        }
      : {}),
    run: createBuildRunner({ registry, outputs, hashes, quiet: () => treeWatcher, assets: createAssetFiles(root) }),
    afterResult: (pass) => {
      const next = setImmediate(pass);
      return () => clearImmediate(next);
    },
    concurrency: options.concurrency ?? Math.max(2, os.availableParallelism()),
    buildNumbers: counter(),
    hashes,
    outputs,
    createWatcher: (dir, ignored, complete) => (treeWatcher = watchTree(dir, { ignored, ...(complete ? { complete } : {}) })),
    anticipate: (saved, bytesOf) => registry.anticipate?.(saved, bytesOf),
    // After the first page: its join and the walk of a large tree each wanted both cores.
    requestsInProgress$: activity.inProgress$,
    watchLimit: options.watchLimit ?? watchLimitFromEnvironment(logger),
    ...(options.record ? { recordFile: path.resolve(options.record) } : {}),
    openEventFile: (file) => openEventFile(file, root),
    warn: logger,
  };
  const deps = options.effectDeps ? options.effectDeps(baseDeps) : baseDeps;
  const quiet = () => treeWatcher;
  return { deps, hashes, outputs, registry, cache, identity, remoteClient: remote?.client ?? null, activity, quiet };
}

// The build cache saves a model with what its read asked of links (README "The build cache").
function readNotingLinks(cache: BuildCache, hashes: FileHashes, deepImports: readonly string[], known: KnownIdentities | undefined): WorkspaceModel {
  const { model, links } = readWithLinks(hashes, deepImports, known);
  cache.links.set(model.sources, links);
  return model;
}

/**
 * A first start: no build cache yet (or none asked for) and no team cache to restore from, so
 * every module is built, and esbuild's process is started beside the workspace read, not after
 * it (README "Performance"). A cache of another workspace or version is not looked into.
 */
export function buildsEverything(cache: Pick<BuildCache, 'hasIndex'> | null, remote: boolean): boolean {
  return !remote && (cache === null || !cache.hasIndex());
}

function watchLimitFromEnvironment(logger: (message: string) => void): number | undefined {
  const text = process.env.CORE_WATCH_LIMIT;
  if (text === undefined || text === '') return undefined;
  const limit = Number(text);
  if (Number.isInteger(limit) && limit > 0) return limit;
  logger(`core: CORE_WATCH_LIMIT must be a whole number above 0; got "${text}", so the default applies`);
  return undefined;
}
