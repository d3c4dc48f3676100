// Vite's query imports (README "Bundling real code"): esbuild reads `./counter.js?worker` as the
// file `counter.js` and bundles it, so the value was that module's exports, not a Worker (`?raw`:
// not the file's text, `?url`: not an address), while `/state` said valid. Each is an error at
// its import, naming what works. Kept: `?raw` of a file esbuild loads as text (`.txt`: its text
// is the value, as in Vite), `?url` of a declared asset esbuild does not compile (its address), and `?inline` of a
// stylesheet, which build-results.ts reports as a value import.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { importPlace } from '../workspace/checks.js';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { CODE_IMPORT_KINDS } from './import-kinds.js';
import { assetAddress, isCompiledByEsbuild } from './plugins/assets.js';
import type { PlacedReads } from './placed-reads.js';
import type { BundleTarget } from './types.js';

/** Vite's query suffixes esbuild does not give the value of (the module boundaries leave such an import to this check). */
export const VITE_QUERY_SUFFIX = /\?(worker|sharedworker|raw|url)(?:&[^/]*)?$/;

/** The errors of the imports the code inputs `read` (metafile paths) make with Vite's query suffixes. */
export function viteQueryImports(reads: PlacedReads, target: BundleTarget, inputs: esbuild.Metafile['inputs'], read: readonly string[], inputPath: (input: string) => string | null): Diagnostic[] {
  const declared = new Set(target.assets.map((file) => path.posix.join(target.dir, file)));
  const errors: Diagnostic[] = [];
  for (const input of read) {
    const importer = inputPath(input);
    if (importer === null) continue;
    for (const record of inputs[input]?.imports ?? []) {
      const suffix = record.original === undefined || record.external || !CODE_IMPORT_KINDS.has(record.kind) ? null : VITE_QUERY_SUFFIX.exec(record.original)?.[1];
      if (!suffix) continue;
      const file = inputPath(record.path);
      if (file === null || (suffix === 'raw' && file.endsWith('.txt')) || (suffix === 'url' && declared.has(file) && !isCompiledByEsbuild(file))) continue;
      const text = reads.text(importer);
      const place = text === null ? null : importPlace(text, record.original!);
      errors.push(diagnostic('BUNDLE_ERROR', queryMessage(target, record.original!, suffix, file), { file: importer, ...place }));
    }
  }
  return errors;
}

function queryMessage(target: BundleTarget, specifier: string, suffix: string, file: string): string {
  const asset = file.startsWith(`${target.dir}/`) ? file.slice(target.dir.length + 1) : path.posix.basename(file);
  const address = `new URL('${assetAddress(target.subpath, asset)}', import.meta.url)`;
  const vite = `"${specifier}" is Vite's ${suffix} import, which esbuild does not understand: it imports ${asset} itself`;
  const declare = `declare "${asset}" under "assets" in the module.json beside the module's entry`;
  if (suffix === 'worker' || suffix === 'sharedworker') {
    const made = suffix === 'worker' ? 'Worker' : 'SharedWorker';
    return `${vite}, so the value is its exports, not a ${made}. ${declare[0]!.toUpperCase()}${declare.slice(1)} (an asset is served as written: plain JavaScript) and write new ${made}(${address})`;
  }
  if (suffix === 'raw') return `${vite}, so the value is not the file's text. Name a .txt file (its text is the value), or ${declare} and fetch(${address})`;
  return `${vite}, so the value is not an address. ${declare[0]!.toUpperCase()}${declare.slice(1)} and write ${address}`;
}
