// Runs one build job: loads the bundler, compiles, stores the outputs by content hash, hashes
// the inputs, and reports one `build.succeeded` or `build.failed` per module. Unsubscribing
// cancels the build. A failure of the bundler itself becomes `build.failed` diagnostics.
import path from 'node:path';
import { Observable } from 'rxjs';
import type { BundlerRegistry } from '../bundlers/registry.js';
import { BuildCancelled, type BundleResult, type BundleTarget, type WorkspaceBoundaries } from '../bundlers/types.js';
import type { OutputCache } from '../outputs/output-cache.js';
import type { Fact, InputHashes } from '../store/events.js';
import type { BundlerRef, ModuleModel } from '../workspace/model.js';
import type { ModuleDeclaration } from '../workspace/shared-files.js';
import { parseVariantKey } from '../workspace/variant.js';
import type { AssetFiles } from './asset-files.js';
import { bundlerFailedFacts, createBuildFacts } from './build-facts.js';
import { inputsBefore, rebuildHint } from './build-inputs.js';
import { stampingOnce, watchSequence, type FileHashes, type Recalled } from './file-hashes.js';
import { createImportLocator } from './import-locations.js';
import type { WatchProof } from './freshness.js';
import { createTsconfigInputs } from './tsconfig-inputs.js';

export interface BuildJob {
  build: number;
  variant: string;
  bundler: BundlerRef;
  /** One module built again incrementally, or several in one pass. */
  incremental: boolean;
  /** The module boundaries of the workspace the job was planned in. */
  workspace?: WorkspaceBoundaries;
  /**
   * `manifest`: the package.json that selects the bundler, named when the bundler cannot be loaded.
   * `previousCode`: the content hash of the code of the build `previousInputs` are of.
   */
  modules: { module: ModuleModel; generation: number; previousInputs: InputHashes | null; previousCode?: string | null; manifest?: string; packageDir?: string }[];
  /** The shared files of each package the state knows of (README "Shared files"): package -> file -> internal specifier. */
  shared?: Record<string, Record<string, string>>;
  /** The declarations of the modules of each package of the job: where a shared file finds the assets it imports (README "Shared files"). */
  declarations?: Record<string, readonly ModuleDeclaration[]>;
}

/** One job: its results, all at once (one change of state), then complete; never in the turn it was subscribed in (its start is recorded after). */
export type RunBuild = (job: BuildJob) => Observable<readonly Fact[]>;

export interface BuildRunnerDeps {
  registry: BundlerRegistry;
  outputs: OutputCache;
  hashes: FileHashes;
  now?: () => number;
  /** The tree watcher's proof of silence while it runs: the tsconfig places it vouches for are not stamped again (README "Addresses"). */
  quiet?: () => WatchProof | null;
  /** The router's reader of declared assets: whether an address under `/m/` a build names is served (`BundleTarget.assetServed`). */
  assets?: AssetFiles;
}

export const toBundleTarget = (module: ModuleModel, workspace?: WorkspaceBoundaries, packageDir?: string, shared?: Record<string, string>, declarations?: readonly ModuleDeclaration[]): BundleTarget => ({
  specifier: module.specifier,
  subpath: module.subpath,
  dir: module.dir,
  entry: module.entry!,
  assets: module.assets,
  platforms: module.platforms,
  ...(module.define ? { define: module.define } : {}),
  ...(workspace ? { workspace } : {}),
  ...(packageDir !== undefined ? { package: { name: module.package, dir: packageDir } } : {}),
  ...(shared && Object.keys(shared).length > 0 ? { shared } : {}),
  ...(declarations ? { declarations } : {}),
  packageAddress: `/m/${module.package}@${module.version}/`,
});

