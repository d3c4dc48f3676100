// From esbuild's answer to the bundler's results: each entry's outputs, the files it read,
// its bare imports, or its errors as BUNDLE_ERROR diagnostics.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { DIAGNOSTIC_KINDS } from '../codes.js';
import type { ImportRecord } from '../workspace/checks.js';
import { bufferView } from '../outputs/buffer-view.js';
import { diagnostic, type Diagnostic, type DiagnosticKind } from '../workspace/diagnostics.js';
import { isBare } from '../workspace/specifiers.js';
import { lineAndColumn } from '../workspace/json.js';
import { resolvedBeside, triedBefore } from '../workspace/resolution.js';
import { sharedAmong } from '../workspace/shared-files.js';
import { isInside, toWorkspacePath } from '../workspace/paths.js';
import { OUT } from './esbuild-options.js';
import { CODE_IMPORT_KINDS } from './import-kinds.js';
import { importsAfterOwnSheet } from './sheet-place.js';
import { folderEntries } from './case-names.js';
import { externalRequires } from './external-requires.js';
import { CROSSED, isCrossed, keptExternalOf } from './plugins/module-boundaries.js';
import { filesRead } from '../workspace/files-read.js';
import { WORKSPACE_CONFINEMENT } from './plugins/workspace-confinement.js';
import { CSS_MODULE_SCRIPT_REFUSED, CSS_MODULE_SCRIPTS } from './plugins/css-module-scripts.js';
import { heldImportMetaUrl, namedManifests, placeAssetUrls, unservedModuleUrls, versionWrittenAddresses } from './module-urls.js';
import { assetImportWarnings } from './asset-imports.js';
import { isMarkedAssetAddress, rootAddressInputs, placeAssetAddresses, rootAddressProblem, sheetAssets } from './plugins/assets.js';
import { patternListings } from './glob-imports.js';
import { viteImportMetaReads } from './vite-import-meta.js';
import { viteQueryImports } from './vite-query-imports.js';
import { scanLinkNames, type LinkNames } from '../workspace/link-names.js';
import { placedReads, type PlacedReads } from './placed-reads.js';
import { resolveImageSetStrings, type ResolvedImageSets } from './image-set-strings.js';
import { versionRootUrls } from './root-urls.js';
import { freeGlobalDiagnostics } from './free-globals.js';
import { decoratorMetadataDiagnostics } from './decorator-metadata.js';
import { unboundNameDiagnostics } from './unbound-names.js';
import { shimFacts } from './global-writes.js';
import type { ShimFacts } from '../workspace/shim-reads.js';
import { cssModuleScriptImports } from './css-module-script-imports.js';
import type { Variant } from '../workspace/variant.js';
import { LINK_TARGET, type BundleResult, type BundleTarget, type MappedImport } from './types.js';

// Import kinds of JavaScript; CSS `@import` and `url()` are not dependencies between modules.

export const isBuildFailure = (error: unknown): error is esbuild.BuildFailure =>
  error instanceof Error && Array.isArray((error as Partial<esbuild.BuildFailure>).errors) && (error as esbuild.BuildFailure).errors.length > 0;

