// The esbuild engine behind both built-in bundlers. One `build()` call compiles many modules
// (one entry point each, no code splitting), so each still gets its own code and stylesheet
// outputs (`esbuild-batch.ts`); one esbuild context per module variant makes rebuilds
// incremental. A change of stylesheets only rebuilds the stylesheet alone
// (`stylesheet-rebuild.ts`). A file several modules of a package reach is imported by them and
// built alone, returned with each (`esbuild-shared-files.ts`, ARCHITECTURE.md "Shared files").
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { Variant } from '../workspace/variant.js';
import { variantKey } from '../workspace/variant.js';
import { collect, isBuildFailure, stylesheetRoot, stylesInputs } from './build-results.js';
import { endingItsCalls } from './calls-in-flight.js';
import { createContextPool, type ContextPool } from './context-pool.js';
import { outputHash } from '../outputs/content-hash.js';
import { createBatchBuilds, type BuildOptionsOf } from './esbuild-batch.js';
import { allowRestarts, withLiveService } from './esbuild-service.js';
import { esbuildOptions, OUT, type LinksWord, type SourcePolicy } from './esbuild-options.js';
import { createKeptRebuilds, type KeptRebuilds } from './kept-rebuild.js';
import { copiedThroughNewLink } from './plugins/module-boundaries.js';
import { createNonRegularFiles, type NonRegularFiles } from './non-regular-files.js';
import { shareWithinBatch, withChunks } from './esbuild-shared-files.js';
import { createStylesheetRebuild, importsNothing, stylesOnly, type LastBuild } from './stylesheet-rebuild.js';
import type { BundleResult, BundleTarget, Bundler, BundlerOptions, RebuildHint } from './types.js';

export { esbuildOptions } from './esbuild-options.js';

/** Within this much of now (with a margin), esbuild does not trust a file's mtime to prove it unchanged (its "mod key" safety gap is 3 s). */
const ESBUILD_TRUSTS_MTIME_AFTER_MS = 2_000;

export interface EngineOptions extends BundlerOptions {
  /** Sources this bundler refuses, with the reason. */
  refuse?: SourcePolicy;
}

/** The engine; its `dispose` cancels the builds in flight and waits for them (calls-in-flight.ts). */
export const createEsbuildEngine = (options: EngineOptions): Bundler => endingItsCalls(createEngine(options));

