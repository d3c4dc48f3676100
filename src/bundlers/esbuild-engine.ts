// The esbuild engine behind both built-in bundlers. One `build()` call compiles many modules
// (one entry point each, no code splitting), so each still gets its own code and stylesheet
// outputs; one esbuild context per module variant makes rebuilds incremental. A change of
// stylesheets only rebuilds the stylesheet alone, when the module has a single one and is not
// minified: the most frequent edit of a day's work then costs half a build. A stylesheet that imports
// nothing is compiled by esbuild's transform, which gives the bytes a build gives it
// (ARCHITECTURE.md "One stylesheet edit, from the disk to the page"). A file several modules of
// a package reach is imported by them and built alone, returned with each (ARCHITECTURE.md
// "Shared files").
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Variant } from '../workspace/variant.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { variantKey } from '../workspace/variant.js';
import { attachChunks, collect, failed, isBuildFailure, sharedInBatch, stylesheetRoot, stylesInputs, warningsOf } from './build-results.js';
import { createContextPool } from './context-pool.js';
import { contentHash } from '../outputs/content-hash.js';
import { withLiveService } from './esbuild-service.js';
import { esbuildOptions, OUT, outputOptions, type SourcePolicy } from './esbuild-options.js';
import { BuildCancelled, type BundleResult, type BundleTarget, type Bundler, type BundlerOptions, type RebuildHint } from './types.js';

export { esbuildOptions } from './esbuild-options.js';

/** Within this much of now (with a margin), esbuild does not trust a file's mtime to prove it unchanged (its "mod key" safety gap is 3 s). */
const ESBUILD_TRUSTS_MTIME_AFTER_MS = 2_000;

export interface EngineOptions extends BundlerOptions {
  /** Sources this bundler refuses, with the reason. */
  refuse?: SourcePolicy;
}

interface LastBuild {
  result: BundleResult;
  /** Its code's content hash: how a hint proves this is the build the caller recorded. */
  codeHash: string | null;
  /** The single plain stylesheet the code imports, or null. */
  stylesheet: string | null;
  /** That stylesheet imported nothing (no `@import`, no `url()`) when last built. */
  stylesheetAlone: boolean;
  codeInputs: string[];
  /** The last whole build's warnings about what the code read: a stylesheet rebuilt alone brings its own. */
  codeWarnings: Diagnostic[];
  stylesInputs: Set<string>;
}