// The outputs, inputs and bare imports of entry `index` of a finished build of `variant`.
export function collect(root: string, target: BundleTarget, index: number, result: esbuild.BuildResult, variant: Pick<Variant, 'target'> = { target: 'browser' }): BundleResult {
  const files = outputsByPath(result);
  const metafile = result.metafile!;
  const codePath = path.join(root, `${OUT}${index}.js`);
  // A stylesheet module's code is empty (README "Stylesheet modules"): its import is kept in the
  // import map, and the page links its sheet.
  const built = files.get(codePath);
  // An asset's address written as such carries its version (development): found before the
  // import's addresses are placed, which are then told from it.
  const written = built ? versionWrittenAddresses(target, built) : { code: built, addressed: [] };
  const code = written.code ? placeAssetAddresses(written.code, target.subpath) : isStylesheetEntry(target) ? new Uint8Array(0) : null;
  const reads = placedReads(root); // each place below: from one read of its file, judged by `placedFrom`
  const sheet = builtSheet(root, target, index, result, reads);
  const inputs = new Set<string>();
  // The files whose code is in this module's outputs: warnings are about those only, not about
  // the entry of a module imported from TypeScript (an input, for its exports).
  const bundled = new Set<string>();
  const codeOutput = metafile.outputs[`${OUT}${index}.js`];
  const codeInputs = Object.keys(codeOutput?.inputs ?? {});
  const read = [...codeInputs, ...Object.keys(metafile.outputs[`${OUT}${index}.css`]?.inputs ?? {}), ...reachedFrom(metafile, codeOutput?.entryPoint)];
  for (const input of read) {
    const file = inputPath(input);
    if (file === null) continue;
    inputs.add(file);
    if (!isCrossed(input)) bundled.add(file);
  }
  const resolution = resolutionInputs(root, result, read);
  for (const listing of patternListings(root, metafile.inputs, read, inputPath)) resolution.add(listing);
  // An entry reached through a link (the entry itself, its module's or its package's directory):
  // where its path leads is an input, so that the link retargeted builds the module from there.
  const realEntry = codeOutput?.entryPoint === undefined ? null : inputPath(codeOutput.entryPoint);
  if (code !== null && realEntry !== null && realEntry !== target.entry) resolution.add(`${target.entry}${LINK_TARGET}`);
  // Another module's entry imported from TypeScript is an input for its exports, not a file read.
  for (const file of inputs) if (!bundled.has(file)) resolution.add(file);
  for (const file of bundled) resolution.delete(file);
  for (const file of resolution) inputs.add(file);
  const mapped = mappedImports(root, result, read);
  const [imports, assertedJson, afterSheet]: [ImportRecord[], Set<string>, Set<string>] = [[], assertedJsonImports(code), importsAfterOwnSheet(metafile.inputs, codeOutput?.entryPoint)];
  for (const input of codeInputs) {
    if (isCrossed(input)) continue;
    for (const record of metafile.inputs[input]?.imports ?? []) {
      // A relative import of another module's entry is external as that module's specifier (its
      // `path`), or, from TypeScript, reaches the module standing for it, which imports that.
      const crossed = isCrossed(record.path) ? metafile.inputs[record.path]?.imports.find((imported) => imported.external) : undefined;
      const specifier = crossed ? crossed.path : record.external && isBare(record.path) ? record.path : (record.original ?? record.path);
      if (!(record.external || crossed) || !CODE_IMPORT_KINDS.has(record.kind) || !isBare(specifier)) continue;
      const file = inputPath(input);
      if (file === null) continue;
      // Where it is written is found by the build runner; its JSON attribute, see `assertedJsonImports`.
      imports.push({ specifier, file, ...(record.with?.type === 'json' || assertedJson.has(specifier) ? { json: true as const } : {}), ...(afterSheet.has(specifier) ? { afterSheet: true as const } : {}), ...(record.kind === 'dynamic-import' ? { dynamic: true as const } : {}) });
    }
  }
  const unserved = unservedStylesheetReferences(reads, metafile, `${OUT}${index}.css`, target);
  const sources = codeInputs.flatMap((input) => (isCrossed(input) || input.endsWith('.css') ? [] : (inputPath(input) ?? [])));
  // A `new URL` of a declared asset is that asset's address, as its import is.
  const placed = code === null ? { code, assets: [] } : placeAssetUrls(reads, target, code, sources);
  // Files it depends on without reading them: the sheet's references to no file, the assets so named, and its `url()`s' (their versions, README "Preview and stylesheet push"); every declared asset in development; and the manifest of each other package its addresses name (its version, README "Workspaces").
  for (const file of [...unserved.absent, ...sheet.named, ...placed.assets, ...written.addressed, ...sheetAssets(target, metafile, `${OUT}${index}.css`), ...declaredAssetFiles(target), ...namedManifests(target, placed.code)]) {
    inputs.add(file);
    resolution.add(file);
  }
  const assetWarnings = [...scannedAssetImports(reads, target, [...placed.assets, ...written.addressed], placed.code, sources, inputs, resolution), ...heldImportMetaUrl(reads, target, placed.code, sources)];
  const { errors: undefinedNames, warnings, shims } = judgedCode(reads, placed.code, sources, target, variant, [...warningsOf(root, result.warnings, bundled), ...assetWarnings]);
  const errors = [...stylesheetValueImports(reads, metafile, `${OUT}${index}.js`), ...unserved.errors, ...sheet.errors, ...misplacedImportRules(root, result.warnings, bundled), ...scannedModuleScriptSheets(reads, metafile, codeInputs, target, inputs, resolution), ...placedCodeErrors(reads, target, placed.code, sources, metafile, codeInputs), ...undefinedNames, ...caseTwinsBuiltAsOne(root, result, read, codeInputs, inputs), ...caseTwinFoldersBuiltAsOne(root, result.metafile!, read, inputs)];
  const placedFrom = reads.placedFrom([...errors, ...warnings]);
  return {
    specifier: target.specifier,
    code: placed.code,
    styles: sheet.styles && sheet.styles.length > 0 ? sheet.styles : null,
    inputs: [...inputs].sort(),
    ...(resolution.size > 0 ? { resolution: [...resolution].sort() } : {}),
    ...(mapped.length > 0 ? { mapped } : {}),
    imports: withWrittenShared(root, target, result, imports),
    ...linkNamesOf(built, codeOutput), ...(shims ? { shims } : {}),
    errors,
    ...(Object.keys(placedFrom).length > 0 ? { placedFrom } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(codeOutput?.entryPoint !== undefined && metafile.inputs[codeOutput.entryPoint]?.format === 'cjs' ? { commonjs: true as const } : {}),
  };
}

/**
 * The declared assets of a development build (`assetVersions` is set for those only), by their
 * workspace paths: inputs of its module whether its outputs name them or not, so that a save of
 * one is seen and compared (README "Preview and stylesheet push").
 */
export const declaredAssetFiles = (target: BundleTarget): string[] => (target.assetVersions ? target.assets.map((asset) => path.posix.join(target.dir, asset)) : []);

// The imports with how each importer writes its import of a shared file (`'./x'`), by which its
// place is found: esbuild's metafile names only the internal specifier the boundaries plugin made of it.
function withWrittenShared(root: string, target: BundleTarget, result: esbuild.BuildResult, imports: ImportRecord[]): ImportRecord[] {
  if (!target.shared) return imports;
  const written = new Map<string, string>();
  for (const kept of keptExternalOf(result)) {
    const importer = toWorkspacePath(root, kept.importer);
    const file = toWorkspacePath(root, kept.file);
    const specifier = file === null ? undefined : target.shared[file];
    if (importer !== null && specifier !== undefined) written.set(`${importer}\0${specifier}`, kept.original);
  }
  if (written.size === 0) return imports;
  return imports.map((record) => {
    const asWritten = written.get(`${record.file}\0${record.specifier}`);
    return asWritten === undefined ? record : { ...record, written: asWritten };
  });
}

// A declared script the code names (a worker) loads what the browser fetches as written, as the
// code starts it (README "Bundling real code"): the warnings about those loads, and about a worker
// started from a plain string; each asset read is an input, so that an edit of one judges it again.
function scannedAssetImports(reads: PlacedReads, target: BundleTarget, named: readonly string[], code: Uint8Array | null, sources: readonly string[], inputs: Set<string>, resolution: Set<string>): Diagnostic[] {
  const { warnings, scanned } = assetImportWarnings(reads, target, named, code, sources);
  for (const file of scanned) {
    inputs.add(file);
    resolution.add(file);
  }
  return warnings;
}

// The errors about the `@import`s of the sheets the code imports as CSS module scripts (README
// "Stylesheet modules"); each sheet read is an input, so that an edit of one judges it again.
function scannedModuleScriptSheets(reads: PlacedReads, metafile: esbuild.Metafile, codeInputs: readonly string[], target: BundleTarget, inputs: Set<string>, resolution: Set<string>): Diagnostic[] {
  const { errors, sheets } = cssModuleScriptImports(reads, metafile, codeInputs.filter((input) => !isCrossed(input)), target);
  for (const file of sheets) {
    inputs.add(file);
    resolution.add(file);
  }
  return errors;
}

// The sheet of entry `index` as served: its image-set() strings resolved (README "Workspaces"), its
// asset addresses placed, but a shared file's: it is part of each importing module's sheet
// (`attachChunks`), which places them from where that module's sheet is served.
function builtSheet(root: string, target: BundleTarget, index: number, result: esbuild.BuildResult, reads: PlacedReads): ResolvedImageSets {
  const emitted = outputsByPath(result).get(path.join(root, `${OUT}${index}.css`)) ?? null;
  const rooted = versionRootUrls(emitted, target);
  const imageSets = resolveImageSetStrings(rooted.styles, stylesInputs(result, index), target, reads, root);
  const resolved = { ...imageSets, named: [...new Set([...rooted.named, ...imageSets.named])].sort() };
  return { ...resolved, styles: resolved.styles && !target.subpath.startsWith('.shared/') ? placeAssetAddresses(resolved.styles, target.subpath) : resolved.styles };
}

// What the code's sources write that no browser serves or runs, placed from one read of each
// source: a `new URL` of no declared asset, Vite's `import.meta` members and query imports.
function placedCodeErrors(reads: PlacedReads, target: BundleTarget, code: Uint8Array | null, sources: readonly string[], metafile: esbuild.Metafile, codeInputs: readonly string[]): Diagnostic[] {
  const urls = code === null ? [] : unservedModuleUrls(reads, target, code, sources);
  const viteReads = code === null ? [] : viteImportMetaReads(reads, code, sources, target.define);
  const read = codeInputs.filter((input) => !isCrossed(input));
  const viteQueries = viteQueryImports(reads, target, metafile.inputs, read, inputPath);
  const requires = externalRequires(reads, metafile.inputs, read, inputPath);
  return [...urls, ...viteReads, ...viteQueries, ...requires];
}

// A module of the workspace whose entry is a stylesheet: its code is empty (README "Stylesheet
// modules"), so importing it for its effects runs nothing that could define a global.
function isStylesheetModule(target: BundleTarget, specifier: string): boolean {
  const entries = target.workspace?.entries;
  if (entries === undefined) return false;
  for (const [entry, named] of Object.entries(entries)) if (named === specifier) return entry.endsWith('.css');
  return false;
}

// What the code's sources ask of it that the build does not give: `emitDecoratorMetadata`'s
// metadata, for any target, and for a browser the names it reads that none defines.
function judgedCode(reads: PlacedReads, code: Uint8Array | null, sources: readonly string[], target: BundleTarget, variant: Pick<Variant, 'target'>, built: Diagnostic[]): { errors: Diagnostic[]; warnings: Diagnostic[]; shims?: ShimFacts } {
  if (code === null) return { errors: [], warnings: built };
  const decorated = decoratorMetadataDiagnostics(reads, code, sources);
  const names = browserUndefinedNames(reads, code, sources, target, variant, [...built, ...decorated.warnings]);
  return { errors: [...names.errors, ...decorated.errors], warnings: names.warnings, ...(names.shims ? { shims: names.shims } : {}) };
}

// The names the code reads that no browser defines, and the names and values it uses where the
// import runs that surely throw in strict code (README "Bundling real code"): its errors, and
// its warnings after esbuild's (`built`). Node's globals are defined where a `target=node` build
// runs, so only a browser's code is judged. With them, what its code may write on the global
// object and which modules it imports for their effects (`shims`), by which a read taken as
// defined because of such an import is judged across modules (src/workspace/shim-reads.ts).
function browserUndefinedNames(reads: PlacedReads, code: Uint8Array | null, sources: readonly string[], target: BundleTarget, variant: Pick<Variant, 'target'>, built: Diagnostic[]): { errors: Diagnostic[]; warnings: Diagnostic[]; shims?: ShimFacts } {
  if (code === null || variant.target !== 'browser') return { errors: [], warnings: built };
  const runsNoCode = (specifier: string) => isStylesheetModule(target, specifier);
  const found = freeGlobalDiagnostics(reads, code, sources, target.entry, runsNoCode);
  const shims = shimFacts(code, runsNoCode);
  const unbound = unboundNameDiagnostics(reads, code, sources, target.entry, runsNoCode, found.jsxNames);
  return { errors: [...found.errors, ...unbound.errors], warnings: [...built, ...found.warnings, ...unbound.warnings], ...(shims ? { shims } : {}) };
}

// What the page links by, read from the code esbuild wrote: judged across modules by the
// selectors (README "Bundling real code"). Absent when there is no code, or it is not of esbuild's form.
function linkNamesOf(built: Uint8Array | undefined, output: esbuild.Metafile['outputs'][string] | undefined): { links?: LinkNames } {
  const links = built && output ? scanLinkNames(new TextDecoder().decode(built), output.exports) : null;
  return links ? { links } : {};
}

// Each entry of a batch looks up its two outputs: by path, once per build, not a scan of the
// batch's 200 outputs per entry.
const outputsOfBuild = new WeakMap<esbuild.BuildResult, Map<string, Uint8Array>>();
function outputsByPath(result: esbuild.BuildResult): Map<string, Uint8Array> {
  let outputs = outputsOfBuild.get(result);
  if (!outputs) {
    outputs = new Map();
    // The first of one path, as a scan finds it.
    for (const file of result.outputFiles ?? []) if (!outputs.has(file.path)) outputs.set(file.path, file.contents);
    outputsOfBuild.set(result, outputs);
  }
  return outputs;
}

const PLAIN_STYLESHEET = /\.css(?:\?[^/]*)?$/;
const CSS_MODULE = /\.module\.css(?:\?[^/]*)?$/;

// A plain stylesheet whose code esbuild put in the output was imported for a value (a default
// or namespace import, `?inline` too): esbuild makes that `{}`, silently, and the page breaks
// where it is used (README "Stylesheet modules"). A CSS module's class names are its value.
function stylesheetValueImports(reads: PlacedReads, metafile: esbuild.Metafile, codeOutput: string): Diagnostic[] {
  const inOutput = metafile.outputs[codeOutput]?.inputs ?? {};
  const used = Object.entries(inOutput)
    .filter(([input, { bytesInOutput }]) => bytesInOutput > 0 && PLAIN_STYLESHEET.test(input) && !CSS_MODULE.test(input))
    .map(([input]) => input);
  if (used.length === 0) return [];
  const found: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const [importer, { imports }] of Object.entries(metafile.inputs)) {
    // The metafile is the whole batch's: another module's import of the same sheet is its own.
    if (!(importer in inOutput)) continue;
    for (const record of imports) {
      if (!used.includes(record.path) || !CODE_IMPORT_KINDS.has(record.kind) || record.original === undefined) continue;
      const file = inputPath(importer);
      if (file === null || seen.has(`${file}\0${record.original}`)) continue;
      seen.add(`${file}\0${record.original}`);
      const where = valueImportAt(reads, file, record.original);
      if (where === undefined) continue; // this importer's own import is for its side effect
      found.push(diagnostic('STYLESHEET_IMPORTED_AS_VALUE', `"${record.original}" is imported for a value, which esbuild makes an empty object ({}): ${DIAGNOSTIC_KINDS.STYLESHEET_IMPORTED_AS_VALUE.remedy}`, { file, ...where }));
    }
  }
  return found;
}

