// A CSS module script (`import sheet from './card.css' with { type: 'css' }`, README "Stylesheet
// modules") is a declared sheet the browser makes itself, as written, and the standard drops every
// `@import` of such a sheet, silently: the page runs without the rules it names while the module is
// `valid`. A sheet whose rules would be missing is an error where the page would miss them (README
// "Workspaces"), so each `@import` of such a sheet is a BUNDLE_ERROR at its place. So is each of its
// `url()`s naming a file the module does not declare: the browser asks for it beside the sheet's
// address, which serves declared assets only (a linked sheet's is judged the same way,
// build-results.ts). The sheet is read once (placed-reads.ts), never parsed as a whole: only its
// comments, strings and `url()`s are stepped over, where `@import` is no rule.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { PlacedReads } from './placed-reads.js';
import { assetAddress } from './plugins/assets.js';
import { stringEnd } from './image-set-strings.js';
import type { BundleTarget } from './types.js';

/**
 * The errors about each `@import` of each sheet of `target` the code's `inputs` import as a CSS
 * module script, and about each `url()` (an `image-set()` string, a `@font-face` source) naming a
 * file the module does not declare; `sheets`: those sheets (workspace-relative), inputs of the
 * build, so that an edit of one judges it again.
 */
export function cssModuleScriptImports(reads: PlacedReads, metafile: esbuild.Metafile, inputs: readonly string[], target: BundleTarget): { errors: Diagnostic[]; sheets: string[] } {
  // The plugin keeps one of a declared sheet only, at the asset's address (css-module-scripts.ts).
  const byAddress = new Map(target.assets.filter((file) => file.toLowerCase().endsWith('.css')).map((file) => [assetAddress(target.subpath, file), file]));
  const sheets = new Map<string, string>();
  for (const input of inputs) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      const asset = record.external && record.with?.type === 'css' ? byAddress.get(record.path) : undefined;
      if (asset !== undefined) sheets.set(path.posix.join(target.dir, asset), asset);
    }
  }
  const errors: Diagnostic[] = [];
  const declared = new Set(target.assets);
  for (const [sheet, asset] of sheets) {
    const text = reads.text(sheet);
    if (text === null) continue; // a declared asset that cannot be read is its manifest's error
    const { imports, urls } = referencesOf(text);
    for (const at of imports) {
      const end = text.indexOf(';', at);
      const rule = end === -1 ? '' : text.slice(at, end + 1).replace(/\s+/g, ' ');
      errors.push(diagnostic('BUNDLE_ERROR', droppedImportMessage(sheet, rule), { file: sheet, ...lineAndColumn(text, at) }));
    }
    for (const { at, reference } of urls) {
      const named = servedName(target.subpath, asset, reference);
      if (named === undefined || (named !== null && declared.has(named))) continue;
      errors.push(diagnostic('BUNDLE_ERROR', undeclaredUrlMessage(sheet, reference, named), { file: sheet, ...lineAndColumn(text, at) }));
    }
  }
  return { errors, sheets: [...sheets.keys()] };
}

// A URL with a scheme (`data:`, `https:`), from the root of the origin, or a fragment names no
// file beside the sheet: kept, as a linked sheet's are (README "Workspaces").
const NOT_BESIDE = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/|#)/;

/**
 * The asset name (relative to the module's directory) a relative `url()` of the declared sheet
 * `asset` of the module at `subpath` asks for: the browser resolves it against the sheet's own
 * address, under which only the module's declared assets are served. null when it climbs out of
 * them; undefined when it names no file beside the sheet.
 */
