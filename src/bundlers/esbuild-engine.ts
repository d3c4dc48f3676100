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
import { createContextPool, type ContextPool } from './context-pool.js';
import { contentHash } from '../outputs/content-hash.js';
import { createBatchBuilds, type BuildOptionsOf } from './esbuild-batch.js';
import { withLiveService } from './esbuild-service.js';
import { esbuildOptions, OUT, type SourcePolicy } from './esbuild-options.js';
import { createKeptRebuilds } from './kept-rebuild.js';
import { shareWithinBatch, withChunks } from './esbuild-shared-files.js';
import { createStylesheetRebuild, importsNothing, stylesOnly, type LastBuild } from './stylesheet-rebuild.js';
import type { BundleResult, BundleTarget, Bundler, BundlerOptions, RebuildHint } from './types.js';

export { esbuildOptions } from './esbuild-options.js';

/** Within this much of now (with a margin), esbuild does not trust a file's mtime to prove it unchanged (its "mod key" safety gap is 3 s). */
const ESBUILD_TRUSTS_MTIME_AFTER_MS = 2_000;

/**
 * A code rebuild started as the watcher read a save is taken by the job that follows only this
 * soon: a file the build reads for the first time counts as written during the build when its
 * mtime is within 20 ms of the job's start (README "Addresses"), which must cover this rebuild's start too.
 */
const EARLY_REBUILD_TAKEN_WITHIN_MS = 10;

export interface EngineOptions extends BundlerOptions {
  /** Sources this bundler refuses, with the reason. */
  refuse?: SourcePolicy;
  /** The kept contexts (tests wrap the pool to watch it). */
  contexts?: ContextPool;
  /** The clock of the early rebuilds' window (tests hold it). */
  now?: () => number;
}

/** A code rebuild started as the watcher read a save (`anticipate`), and what it can be taken for. */
interface EarlyRebuild {
  /** The saved files it was started for, with the bytes the service hashed. */
  saved: Map<string, Uint8Array>;
  /** Every input's stat as it started (`statKey`). */
  stats: Map<string, string | null | undefined>;
  startedAt: number;
}

