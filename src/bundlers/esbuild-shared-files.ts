// A file several modules of a package reach is imported by them and built alone, returned with
// each (ARCHITECTURE.md "Shared files", README "Shared files").
import path from 'node:path';
import type { Variant } from '../workspace/variant.js';
import { filesRead } from '../workspace/files-read.js';
import { declarationManifest, holdingModules } from '../workspace/shared-files.js';
import { resolvedAssets, urlAssets } from './plugins/assets.js';
import { attachChunks, sharedInBatch } from './build-results.js';
import type { BundleResult, BundleTarget } from './types.js';

type BundleOnce = (targets: BundleTarget[], variant: Variant, signal?: AbortSignal) => Promise<BundleResult[]>;

/**
 * A shared file built alone, as a module of the package of `importer` (README "Shared files"):
 * its asset imports resolve by the declarations of the package's modules (`importer.declarations`;
 * a target given none knows its own declaration only), never by which module found it.
 */
export function chunkTarget(importer: BundleTarget, file: string, specifier: string): BundleTarget {
  const assetDeclarations = importer.declarations ?? [{ dir: importer.dir, subpath: importer.subpath, assets: importer.assets }];
  return { ...importer, specifier, subpath: specifier.slice(importer.package!.name.length + 1), entry: file, dir: path.posix.dirname(file), assets: [], assetDeclarations };
}

/**
 * A shared file's result with what it depends on in the modules' declarations: the declared
 * assets it imported, which each module importing it must declare too (`attachChunks`), and the
 * `module.json` of each module whose directory holds one of them (those that decide its owner
 * and address), inputs: each module importing it builds again when one changes, and a restart
 * from the build cache does too.
 */
function withDeclarations(target: BundleTarget, result: BundleResult): BundleResult {
  const resolved = resolvedAssets(target);
  // And those a `new URL` of it names (`placeAssetUrls`), a file esbuild compiles included.
  const named = urlAssets(target);
  const declaredAssets = result.inputs.filter((input) => resolved.has(input) || (named.has(input) && (result.resolution ?? []).includes(input)));
  if (declaredAssets.length === 0) return result;
  const manifests = [...new Set(declaredAssets.flatMap((asset) => holdingModules(target.assetDeclarations ?? [], asset).map(declarationManifest)))];
  return {
    ...result,
    inputs: [...new Set([...result.inputs, ...manifests])].sort(),
    resolution: [...new Set([...(result.resolution ?? []), ...manifests])].sort(),
    declaredAssets,
  };
}

// Modules of one package built together for the first time, which reach the same file: built
// again, that file imported as a shared file instead of copied into each (README "Shared
// files"). A package with no such file is built once, as before.
export async function shareWithinBatch(bundleOnce: BundleOnce, targets: BundleTarget[], results: BundleResult[], variant: Variant, signal?: AbortSignal): Promise<{ targets: BundleTarget[]; results: BundleResult[]; chunks?: Map<string, BundleResult> }> {
  const found = sharedInBatch(targets, results);
  if (found.size === 0) return { targets, results };
  const shared = targets.map((target) => {
    const files = target.package ? found.get(target.package.name) : undefined;
    return files ? { ...target, shared: { ...target.shared, ...files } } : target;
  });
  const again = targets.flatMap((target, index) => (shared[index] !== target && filesRead(results[index]!).some((file) => file in shared[index]!.shared!) ? [index] : []));
  // The shared files themselves in the same call: one more esbuild build, not two.
  const chunkTargets = new Map<string, BundleTarget>();
  for (const index of again) {
    for (const [file, specifier] of Object.entries(found.get(shared[index]!.package!.name)!)) if (!chunkTargets.has(specifier)) chunkTargets.set(specifier, chunkTarget(shared[index]!, file, specifier));
  }
  const rebuilt = await bundleOnce([...again.map((index) => shared[index]!), ...chunkTargets.values()], variant, signal);
  const merged = [...results];
  again.forEach((index, at) => (merged[index] = rebuilt[at]!));
  const chunks = new Map([...chunkTargets].map(([specifier, target], at) => [specifier, withDeclarations(target, rebuilt[again.length + at]!)]));
  return { targets: shared, results: merged, chunks };
}

// The shared files each module's code imports, built alone (each one once per call, unless
// `built` has it already), attached to its result: their code, what they read and import. A
// shared file that fails to build fails every module that imports it, with its errors.
export async function withChunks(bundleOnce: BundleOnce, targets: BundleTarget[], results: BundleResult[], variant: Variant, signal?: AbortSignal, built = new Map<string, BundleResult>()): Promise<BundleResult[]> {
  await buildWantedChunks(bundleOnce, targets, results, variant, signal, built);
  if (built.size === 0) return results;
  const attached = results.map((result, index) => attachChunks(targets[index]!, result, built));
  // A CommonJS file built alone exports only `default`, which its importers' named imports
  // would not find: the modules reaching one are built again with it bundled, as before.
  const commonjs = new Set([...built].flatMap(([specifier, result]) => (result.commonjs ? [specifier] : [])));
  const again = attached.flatMap((result, index) => (Object.keys(result.chunks ?? {}).some((specifier) => commonjs.has(specifier)) ? [index] : []));
  if (again.length === 0) return attached;
  const narrowed = again.map((index) => ({ ...targets[index]!, shared: Object.fromEntries(Object.entries(targets[index]!.shared!).filter(([, specifier]) => !commonjs.has(specifier))) }));
  const rebuilt = await withChunks(bundleOnce, narrowed, await bundleOnce(narrowed, variant, signal), variant, signal);
  again.forEach((index, at) => (attached[index] = rebuilt[at]!));
  return attached;
}

/** Builds into `built` every shared file the results import, and those these import in turn. */
async function buildWantedChunks(bundleOnce: BundleOnce, targets: BundleTarget[], results: BundleResult[], variant: Variant, signal: AbortSignal | undefined, built: Map<string, BundleResult>): Promise<void> {
  const waiting = new Map<string, BundleTarget>();
  const wanted = (target: BundleTarget, result: BundleResult) => {
    const files = new Map(Object.entries(target.shared ?? {}).map(([file, specifier]) => [specifier, file]));
    for (const { specifier } of result.imports) {
      if (!files.has(specifier) || built.has(specifier) || waiting.has(specifier)) continue;
      waiting.set(specifier, chunkTarget(target, files.get(specifier)!, specifier));
    }
  };
  targets.forEach((target, index) => wanted(target, results[index]!));
  // What the shared files built already import, through a module that names them.
  for (const [specifier, result] of built) {
    const importer = targets.find((target) => Object.values(target.shared ?? {}).includes(specifier));
    if (importer) wanted(importer, result);
  }
  while (waiting.size > 0) {
    const batch = [...waiting.values()];
    waiting.clear();
    const chunkResults = await bundleOnce(batch, variant, signal);
    batch.forEach((target, index) => built.set(target.specifier, withDeclarations(target, chunkResults[index]!)));
    batch.forEach((target, index) => wanted(target, chunkResults[index]!));
  }
}