// A stylesheet's `@import` and `url()` are relative by the rules of CSS, and esbuild resolves them
// so first; one that names no file there is kept as written (a bare name falls to `packages:
// 'external'`, and a typo with it), and the browser asks for it at the sheet's own address,
// where nothing is served: the page misses those rules or that image while the module is valid
// (README "Workspaces"). Each is an error at its place; the file it would name is an
// input, absent, so making it builds the module again. Kept on purpose: a URL with a scheme
// (`https:`, `data:`), one from the root of the origin (`//`, `/`), a fragment (`#mask`), and
// the addresses the plugins write (declared assets). One from the root of the origin under `/m/`
// is the service's own, and an error when the service knows it answers 404 (`rootAddressProblem`).
const KEPT_ON_PURPOSE = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/|#|\.\.?\/)/;

export function unservedStylesheetReferences(reads: PlacedReads, metafile: esbuild.Metafile, stylesOutput: string, target: BundleTarget): { errors: Diagnostic[]; absent: string[] } {
  const errors: Diagnostic[] = [];
  const absent = new Set<string>();
  for (const input of Object.keys(metafile.outputs[stylesOutput]?.inputs ?? {})) {
    const file = inputPath(input);
    if (file === null) continue;
    for (const record of metafile.inputs[input]?.imports ?? []) {
      if (!record.external || (record.kind !== 'import-rule' && record.kind !== 'url-token')) continue;
      const reference = record.path;
      for (const input of rootAddressInputs(target, reference)) absent.add(input);
      const problem = rootAddressProblem(target, reference, record.kind === 'url-token' ? `url(${reference})` : `@import "${reference}"`);
      if (problem !== null) {
        const text = reads.text(file);
        errors.push(diagnostic('BUNDLE_ERROR', problem, { file, ...(text === null ? null : referenceAt(text, reference)) }));
        continue;
      }
      if (reference === '' || KEPT_ON_PURPOSE.test(reference) || isMarkedAssetAddress(reference)) continue;
      const named = path.posix.normalize(path.posix.join(path.posix.dirname(file), reference.replace(/[?#].*$/, '')));
      if (isInside(named)) absent.add(named);
      const text = reads.text(file);
      const where = text === null ? null : referenceAt(text, reference);
      errors.push(diagnostic('BUNDLE_ERROR', unservedMessage(record.kind, reference, path.posix.basename(file)), { file, ...where }));
    }
  }
  return { errors, absent: [...absent] };
}

function unservedMessage(kind: string, reference: string, sheet: string): string {
  const why = `names no file beside ${sheet}: a stylesheet's @import and url() are relative, by the rules of CSS, and the browser would ask for it at the sheet's own address, where nothing is served`;
  if (kind === 'import-rule') {
    return `@import "${reference}" ${why}, so the page would miss its rules. Name a file that is there, by its path from the sheet, or, for a stylesheet of a package, import it from the module's code (import '${reference}'): the page links it`;
  }
  return `url(${reference}) ${why}. Write the path of a file of the package (declared under "assets" in the module.json beside the module's entry when it is no stylesheet)`;
}

/** Where `reference` is written in the sheet's text, if found as written: at its `url(`, or at the string an `@import` names, as esbuild points at a reference. */
function referenceAt(text: string, reference: string): { line: number; column: number } | null {
  const quoted = reference.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`url\\(\\s*["']?(?=${quoted}["')\\s])|@import\\s*(?=["']${quoted}["'])`, 'i').exec(text);
  return match ? lineAndColumn(text, match.index + (match[0].startsWith('@') ? match[0].length : 0)) : null;
}

// Where `file` imports `specifier` with a binding (`import x from`, `import * as x from`,
// `export ... from`), in its text read after the build (kept only if the build read the same:
// `placedFrom`); no place when it cannot be read (the import is still reported); undefined when
// it imports it for its side effect only.
function valueImportAt(reads: PlacedReads, file: string, specifier: string): { line?: number; column?: number } | undefined {
  const text = reads.text(file);
  if (text === null) return {};
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`\\b(?:import|export)\\s+(?!type\\b)[^'";]*?\\bfrom\\s*(['"])${quoted}\\1`).exec(text);
  return match ? lineAndColumn(text, match.index) : undefined;
}

// esbuild's id for an `@import` that is not at the top of its sheet, before every rule (after a
// rule, inside a block): esbuild keeps it as written, and a browser ignores it.
const MISPLACED_IMPORT = 'invalid-@import';

// An `@import` esbuild keeps as written because it is not where CSS allows one (README
// "Workspaces"): a browser ignores it, and were it read, it would name a file at the sheet's own
// address, where nothing is served; the page would miss its rules while the module is `valid`. So
// it is an error at its place, as an `@import` naming no file is, never esbuild's warning.
export function misplacedImportRules(root: string, messages: readonly esbuild.Message[], inputs: ReadonlySet<string>): Diagnostic[] {
  const errors: Diagnostic[] = [];
  for (const message of messages) {
    const file = message.id === MISPLACED_IMPORT && message.location ? inputPath(message.location.file) : null;
    if (file === null || !inputs.has(file)) continue;
    const text = `${message.text}: a browser ignores an @import that is not at the top of its sheet, before every rule (only @charset and @layer statements may come before one), so the page would miss the rules it names; esbuild keeps it as written instead of joining that sheet. Move it to the top of the sheet (a media condition is written on the @import itself: @import "./print.css" print;)`;
    errors.push(diagnostic('BUNDLE_ERROR', text.split(root + path.sep).join(''), { file, line: message.location!.line, column: message.location!.column + 1 }));
  }
  return errors;
}

// esbuild's warnings about the files of this entry, as diagnostics (but a misplaced `@import`, an
// error: `misplacedImportRules`). A plugin's warning that starts with a code
// (`MODULE_BOUNDARY_CROSSED: ...`) is of that kind; esbuild's own are BUNDLE_WARNING.
export function warningsOf(root: string, messages: readonly esbuild.Message[], inputs: ReadonlySet<string>): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const message of messages) {
    const file = message.location ? inputPath(message.location.file) : null;
    if (file === null || !inputs.has(file) || message.id === MISPLACED_IMPORT) continue;
    const where = { file, line: message.location!.line, column: message.location!.column + 1 };
    // A CSS syntax problem makes a browser drop rules: the preview keeps the last good sheet
    // and shows it with its lines (README "Warnings").
    if (message.id === 'css-syntax-error') {
      warnings.push({ ...diagnostic('CSS_SYNTAX', message.text, where), frame: codeFrame(message) });
      continue;
    }
    const coded = /^([A-Z][A-Z_]+): ([\s\S]*)$/.exec(message.text);
    const kind: DiagnosticKind = coded?.[1] === 'MODULE_BOUNDARY_CROSSED' ? 'MODULE_BOUNDARY_CROSSED' : 'BUNDLE_WARNING';
    const text = (coded && kind !== 'BUNDLE_WARNING' ? coded[2]! : message.text).split(root + path.sep).join('');
    warnings.push(diagnostic(kind, text, where));
  }
  return warnings;
}

