// The names an installed package's CDN module exports where its code is CommonJS (README "The
// local CDN"): esbuild gives a CommonJS entry a default export alone, and an ES module entry's
// `export * from './lib.cjs'` no static name at all, where Node's `import` finds the names
// `cjs-module-lexer` reads in the CommonJS file. The bundle is built again from a few lines that
// import the entry and export those names; a CommonJS entry's `module.exports` is also exported
// under that name, Node's own, for a `require` of the package (plugins/required-packages.ts).
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { parse } from 'acorn';
import { readRegularFile } from '../regular-files.js';
import { MODULE_EXPORTS } from './plugins/required-packages.js';

/** The name the wrapper is built under: an `.mjs` file, whose imports of CommonJS esbuild gives Node's meaning. */
export const COMMONJS_ENTRY_FILE = 'cdn-entry.mjs';

/**
 * The source of the module re-exporting `entry` (absolute) with the names Node's `import` of it
 * finds, given its first build's `metafile`; null when that build already exports them.
 * `commonJsNames(file)` reads a CommonJS file's names.
 */
export function commonJsEntrySource(metafile: esbuild.Metafile, entry: string, packageDir: string, commonJsNames: (file: string) => string[]): string | null {
  const output = Object.values(metafile.outputs)[0];
  const exported = output?.exports ?? [];
  const entryInput = output?.entryPoint;
  const specifier = JSON.stringify(entry);
  if (entryInput && metafile.inputs[entryInput]?.format === 'cjs') {
    const names = commonJsNames(entry);
    // Built as an `.mjs` file (COMMONJS_ENTRY_FILE), so esbuild imports the entry as Node does:
    // `module` is `module.exports` itself, `__esModule` or not. The names are read off it, as
    // Node's lexer reads them; the default is `exports.default` when `__esModule` says the file
    // was compiled from an ES module (TypeScript's and Babel's CommonJS output), as esbuild, Vite
    // and esm.sh give it, else `module.exports`.
    return [
      `import module from ${specifier};`,
      'export default module != null && module.__esModule ? module.default : module;',
      // Through a local binding: esbuild writes an imported one re-exported under a string name as no valid code.
      'const moduleExports = module;',
      `export { moduleExports as ${JSON.stringify(MODULE_EXPORTS)} };`,
      ...(names.length > 0 ? [`export const { ${names.join(', ')} } = module;`] : []),
    ].join('\n');
  }
  if (!entryInput) return null;
  const starred = starredCommonJsNames(metafile, entryInput, packageDir, commonJsNames).filter((name) => !exported.includes(name));
  if (starred.length === 0) return null;
  return [
    `export * from ${specifier};`,
    `export { ${starred.join(', ')} } from ${specifier};`,
    ...(exported.includes('default') ? [`export { default } from ${specifier};`] : []),
  ].join('\n');
}

// A chain of `export *` longer than this is not a package's layout but a loop or an attack.
const MAX_STARRED_FILES = 64;

/**
 * The names of the CommonJS files the ES module `entryInput` re-exports with `export * from`,
 * directly or through other ES modules' `export *`, as Node gives them. A file acorn cannot parse
 * passes none on.
 */
function starredCommonJsNames(metafile: esbuild.Metafile, entryInput: string, packageDir: string, commonJsNames: (file: string) => string[]): string[] {
  const { inputs } = metafile;
  // Most bundles hold no CommonJS file: nothing is read for them.
  if (!Object.values(inputs).some((input) => input.format === 'cjs')) return [];
  const names = new Set<string>();
  const seen = new Set<string>();
  const queue = [entryInput];
  while (queue.length > 0 && seen.size < MAX_STARRED_FILES) {
    const input = queue.shift()!;
    if (seen.has(input) || input.includes(':')) continue;
    seen.add(input);
    for (const source of starSources(path.join(packageDir, input))) {
      const target = inputs[input]?.imports.find((record) => record.kind === 'import-statement' && (record.original ?? record.path) === source)?.path;
      const format = target === undefined ? undefined : inputs[target]?.format;
      if (format === 'cjs') for (const name of commonJsNames(path.join(packageDir, target!))) names.add(name);
      else if (format === 'esm') queue.push(target!);
    }
  }
  return [...names].sort();
}

/** The sources of `file`'s `export * from '...'` statements (not `export * as name`). */
function starSources(file: string): string[] {
  try {
    const tree = parse(readRegularFile(file).bytes.toString('utf8'), { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
    return tree.body.flatMap((statement) =>
      statement.type === 'ExportAllDeclaration' && !statement.exported && typeof statement.source.value === 'string' ? [statement.source.value] : [],
    );
  } catch {
    return [];
  }
}
