// The names an installed package's CDN module exports where its entry is CommonJS (README "The
// local CDN"): esbuild gives a CommonJS entry a default export alone, where Node's `import` finds
// the names `cjs-module-lexer` reads in it. The bundle is built again from a few lines that import
// the entry and export those names, and its `module.exports` under that name, Node's own, for a
// `require` of the package (plugins/required-packages.ts).
import type * as esbuild from 'esbuild';
import { MODULE_EXPORTS } from './plugins/required-packages.js';

/**
 * The source of the module re-exporting `entry` (absolute) with the names Node's `import` of it
 * finds, given its first build's `metafile`; null when the entry is no CommonJS file.
 * `commonJsNames(file)` reads a CommonJS file's names.
 */
export function commonJsEntrySource(metafile: esbuild.Metafile, entry: string, commonJsNames: (file: string) => string[]): string | null {
  const output = Object.values(metafile.outputs)[0];
  const entryInput = output?.entryPoint;
  const specifier = JSON.stringify(entry);
  if (entryInput && metafile.inputs[entryInput]?.format === 'cjs') {
    const names = commonJsNames(entry);
    return [
      `import module from ${specifier};`,
      'export default module;',
      // Through a local binding: esbuild writes an imported one re-exported under a string name as no valid code.
      'const moduleExports = module;',
      `export { moduleExports as ${JSON.stringify(MODULE_EXPORTS)} };`,
      ...(names.length > 0 ? [`export const { ${names.join(', ')} } = module;`] : []),
    ].join('\n');
  }
  return null;
}
