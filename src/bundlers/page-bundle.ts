// The bundled preview's two files (README "The bundled preview"): the page's modules, already
// compiled one by one, joined into one ES module, and their stylesheets into one sheet. Nothing
// is compiled again: each module's output goes in as it is served at its own address, so the
// page runs the same code; what is not in the bundle stays a bare import for the import map.
import * as esbuild from 'esbuild';
import { isServiceGone, withLiveService } from './esbuild-service.js';

export interface BundledModule {
  /** Its development address, `/m/...`: relative addresses in it are resolved against this. */
  address: string;
  /** Its compiled code, as served at `address`. */
  code: string;
}

export interface BundledSheet {
  address: string;
  styles: string;
}

export interface PageBundleInput {
  /** The specifier the page imports. */
  entry: string;
  /** The modules joined into the bundle, by bare specifier (two specifiers may share one address). */
  modules: ReadonlyMap<string, BundledModule>;
  /** The stylesheets in the order the page links them. */
  sheets: readonly BundledSheet[];
}

export interface PageBundle {
  code: Uint8Array;
  styles: Uint8Array;
}

/** Their source maps: only a debugger fetches one, a reload never does. */
export interface PageBundleMaps {
  codeMap: Uint8Array;
  stylesMap: Uint8Array;
}

export type MapKind = 'codeMap' | 'stylesMap';

export class PageBundleError extends Error {}

const COMMON: esbuild.BuildOptions = {
  bundle: true,
  write: false,
  logLevel: 'silent',
  charset: 'utf8',
};

// Within a joined module `import.meta.url` is the bundle's address; relative addresses built
// from it (a declared asset, a worker) must keep resolving against the module's own address.
const MODULE_URL = '__coreModuleUrl';

// Each joined file is named by its address without the query (one address per module or sheet
// in a page): the query is the same development query for all, and would only lengthen the
// file comments esbuild writes before each one.
const pathOf = (address: string) => address.replace(/\?.*$/, '');

/**
 * The two files, without their source maps: composing a thousand modules' maps took a third
 * of a join, and a reload never reads them, so they are joined when asked for
 * (`bundlePageMaps`). esbuild writes the same code with or without a map.
 */
export function bundlePage(input: PageBundleInput): Promise<PageBundle> {
  return withLiveService(async () => {
    const [[code], [styles]] = await Promise.all([bundleCode(input, false), bundleStyles(input, false)]);
    return { code, styles };
  });
}

/** The source maps of what `bundlePage` joins from the same input, composed down to the workspace sources. */
export function bundlePageMaps(input: PageBundleInput): Promise<PageBundleMaps> {
  return withLiveService(async () => {
    const [[, codeMap], [, stylesMap]] = await Promise.all([bundleCode(input, true), bundleStyles(input, true)]);
    return { codeMap, stylesMap };
  });
}

function bundleCode(input: PageBundleInput, maps: boolean): Promise<[Uint8Array, Uint8Array]> {
  const byPath = new Map([...input.modules.values()].map((module) => [pathOf(module.address), module]));
  const bySpecifier = new Map([...input.modules].map(([specifier, module]) => [specifier, pathOf(module.address)]));
  return build(maps, {
    ...COMMON,
    format: 'esm',
    platform: 'browser',
    outfile: 'page.js',
    stdin: { contents: `import ${JSON.stringify(input.entry)};\n`, sourcefile: 'page-entry.js', loader: 'js' },
    plugins: [
      {
        name: 'core-page-modules',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            const joined = bySpecifier.get(args.path);
            if (joined) return { path: joined, namespace: 'core-module' };
            // Relative to the module that imports it, as it would be from its own address.
            if (args.namespace === 'core-module' && /^\.\.?\//.test(args.path)) return { path: resolveAgainst(args.path, args.importer), external: true };
            return { path: args.path, external: true };
          });
          build.onLoad({ filter: /.*/, namespace: 'core-module' }, async (args) => {
            const module = byPath.get(args.path)!;
            if (!module.code.includes('import.meta.url')) return { contents: module.code, loader: 'js' };
            // esbuild's own define replaces the expression, never the same words in a string.
            const moved = await esbuild.transform(module.code, { loader: 'js', format: 'esm', define: { 'import.meta.url': MODULE_URL }, sourcemap: 'inline', sourcefile: args.path });
            return { contents: `const ${MODULE_URL} = new URL(${JSON.stringify(module.address)}, import.meta.url).href; ${moved.code}`, loader: 'js' };
          });
        },
      },
    ],
  });
}

async function bundleStyles(input: PageBundleInput, maps: boolean): Promise<[Uint8Array, Uint8Array]> {
  if (input.sheets.length === 0) return [new Uint8Array(), new Uint8Array()];
  const byPath = new Map(input.sheets.map((sheet) => [pathOf(sheet.address), sheet]));
  return build(maps, {
    ...COMMON,
    outfile: 'page.css',
    stdin: { contents: input.sheets.map((sheet) => `@import ${JSON.stringify(`core-sheet:${pathOf(sheet.address)}`)};`).join('\n'), sourcefile: 'page-entry.css', loader: 'css' },
    plugins: [
      {
        name: 'core-page-sheets',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (args.path.startsWith('core-sheet:')) return { path: args.path.slice('core-sheet:'.length), namespace: 'core-sheet' };
            // A `url()` or `@import` in a sheet means what it meant at the sheet's own address.
            if (args.namespace === 'core-sheet' && !/^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i.test(args.path)) return { path: resolveAgainst(args.path, args.importer), external: true };
            return { path: args.path, external: true };
          });
          build.onLoad({ filter: /.*/, namespace: 'core-sheet' }, (args) => ({ contents: byPath.get(args.path)!.styles, loader: 'css' }));
        },
      },
    ],
  });
}

/** The output, and its source map when `maps` (else empty). */
async function build(maps: boolean, options: esbuild.BuildOptions): Promise<[Uint8Array, Uint8Array]> {
  try {
    const files = (await esbuild.build({ ...options, sourcemap: maps ? 'external' : false })).outputFiles!;
    const map = files.find((file) => file.path.endsWith('.map'));
    return [files.find((file) => file !== map)!.contents, map?.contents ?? new Uint8Array()];
  } catch (error) {
    const errors = (error as { errors?: esbuild.Message[] }).errors;
    if (!errors || isServiceGone(error)) throw error;
    throw new PageBundleError(errors.map((message) => `${message.location ? `${message.location.file}:${message.location.line}: ` : ''}${message.text}`).join('; '));
  }
}

/** `path` as seen from the page address `from` (same origin): an absolute path and query. */
function resolveAgainst(path: string, from: string): string {
  const url = new URL(path, new URL(from, 'http://service.invalid'));
  return `${url.pathname}${url.search}${url.hash}`;
}
