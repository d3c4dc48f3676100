// The static imports of a declared JavaScript asset the code names by `new URL` (a module
// worker, README "Bundling real code"). An asset is served as written, so what it imports is the
// browser's to fetch: a sibling that is no declared asset answers 404, and a bare specifier has
// no import map in a worker; either way the worker fails while its module is `valid`. The
// service cannot mend it; it says so, as a warning (the page may never start the worker). The
// asset is parsed, never run; one that does not parse is not judged (the browser says why).
import path from 'node:path';
import { parse, type Node } from 'acorn';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import { isBare } from '../workspace/specifiers.js';
import { urlAssets } from './plugins/assets.js';
import type { PlacedReads } from './placed-reads.js';
import type { BundleTarget } from './types.js';

// Stands for `/m/<package>@<version>/`: an asset's imports resolve against its address as the browser's do.
const ORIGIN = 'http://module.invalid';
const PACKAGE = '/m/package/';
const SCRIPT_ASSET = /\.m?js$/;

interface ImportSource extends Node {
  source?: { value: unknown; start: number } | null;
}

/**
 * The warnings about the static imports of each JavaScript asset in `named` (workspace-relative,
 * the declared assets the code names) and of each declared asset those import in turn; `scanned`:
 * every asset read, inputs of the build, so that an edit of one judges them again.
 */
export function assetImportWarnings(reads: PlacedReads, target: BundleTarget, named: readonly string[]): { warnings: Diagnostic[]; scanned: string[] } {
  const declared = urlAssets(target);
  const addressOf = (file: string): string | null => {
    const asset = declared.get(file);
    return asset === undefined ? null : new URL(`${PACKAGE}assets/${asset.subpath}/${asset.file}`, ORIGIN).pathname;
  };
  const byAddress = new Map<string, string>();
  for (const file of declared.keys()) byAddress.set(addressOf(file)!, file);
  const pending = named.filter((file) => SCRIPT_ASSET.test(file) && declared.has(file));
  const scanned = new Set(pending);
  const warnings: Diagnostic[] = [];
  while (pending.length > 0) {
    const file = pending.shift()!;
    const text = reads.text(file);
    if (text === null) continue;
    const address = addressOf(file)!;
    // The asset space of the module declaring it: a relative import that stays there names a file
    // that only a declaration of that module could serve.
    const ownSpace = new URL(`${PACKAGE}assets/${declared.get(file)!.subpath}/`, ORIGIN).pathname;
    for (const { specifier, offset } of staticImports(text)) {
      const where = { file, ...lineAndColumn(text, offset) };
      if (isBare(specifier)) {
        warnings.push(diagnostic('ASSET_IMPORT_UNSERVED', `${file} is a declared asset, served as written, and imports "${specifier}" by a bare specifier: a worker has no import map, so the browser cannot load it and the worker fails to start; import a declared asset by a relative address instead (an asset is never bundled)`, where));
        continue;
      }
      if (!/^\.\.?\//.test(specifier)) continue; // from the origin's root or with a scheme: the author's
      const resolved = new URL(specifier, new URL(address, ORIGIN)).pathname;
      const served = byAddress.get(resolved);
      if (served !== undefined) {
        if (SCRIPT_ASSET.test(served) && !scanned.has(served)) {
          scanned.add(served);
          pending.push(served);
        }
        continue;
      }
      if (!resolved.startsWith(ownSpace)) continue; // another module's assets, or out of them: not known here
      const wanted = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.replace(/[?#].*$/, '')));
      warnings.push(diagnostic('ASSET_IMPORT_UNSERVED', `${file} is a declared asset, served as written, and imports "${specifier}" (${wanted}), which is no declared asset of ${target.specifier}: its address answers 404, so the worker fails to start; declare "${path.posix.relative(target.dir, wanted)}" under "assets" too`, where));
    }
  }
  return { warnings, scanned: [...scanned].sort() };
}

// `import ... from`, `export ... from` and `import '...'` at the top of a module, with where the
// specifier is written; empty when the text does not parse as a module.
function staticImports(text: string): { specifier: string; offset: number }[] {
  let body: ImportSource[];
  try {
    body = (parse(text, { ecmaVersion: 'latest', sourceType: 'module' }) as unknown as { body: ImportSource[] }).body;
  } catch {
    return [];
  }
  const found: { specifier: string; offset: number }[] = [];
  for (const node of body) {
    if (node.type !== 'ImportDeclaration' && node.type !== 'ExportNamedDeclaration' && node.type !== 'ExportAllDeclaration') continue;
    if (node.source && typeof node.source.value === 'string') found.push({ specifier: node.source.value, offset: node.source.start });
  }
  return found;
}