export function createBuildRunner(deps: BuildRunnerDeps): RunBuild {
  const now = deps.now ?? Date.now;
  // A job's results are recorded in one run, each path they name stamped once (`stampingOnce`).
  const stamps = stampingOnce(deps.hashes);
  const tsconfigInputs = createTsconfigInputs(stamps.hashes, deps.quiet);
  const toFact = createBuildFacts(stamps.hashes, deps.outputs, createImportLocator(stamps.hashes));
  return (job) =>
    new Observable<readonly Fact[]>((subscriber) => {
      const abort = new AbortController();
      let settled = false;
      void run(job, abort.signal).then(
        (facts) => {
          if (abort.signal.aborted) return;
          settled = true;
          subscriber.next(facts);
          subscriber.complete();
        },
        (error) => {
          settled = true;
          if (abort.signal.aborted || (error instanceof Error && error.name === 'BuildCancelled')) return subscriber.complete();
          subscriber.next(bundlerFailedFacts(deps.hashes, job, error));
          subscriber.complete();
        },
      );
      // Only a job still running is cancelled: aborting a finished one made an AbortError (and
      // its stack) at the end of every build, in the moment its answer was being sent.
      return () => {
        if (!settled) abort.abort();
      };
    });

  async function run(job: BuildJob, signal: AbortSignal): Promise<Fact[]> {
    const variant = parseVariantKey(job.variant);
    if (!variant) throw new Error(`unknown variant ${job.variant}`);
    // The watch count before the inputs are taken: a notice after it names a file written since.
    const watchedFrom = watchSequence();
    const before = inputsBefore(deps.hashes, job.modules.map((module) => module.previousInputs));
    const startedAt = now();
    const bundler = deps.registry.loaded?.(job.bundler) ?? (await deps.registry.get(job.bundler));
    const assetServed = servedAssets(deps.assets, job.workspace);
    const targets = job.modules.map(({ module, packageDir }) => {
      const built = toBundleTarget(module, job.workspace, packageDir, job.shared?.[module.package], job.declarations?.[module.package]);
      const target = assetServed ? { ...built, assetServed } : built;
      return variant.env === 'development' ? { ...target, assetVersions: assetVersionsOf(deps.hashes, before, module) } : target;
    });
    const first = job.modules[0]!;
    const built = job.incremental && targets.length === 1
      ? [await bundler.rebuild(targets[0]!, variant, signal, rebuildHint(first.previousInputs, first.previousCode, before))]
      : await bundler.bundle(targets, variant, signal);
    if (signal.aborted) throw new BuildCancelled();
    // A write the build read queued its notice before the result was sent, but the service may
    // read the two in one turn, the result first: the watcher's word is taken in the next turn,
    // as the check before an answer takes it (README "Addresses").
    if (deps.quiet?.()) {
      await nextTurn();
      if (signal.aborted) throw new BuildCancelled();
    }
    const unwritten = unwrittenSince(deps.hashes, deps.quiet?.() ?? null, watchedFrom);
    return stamps.once(() =>
      built.map((result, index) => {
        const { module, previousInputs } = job.modules[index]!;
        const withConfigs = module.entry ? withConfigInputs(result, tsconfigInputs(module.entry, result.inputs, result.mapped)) : result;
        return toFact(withConfigs, { build: job.build, variant: job.variant, previousInputs, before, startedAt, shared: targets[index]!.shared, ...(unwritten ? { unwritten } : {}) });
      }),
    );
  }
}

/**
 * The versions of the declared assets a development build writes into their addresses (README
 * "Preview and stylesheet push"): the module's own, which hold every asset a shared file it imports
 * names (each module importing one declares them itself, README "Shared files"). Each is taken
 * before the build as a known input is (`taken`), so that a save while it runs shows as a difference
 * afterwards (`hashInputs`), never as a version of other bytes recorded as fresh.
 */
function assetVersionsOf(hashes: FileHashes, taken: Map<string, Recalled>, module: ModuleModel): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const asset of module.assets) {
    const file = path.posix.join(module.dir, asset);
    let recalled = taken.get(file);
    if (!recalled) taken.set(file, (recalled = hashes.recall(file)));
    if (recalled.hash !== null) versions[file] = recalled.hash;
  }
  return versions;
}

// A declared asset is served when the router's reader finds it: a regular file inside its package
// by its real path (README "Files that are not files"); nothing outside the package is read.
// `core dist` asks the same of its builds, so that its verdict is the running service's.
export function servedAssets(assets: AssetFiles | undefined, workspace: WorkspaceBoundaries | undefined): BundleTarget['assetServed'] {
  const manifests = workspace?.manifests;
  if (assets === undefined || manifests === undefined) return undefined;
  return (packageName, file) => {
    const manifest = Object.hasOwn(manifests, packageName) ? manifests[packageName] : undefined;
    return manifest !== undefined && assets.read(path.posix.dirname(manifest), file, workspace!.linkedDirs) !== null;
  };
}

// The config files and places a module's build used (README "Bundling real code") are inputs it
// depends on, not files it read: one its code imports (a `package.json` for a value) stays read.
function withConfigInputs(result: BundleResult, configs: readonly string[]): BundleResult {
  const read = new Set(result.inputs);
  const added = [...new Set(configs)].filter((file) => !read.has(file));
  if (added.length === 0) return result;
  return { ...result, inputs: [...result.inputs, ...added].sort(), resolution: [...(result.resolution ?? []), ...added].sort() };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Whether the watcher proves a path unwritten since the watch count `since`, by the rule of the
 * check before an answer (README "Addresses"): never a file of several names (`confirmed` has
 * none: a write through another name is noticed in that name's directory), nor without a watcher.
 */
function unwrittenSince(hashes: FileHashes, proof: WatchProof | null, since: number): ((path: string) => boolean) | undefined {
  if (!proof) return undefined;
  return (path) => hashes.confirmed(path) !== undefined && proof.unchangedSince(path, since);
}
