// One esbuild build of several modules (one entry point each), and the failures of a build:
// a failure names no module, so a failed batch is split until each failure has its own.
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Variant } from '../workspace/variant.js';
import { collect, failed, isBuildFailure } from './build-results.js';
import type { OptionalPlugins } from './esbuild-options.js';
import { OUT } from './esbuild-options.js';
import { holdsOthersAssets } from './plugins/assets.js';
import { BuildCancelled, type BundleResult, type BundleTarget } from './types.js';

export type BuildOptionsOf = (targets: BundleTarget[], variant: Variant, plugins?: OptionalPlugins) => esbuild.BuildOptions;

export interface BatchBuilds {
  bundleOnce(targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]>;
  failedBuild(target: BundleTarget, variant: Variant, messages: esbuild.Message[]): Promise<BundleResult>;
}

export function createBatchBuilds(root: string, buildOptions: BuildOptionsOf): BatchBuilds {
  // A failure tells where it failed, not what the build read: an error in one file leaves
  // the others unnamed, and their next change could not build the module again. The build
  // once more, recording every file it loads, names them (only failures pay for it).
  // Its diagnostics are that build's too: a first build places them as a fresh start does, where
  // a kept context or the stylesheet built alone may not (an unreadable stylesheet is "Cannot read
  // file" at its import, not a nameless failure of the sheet as an entry).
  async function failedBuild(target: BundleTarget, variant: Variant, messages: esbuild.Message[]): Promise<BundleResult> {
    const read = new Set<string>();
    const options = buildOptions([target], variant);
    const recorder: esbuild.Plugin = {
      name: 'core-record-reads',
      setup(build) {
        build.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
          const relative = path.relative(root, args.path);
          if (!relative.startsWith('..') && !path.isAbsolute(relative)) read.add(relative.split(path.sep).join('/'));
          return undefined;
        });
      },
    };
    let located = messages;
    await esbuild.build({ ...options, plugins: [recorder, ...(options.plugins ?? [])] }).catch((error: unknown) => {
      if (isBuildFailure(error)) located = error.errors;
    });
    const result = failed(root, target, located);
    for (const input of result.inputs) read.add(input);
    return { ...result, inputs: [...read].sort() };
  }

  async function bundleOnce(targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]> {
    if (targets.length === 0) return [];
    if (signal?.aborted) throw new BuildCancelled();
    try {
      const result = await buildBatch((plugins) => buildOptions(targets, variant, plugins));
      if (signal?.aborted) throw new BuildCancelled();
      // A module whose outputs hold another module's asset address got it from the company it was
      // built in: built alone, as an edit rebuilds it, so its outcome is the same however grouped.
      const alone = targets.length === 1 ? [] : targets.flatMap((target, index) => (outputsHoldOthersAssets(result, target, index) ? [index] : []));
      const rebuilt = new Map(await Promise.all(alone.map(async (index) => [index, (await bundleOnce([targets[index]!], variant, signal))[0]!] as const)));
      return targets.map((target, index) => rebuilt.get(index) ?? collect(root, target, index, result, variant));
    } catch (error) {
      if (!isBuildFailure(error)) throw error;
      if (targets.length === 1) return [await failedBuild(targets[0]!, variant, error.errors)];
      const middle = Math.ceil(targets.length / 2);
      const halves = await Promise.all([bundleOnce(targets.slice(0, middle), variant, signal), bundleOnce(targets.slice(middle), variant, signal)]);
      return halves.flat();
    }
  }

  return { bundleOnce, failedBuild };
}

// The CSS module scripts plugin must see each stylesheet import's attributes, which esbuild's
// filter cannot: each `import './x.css'` of a batch called into this process for nothing (1,000
// calls on a first start of 1,000 modules, about a tenth of the batches' CPU). A batch is built
// without it first; one that imports a stylesheet `with { type: 'css' }` (esbuild refuses it
// there, or keeps a bare one: the metafile says so) or fails is built again with it, and only
// that build counts. The plugin answers nothing for other imports, so every output is the same.
async function buildBatch(optionsWith: (plugins: OptionalPlugins) => esbuild.BuildOptions): Promise<esbuild.BuildResult> {
  try {
    const result = await esbuild.build(optionsWith({ cssModuleScripts: false }));
    if (!importsCssModuleScript(result.metafile!)) return result;
  } catch (error) {
    if (!isBuildFailure(error)) throw error;
  }
  return esbuild.build(optionsWith({}));
}

/** Whether entry `index`'s code or sheet holds an asset address that is not its target's own. */
function outputsHoldOthersAssets(result: esbuild.BuildResult, target: BundleTarget, index: number): boolean {
  return (result.outputFiles ?? []).some((file) => (path.basename(file.path) === `${OUT}${index}.js` || path.basename(file.path) === `${OUT}${index}.css`) && holdsOthersAssets(file.contents, target));
}

export const importsCssModuleScript = (metafile: esbuild.Metafile): boolean =>
  Object.values(metafile.inputs).some((input) => input.imports.some((record) => record.with?.type === 'css'));
