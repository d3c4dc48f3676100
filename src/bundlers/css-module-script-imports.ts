// A CSS module script (`import sheet from './card.css' with { type: 'css' }`, README "Stylesheet
// modules") is a declared sheet the browser makes itself, as written, and the standard drops every
// `@import` of such a sheet, silently: the page runs without the rules it names while the module is
// `valid`. A sheet whose rules would be missing is an error where the page would miss them (README
// "Workspaces"), so each `@import` of such a sheet is a BUNDLE_ERROR at its place. The sheet is read
// once (placed-reads.ts), never parsed as a whole: only its comments, strings and unquoted `url()`s
// are stepped over, where `@import` is no rule.
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
 * module script; `sheets`: those sheets (workspace-relative), inputs of the build, so that an edit
 * of one judges it again.
 */
export function cssModuleScriptImports(reads: PlacedReads, metafile: esbuild.Metafile, inputs: readonly string[], target: BundleTarget): { errors: Diagnostic[]; sheets: string[] } {
  // The plugin keeps one of a declared sheet only, at the asset's address (css-module-scripts.ts).
  const byAddress = new Map(target.assets.filter((file) => file.toLowerCase().endsWith('.css')).map((file) => [assetAddress(target.subpath, file), path.posix.join(target.dir, file)]));
  const sheets = new Set<string>();
  for (const input of inputs) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      const sheet = record.external && record.with?.type === 'css' ? byAddress.get(record.path) : undefined;
      if (sheet !== undefined) sheets.add(sheet);
    }
  }
  const errors: Diagnostic[] = [];
  for (const sheet of sheets) {
    const text = reads.text(sheet);
    if (text === null) continue; // a declared asset that cannot be read is its manifest's error
    for (const at of importRulesOf(text)) {
      const end = text.indexOf(';', at);
      const rule = end === -1 ? '' : text.slice(at, end + 1).replace(/\s+/g, ' ');
      errors.push(diagnostic('BUNDLE_ERROR', droppedImportMessage(sheet, rule), { file: sheet, ...lineAndColumn(text, at) }));
    }
  }
  return { errors, sheets: [...sheets] };
}

function droppedImportMessage(sheet: string, rule: string): string {
  const name = path.posix.basename(sheet);
  return `${rule.length > 0 && rule.length <= 120 ? rule : '@import'} in ${name}, a sheet imported as a CSS module script (with { type: 'css' }): the browser ignores every @import of such a sheet, by the standard, so the page would miss the rules it names. Import that sheet as a CSS module script of its own (declared under "assets") and adopt both (adoptedStyleSheets = [imported, sheet]), or write its rules into ${name}`;
}

/** The offset of each `@import` at-keyword of a sheet's text, outside comments, strings and unquoted `url()`s. */
export function importRulesOf(text: string): number[] {
  const found: number[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      index = end === -1 ? text.length : end + 2;
    } else if (char === '"' || char === "'") {
      index = stringEnd(text, index);
    } else if (char === '\\') {
      index += 2;
    } else if ((char === 'u' || char === 'U') && /^url\(\s*[^\s"')]/i.test(text.slice(index, index + 6)) && !/[\w-]/.test(text[index - 1] ?? '')) {
      const end = text.indexOf(')', index);
      index = end === -1 ? text.length : end + 1;
    } else if (char === '@' && /^@import(?![\w-])/i.test(text.slice(index, index + 8))) {
      found.push(index);
      index += 7;
    } else {
      index += 1;
    }
  }
  return found;
}