function servedName(subpath: string, asset: string, reference: string): string | null | undefined {
  const file = reference.replace(/[?#].*$/, '');
  if (file === '' || NOT_BESIDE.test(reference)) return undefined;
  let decoded = file;
  try {
    decoded = decodeURIComponent(file);
  } catch {
    // Not percent-encoded as a URL: the browser asks for it as written.
  }
  // Resolved as the browser resolves it, from the sheet's address under the module's assets.
  const folder = `assets/${subpath}/`;
  const named = path.posix.normalize(path.posix.join(path.posix.dirname(`${folder}${asset}`), decoded));
  return named.startsWith(folder) ? named.slice(folder.length) : null;
}

function undeclaredUrlMessage(sheet: string, reference: string, named: string | null): string {
  const name = path.posix.basename(sheet);
  const served = `the browser loads such a sheet as written and asks for it at the sheet's own address, where only the module's declared assets are served`;
  if (named === null) return `url(${reference}) in ${name}, a sheet imported as a CSS module script (with { type: 'css' }), names a file outside the module's directory: ${served}, so it answers 404. Move the file beside the module's entry and declare it under "assets" in its module.json`;
  return `url(${reference}) in ${name}, a sheet imported as a CSS module script (with { type: 'css' }), names ${named}, which the module does not declare: ${served}, so it answers 404. Declare "${named}" under "assets" in the module.json beside the module's entry`;
}

function droppedImportMessage(sheet: string, rule: string): string {
  const name = path.posix.basename(sheet);
  return `${rule.length > 0 && rule.length <= 120 ? rule : '@import'} in ${name}, a sheet imported as a CSS module script (with { type: 'css' }): the browser ignores every @import of such a sheet, by the standard, so the page would miss the rules it names. Import that sheet as a CSS module script of its own (declared under "assets") and adopt both (adoptedStyleSheets = [imported, sheet]), or write its rules into ${name}`;
}

/** The offset of each `@import` at-keyword of a sheet's text, outside comments, strings and unquoted `url()`s. */
export const importRulesOf = (text: string): number[] => referencesOf(text).imports;

/**
 * The offset of each `@import` at-keyword of a sheet's text, and each URL it names (a `url()`,
 * quoted or not, and a string of an `image-set()`), outside comments and other strings.
 */
function referencesOf(text: string): { imports: number[]; urls: { at: number; reference: string }[] } {
  const imports: number[] = [];
  const urls: { at: number; reference: string }[] = [];
  // The parenthesis depth inside an `image-set()`, whose strings are URLs; 0 outside one.
  let imageSetDepth = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const word = !/[\w-]/.test(text[index - 1] ?? '');
    if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      index = end === -1 ? text.length : end + 2;
    } else if (char === '"' || char === "'") {
      const end = stringEnd(text, index);
      if (imageSetDepth > 0) urls.push({ at: index, reference: text.slice(index + 1, end - 1) });
      index = end;
    } else if (char === '\\') {
      index += 2;
    } else if ((char === 'u' || char === 'U') && word && /^url\(/i.test(text.slice(index, index + 4))) {
      const url = urlAt(text, index);
      urls.push({ at: index, reference: url.reference });
      index = url.end;
    } else if ((char === 'i' || char === 'I') && /^image-set\(/i.test(text.slice(index, index + 10)) && (word || /-webkit-$/i.test(text.slice(Math.max(0, index - 8), index)))) {
      imageSetDepth = 1;
      index += 10;
    } else if (imageSetDepth > 0 && (char === '(' || char === ')')) {
      imageSetDepth += char === '(' ? 1 : -1;
      index += 1;
    } else if (char === '@' && /^@import(?![\w-])/i.test(text.slice(index, index + 8))) {
      imports.push(index);
      index += 7;
    } else {
      index += 1;
    }
  }
  // An `@import url(...)` is told as the `@import` it is, once.
  const inImport = (at: number) => imports.some((start) => start < at && !text.slice(start, at).includes(';'));
  return { imports, urls: urls.filter(({ at }) => !inImport(at)) };
}

/** The URL a `url(` at `at` names, quoted or not, and where its token ends. */
function urlAt(text: string, at: number): { reference: string; end: number } {
  let start = at + 4;
  while (/\s/.test(text[start] ?? '')) start += 1;
  if (text[start] === '"' || text[start] === "'") {
    const stringEnds = stringEnd(text, start);
    const close = text.indexOf(')', stringEnds);
    return { reference: text.slice(start + 1, stringEnds - 1), end: close === -1 ? text.length : close + 1 };
  }
  const close = text.indexOf(')', start);
  const end = close === -1 ? text.length : close;
  return { reference: text.slice(start, end).trim(), end: Math.min(text.length, end + 1) };
}
