// A change of stylesheets only rebuilds the stylesheet alone, when the module has a single one
// and is not minified: the most frequent edit of a day's work then costs half a build. A
// stylesheet that imports nothing is compiled by esbuild's transform, which gives the bytes a
// build gives it (ARCHITECTURE.md "One stylesheet edit, from the disk to the page").
import path from 'node:path';
import * as esbuild from 'esbuild';
import { keptUntilSettled } from './calls-in-flight.js';
import { serviceCall, withLiveService } from './esbuild-service.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { variantKey, type Variant } from '../workspace/variant.js';
import { isBuildFailure, misplacedImportRules, stylesInputs, unservedStylesheetReferences, warningsOf } from './build-results.js';
import type { ContextPool } from './context-pool.js';
import type { BatchBuilds, BuildOptionsOf } from './esbuild-batch.js';
import { OUT, outputOptions, type LinksWord, type SourcePolicy } from './esbuild-options.js';
import { placedReads } from './placed-reads.js';
import { resolveImageSetStrings } from './image-set-strings.js';
import { versionRootUrls } from './root-urls.js';
import { placeAssetAddresses, sheetAssets } from './plugins/assets.js';
import { readRegularFile } from '../regular-files.js';
import { BuildCancelled, type BundleResult, type BundleTarget, type RebuildHint } from './types.js';

