// A `require()` of a module the build keeps external (README "Bundling real code"): the output is
// an ES module, where esbuild writes the call as a helper that throws `Dynamic require of "x" is
// not supported` when the code runs (no browser, and no ES module of Node, defines `require`), so
// the module failed on the page while `/state` said valid. An error at the call, naming the import
// that works.
import type * as esbuild from 'esbuild';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { PlacedReads } from './placed-reads.js';

/** The errors of the code inputs `read` (metafile paths) that require a module kept external. */
export function externalRequires(reads: PlacedReads, inputs: esbuild.Metafile['inputs'], read: readonly string[], inputPath: (input: string) => string | null): Diagnostic[] {
  const errors: Diagnostic[] = [];
  for (const input of read) {
    const importer = inputPath(input);
    if (importer === null) continue;
    for (const record of inputs[input]?.imports ?? []) {
      if (!record.external || record.kind !== 'require-call') continue;
      const specifier = record.original ?? record.path;
      const text = reads.text(importer);
      const place = text === null ? null : requirePlace(text, specifier);
      errors.push(diagnostic('BUNDLE_ERROR', requireMessage(specifier), { file: importer, ...place }));
    }
  }
  return errors;
}

/** Where `require(<specifier>)` is written (the specifier's quote, 1-based line and column), as `importPlace` places an import. */
function requirePlace(text: string, specifier: string): { line: number; column: number } | null {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const call = new RegExp(`\\brequire\\s*\\(\\s*(['"\`])${escaped}\\1`).exec(text);
  return call === null ? null : lineAndColumn(text, call.index + call[0].length - specifier.length - 2);
}

function requireMessage(specifier: string): string {
  const call = `require("${specifier}")`;
  return `${call} cannot run: "${specifier}" is not bundled into this module, and its output is an ES module, where ${call} throws "Dynamic require of "${specifier}" is not supported" (no browser, and no ES module of Node, defines require). Import it instead: import x from "${specifier}" (or await import("${specifier}") where it is loaded on demand)`;
}