function createEngine(options: EngineOptions): Bundler {
  const root = path.resolve(options.root);
  const contexts = createContextPool();
  const lastBuilds = new Map<string, LastBuild>();
  const nonRegular = createNonRegularFiles(root, undefined, undefined, true);
  const buildOptions = optionsOfBuilds(root, options, nonRegular);
  const { bundleOnce, failedBuild } = createBatchBuilds(root, buildOptions);
  const kept = createKeptRebuilds(contexts, buildOptions);
  const stylesheets = createStylesheetRebuild({ root, contexts, lastBuilds, buildOptions, failedBuild, refuse: options.refuse });
  const rebuildStyles = stylesheets.rebuild;
  // esbuild's process may die under a build: a new one takes over, and the contexts of the dead one are gone.
  const recover = () => {
    contexts.abandon();
    lastBuilds.clear();
    stylesheets.clear();
  };

  async function rebuildOnce(target: BundleTarget, variant: Variant, signal?: AbortSignal, since?: RebuildHint): Promise<BundleResult> {
    const key = `${target.specifier}\0${variantKey(variant)}`;
    const word = linksWordOf(options);
    const signature = contextSignature(target, nonRegular.generation(), word);
    if (since && since.changed.some((file) => keepsOldModificationTime(root, file) || TSCONFIG_FILE.test(file))) await Promise.all([contexts.discard(key), contexts.discard(`${key}\0styles`)]);
    const last = lastBuilds.get(key);
    // Minified, the code's names depend on every source the bundle read, stylesheets included
    // (esbuild names by how often each character occurs): a stylesheet edit changes the code.
    if (last && since && !variant.min && stylesOnly(last, since)) return rebuildStyles(key, signature, target, variant, last, signal, since.contents?.[last.stylesheet!], word);
    try {
      const result = await keptBuildKnowingLinks(root, contexts, kept, key, signature, target, variant, signal, word);
      const last = wholeBuild(root, target, result, variant);
      lastBuilds.set(key, last);
      return last.result;
    } catch (error) {
      lastBuilds.delete(key);
      if (isBuildFailure(error)) return failedBuild(target, variant, error.errors);
      throw error;
    }
  }

  const rebuildWithChunks = (target: BundleTarget, variant: Variant, signal?: AbortSignal, since?: RebuildHint): Promise<BundleResult> =>
    withLiveService(async () => {
      const own = await rebuildOnce(target, variant, signal, since);
      const [result] = await withChunks(bundleOnce, [target], [own], variant, signal);
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

  return {
    bundle: (targets, variant, signal) =>
      nonRegular.watched(
        (attempt) =>
          bundleRefusingConfigs(nonRegular, targets, attempt === 0 ? null : undefined, (built) =>
            withLiveService(async () => {
              const shared = await shareWithinBatch(bundleOnce, built, await bundleOnce(built, variant, signal), variant, signal);
              return withChunks(bundleOnce, shared.targets, shared.results, variant, signal, shared.chunks);
            }, recover),
          ),
        (results) => results,
      ),
    rebuild: (target, variant, signal, since) =>
      nonRegular.watched(
        // Within the run: a config learnt special while it ran refuses the run done again (what
        // changed counts at the first run: the run done again has the first's inputs).
        async (attempt) => nonRegular.refusedConfig(target, attempt === 0 ? (since ?? null) : undefined) ?? rebuildWithChunks(target, variant, signal, since),
        (result) => [result],
      ),
    anticipate: afterSaves(stylesheets.anticipate),
    async dispose() {
      lastBuilds.clear();
      kept.clear();
      await Promise.all([contexts.dispose(), stylesheets.idle()]);
    },
  };
}

/** `anticipate`, after a save lets esbuild's process be started again: the save may fix what made it die (README "When esbuild's process dies"). */
const afterSaves = (anticipate: NonNullable<Bundler['anticipate']>): NonNullable<Bundler['anticipate']> => (saved, bytesOf) => {
  if (saved.length > 0) allowRestarts();
  anticipate(saved, bytesOf);
};

/**
 * The options of the engine's builds. The watcher's word on links (`noLinkLeadsOut`) is taken as
 * each build's options are made; a kept context is made with the word its signature holds
 * (`rebuildOnce`), so a link leading out seen since replaces it.
 */
function optionsOfBuilds(root: string, options: EngineOptions, nonRegular: NonRegularFiles): BuildOptionsOf {
  return (targets, variant, plugins = {}) => esbuildOptions(root, targets, variant, options.refuse, { ...plugins, ...(plugins.noLinkLeadsOut === undefined ? linksWordOf(options) : {}) }, nonRegular.guard());
}

/** The watcher's word now: none leads out, one does, or (both false) it cannot tell. */
const linksWordOf = (options: EngineOptions): Required<LinksWord> => ({ noLinkLeadsOut: options.noLinkLeadsOut?.() === true, linkLeadsOut: options.linkLeadsOut?.() === true });

/**
 * The results of `targets`: those a known special config refuses (non-regular-files.ts) without a
 * build, the others by `build`, in order. `since`: null at a first run (sources may have changed:
 * the configs of the entries' folders only), undefined at a run done again (where the first went too).
 */
async function bundleRefusingConfigs(nonRegular: NonRegularFiles, targets: BundleTarget[], since: null | undefined, build: (targets: BundleTarget[]) => Promise<BundleResult[]>): Promise<BundleResult[]> {
  const refused = targets.map((target) => nonRegular.refusedConfig(target, since));
  const built = targets.filter((_, index) => !refused[index]);
  const results = built.length === 0 ? [] : await build(built);
  let next = 0;
  return refused.map((refusal) => refusal ?? results[next++]!);
}

// What a kept context was made for. The special files known: a kept context refuses those it was
// made knowing (non-regular-files.ts); the assets' versions: its plugins write those it was made
// with; whether the watcher vouched that no link leads out: its confinement looks at the relative
// imports it was made to (workspace-confinement.ts), so a link leading out seen since makes a new one.
const contextSignature = (target: BundleTarget, specialFiles: number, word: Required<LinksWord>): string =>
  JSON.stringify([target.entry, target.dir, target.subpath, target.assets, target.workspace?.key ?? null, target.define ?? null, target.shared ?? null, target.assetVersions ?? null, specialFiles, word.noLinkLeadsOut, word.linkLeadsOut]);

/**
 * A whole build of the module in its kept context, as the stylesheet rebuilt alone later needs it.
 * Only its result and code hash are needed now: the rest (which inputs are the code's, the
 * stylesheet, its warnings) only by a later stylesheet edit, so it is derived in a later turn,
 * after the answer that waits for this result (or at once, if asked first).
 */
function wholeBuild(root: string, target: BundleTarget, result: esbuild.BuildResult, variant: Variant): LastBuild {
  const collected = collect(root, target, 0, result, variant);
  let parts: StylesheetParts | undefined;
  const derived = () => (parts ??= stylesheetParts(collected, result));
  setImmediate(() => {
    try {
      derived();
    } catch {
      // Left to the caller that asks for a part: a throw from this turn would end the process.
    }
  });
  return {
    result: collected,
    codeHash: collected.code ? outputHash(collected.code) : null,
    get stylesheet() {
      return derived().stylesheet;
    },
    get stylesheetAlone() {
      return derived().stylesheetAlone;
    },
    get codeInputs() {
      return derived().codeInputs;
    },
    get codeWarnings() {
      return derived().codeWarnings;
    },
    get stylesInputs() {
      return derived().stylesInputs;
    },
  };
}

type StylesheetParts = Omit<LastBuild, 'result' | 'codeHash'>;

function stylesheetParts(collected: BundleResult, result: esbuild.BuildResult): StylesheetParts {
  const styles = new Set(stylesInputs(result, 0));
  const code = new Set(Object.keys(result.metafile!.outputs[`${OUT}0.js`]?.inputs ?? {}));
  // What the code depends on: every input but those only the stylesheet read.
  const codeInputs = collected.inputs.filter((input) => !styles.has(input) || code.has(input));
  const stylesheet = stylesheetRoot(result, 0);
  return {
    stylesheet,
    stylesheetAlone: stylesheet !== null && importsNothing(result, stylesheet),
    codeInputs,
    // A stylesheet is among the code's inputs too (its import), but its warnings are the
    // stylesheet build's: one rebuilt alone reports them again, or not once fixed.
    codeWarnings: (collected.warnings ?? []).filter((warning) => warning.file === undefined || (codeInputs.includes(warning.file) && !styles.has(warning.file))),
    stylesInputs: styles,
  };
}

// A symbolic link made since a kept context was made may lead to another module's entry, which
// its plugin, not knowing the link, bundled as a copy: built once more in a new context, whose
// plugin knows it (module-boundaries.ts, README "Bundling real code").
async function keptBuildKnowingLinks(root: string, contexts: ContextPool, kept: KeptRebuilds, ...args: Parameters<KeptRebuilds['rebuild']>): Promise<esbuild.BuildResult> {
  const [key, , target] = args;
  const result = await kept.rebuild(...args);
  if (!copiedThroughNewLink(root, target, Object.keys(result.metafile?.outputs[`${OUT}0.js`]?.inputs ?? {}))) return result;
  await contexts.discard(key);
  return kept.rebuild(...args);
}

// A kept context's boundaries plugin picks the imports it asks about by the `paths` patterns of
// the configs it was made with (module-boundaries.ts): an edited tsconfig.json or jsconfig.json
// (of the chain, `tsconfig.base.json` too) makes a new one, so a pattern added is asked about.
const TSCONFIG_FILE = /(?:^|\/)[jt]sconfig[^/]*\.json$/;

// A kept esbuild context reads a file again only when its inode, size or mtime moved, unless
// the mtime is within 3 s of now: a rewrite of the same size that keeps an older mtime (`cp -p`,
// a restored timestamp, a file system of whole seconds) would be built from the bytes it read
// before. A changed input whose mtime is that old is built in a new context.
function keepsOldModificationTime(root: string, relative: string): boolean {
  if (relative.endsWith('/')) return false;
  try {
    const stats = fs.statSync(path.join(root, relative), { throwIfNoEntry: false });
    return stats !== undefined && stats.mtimeMs < Date.now() - ESBUILD_TRUSTS_MTIME_AFTER_MS;
  } catch {
    return false; // a link loop, a path through a file (ELOOP, ENOTDIR): the build says what it finds
  }
}