export interface LastBuild {
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

export interface StylesheetRebuildDeps {
  root: string;
  contexts: ContextPool;
  lastBuilds: Map<string, LastBuild>;
  buildOptions: BuildOptionsOf;
  failedBuild: BatchBuilds['failedBuild'];
  refuse?: SourcePolicy;
  /** esbuild's `transform` (tests count its calls). */
  transform?: typeof esbuild.transform;
}

/** The module's build with its stylesheet built again; `key`: its variant's context; `bytes`: the sheet as the service hashed it; `word`: the watcher's word on links `signature` holds. */
export type RebuildStyles = (key: string, signature: string, target: BundleTarget, variant: Variant, last: LastBuild, signal?: AbortSignal, bytes?: Uint8Array, word?: LinksWord) => Promise<BundleResult>;

export interface StylesheetRebuild {
  rebuild: RebuildStyles;
  /** Files just saved, and the bytes the service read (`Bundler.anticipate`): a sheet last built alone is transformed at once. */
  anticipate(saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined): void;
  /** Forgets every early transform (esbuild's process was replaced). */
  clear(): void;
  /** Settles once every early transform started has ended, taken or not (calls-in-flight.ts). */
  idle(): Promise<void>;
}

/** What a transform of a sheet alone gives: its output, or null when the build must decide. */
type Alone = { styles: Uint8Array | null; warnings: esbuild.Message[] } | null;

/** A sheet's transform options, and their JSON (how two are compared). */
interface SheetOptions {
  options: esbuild.TransformOptions;
  json: string;
}

/** A transform started as the watcher read the sheet, before the store recorded the change. */
interface EarlyTransform {
  source: Uint8Array;
  /** The transform's options: the rebuild takes it only with the very same (by their JSON). */
  options: SheetOptions;
  /** Its outcome; a thrown error is kept as the value, and the rebuild then transforms again. */
  outcome: Promise<Alone | { failed: unknown }>;
}

// A sheet's options are the same from one save to the next: made once, not on the way from
// the save to esbuild, twice per edit (ARCHITECTURE.md "One stylesheet edit").
function sheetOptionsMemo(): (entry: string, variant: Variant) => SheetOptions {
  const optionsMade = new Map<string, SheetOptions>();
  return (entry, variant) => {
    const key = `${variantKey(variant)}\0${variant.sourcemap}\0${entry}`;
    let made = optionsMade.get(key);
    if (!made) {
      const options = transformOptions(entry, variant);
      optionsMade.set(key, (made = { options, json: JSON.stringify(options) }));
    }
    return made;
  };
}

/** The outcome of the early transform of the module's sheet, if it had these bytes and options and did not throw. */
async function takeEarly(early: Map<string, EarlyTransform>, key: string, source: Uint8Array, options: SheetOptions): Promise<Alone | undefined> {
  const started = early.get(key);
  early.delete(key);
  if (!started || started.options.json !== options.json || Buffer.compare(started.source, source) !== 0) return undefined;
  const outcome = await started.outcome;
  return outcome !== null && 'failed' in outcome ? undefined : outcome;
}

// Only stylesheets changed, and the code is the one last built: the code output stands,
// the stylesheet is built alone (the same bytes a whole build gives it; tested).
export function createStylesheetRebuild(deps: StylesheetRebuildDeps): StylesheetRebuild {
  const { root, contexts, lastBuilds } = deps;
  const transform: typeof esbuild.transform = deps.transform ?? ((input, options) => serviceCall(() => esbuild.transform(input, options)));
  /** The module variant whose sheet was last transformed alone, by the sheet's path. */
  const sheets = new Map<string, { key: string; variant: Variant }>();
  const early = new Map<string, EarlyTransform>();
  const transforms = new Set<Promise<unknown>>();
  const optionsOf = sheetOptionsMemo();

  // The watcher has just read a saved sheet that was last built alone: esbuild transforms those
  // bytes while the store records the change and the build is planned, and the rebuild that
  // follows takes the result when it is given the same bytes (ARCHITECTURE.md "One stylesheet edit").
  function anticipate(saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined) {
    for (const file of saved) {
      const sheet = sheets.get(file);
      if (!sheet || deps.refuse?.filter.test(file)) continue;
      const source = bytesOf(file);
      if (!source) continue;
      const options = optionsOf(file, sheet.variant);
      // Through the one place that counts esbuild's deaths and starts its processes (esbuild-service.ts).
      const transformed = withLiveService(() => transformSource(transform, source, options.options));
      const outcome = keptUntilSettled(transforms, transformed.catch((failed: unknown) => ({ failed })), `the early transform of ${file}`);
      early.set(sheet.key, { source, options, outcome });
    }
  }

  // The early transform of these very bytes with these very options, else a transform now.
  async function transformAlone(key: string, target: BundleTarget, variant: Variant, signal?: AbortSignal, bytes?: Uint8Array): Promise<Alone> {
    if (deps.refuse?.filter.test(target.entry)) return null;
    let source: Uint8Array;
    try {
      // Never waits on a FIFO (README "Files that are not files"): the build says what it is.
      source = bytes ?? readRegularFile(path.join(root, target.entry)).bytes;
    } catch {
      return null; // gone or unreadable: the build says how
    }
    sheets.set(target.entry, { key, variant });
    const options = optionsOf(target.entry, variant);
    let alone = await takeEarly(early, key, source, options);
    if (alone === undefined) alone = await transformSource(transform, source, options.options);
    if (signal?.aborted) throw new BuildCancelled();
    return alone;
  }

  const rebuild: RebuildStyles = async (key, signature, target, variant, last, signal, bytes, word = {}) => {
    const stylesheet = last.stylesheet!;
    const stylesTarget = { ...target, entry: stylesheet };
    try {
      if (!last.stylesheetAlone) sheets.delete(stylesheet);
      const alone = last.stylesheetAlone ? await transformAlone(key, stylesTarget, variant, signal, bytes) : null;
      const result = alone ? null : await contexts.rebuild(`${key}\0styles`, `${signature}\0${stylesheet}`, () => deps.buildOptions([stylesTarget], variant, word), signal);
      const built = alone ? alone.styles : (result!.outputFiles?.find((file) => file.path === path.join(root, `${OUT}0.css`))?.contents ?? null);
      const read = alone ? [stylesheet] : stylesInputs(result!, 0);
      const sheet = rebuiltSheet(root, target, built, read, alone ? null : result!);
      const warnings = [...last.codeWarnings, ...warningsOf(root, alone ? alone.warnings : result!.warnings, new Set(read))];
      const { warnings: _before, ...kept } = last.result;
      const resolution = [...new Set([...(kept.resolution ?? []), ...sheet.named])].sort();
      const rebuilt: BundleResult = {
        ...kept,
        styles: sheet.styles && sheet.styles.length > 0 ? sheet.styles : null,
        inputs: [...new Set([...last.codeInputs, ...read, ...sheet.named])].sort(),
        ...(resolution.length > 0 ? { resolution } : {}),
        // The code's errors stand; the last sheet's are replaced by this one's.
        errors: [...kept.errors.filter((error) => error.file === undefined || !last.stylesInputs.has(error.file)), ...sheet.errors, ...misplacedImportRules(root, alone ? alone.warnings : result!.warnings, new Set(read))],
        ...placedFromOf(kept.placedFrom, sheet.placedFrom),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
      lastBuilds.set(key, { ...last, result: rebuilt, stylesheetAlone: alone !== null || importsNothing(result!, stylesheet), stylesInputs: new Set(read) });
      return rebuilt;
    } catch (error) {
      lastBuilds.delete(key);
      if (isBuildFailure(error)) return deps.failedBuild(target, variant, error.errors);
      throw error;
    }
  };

  const idle = async () => void (await Promise.all(transforms));
  return { rebuild, anticipate, clear: () => early.clear(), idle };
}

// A stylesheet that imports nothing, compiled by esbuild's transform: one exchange with its
// process, which neither stats, resolves nor links (after an idle moment 1.6 ms against 2.4
// for the context's rebuild), and the bytes a build gives: the build's first line naming the
// file is the transform's banner, its options are the build's (tested on every kind of
// sheet). Null, and the build decides, when the sheet now imports something (`@import`,
// `url()`: the plugins give those their addresses), has an `@charset` (the build hoists it
// above that first line), fails, or a policy of the bundler could refuse it (`transformAlone`
// compiles the sheet as the service hashed it, when it has those bytes: it is not read again).
function transformOptions(entry: string, variant: Variant): esbuild.TransformOptions {
  // The build's options that print CSS (its plugins, made for every build, are not needed).
  const printed = outputOptions(variant);
  return {
    ...printed,
    loader: 'css',
    sourcefile: entry,
    // A bundle's legal comments go to the end of the file.
    legalComments: 'eof',
    ...(printed.minify ? {} : { banner: `/* ${entry} */` }),
    logLevel: 'silent',
  };
}

async function transformSource(transform: typeof esbuild.transform, source: Uint8Array, options: esbuild.TransformOptions): Promise<Alone> {
  let result: esbuild.TransformResult;
  try {
    result = await transform(source, options);
  } catch (error) {
    if (isBuildFailure(error)) return null;
    throw error;
  }
  if (/@import|@charset|url\(/i.test(result.code)) return null;
  return { styles: result.code.length > 0 ? Buffer.from(result.code) : null, warnings: result.warnings };
}

// Every change is to a plain stylesheet the last build's styles were made from, and that
// last build is the one the caller knows (the same code, by content, and the same inputs):
// then the code cannot have changed. The caller may have recorded another build since (a
// batch build), whose code is not this one's.
// The sheet as served. A sheet alone imports nothing; one built (`result`) may name a file that is
// not there, as in a whole build, and the declared assets its `url()`s name are inputs, as in a
// whole build (`collect`: their versions, README "Preview and stylesheet push"); either may write
// image-set() strings, resolved as a whole build's (README "Workspaces"). Its errors are placed
// from one read of each sheet (`placedFrom`).
function rebuiltSheet(root: string, target: BundleTarget, built: Uint8Array | null, read: readonly string[], result: esbuild.BuildResult | null): { styles: Uint8Array | null; errors: Diagnostic[]; named: string[]; placedFrom: Record<string, string> } {
  const reads = placedReads(root);
  const rooted = versionRootUrls(built, target);
  const imageSets = resolveImageSetStrings(rooted.styles, read, target, reads, root);
  const unserved = result === null ? { errors: [], absent: [] } : unservedStylesheetReferences(reads, result.metafile!, `${OUT}0.css`, target);
  const assets = result === null ? [] : sheetAssets(target, result.metafile!, `${OUT}0.css`);
  const errors = [...unserved.errors, ...imageSets.errors];
  const styles = imageSets.styles && placeAssetAddresses(imageSets.styles, target.subpath);
  return { styles, errors, named: [...unserved.absent, ...assets, ...rooted.named, ...imageSets.named], placedFrom: reads.placedFrom(errors) };
}

// The code's places stand as they were judged; the sheet's are this read's (`placedFrom`, README "Code frames").
function placedFromOf(kept: Record<string, string> | undefined, read: Record<string, string>): { placedFrom?: Record<string, string> } {
  const placedFrom = { ...kept, ...read };
  return Object.keys(placedFrom).length > 0 ? { placedFrom } : {};
}

export function stylesOnly(last: LastBuild, since: RebuildHint): boolean {
  if (last.stylesheet === null || since.changed.length === 0) return false;
  if (last.codeHash === null || since.code !== last.codeHash) return false;
  if (!since.changed.every((file) => file.endsWith('.css') && !file.endsWith('.module.css') && last.stylesInputs.has(file))) return false;
  // The service's record holds the tsconfig files besides the inputs this engine reported.
  const recorded = new Set(since.inputs);
  if (!last.result.inputs.every((input) => recorded.has(input))) return false;
  return since.inputs.every((input) => input.endsWith('.json') || last.result.inputs.includes(input));
}

/** The build read `stylesheet` (workspace-relative) and nothing else, which imports nothing. */
export function importsNothing(result: esbuild.BuildResult, stylesheet: string): boolean {
  const read = stylesInputs(result, 0);
  return read.length === 1 && read[0] === stylesheet && (result.metafile!.inputs[stylesheet]?.imports.length ?? 1) === 0;
}