// The lines esbuild points at (the message's, then its notes', such as where an unclosed `{`
// opened), each numbered, with a caret under the column.
function codeFrame(message: esbuild.Message): string {
  const places = [{ location: message.location!, text: '' }, ...message.notes.filter((note) => note.location !== null).map((note) => ({ location: note.location!, text: note.text }))];
  places.sort((a, b) => a.location.line - b.location.line);
  const width = String(places[places.length - 1]!.location.line).length;
  return places
    .map(({ location, text }) => {
      const number = String(location.line).padStart(width);
      const caret = `${' '.repeat(width)} | ${' '.repeat(location.column)}^${text ? ` ${text}` : ''}`;
      return `${number} | ${location.lineText}\n${caret}`;
    })
    .join('\n');
}

// What a relative import's resolution depends on beyond the file it found (README "Links and
// large trees", "Bundling real code"), found from the specifier alone:
// - esbuild names each file by its real path: an import that reached it through a symbolic link
//   (a linked file or directory) would leave no input the link's retargeting changes, and the
//   old target's output would be served on. So where the path the import wrote leads is an
//   input too (`LINK_TARGET`), not the file by a second name (it would count twice as read).
// - A file resolved by an extension added (`./unit` to `unit.js`), a TypeScript rewrite
//   (`./part.js` to `part.ts`) or as a directory's index (`./tools` to `tools/index.ts`): each
//   path esbuild tries before it is an input, absent, so that one made there builds the module
//   from it. An import naming its file exactly depends on nothing more.
function resolutionInputs(root: string, result: esbuild.BuildResult, read: readonly string[]): Set<string> {
  const found = new Set<string>();
  const reading = new Set(read);
  addRelativeResolutions(found, result.metafile!.inputs, reading);
  for (const kept of keptExternalOf(result)) {
    const importer = toWorkspacePath(root, kept.importer);
    if (importer === null || !reading.has(importer)) continue;
    addResolution(found, importer, kept.original, toWorkspacePath(root, kept.file));
    if (kept.graph === undefined) continue;
    // The files of the other module whose exports decided the names imported (a TypeScript
    // importer's crossing): what its answer depends on, never files this module read. So are
    // their own relative imports' resolutions: a link that build went through, retargeted,
    // changes the names imported as one of this module's own does.
    const reads = Object.keys(kept.graph);
    for (const read of reads) {
      const file = inputPath(read);
      if (file !== null && isInside(file)) found.add(file);
    }
    addRelativeResolutions(found, kept.graph, reads);
  }
  return found;
}

/**
 * What the relative imports of every file of a build depended on besides the files they found
 * (the paths tried before them, absent; where a link crossed leads), by its metafile `inputs`
 * whose paths are relative to the build's directory: the rule of a module's inputs, for a
 * build of another directory's files (an installed package's, README "The local CDN"), where
 * esbuild tries `extensions` in their order.
 */
export function relativeResolutions(inputs: esbuild.Metafile['inputs'], extensions: readonly string[]): string[] {
  const found = new Set<string>();
  addRelativeResolutions(found, inputs, Object.keys(inputs), extensions);
  return [...found].sort();
}