export function createEsbuildEngine(options: EngineOptions): Bundler {
  const root = path.resolve(options.root);
  const contexts = createContextPool();
  const lastBuilds = new Map<string, LastBuild>();
  const buildOptions = (targets: BundleTarget[], variant: Variant) => esbuildOptions(root, targets, variant, options.refuse);

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

  // A kept esbuild context reads a file again only when its inode, size or mtime moved, unless
  // the mtime is within 3 s of now: a rewrite of the same size that keeps an older mtime (`cp -p`,
  // a restored timestamp, a file system of whole seconds) would be built from the bytes it read
  // before. A changed input whose mtime is that old is built in a new context.
  function keepsOldModificationTime(relative: string): boolean {
    if (relative.endsWith('/')) return false;
    try {
      const stats = fs.statSync(path.join(root, relative), { throwIfNoEntry: false });
      return stats !== undefined && stats.mtimeMs < Date.now() - ESBUILD_TRUSTS_MTIME_AFTER_MS;
    } catch {
      return false; // a link loop, a path through a file (ELOOP, ENOTDIR): the build says what it finds
    }
  }

  // esbuild's process may die under a build: a new one takes over, and the contexts of the old are gone.
  const recover = () => {
    contexts.abandon();
    lastBuilds.clear();
  };

  async function bundle(targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]> {
    return withLiveService(async () => {
      const shared = await shareWithinBatch(targets, await bundleOnce(targets, variant, signal), variant, signal);
      return withChunks(shared.targets, shared.results, variant, signal, shared.chunks);
    }, recover);
  }

  // Modules of one package built together for the first time, which reach the same file: built
  // again, that file imported as a shared file instead of copied into each (README "Shared
  // files"). A package with no such file is built once, as before.
  async function shareWithinBatch(targets: BundleTarget[], results: BundleResult[], variant: Variant, signal?: AbortSignal): Promise<{ targets: BundleTarget[]; results: BundleResult[]; chunks?: Map<string, BundleResult> }> {
    const found = sharedInBatch(targets, results);
    if (found.size === 0) return { targets, results };
    const shared = targets.map((target) => {
      const files = target.package ? found.get(target.package.name) : undefined;
      return files ? { ...target, shared: { ...target.shared, ...files } } : target;
    });
    const again = targets.flatMap((target, index) => (shared[index] !== target && results[index]!.inputs.some((file) => file in shared[index]!.shared!) ? [index] : []));
    // The shared files themselves in the same call: one more esbuild build, not two.
    const chunkTargets = new Map<string, BundleTarget>();
    for (const index of again) {
      for (const [file, specifier] of Object.entries(found.get(shared[index]!.package!.name)!)) if (!chunkTargets.has(specifier)) chunkTargets.set(specifier, chunkTarget(shared[index]!, file, specifier));
    }
    const rebuilt = await bundleOnce([...again.map((index) => shared[index]!), ...chunkTargets.values()], variant, signal);
    const merged = [...results];
    again.forEach((index, at) => (merged[index] = rebuilt[at]!));
    const chunks = new Map([...chunkTargets.keys()].map((specifier, at) => [specifier, rebuilt[again.length + at]!]));
    return { targets: shared, results: merged, chunks };
  }

  // The shared files each module's code imports, built alone (each one once per call, unless
  // `built` has it already), attached to its result: their code, what they read and import. A
  // shared file that fails to build fails every module that imports it, with its errors.
  async function withChunks(targets: BundleTarget[], results: BundleResult[], variant: Variant, signal?: AbortSignal, built = new Map<string, BundleResult>()): Promise<BundleResult[]> {
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
      batch.forEach((target, index) => built.set(target.specifier, chunkResults[index]!));
      batch.forEach((target, index) => wanted(target, chunkResults[index]!));
    }
    if (built.size === 0) return results;
    const attached = results.map((result, index) => attachChunks(targets[index]!, result, built));
    // A CommonJS file built alone exports only `default`, which its importers' named imports
    // would not find: the modules reaching one are built again with it bundled, as before.
    const commonjs = new Set([...built].flatMap(([specifier, result]) => (result.commonjs ? [specifier] : [])));
    const again = attached.flatMap((result, index) => (Object.keys(result.chunks ?? {}).some((specifier) => commonjs.has(specifier)) ? [index] : []));
    if (again.length === 0) return attached;
    const narrowed = again.map((index) => ({ ...targets[index]!, shared: Object.fromEntries(Object.entries(targets[index]!.shared!).filter(([, specifier]) => !commonjs.has(specifier))) }));
    const rebuilt = await withChunks(narrowed, await bundleOnce(narrowed, variant, signal), variant, signal);
    again.forEach((index, at) => (attached[index] = rebuilt[at]!));
    return attached;
  }

  async function bundleOnce(targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]> {
    if (targets.length === 0) return [];
    if (signal?.aborted) throw new BuildCancelled();
    try {
      const result = await esbuild.build(buildOptions(targets, variant));
      if (signal?.aborted) throw new BuildCancelled();
      return targets.map((target, index) => collect(root, target, index, result));
    } catch (error) {
      if (!isBuildFailure(error)) throw error;
      // A failure names no module: split the batch until each failure has its own module.
      if (targets.length === 1) return [await failedBuild(targets[0]!, variant, error.errors)];
      const middle = Math.ceil(targets.length / 2);
      const halves = await Promise.all([bundleOnce(targets.slice(0, middle), variant, signal), bundleOnce(targets.slice(middle), variant, signal)]);
      return halves.flat();
    }
  }

  async function rebuild(target: BundleTarget, variant: Variant, signal?: AbortSignal, since?: RebuildHint): Promise<BundleResult> {
    return withLiveService(async () => {
      const own = await rebuildOnce(target, variant, signal, since);
      const [result] = await withChunks([target], [own], variant, signal);
      // The shared files' inputs are the code's too: a later change of stylesheets only is still
      // rebuilt alone, the shared files kept with the code.
      const key = `${target.specifier}\0${variantKey(variant)}`;
      const last = lastBuilds.get(key);
      if (result !== own && result!.chunks && last?.result === own) {
        const added = result!.inputs.filter((input) => !own.inputs.includes(input));
        lastBuilds.set(key, { ...last, result: result!, codeInputs: [...new Set([...last.codeInputs, ...added])] });
      }
      return result!;
    }, recover);
  }

  async function rebuildOnce(target: BundleTarget, variant: Variant, signal?: AbortSignal, since?: RebuildHint): Promise<BundleResult> {
    const key = `${target.specifier}\0${variantKey(variant)}`;
    const signature = JSON.stringify([target.entry, target.dir, target.subpath, target.assets, target.workspace?.key ?? null, target.define ?? null, target.shared ?? null]);
    if (since && since.changed.some(keepsOldModificationTime)) await Promise.all([contexts.discard(key), contexts.discard(`${key}\0styles`)]);
    const last = lastBuilds.get(key);
    // Minified, the code's names depend on every source the bundle read, stylesheets included
    // (esbuild names by how often each character occurs): a stylesheet edit changes the code.
    if (last && since && !variant.min && stylesOnly(last, since)) return rebuildStyles(key, signature, target, variant, last, signal, since.contents?.[last.stylesheet!]);
    try {
      const result = await contexts.rebuild(key, signature, () => buildOptions([target], variant), signal);
      const collected = collect(root, target, 0, result);
      const styles = new Set(stylesInputs(result, 0));
      const code = new Set(Object.keys(result.metafile!.outputs[`${OUT}0.js`]?.inputs ?? {}));
      // What the code depends on: every input but those only the stylesheet read.
      const codeInputs = collected.inputs.filter((input) => !styles.has(input) || code.has(input));
      const stylesheet = stylesheetRoot(result, 0);
      lastBuilds.set(key, {
        result: collected,
        codeHash: collected.code ? contentHash(collected.code) : null,
        stylesheet,
        stylesheetAlone: stylesheet !== null && importsNothing(result, stylesheet),
        codeInputs,
        // A stylesheet is among the code's inputs too (its import), but its warnings are the
        // stylesheet build's: one rebuilt alone reports them again, or not once fixed.
        codeWarnings: (collected.warnings ?? []).filter((warning) => warning.file === undefined || (codeInputs.includes(warning.file) && !styles.has(warning.file))),
        stylesInputs: styles,
      });
      return collected;
    } catch (error) {
      lastBuilds.delete(key);
      if (isBuildFailure(error)) return failedBuild(target, variant, error.errors);
      throw error;
    }
  }

  // Only stylesheets changed, and the code is the one last built: the code output stands,
  // the stylesheet is built alone (the same bytes a whole build gives it; tested).
  async function rebuildStyles(key: string, signature: string, target: BundleTarget, variant: Variant, last: LastBuild, signal?: AbortSignal, bytes?: Uint8Array): Promise<BundleResult> {
    const stylesheet = last.stylesheet!;
    const stylesTarget = { ...target, entry: stylesheet };
    const stylesSignature = `${signature}\0${stylesheet}`;
    try {
      const alone = last.stylesheetAlone ? await transformAlone(stylesTarget, variant, signal, bytes) : null;
      const result = alone ? null : await contexts.rebuild(`${key}\0styles`, stylesSignature, () => buildOptions([stylesTarget], variant), signal);
      const styles = alone ? alone.styles : (result!.outputFiles?.find((file) => file.path === path.join(root, `${OUT}0.css`))?.contents ?? null);
      const read = alone ? [stylesheet] : stylesInputs(result!, 0);
      const warnings = [...last.codeWarnings, ...warningsOf(root, alone ? alone.warnings : result!.warnings, new Set(read))];
      const { warnings: _before, ...kept } = last.result;
      const rebuilt: BundleResult = {
        ...kept,
        styles: styles && styles.length > 0 ? styles : null,
        inputs: [...new Set([...last.codeInputs, ...read])].sort(),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
      lastBuilds.set(key, { ...last, result: rebuilt, stylesheetAlone: alone !== null || importsNothing(result!, stylesheet), stylesInputs: new Set(read) });
      return rebuilt;
    } catch (error) {
      lastBuilds.delete(key);
      if (isBuildFailure(error)) return failedBuild(target, variant, error.errors);
      throw error;
    }
  }

  // A stylesheet that imports nothing, compiled by esbuild's transform: one exchange with its
  // process, which neither stats, resolves nor links (after an idle moment 1.6 ms against 2.4
  // for the context's rebuild), and the bytes a build gives: the build's first line naming the
  // file is the transform's banner, its options are the build's (tested on every kind of
  // sheet). Null, and the build decides, when the sheet now imports something (`@import`,
  // `url()`: the plugins give those their addresses), has an `@charset` (the build hoists it
  // above that first line), fails, or a policy of the bundler could refuse it.
  // `bytes`: the sheet as the service hashed it, when it has them (it is not read again).
  async function transformAlone(target: BundleTarget, variant: Variant, signal?: AbortSignal, bytes?: Uint8Array): Promise<{ styles: Uint8Array | null; warnings: esbuild.Message[] } | null> {
    if (options.refuse?.filter.test(target.entry)) return null;
    let source: Uint8Array;
    try {
      source = bytes ?? fs.readFileSync(path.join(root, target.entry));
    } catch {
      return null; // gone or unreadable: the build says how
    }
    // The build's options that print CSS (its plugins, made for every build, are not needed).
    const printed = outputOptions(variant);
    let result: esbuild.TransformResult;
    try {
      result = await esbuild.transform(source, {
        ...printed,
        loader: 'css',
        sourcefile: target.entry,
        // A bundle's legal comments go to the end of the file.
        legalComments: 'eof',
        ...(printed.minify ? {} : { banner: `/* ${target.entry} */` }),
        logLevel: 'silent',
      });
    } catch (error) {
      if (isBuildFailure(error)) return null;
      throw error;
    }
    if (signal?.aborted) throw new BuildCancelled();
    if (/@import|@charset|url\(/i.test(result.code)) return null;
    return { styles: result.code.length > 0 ? Buffer.from(result.code) : null, warnings: result.warnings };
  }

  return {
    bundle,
    rebuild,
    async dispose() {
      lastBuilds.clear();
      await contexts.dispose();
    },
  };
}

// Every change is to a plain stylesheet the last build's styles were made from, and that
// last build is the one the caller knows (the same code, by content, and the same inputs):
// then the code cannot have changed. The caller may have recorded another build since (a
// batch build), whose code is not this one's.
function stylesOnly(last: LastBuild, since: RebuildHint): boolean {
  if (last.stylesheet === null || since.changed.length === 0) return false;
  if (last.codeHash === null || since.code !== last.codeHash) return false;
  if (!since.changed.every((file) => file.endsWith('.css') && !file.endsWith('.module.css') && last.stylesInputs.has(file))) return false;
  // The service's record holds the tsconfig files besides the inputs this engine reported.
  const recorded = new Set(since.inputs);
  if (!last.result.inputs.every((input) => recorded.has(input))) return false;
  return since.inputs.every((input) => input.endsWith('.json') || last.result.inputs.includes(input));
}

/** The build read `stylesheet` (workspace-relative) and nothing else, which imports nothing. */
function importsNothing(result: esbuild.BuildResult, stylesheet: string): boolean {
  const read = stylesInputs(result, 0);
  return read.length === 1 && read[0] === stylesheet && (result.metafile!.inputs[stylesheet]?.imports.length ?? 1) === 0;
}

/** A shared file built alone, as a module of the package of `importer` (README "Shared files"). */
function chunkTarget(importer: BundleTarget, file: string, specifier: string): BundleTarget {
  return { ...importer, specifier, subpath: specifier.slice(importer.package!.name.length + 1), entry: file, dir: path.posix.dirname(file), assets: [] };
}