export function createEsbuildEngine(options: EngineOptions): Bundler {
  const root = path.resolve(options.root);
  const contexts = options.contexts ?? createContextPool();
  const now = options.now ?? Date.now;
  const lastBuilds = new Map<string, LastBuild>();
  const earlyRebuilds = new Map<string, EarlyRebuild>();
  /** The inputs the service recorded for each module variant's last build (its hint's), tsconfig files included. */
  const recordedInputs = new Map<string, readonly string[]>();
  const buildOptions: BuildOptionsOf = (targets, variant, plugins) => esbuildOptions(root, targets, variant, options.refuse, plugins);
  const { bundleOnce, failedBuild } = createBatchBuilds(root, buildOptions);
  const kept = createKeptRebuilds(contexts, buildOptions);
  const stylesheets = createStylesheetRebuild({ root, contexts, lastBuilds, buildOptions, failedBuild, refuse: options.refuse });
  const rebuildStyles = stylesheets.rebuild;
  // esbuild's process may die under a build: a new one takes over, and the contexts of the old are gone.
  const recover = () => {
    contexts.abandon();
    lastBuilds.clear();
    earlyRebuilds.clear();
    stylesheets.clear();
  };

  // A saved source of a module variant rebuilt in a kept context: esbuild rebuilds it now, while
  // the store records the change and the builds are planned (about 0.7 ms on the way from the
  // save to the build), and the job that follows takes that rebuild if nothing else it reads
  // moved since (ARCHITECTURE.md "One stylesheet edit, from the disk to the page", step 4).
  // A plain stylesheet is left to its own rebuild.
  function anticipateCode(saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined) {
    for (const [key, last] of lastBuilds) {
      const mine = saved.filter((file) => !file.endsWith('.css') && last.codeInputs.includes(file));
      if (mine.length === 0 || mine.some((file) => keepsOldModificationTime(root, file))) continue;
      const bytes = new Map<string, Uint8Array>();
      for (const file of mine) {
        const read = bytesOf(file);
        if (read) bytes.set(file, read);
      }
      if (bytes.size !== mine.length) continue;
      // Taken before esbuild is asked, so any write after it shows when the job compares.
      const stats = new Map<string, string | null | undefined>();
      for (const input of new Set([...last.result.inputs, ...(recordedInputs.get(key) ?? [])])) stats.set(input, statKey(root, input));
      if (contexts.rebuildEarly(key)) earlyRebuilds.set(key, { saved: bytes, stats, startedAt: now() });
    }
  }

  // The early rebuild stands for the job's only when it was started for exactly the changes the
  // job was planned for, from the very bytes the service hashed, and no input it may have read
  // moved since it started: what the job then records is what that rebuild read.
  function earlyHolds(early: EarlyRebuild, since: RebuildHint | undefined): boolean {
    if (!since || now() - early.startedAt > EARLY_REBUILD_TAKEN_WITHIN_MS || since.changed.length !== early.saved.size) return false;
    for (const file of since.changed) {
      const saved = early.saved.get(file);
      const given = since.contents?.[file];
      if (!saved || !given || Buffer.compare(saved, given) !== 0) return false;
    }
    if (!since.inputs.every((input) => early.stats.has(input))) return false;
    for (const [input, stat] of early.stats) if (stat === undefined || statKey(root, input) !== stat) return false;
    return true;
  }

  async function rebuildOnce(target: BundleTarget, variant: Variant, signal?: AbortSignal, since?: RebuildHint): Promise<BundleResult> {
    const key = `${target.specifier}\0${variantKey(variant)}`;
    const signature = JSON.stringify([target.entry, target.dir, target.subpath, target.assets, target.workspace?.key ?? null, target.define ?? null, target.shared ?? null]);
    const early = earlyRebuilds.get(key);
    earlyRebuilds.delete(key);
    if (!early || !earlyHolds(early, since)) contexts.dropEarly(key);
    if (since) recordedInputs.set(key, since.inputs);
    if (since && since.changed.some((file) => keepsOldModificationTime(root, file))) await Promise.all([contexts.discard(key), contexts.discard(`${key}\0styles`)]);
    const last = lastBuilds.get(key);
    // Minified, the code's names depend on every source the bundle read, stylesheets included
    // (esbuild names by how often each character occurs): a stylesheet edit changes the code.
    if (last && since && !variant.min && stylesOnly(last, since)) return rebuildStyles(key, signature, target, variant, last, signal, since.contents?.[last.stylesheet!]);
    try {
      const result = await kept.rebuild(key, signature, target, variant, signal);
      const last = wholeBuild(root, target, result);
      lastBuilds.set(key, last);
      return last.result;
    } catch (error) {
      lastBuilds.delete(key);
      if (isBuildFailure(error)) return failedBuild(target, variant, error.errors);
      throw error;
    }
  }

  return {
    bundle: (targets, variant, signal) =>
      withLiveService(async () => {
        const shared = await shareWithinBatch(bundleOnce, targets, await bundleOnce(targets, variant, signal), variant, signal);
        return withChunks(bundleOnce, shared.targets, shared.results, variant, signal, shared.chunks);
      }, recover),
    rebuild: (target, variant, signal, since) =>
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
      }, recover),
    anticipate(saved, bytesOf) {
      stylesheets.anticipate(saved, bytesOf);
      anticipateCode(saved, bytesOf);
    },
    async dispose() {
      lastBuilds.clear();
      earlyRebuilds.clear();
      kept.clear();
      await contexts.dispose();
    },
  };
}

/** A whole build of the module in its kept context, as the stylesheet rebuilt alone later needs it. */
function wholeBuild(root: string, target: BundleTarget, result: esbuild.BuildResult): LastBuild {
  const collected = collect(root, target, 0, result);
  const styles = new Set(stylesInputs(result, 0));
  const code = new Set(Object.keys(result.metafile!.outputs[`${OUT}0.js`]?.inputs ?? {}));
  // What the code depends on: every input but those only the stylesheet read.
  const codeInputs = collected.inputs.filter((input) => !styles.has(input) || code.has(input));
  const stylesheet = stylesheetRoot(result, 0);
  return {
    result: collected,
    codeHash: collected.code ? contentHash(collected.code) : null,
    stylesheet,
    stylesheetAlone: stylesheet !== null && importsNothing(result, stylesheet),
    codeInputs,
    // A stylesheet is among the code's inputs too (its import), but its warnings are the
    // stylesheet build's: one rebuilt alone reports them again, or not once fixed.
    codeWarnings: (collected.warnings ?? []).filter((warning) => warning.file === undefined || (codeInputs.includes(warning.file) && !styles.has(warning.file))),
    stylesInputs: styles,
  };
}

/** What a write would change of a file's stat; null when it is absent, undefined when it cannot tell (never the same as before). */
function statKey(root: string, relative: string): string | null | undefined {
  try {
    const stats = fs.statSync(path.join(root, relative), { throwIfNoEntry: false });
    return stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : null;
  } catch {
    return undefined;
  }
}

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