// A `type: 'json'` attribute lets Node import JSON (README "Exports and sources"); esbuild's record
// of an import carries it written `with`. Written in Node 20's older form, `assert`, esbuild keeps
// it in the output but not in its metafile's record (which carries `with` only), so it is read from
// the output, whose import statements esbuild prints in one form (README "Exports and sources").
const ASSERTED_JSON = /\bimport\s*(?:[^;"']*?\bfrom\s*)?"([^"]+)"\s*assert\s*\{\s*type:\s*"json"\s*\}/g;
function assertedJsonImports(code: Uint8Array | null): Set<string> {
  const found = new Set<string>();
  if (code === null || bufferView(code).indexOf('assert') === -1) return found;
  for (const match of bufferView(code).toString('utf8').matchAll(ASSERTED_JSON)) found.add(match[1]!);
  return found;
}

/** What the relative imports of the files `read` depended on besides the files they found, by a build's metafile `inputs`. */
function addRelativeResolutions(found: Set<string>, inputs: esbuild.Metafile['inputs'], read: Iterable<string>, extensions?: readonly string[]): void {
  for (const input of read) {
    const importer = inputPath(input);
    if (importer === null) continue;
    for (const record of inputs[input]?.imports ?? []) {
      // One kept external (a shared file, another module's entry) names no `original`: the plugin that kept it tells it.
      if (!record.external && record.original !== undefined) addResolution(found, importer, record.original, inputPath(record.path), extensions);
    }
  }
}

// An import neither relative nor kept external that esbuild resolved to a file of the workspace:
// through a tsconfig `paths` entry or `baseUrl`, which the build runner reads to find what it tried.
// So is one the module boundaries kept as another module's because such a mapping reached its
// entry (`'src/store'`): a file made at a place tried before (`src/store.ts`) is bundled instead.
function mappedImports(root: string, result: esbuild.BuildResult, read: readonly string[]): MappedImport[] {
  const metafile = result.metafile!;
  const mapped: MappedImport[] = [];
  const reading = new Set(read);
  for (const kept of keptExternalOf(result)) {
    const importer = toWorkspacePath(root, kept.importer);
    const resolved = toWorkspacePath(root, kept.file);
    if (importer !== null && resolved !== null && reading.has(importer) && !kept.original.startsWith('.')) mapped.push({ importer, specifier: kept.original, resolved });
  }
  for (const input of new Set(read)) {
    const importer = inputPath(input);
    if (importer === null) continue;
    for (const record of metafile.inputs[input]?.imports ?? []) {
      const specifier = record.original;
      if (record.external || specifier === undefined || specifier.startsWith('.') || specifier.startsWith('/')) continue;
      const resolved = inputPath(record.path);
      if (resolved !== null && isInside(resolved) && !resolved.split('/').includes('node_modules')) mapped.push({ importer, specifier, resolved });
    }
  }
  return mapped;
}

/** What the import `original` of `importer`, resolved to `resolved`, depended on besides that file. */
function addResolution(found: Set<string>, importer: string, original: string, resolved: string | null, extensions?: readonly string[]): void {
  if (!(original.startsWith('./') || original.startsWith('../'))) return;
  const written = resolved === null ? null : path.posix.normalize(path.posix.join(path.posix.dirname(importer), original.split('?')[0]!.split('#')[0]!));
  // A file outside the workspace (through node_modules) is never read by the service's checks: nothing to record.
  if (resolved === null || written === null || !isInside(written) || !isInside(resolved) || resolved.includes('?')) return;
  if (resolvedBeside(written, resolved)) {
    for (const shadow of triedBefore(written, resolved, extensions)) found.add(shadow);
    return;
  }
  const stem = written.slice(0, written.length - path.posix.extname(written).length);
  const extension = path.posix.extname(resolved);
  for (const candidate of [written, `${stem}${extension}`, `${written}${extension}`, `${written}/${path.posix.basename(resolved)}`]) found.add(`${candidate}${LINK_TARGET}`);
}

// Every file the entry's import graph read. An output's `inputs` name only the files that
// put bytes in it: one that put none (empty while an editor saved it, type-only, tree-shaken)
// is still an input, whose next change must build the module again.
function reachedFrom(metafile: esbuild.Metafile, entryPoint: string | undefined): string[] {
  if (entryPoint === undefined) return [];
  const reached = new Set<string>([entryPoint]);
  const queue = [entryPoint];
  while (queue.length > 0) {
    for (const record of metafile.inputs[queue.pop()!]?.imports ?? []) {
      if (record.external || reached.has(record.path)) continue;
      reached.add(record.path);
      queue.push(record.path);
    }
  }
  return [...reached];
}

// A failed build: its diagnostics, and the files whose change could fix it.
export function failed(root: string, target: BundleTarget, messages: esbuild.Message[], warnings: readonly esbuild.Message[] = []): BundleResult {
  const inputs = new Set<string>([target.entry, `${target.dir}/`]);
  const errors: Diagnostic[] = [];
  const twins = caseTwins(root, warnings);
  for (const { folder } of twins) inputs.add(`${folder}/`);
  for (const message of messages) {
    const file = message.location ? inputPath(message.location.file) : null;
    // esbuild builds no CSS module script: one whose sheet is not a declared asset (the plugin
    // keeps those, and refuses the others) is the stylesheet kind, saying what works.
    const cssModuleScript = message.pluginName === CSS_MODULE_SCRIPTS && message.detail === CSS_MODULE_SCRIPT_REFUSED;
    const text = cssModuleScript
      ? `a CSS module script (with { type: 'css' }) needs its sheet declared under "assets" in the module.json beside the module's entry, and a relative import of it (by bare specifier the import map maps it to code): ${DIAGNOSTIC_KINDS.STYLESHEET_IMPORTED_AS_VALUE.remedy}`
      : (caseTwinsText(message, twins) ?? caseMismatch(message, warnings) ?? folderCaseMismatch(root, message, inputs) ?? caseTwinFolders(root, message, inputs) ?? message.text).split(root + path.sep).join('');
    errors.push(
      diagnostic(cssModuleScript ? 'STYLESHEET_IMPORTED_AS_VALUE' : 'BUNDLE_ERROR', text, file === null ? { file: target.entry } : { file, line: message.location!.line, column: message.location!.column + 1 }),
    );
    if (file === null) continue;
    inputs.add(file);
    // A missing file: its creation changes the listing of the directory it would be in.
    const missing = /^Could not resolve "(\.{1,2}\/[^"]+)"/.exec(message.text);
    if (missing) inputs.add(`${path.posix.dirname(path.posix.join(path.posix.dirname(file), missing[1]!))}/`);
    // A file refused as outside the workspace: the path it is imported by (a link inside, which
    // may be led back into the workspace), read from the import the message points at.
    if (message.pluginName === WORKSPACE_CONFINEMENT) {
      const { lineText, column, length } = message.location!;
      const written = lineText.slice(column, column + length).replace(/^["']|["']$/g, '');
      const imported = written.startsWith('.') ? path.posix.join(path.posix.dirname(file), written) : null;
      if (imported !== null && !imported.startsWith('../')) inputs.add(imported).add(`${path.posix.dirname(imported)}/`);
    }
  }
  return { specifier: target.specifier, code: null, styles: null, inputs: [...inputs].sort(), imports: [], errors };
}

// An import whose case differs from its file's (`./Helper`, file `helper.ts`) on a file system
// that tells cases apart: esbuild finds the file by its case-blind listing, then fails to read
// it by the name written ("Cannot read file"), and says which name the disk has in a warning at
// the same import. Said as one error, that names the case and keeps esbuild's hint (README
// "Bundling real code"), where "Cannot read file" alone reads like an I/O fault.
function caseMismatch(error: esbuild.Message, warnings: readonly esbuild.Message[]): string | null {
  const unreadable = /^Cannot read file: (.+)$/.exec(error.text);
  if (!unreadable || !error.location) return null;
  const at = error.location;
  const hint = warnings.find(({ id, location }) => id === 'different-path-case' && location?.file === at.file && location.line === at.line && location.column === at.column);
  const names = hint && /^Use "([^"]+)" instead of "([^"]+)"/.exec(hint.text);
  if (!hint || !names) return null;
  const written = at.lineText.slice(at.column, at.column + at.length).replace(/^["'`]|["'`]$/g, '');
  return `the import "${written}" names ${names[2]}, but the file on disk is ${names[1]}: the names differ in case, which this file system tells apart; write the import with the file's case, or rename the file (esbuild: ${hint.text})`;
}

// Why esbuild cannot tell two case twins apart, said by each of their errors (README "Bundling real code").
const CASE_FOLDED = 'their names differ only in case, which esbuild folds when it finds and dedups files, though this file system holds both';

/** Whether a result says esbuild took two names differing only in case for one (`CASE_FOLDED`). */
export const saysCaseFolded = (result: BundleResult): boolean => result.errors.some(({ message }) => message.includes(CASE_FOLDED));

/** Two entries of one folder whose names differ only in case, which esbuild took for one (`different-path-case`). */
interface CaseTwins {
  folder: string;
  /** The two paths: the file esbuild's hint names as on disk, and the other (a folder's ends in `/`). */
  paths: [string, string];
  hint: esbuild.Message;
}

// A file system that tells cases apart may hold both `util.ts` and `Util.ts`, or `widgets.ts`
// and a folder `Widgets/`: esbuild folds case when it finds and dedups files, so it takes an
// import of either for the one it found first, and the build cannot succeed while both are
// there. Its `different-path-case` hint then names a file that does exist under the other case,
// and "write the import with the file's case" would import another module (README "Bundling
// real code"): both are named instead.
function caseTwins(root: string, warnings: readonly esbuild.Message[]): CaseTwins[] {
  const found: CaseTwins[] = [];
  for (const hint of warnings) {
    const names = hint.id === 'different-path-case' && hint.location ? /^Use "([^"]+)" instead of "([^"]+)"/.exec(hint.text) : null;
    if (!names || path.posix.isAbsolute(names[1]!)) continue;
    const picked = names[1]!;
    const folder = path.posix.dirname(picked);
    const pickedName = path.posix.basename(picked);
    const at = hint.location!;
    const written = at.lineText.slice(at.column, at.column + at.length).replace(/^["'`]|["'`]$/g, '');
    const writtenName = written.slice(written.lastIndexOf('/') + 1);
    const other = folderEntries(root, folder)?.find(({ name }) => name !== pickedName && (name.toLowerCase() === pickedName.toLowerCase() || name === writtenName));
    if (other) found.push({ folder, paths: [picked, `${folder}/${other.name}${other.directory ? '/' : ''}`], hint });
  }
  return found;
}

// A build that imports both of two case twins (`import './util'; import './Util'`) may still
// succeed: esbuild dedups the two imports into one file, so the other's code is not in the
// output and never runs, and the module would be valid. Only a build esbuild warned about
// (`different-path-case`) has its folder listed, so no other build pays for it; the twins are
// an error only when this entry's code imports both names, as written, since an import of just
// one of them builds that one (README "Bundling real code"). The folder's listing is an input:
// renaming either builds again.
function caseTwinsBuiltAsOne(root: string, result: esbuild.BuildResult, read: readonly string[], codeInputs: readonly string[], inputs: Set<string>): Diagnostic[] {
  if (!result.warnings.some(({ id }) => id === 'different-path-case')) return [];
  const metafile = result.metafile!;
  // Each place an import of a file this entry reached writes (`app/m/Util`), with the file
  // writing it: one holding only imports has no bytes in the output, so is not among its inputs.
  const written = new Map<string, string>();
  for (const input of new Set(read)) {
    const importer = inputPath(input);
    if (importer === null || isCrossed(input)) continue;
    for (const record of metafile.inputs[input]?.imports ?? []) {
      if (record.original?.startsWith('.')) written.set(path.posix.join(path.posix.dirname(importer), record.original), importer);
    }
  }
  const withoutExtension = (file: string): string => file.slice(0, file.length - path.posix.extname(file).length);
  // The file writing an import of `twin` as it is named (its extension left out, or `.js` for `.ts`), or of a file in the folder `twin`.
  const importerOf = (twin: string): string | undefined => {
    const bare = twin.replace(/\/$/, '');
    for (const [place, importer] of written) {
      if (place === bare || place.startsWith(`${bare}/`)) return importer;
      if (!twin.endsWith('/') && (place === withoutExtension(bare) || (/^\.[cm]?jsx?$/.test(path.posix.extname(place)) && withoutExtension(place) === withoutExtension(bare)))) return importer;
    }
    return undefined;
  };
  const errors: Diagnostic[] = [];
  const reads = (twin: string): boolean => read.some((input) => inputPath(input) === twin || (twin.endsWith('/') && inputPath(input)?.startsWith(twin) === true));
  for (const twin of caseTwins(root, result.warnings)) {
    const importers = twin.paths.map(importerOf);
    const [picked, other] = twin.paths;
    // Only the other twin imported (`./Button`, the folder beside `button.ts`), yet built from the
    // one esbuild found: that import's own file never runs.
    if (importers[0] === undefined && importers[1] !== undefined && reads(picked) && !reads(other)) {
      inputs.add(`${twin.folder}/`);
      const at = twin.hint.location!;
      const hinted = inputPath(at.file);
      const text = `esbuild cannot tell ${picked} and ${other} apart: ${CASE_FOLDED}, so it takes an import of either for one and the same file; the import of ${other} is built from ${picked}, whose code the output holds, and the code of ${other} never runs; give them names that differ in more than case (esbuild: ${twin.hint.text})`;
      errors.push(diagnostic('BUNDLE_ERROR', text, hinted !== null && read.some((input) => inputPath(input) === hinted) ? { file: hinted, line: at.line, column: at.column + 1 } : { file: importers[1]! }));
      continue;
    }
    if (importers.some((importer) => importer === undefined)) continue;
    inputs.add(`${twin.folder}/`);
    const builtAt = twin.paths.findIndex((twinPath) => codeInputs.some((input) => inputPath(input) === twinPath));
    const built = builtAt === -1 ? 'one of them' : twin.paths[builtAt]!;
    const text = `esbuild cannot tell ${picked} and ${other} apart: ${CASE_FOLDED}, so it takes an import of either for one and the same file; this build imports both, and its output holds the code of ${built} only, the other's never runs; give them names that differ in more than case (esbuild: ${twin.hint.text})`;
    // At the import esbuild hinted at when it is this entry's, else at the import of the file left out.
    const at = twin.hint.location!;
    const hinted = inputPath(at.file);
    const where = hinted !== null && read.some((input) => inputPath(input) === hinted) ? { file: hinted, line: at.line, column: at.column + 1 } : { file: importers[builtAt === 0 ? 1 : 0]! };
    errors.push(diagnostic('BUNDLE_ERROR', text, where));
  }
  return errors;
}

// Two folders differing only in case (`Lib/`, `lib/`), each holding the file imported, imported
// for their side effects (`import './Lib/util'; import './lib/util'`): esbuild dedups both
// imports into one folder's file with no hint, so the build succeeds and the other's code never
// runs. Its metafile tells: an import built from a path whose folder differs in case from the
// one written. Only then is the parent listed, and it is an error where both folders are on disk
// (README "Bundling real code"); the parent is an input: renaming either builds again.
function caseTwinFoldersBuiltAsOne(root: string, metafile: esbuild.Metafile, read: readonly string[], inputs: Set<string>): Diagnostic[] {
  const errors: Diagnostic[] = [];
  const told = new Set<string>();
  for (const input of new Set(read)) {
    const importer = inputPath(input);
    if (importer === null || isCrossed(input)) continue;
    for (const record of metafile.inputs[input]?.imports ?? []) {
      const built = isCrossed(record.path) ? null : inputPath(record.path);
      if (built === null || !record.original?.startsWith('.')) continue;
      const named = path.posix.join(path.posix.dirname(importer), record.original);
      const twins = twinFolders(root, named, built);
      if (twins === null || told.has(twins.parent)) continue;
      told.add(twins.parent);
      inputs.add(`${twins.parent}/`);
      const text = `esbuild cannot tell the folders ${twins.built} and ${twins.named} apart: ${CASE_FOLDED}, so it takes an import of a file in either for one and the same file; the import "${record.original}" is built from ${built}, and the output holds the code of ${twins.built} only, the other's never runs; give them names that differ in more than case`;
      errors.push(diagnostic('BUNDLE_ERROR', text, { file: importer }));
    }
  }
  return errors;
}

/**
 * The two folders of one parent, both on disk, whose names differ only in case, where the path an
 * import names (`named`, workspace-relative, its extension left out or another's, or a folder built
 * from its index: `./UI` from `ui/index.ts`) and the file it was built from (`built`) differ only in
 * a folder's case; null otherwise.
 */
function twinFolders(root: string, written: string, built: string): { parent: string; named: string; built: string } | null {
  const stem = (file: string) => path.posix.basename(file, path.posix.extname(file)).toLowerCase();
  // A folder named by the import (`./UI`, `./UI/`) is built from its index: compared as that index.
  const folder = written.replace(/\/$/, '');
  const named = stem(built) === 'index' && path.posix.dirname(built).toLowerCase() === folder.toLowerCase() ? `${folder}/${path.posix.basename(built)}` : written;
  if (named.startsWith('../') || path.posix.isAbsolute(built) || path.posix.dirname(named).toLowerCase() !== path.posix.dirname(built).toLowerCase()) return null;
  // `./lib/util`, `./lib/util.js` and `./lib/util.ts` all name `lib/util.ts`.
  if (stem(named) !== stem(built) && path.posix.basename(named).toLowerCase() !== stem(built)) return null;
  const namedFolders = path.posix.dirname(named).split('/');
  const builtFolders = path.posix.dirname(built).split('/');
  const differs = namedFolders.findIndex((folder, index) => folder !== builtFolders[index]);
  if (differs === -1) return null;
  const parent = differs === 0 ? '.' : namedFolders.slice(0, differs).join('/');
  const folders = (folderEntries(root, parent) ?? []).filter(({ directory }) => directory).map(({ name }) => name);
  if (!folders.includes(namedFolders[differs]!) || !folders.includes(builtFolders[differs]!)) return null;
  const prefix = parent === '.' ? '' : `${parent}/`;
  return { parent, named: `${prefix}${namedFolders[differs]}/`, built: `${prefix}${builtFolders[differs]}/` };
}

/** The error of a build that `twins` makes fail (at the import esbuild hinted at, or naming either path), said as that. */
function caseTwinsText(error: esbuild.Message, twins: readonly CaseTwins[]): string | null {
  const at = error.location;
  const twin = twins.find(({ hint, paths }) => {
    const place = hint.location!;
    if (at && at.file === place.file && at.line === place.line && at.column === place.column) return true;
    return [...paths, /^Use "[^"]+" instead of "([^"]+)"/.exec(hint.text)![1]!].some((named) => error.text.includes(`"${named.replace(/\/$/, '')}"`));
  });
  if (!twin) return null;
  const [picked, other] = twin.paths;
  return `esbuild cannot tell ${picked} and ${other} apart: ${CASE_FOLDED}, so it takes an import of either for one and the same file, and the build cannot succeed while both are there; give them names that differ in more than case (esbuild: ${twin.hint.text}; ${error.text})`;
}

// An import whose FOLDER differs in case from the folder on disk (`./Lib/util`, folder `lib/`):
// esbuild says only "Could not resolve", where a file's case difference gets its hint
// (`caseMismatch`). Each folder of the path is looked for in its parent's listing, as written,
// and else by case (one folder only). The listing of the parent is an input: renaming either
// builds again.
function folderCaseMismatch(root: string, error: esbuild.Message, inputs: Set<string>): string | null {
  const missing = /^Could not resolve "(\.{1,2}\/[^"]+)"/.exec(error.text);
  const file = error.location ? inputPath(error.location.file) : null;
  if (!missing || file === null) return null;
  const written = missing[1]!;
  const segments = written.split('/');
  let dir = path.posix.dirname(file);
  for (const segment of segments.slice(0, -1)) {
    if (segment === '.' || segment === '') continue;
    if (segment === '..') {
      // Past the workspace's root: refused elsewhere, and nothing here to list.
      if (dir === '.' || dir === '..' || dir.startsWith('../')) return null;
      dir = path.posix.dirname(dir);
      continue;
    }
    const entries = folderEntries(root, dir);
    if (!entries) return null;
    if (entries.some(({ name }) => name === segment)) {
      dir = dir === '.' ? segment : `${dir}/${segment}`;
      continue;
    }
    const folded = entries.filter(({ name, directory }) => directory && name.toLowerCase() === segment.toLowerCase());
    if (folded.length !== 1) return null;
    const parent = dir === '.' ? '' : `${dir}/`;
    inputs.add(`${dir}/`);
    return `the import "${written}" names the folder ${parent}${segment}, but the folder on disk is ${parent}${folded[0]!.name}: the names differ in case, which this file system tells apart; write the import with the folder's case, or rename the folder (esbuild: ${error.text})`;
  }
  return null;
}

// Two folders of one parent whose names differ only in case (`Lib/` and `lib/`), each holding the
// file an import names: esbuild folds case when it finds and dedups files, so an import of
// `./lib/util` is built from `Lib/util.ts`, with no `different-path-case` hint, and its error
// names the other folder's file ("No matching export in ".../Lib/util.ts""). The import at the
// error is compared with the path the error quotes: folders that differ only in case, both on
// disk, are named (README "Bundling real code"). The parent's listing is an input: renaming
// either builds again.
function caseTwinFolders(root: string, error: esbuild.Message, inputs: Set<string>): string | null {
  const at = error.location;
  const file = at ? inputPath(at.file) : null;
  const written = at ? /(?:\bfrom|\bimport)\s*\(?\s*(['"])(\.{1,2}\/[^'"]+)\1/.exec(at.lineText)?.[2] : undefined;
  if (file === null || written === undefined) return null;
  const named = path.posix.join(path.posix.dirname(file), written);
  for (const [, quoted] of error.text.matchAll(/"([^"]+)"/g)) {
    const built = quoted!.startsWith(root + path.sep) ? quoted!.slice(root.length + 1).split(path.sep).join('/') : quoted!;
    const twins = twinFolders(root, named, built);
    if (twins === null) continue;
    inputs.add(`${twins.parent}/`);
    return `esbuild cannot tell the folders ${twins.built} and ${twins.named} apart: ${CASE_FOLDED}, so the import "${written}" is built from ${built}, and the build cannot succeed while both are there; give them names that differ in more than case (esbuild: ${error.text})`;
  }
  return null;
}

/** A module whose entry is a stylesheet (a `.css` target of `exports`). */
export const isStylesheetEntry = (target: Pick<BundleTarget, 'entry'>): boolean => target.entry.endsWith('.css');

// Metafile paths are relative to the working directory; one in another namespace (a
// plugin's virtual module) is no file.
export function inputPath(input: string): string | null {
  // The module standing for another module is made from that module's entry (its path).
  if (isCrossed(input)) return input.slice(CROSSED.length + 1);
  if (/^[a-z-]+:/.test(input)) return null;
  // A file imported with a query (`./notes.txt?raw`) is named with it: the file is what was read,
  // and what an edit must build again from (README "Bundling real code").
  const query = input.indexOf('?');
  return (query === -1 ? input : input.slice(0, query)).replace(/\\/g, '/');
}

/**
 * The one plain stylesheet the code of entry `index` imports, when there is exactly one:
 * then the module's styles output is that stylesheet bundled alone, byte for byte, and a
 * change of stylesheets only can be built from it without the code. Null otherwise (none,
 * several, or a CSS module, whose class names are part of the code).
 */
export function stylesheetRoot(result: esbuild.BuildResult, index: number): string | null {
  const metafile = result.metafile!;
  const roots = new Set<string>();
  for (const input of Object.keys(metafile.outputs[`${OUT}${index}.js`]?.inputs ?? {})) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      if (record.external || !CODE_IMPORT_KINDS.has(record.kind) || !record.path.endsWith('.css')) continue;
      if (record.path.endsWith('.module.css')) return null;
      roots.add(record.path);
    }
  }
  return roots.size === 1 ? [...roots][0]! : null;
}

/** The files the styles output of entry `index` was made from. */
export function stylesInputs(result: esbuild.BuildResult, index: number): string[] {
  return Object.keys(result.metafile!.outputs[`${OUT}${index}.css`]?.inputs ?? {}).flatMap((input) => inputPath(input) ?? []);
}

/**
 * Files two or more modules of one package in this batch bundled, by package: file -> internal
 * specifier (README "Shared files"). Public modules' entries are imported by their specifiers
 * already; a file outside the package, or with a name no address carries, stays a copy.
 */
export function sharedInBatch(targets: readonly BundleTarget[], results: readonly BundleResult[]): Map<string, Record<string, string>> {
  return sharedAmong(
    targets.flatMap((target, index) => {
      const result = results[index]!;
      if (!target.package || result.code === null) return [];
      const entries = target.workspace?.entries ?? {};
      const files = filesRead(result).filter((file) => !(file in entries) && file !== target.entry && !(target.shared && file in target.shared));
      return [{ packageName: target.package.name, packageDir: target.package.dir, files }];
    }),
  );
}

/**
 * The module's result and its shared files' in the order esbuild joins their sheets when it
 * bundles the files (README "Shared files"): a shared file's sheet before the sheet of the file
 * importing it, but after it when that file imports it only after its last sheet of its own
 * (`afterSheet`), each where first reached. Appended after the module's own sheet, a shared file's
 * rule won over the module's where the module's own build, before the file was known to be
 * shared, and every bundler let the module's win.
 */
function sheetsInImportOrder(own: BundleResult, reached: ReadonlyMap<string, BundleResult>): BundleResult[] {
  const placed = new Set<string>();
  const around = (part: BundleResult): BundleResult[] => {
    const shared = part.imports.filter((record) => reached.has(record.specifier));
    const place = (records: readonly ImportRecord[]): BundleResult[] =>
      records.flatMap((record) => {
        if (placed.has(record.specifier)) return [];
        placed.add(record.specifier);
        return around(reached.get(record.specifier)!);
      });
    return [...place(shared.filter((record) => !record.afterSheet)), part, ...place(shared.filter((record) => record.afterSheet))];
  };
  return around(own);
}

/**
 * The module's result with the shared files its code imports, directly or through each other
 * (`built`: each built alone, by internal specifier): their code as its chunks, what they read as
 * its inputs, their bare imports as its own. One that failed fails the module with its errors.
 */
export function attachChunks(target: BundleTarget, result: BundleResult, built: ReadonlyMap<string, BundleResult>): BundleResult {
  const specifiers = new Set(Object.values(target.shared ?? {}));
  if (specifiers.size === 0 || result.code === null) return result;
  const reached = new Map<string, BundleResult>();
  // Where its own code imports each shared file: a name missing through one is told there (README "Shared files").
  const sharedImports = result.imports.filter((record) => specifiers.has(record.specifier));
  const queue = sharedImports.map((record) => record.specifier);
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    const chunk = built.get(specifier);
    if (reached.has(specifier) || !chunk) continue;
    reached.set(specifier, chunk);
    for (const record of chunk.imports) if (specifiers.has(record.specifier)) queue.push(record.specifier);
  }
  if (reached.size === 0) return result;
  // And where each shared file imports another: a name missing between two is told at its import in the first.
  for (const chunk of reached.values()) sharedImports.push(...chunk.imports.filter((record) => specifiers.has(record.specifier)));
  const parts = [result, ...reached.values()];
  const inputs = [...new Set(parts.flatMap((part) => part.inputs))].sort();
  const read = new Set(parts.flatMap((part) => filesRead(part)));
  const resolution = inputs.filter((file) => !read.has(file));
  const mapped = parts.flatMap((part) => part.mapped ?? []);
  const seen = new Set<string>();
  const imports = parts.flatMap((part) => part.imports).filter((record) => {
    const key = `${record.specifier}\0${record.file}`;
    if (specifiers.has(record.specifier) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const errors = [...[...reached.values()].flatMap((chunk) => chunk.errors), ...undeclaredSharedAssets(target, reached)];
  const placedFrom = Object.assign({}, ...[...reached.values()].map((chunk) => chunk.placedFrom ?? {})) as Record<string, string>;
  if (errors.length > 0) return { specifier: result.specifier, code: null, styles: null, inputs, ...(resolution.length > 0 ? { resolution } : {}), imports: [], errors, ...(Object.keys(placedFrom).length > 0 ? { placedFrom } : {}) };
  // A stylesheet a shared file imports is part of each module's stylesheet that imports it, where esbuild would join it.
  const sheets = sheetsInImportOrder(result, reached).flatMap((part) => (part.styles ? [placeAssetAddresses(part.styles, target.subpath)] : []));
  const styles = sheets.length <= 1 ? (sheets[0] ?? null) : Buffer.concat(sheets);
  const warnings = parts.flatMap((part) => part.warnings ?? []);
  const chunks = Object.fromEntries([...reached].map(([specifier, chunk]) => [specifier, chunk.code!]));
  // What each shared file exports and re-exports: a name reached through one (`export * from
  // './x'` of a shared file) is judged by them, as any module's (README "Shared files").
  const chunkLinks = Object.fromEntries([...reached].flatMap(([specifier, chunk]) => (chunk.links ? [[specifier, chunk.links]] : [])));
  return { ...result, styles, inputs, ...(resolution.length > 0 ? { resolution } : {}), ...(mapped.length > 0 ? { mapped } : {}), imports, ...(sharedImports.length > 0 ? { sharedImports } : {}), chunks, ...(Object.keys(chunkLinks).length > 0 ? { chunkLinks } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
}

/**
 * A module imports only the assets it declares itself (README "Shared files"): the declared assets
 * a shared file it imports reaches (those of the module whose directory holds the file) must be
 * its own too, as its copy of the file would have needed them. So whether it is valid never
 * depends on which module found the file, nor on whether it was found yet.
 */
function undeclaredSharedAssets(target: BundleTarget, reached: ReadonlyMap<string, BundleResult>): Diagnostic[] {
  const own = new Set(target.assets.map((file) => path.posix.join(target.dir, file)));
  const fileOf = new Map(Object.entries(target.shared ?? {}).map(([file, specifier]) => [specifier, file]));
  const errors: Diagnostic[] = [];
  for (const [specifier, chunk] of reached) {
    const sharedFile = fileOf.get(specifier);
    if (sharedFile === undefined) continue;
    for (const asset of chunk.declaredAssets ?? []) {
      if (own.has(asset)) continue;
      const relative = path.posix.relative(path.posix.dirname(sharedFile), asset);
      const written = relative.startsWith('../') ? relative : `./${relative}`;
      errors.push(
        diagnostic('BUNDLE_ERROR', `"${written}" is not a declared asset of the module importing it: a module imports only the assets it declares itself, through a shared file too; add "${path.posix.basename(asset)}" to "assets" in the module.json beside it if it is this module's, or import the code using it through the public module that declares it`, { file: sharedFile }),
      );
    }
  }
  return errors;
}
