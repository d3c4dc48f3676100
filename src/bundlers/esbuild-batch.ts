// One esbuild build of several modules (one entry point each), and the failures of a build:
// a failure names no module: each module whose own entry it names is built alone, and a failed
// batch naming none is split until each failure has its own (README "Performance").
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Variant } from '../workspace/variant.js';
import { collect, failed, isBuildFailure, saysCaseFolded } from './build-results.js';
import type { OptionalPlugins } from './esbuild-options.js';
import { OUT } from './esbuild-options.js';
import { holdsOthersAssets } from './plugins/assets.js';
import { serviceCall } from './esbuild-service.js';
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
    const built = await buildRecordingReads(root, buildOptions, target, variant);
    return 'failure' in built ? built.failure : withReads(failed(root, target, messages), built.read);
  }

  // A module whose own entry holds an error fails alone too: one build gives its failure and what
  // it read, where building it and then its failure again took two. Should it build after all (a
  // message placed in its entry by another's import), that build is its result.
  async function builtAloneAfterFailure(target: BundleTarget, variant: Variant): Promise<BundleResult> {
    const built = await buildRecordingReads(root, buildOptions, target, variant);
    return 'failure' in built ? built.failure : collect(root, target, 0, built.result, variant);
  }

  // `failedBefore`: a build of these targets' company failed, so the one build that counts (with
  // every plugin) is made at once, not after one without the CSS module scripts plugin.
  async function bundle(targets: BundleTarget[], variant: Variant, signal: AbortSignal | undefined, failedBefore: boolean): Promise<BundleResult[]> {
    if (targets.length === 0) return [];
    if (signal?.aborted) throw new BuildCancelled();
    try {
      const result = await buildBatch((plugins) => buildOptions(targets, variant, plugins), failedBefore);
      if (signal?.aborted) throw new BuildCancelled();
      // A module whose outputs hold another module's asset address got it from the company it was
      // built in: built alone, as an edit rebuilds it, so its outcome is the same however grouped.
      // So is one told that esbuild took two names differing only in case for one: esbuild folds
      // them across the whole build, so another module's import of the other name (`./ui` there,
      // `./UI` here) may be what made it (README "Bundling real code").
      const holdsOthers = targets.map((target, index) => targets.length > 1 && outputsHoldOthersAssets(result, target, index));
      const collected = targets.map((target, index) => (holdsOthers[index] ? null : collect(root, target, index, result, variant)));
      const alone = targets.length === 1 ? [] : targets.flatMap((_, index) => (collected[index] === null || saysCaseFolded(collected[index]!) ? [index] : []));
      const rebuilt = new Map(await Promise.all(alone.map(async (index) => [index, (await bundle([targets[index]!], variant, signal, false))[0]!] as const)));
      return targets.map((_, index) => rebuilt.get(index) ?? collected[index]!);
    } catch (error) {
      if (!isBuildFailure(error)) throw error;
      if (targets.length === 1) return [await failedBuild(targets[0]!, variant, error.errors)];
      // An error in a target's own entry file fails that target alone too: each such target is
      // built alone at once and the others together again, where halving alone would build every
      // module about log2(n) times when many fail at once (a start where every module is broken
      // took about seven times a valid one's: README "Performance"). Errors elsewhere (a file
      // several share) are found by halving, as before.
      const failedFiles = new Set(error.errors.flatMap((message) => (message.location ? [path.resolve(root, message.location.file)] : [])));
      const own = targets.map((target) => failedFiles.has(path.resolve(root, target.entry)));
      if (own.some(Boolean)) {
        const others = targets.filter((_, index) => !own[index]);
        const [alone, together] = await Promise.all([
          Promise.all(targets.flatMap((target, index) => (own[index] ? [builtAloneAfterFailure(target, variant)] : []))),
          bundle(others, variant, signal, true),
        ]);
        if (signal?.aborted) throw new BuildCancelled();
        return targets.map((_, index) => (own[index] ? alone.shift()! : together.shift()!));
      }
      const middle = Math.ceil(targets.length / 2);
      const halves = await Promise.all([bundle(targets.slice(0, middle), variant, signal, true), bundle(targets.slice(middle), variant, signal, true)]);
      return halves.flat();
    }
  }

  const bundleOnce = (targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]> => bundle(targets, variant, signal, false);

  return { bundleOnce, failedBuild };
}

// One build of `target` alone that records every file it loads: its result if it builds, else its
// failure with those files among its inputs.
async function buildRecordingReads(root: string, buildOptions: BuildOptionsOf, target: BundleTarget, variant: Variant): Promise<{ result: esbuild.BuildResult; read: Set<string> } | { failure: BundleResult }> {
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
  try {
    return { result: await serviceCall(() => esbuild.build({ ...options, plugins: [recorder, ...(options.plugins ?? [])] })), read };
  } catch (error) {
    if (!isBuildFailure(error)) throw error;
    return { failure: withReads(failed(root, target, error.errors, error.warnings), read) };
  }
}

function withReads(result: BundleResult, read: Set<string>): BundleResult {
  for (const input of result.inputs) read.add(input);
  return { ...result, inputs: [...read].sort() };
}

// The CSS module scripts plugin must see each stylesheet import's attributes, which esbuild's
// filter cannot: each `import './x.css'` of a batch called into this process for nothing (1,000
// calls on a first start of 1,000 modules, about a tenth of the batches' CPU). A batch is built
// without it first; one that imports a stylesheet `with { type: 'css' }` (esbuild refuses it
// there, or keeps a bare one: the metafile says so) or fails is built again with it, and only
// that build counts. The plugin answers nothing for other imports, so every output is the same.
async function buildBatch(optionsWith: (plugins: OptionalPlugins) => esbuild.BuildOptions, failedBefore: boolean): Promise<esbuild.BuildResult> {
  if (failedBefore) return serviceCall(() => esbuild.build(optionsWith({})));
  try {
    const result = await serviceCall(() => esbuild.build(optionsWith({ cssModuleScripts: false })));
    if (!importsCssModuleScript(result.metafile!)) return result;
  } catch (error) {
    if (!isBuildFailure(error)) throw error;
  }
  return serviceCall(() => esbuild.build(optionsWith({})));
}

/** Whether entry `index`'s code or sheet holds an asset address that is not its target's own. */
function outputsHoldOthersAssets(result: esbuild.BuildResult, target: BundleTarget, index: number): boolean {
  return (result.outputFiles ?? []).some((file) => (path.basename(file.path) === `${OUT}${index}.js` || path.basename(file.path) === `${OUT}${index}.css`) && holdsOthersAssets(file.contents, target));
}

export const importsCssModuleScript = (metafile: esbuild.Metafile): boolean =>
  Object.values(metafile.inputs).some((input) => input.imports.some((record) => record.with?.type === 'css'));
