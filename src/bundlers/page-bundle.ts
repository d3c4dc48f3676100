// The bundled preview's two files (README "The bundled preview"): the page's modules, already
// compiled one by one, joined into one ES module, and their stylesheets into one sheet. Nothing
// is compiled again: each module's output goes in as it is served at its own address, so the
// page runs the same code; what is not in the bundle stays a bare import for the import map.
//
// esbuild reads the outputs as files (`JoinFiles`, src/bundlers/join-files.ts, which
// src/io/join-directory.ts writes), each written once per content at its address's path, and finds the modules by `alias`: a plugin that resolved and loaded each of
// 1,000 modules and 1,000 sheets called into JavaScript 4,000 times, most of a join (code
// 270 -> 130 ms, sheets 135 -> 35 ms). Only a relative or absolute reference inside an output
// still reaches the plugin, to mean what it means at the output's own address.
import path from 'node:path';
import * as esbuild from 'esbuild';
import { isServiceGone, serviceCall, withLiveService } from './esbuild-service.js';
import { notStartingWith } from './filters.js';
import { PageBundleError, pathOf, type JoinFiles } from './join-files.js';
import { diagnostic } from '../workspace/diagnostics.js';
import { BuildCancelled } from './types.js';

// Where the routes take it from: a join's failure, whichever of the two files made it.
export { PageBundleError } from './join-files.js';

export interface BundledModule {
  /** Its development address, `/m/...`: relative addresses in it are resolved against this. */
  address: string;
  /** Its compiled code, as served at `address`. */
  code: string;
  /** The content hash of `code`. */
  hash: string;
}

export interface BundledSheet {
  address: string;
  styles: string;
  /** The content hash of `styles`. */
  hash: string;
}

export interface PageBundleInput {
  /** The specifier the page imports. */
  entry: string;
  /** The modules joined into the bundle, by bare specifier (two specifiers may share one address). */
  modules: ReadonlyMap<string, BundledModule>;
  /** The stylesheets in the order the page links them. */
  sheets: readonly BundledSheet[];
  /**
   * Where each part of the joined sheet after the first starts, by index in `sheets`: the page
   * links a CDN's sheet between two parts (README "The bundled preview"). Absent: one part.
   */
  sheetParts?: readonly number[];
  /** Development sheets those `@import` by address: joined where the `@import` is (README "The bundled preview"). */
  importedSheets?: readonly BundledSheet[];
  /** The page's other bare specifiers (its import map): they stay bare imports. */
  separate: readonly string[];
  /**
   * Joined modules a computed `import()` may ask for by name (README "The bundled preview"): the
   * script hands their namespaces, under `key`, to the small modules the page's import map names
   * for them. Only modules the join runs anyway (reached by static imports): naming one here runs it.
   */
  named?: { key: string; specifiers: readonly string[] };
}

export interface PageBundle {
  code: Uint8Array;
  /** One joined sheet per part, in the page's order (`sheetParts`). */
  styles: Uint8Array[];
}

/** Their source maps: only a debugger fetches one, a reload never does. */
export interface PageBundleMaps {
  codeMap: Uint8Array;
  /** One per part of the joined sheet. */
  stylesMap: Uint8Array[];
}

export type MapKind = 'codeMap' | 'stylesMap';


const COMMON: esbuild.BuildOptions = {
  bundle: true,
  write: false,
  logLevel: 'silent',
  charset: 'utf8',
};

/** What `import.meta.url` becomes in a joined module (see `joinable`). */
const MODULE_URL = '__coreModuleUrl';
/** What `import.meta` becomes in a joined module that takes it whole (see `joinable`). */
const MODULE_META = '__coreModuleMeta';
const TAKEN_WHOLE = /\bimport\.meta\b(?!\s*\.)/;

/**
 * The two files, without their source maps: composing a thousand modules' maps took a third
 * of a join, and a reload never reads them, so they are joined when asked for
 * (`bundlePageMaps`). esbuild writes the same code with or without a map. `signal` aborted (the
 * service closing): no further call of esbuild's is started, and the join rejects with
 * BuildCancelled (one already running is not cut short: esbuild's one-off builds cannot be).
 */
export function bundlePage(input: PageBundleInput, files: JoinFiles, signal?: AbortSignal): Promise<PageBundle> {
  return withLiveService(async () => {
    const [[code], parts] = await Promise.all([bundleCode(input, files, false, signal), bundleStyles(input, files, false, signal)]);
    return { code, styles: parts.map(([styles]) => styles) };
  });
}

/** The source maps of what `bundlePage` joins from the same input, composed down to the workspace sources. */
export function bundlePageMaps(input: PageBundleInput, files: JoinFiles, signal?: AbortSignal): Promise<PageBundleMaps> {
  return withLiveService(async () => {
    const [[, codeMap], parts] = await Promise.all([bundleCode(input, files, true, signal), bundleStyles(input, files, true, signal)]);
    return { codeMap, stylesMap: parts.map(([, map]) => map) };
  });
}

/** The files of a join: those `bundlePage` and `bundlePageMaps` read for `input`. */
export function joinedFiles(input: Pick<PageBundleInput, 'modules' | 'sheets' | 'importedSheets'>, files: JoinFiles): string[] {
  const modules = [...input.modules.values()].flatMap((module) => [files.fileOf(module.address, module.hash, 'js'), files.fileOf(module.address, module.hash, 'map.js')]);
  return [...modules, ...[...input.sheets, ...(input.importedSheets ?? [])].flatMap((sheet) => [files.fileOf(sheet.address, sheet.hash, 'css'), files.fileOf(sheet.address, sheet.hash, 'map.css')])];
}

// Each output ends with its source map inline: most of its bytes (2.4 of 2.9 MB for 1,000
// modules). A join without maps reads the outputs without it: the same code, a fifth of the
// bytes to write and to read.
const INLINE_MAP = { js: '\n//# sourceMappingURL=data:', css: '\n/*# sourceMappingURL=data:' } as const;

function withoutInlineMap(text: string, kind: keyof typeof INLINE_MAP): string {
  const at = text.lastIndexOf(INLINE_MAP[kind]);
  if (at === -1) return text;
  const end = text.indexOf('\n', at + 1);
  return end === -1 || text.slice(end).trim() === '' ? text.slice(0, at + 1) : text;
}

// A relative reference, an absolute path or a URL: what a bare specifier is not.
const NOT_BARE = /^(?:\.\.?(?:\/|$)|\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/;

/** The joined code and, when `maps`, its source map (exported for the tests: the code must not depend on `maps`). */
export async function bundleCode(input: PageBundleInput, files: JoinFiles, maps: boolean, signal?: AbortSignal): Promise<[Uint8Array, Uint8Array]> {
  const joined = [...input.modules].map(([specifier, module]) => ({ specifier, module, file: files.fileOf(module.address, module.hash, maps ? 'map.js' : 'js') }));
  await files.write(joined.map(({ module, file }) => ({ file, content: () => joinable(module, maps, signal) })));
  const addressOf = new Map(joined.map(({ file, module }) => [file, module.address]));
  // The page's other bare specifiers name themselves: one under a joined module's specifier
  // (`@acme/lib/badge` beside a joined `@acme/lib`) would otherwise become a path inside its file.
  const alias: Record<string, string> = Object.fromEntries(input.separate.map((specifier) => [specifier, specifier]));
  for (const { specifier, file } of joined) alias[specifier] = file;
  const dir = files.dir();
  const options: esbuild.BuildOptions = {
    ...COMMON,
    format: 'esm',
    platform: 'browser',
    absWorkingDir: dir,
    outfile: 'page.js',
    packages: 'external',
    alias,
    ...(input.named && input.named.specifiers.length > 0 ? { entryPoints: [NAMED_ENTRY] } : { stdin: { contents: `import ${JSON.stringify(input.entry)};\n`, sourcefile: 'page-entry.js', loader: 'js', resolveDir: dir } }),
    plugins: [
      {
        name: 'core-page-modules',
        setup(build) {
          if (input.named) namedModules(build, input.entry, input.named, dir);
          build.onResolve({ filter: NOT_BARE }, (args) => {
            const from = addressOf.get(args.importer);
            // Relative to the module that imports it, as it would be from its own address.
            if (from !== undefined && /^\.\.?(?:\/|$)/.test(args.path)) return { path: resolveAgainst(args.path, from), external: true };
            return { path: args.path, external: true };
          });
        },
      },
    ],
  };
  return build(maps, options, addressOf, signal);
}

const NAMED_ENTRY = 'core-page:entry';
const NAMED_REGISTRY = 'core-page:registry';
/** The global the script hands its joined modules' namespaces to, by its key (README "The bundled preview"). */
export const JOINED_NAMESPACES = 'core.bundled.modules';

/**
 * The script's entry when joined modules are named: it imports the registry first, then the
 * page's entry, then each named module's namespace (already run by then: nothing runs earlier or
 * twice), and `joinedNamespace` answers those. The registry runs before any joined code and hands
 * that function over, so a module awaiting `import()` at its top level finds the modules run
 * before it; a function declaration is hoisted, so the registry may call it before the entry runs.
 */
function namedModules(build: esbuild.PluginBuild, entry: string, named: { key: string; specifiers: readonly string[] }, dir: string): void {
  build.onResolve({ filter: /^core-page:(?:entry|registry)$/ }, (args) => ({ path: args.path, namespace: 'core-page' }));
  build.onLoad({ filter: /.*/, namespace: 'core-page' }, (args) => {
    if (args.path === NAMED_REGISTRY) {
      const contents = `import { joinedNamespace } from ${JSON.stringify(NAMED_ENTRY)};\n(globalThis[Symbol.for(${JSON.stringify(JOINED_NAMESPACES)})] ??= new Map()).set(${JSON.stringify(named.key)}, joinedNamespace);\n`;
      return { contents, loader: 'js', resolveDir: dir };
    }
    const imports = named.specifiers.map((specifier, at) => `import * as joined${at} from ${JSON.stringify(specifier)};`);
    const cases = named.specifiers.map((specifier, at) => `    case ${JSON.stringify(specifier)}: return joined${at};`);
    const contents = [`import ${JSON.stringify(NAMED_REGISTRY)};`, `import ${JSON.stringify(entry)};`, ...imports, 'export function joinedNamespace(specifier) {', '  switch (specifier) {', ...cases, '  }', '}', ''].join('\n');
    return { contents, loader: 'js', resolveDir: dir };
  });
}

// Within a joined module `import.meta.url` is the bundle's address; relative addresses built
// from it (a declared asset, a worker) must keep resolving against the module's own address.
async function joinable(module: BundledModule, maps: boolean, signal: AbortSignal | undefined): Promise<string> {
  const code = maps ? module.code : withoutInlineMap(module.code, 'js');
  if (!code.includes('import.meta.url') && !TAKEN_WHOLE.test(code)) return code;
  if (signal?.aborted) throw new BuildCancelled();
  // esbuild's own define replaces the expression, never the same words in a string.
  // `import.meta` taken whole (`const { url } = import.meta`) is the module's too: its `url`, and
  // a `resolve` that resolves a relative or rooted specifier against it (the page's own for a bare one).
  const whole = TAKEN_WHOLE.test(code);
  const define: Record<string, string> = whole ? { 'import.meta': MODULE_META } : { 'import.meta.url': MODULE_URL };
  const moved = await serviceCall(() => esbuild.transform(code, { loader: 'js', format: 'esm', define, sourcemap: maps ? 'inline' : false, sourcefile: pathOf(module.address) }));
  const meta = whole ? ` const ${MODULE_META} = { url: ${MODULE_URL}, resolve: (specifier) => (/^\\.{0,2}\\//.test(specifier) ? new URL(specifier, ${MODULE_URL}).href : import.meta.resolve(specifier)) };` : '';
  return `const ${MODULE_URL} = new URL(${JSON.stringify(module.address)}, import.meta.url).href;${meta} ${moved.code}`;
}

/** The sheets of each part of the joined sheet (`sheetParts`), in the page's order. */
export function sheetPartsOf<Sheet>(input: { sheets: readonly Sheet[]; sheetParts?: readonly number[] }): Sheet[][] {
  const starts = [0, ...(input.sheetParts ?? []), input.sheets.length];
  return starts.slice(0, -1).map((start, at) => input.sheets.slice(start, starts[at + 1]));
}

/** Each part of the joined sheet (`sheetParts`), joined on its own, with its source map when `maps`. */
async function bundleStyles(input: PageBundleInput, files: JoinFiles, maps: boolean, signal?: AbortSignal): Promise<[Uint8Array, Uint8Array][]> {
  const fileOf = (sheet: BundledSheet) => ({ sheet, file: files.fileOf(sheet.address, sheet.hash, maps ? 'map.css' : 'css') });
  const joined = input.sheets.map(fileOf);
  const imported = (input.importedSheets ?? []).map(fileOf);
  await files.write([...joined, ...imported].map(({ sheet, file }) => ({ file, content: () => (maps ? sheet.styles : withoutInlineMap(sheet.styles, 'css')) })));
  const addressOf = new Map([...joined, ...imported].map(({ file, sheet }) => [file, sheet.address]));
  // An `@import` of one of those by its address is joined at its place: kept as an address,
  // esbuild would move it above every sheet before it, and the cascade would change.
  const importedFile = new Map(imported.map(({ sheet, file }) => [pathOf(sheet.address), file]));
  const dir = files.dir();
  const joinPart = (part: readonly BundledSheet[]): Promise<[Uint8Array, Uint8Array]> => {
    if (part.length === 0) return Promise.resolve([new Uint8Array(), new Uint8Array()]);
    const options: esbuild.BuildOptions = {
      ...COMMON,
      absWorkingDir: dir,
      outfile: 'page.css',
      stdin: { contents: part.map((sheet) => `@import ${JSON.stringify(fileOf(sheet).file)};`).join('\n'), sourcefile: 'page-entry.css', loader: 'css', resolveDir: dir },
      plugins: [
        {
          name: 'core-page-sheets',
          setup(build) {
            // Every reference but the page's own imports of the sheets (paths in `dir`).
            build.onResolve({ filter: notStartingWith(`${dir}${path.sep}`) }, (args) => {
              const from = addressOf.get(args.importer);
              // A `url()` or `@import` in a sheet means what it meant at the sheet's own address.
              if (from !== undefined && !/^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i.test(args.path)) {
                const address = resolveAgainst(args.path, from);
                const file = args.kind === 'import-rule' ? importedFile.get(pathOf(address)) : undefined;
                return file === undefined ? { path: address, external: true } : { path: file };
              }
              return { path: args.path, external: true };
            });
          },
        },
      ],
    };
    return build(maps, options, addressOf, signal);
  };
  return Promise.all(sheetPartsOf(input).map(joinPart));
}

/** The output, and its source map when `maps` (else empty); `addressOf`: each joined file's address. */
async function build(maps: boolean, options: esbuild.BuildOptions, addressOf: ReadonlyMap<string, string>, signal: AbortSignal | undefined): Promise<[Uint8Array, Uint8Array]> {
  const joined = [...addressOf.keys()];
  if (signal?.aborted) throw new BuildCancelled();
  try {
    const files = (await serviceCall(() => esbuild.build({ ...options, sourcemap: maps ? 'external' : false }))).outputFiles!;
    const map = files.find((file) => file.path.endsWith('.map'));
    return [files.find((file) => file !== map)!.contents, map ? sourcesAsServed(map.contents, options.absWorkingDir!, joined) : new Uint8Array()];
  } catch (error) {
    const errors = (error as { errors?: esbuild.Message[] }).errors;
    if (!errors || isServiceGone(error)) throw error;
    throw joinError(errors, options.absWorkingDir!, addressOf);
  }
}

/**
 * esbuild's errors of a join, each as a BUNDLE_ERROR naming the outputs by their addresses (path
 * only), never by the join directory's file names, which the page's reader never sees (README
 * "The bundled preview").
 */
function joinError(errors: readonly esbuild.Message[], dir: string, addressOf: ReadonlyMap<string, string>): PageBundleError {
  const named = [...addressOf].map(([file, address]) => [path.relative(dir, file).split(path.sep).join('/'), pathOf(address)] as const).sort((a, b) => b[0].length - a[0].length);
  const addressed = (text: string) => named.reduce((result, [file, address]) => result.split(file).join(address), text);
  const diagnostics = errors.map((message) => {
    const at = message.location ? `${addressed(message.location.file)}, line ${message.location.line} of its code: ` : '';
    return diagnostic('BUNDLE_ERROR', `${at}${addressed(message.text)}`);
  });
  return new PageBundleError(diagnostics.map((found) => found.message).join('; '), diagnostics);
}

/**
 * An output's own map names its sources relative to the workspace; esbuild read it in a file
 * of the join directory and names them from there (`m/@acme/ui@1.1.0/modules/packages/...`).
 * The joined map names them as each output's map does.
 */
function sourcesAsServed(map: Uint8Array, dir: string, joined: readonly string[]): Uint8Array {
  const prefixes = [...new Set(joined.map((file) => `${path.relative(dir, path.dirname(file)).split(path.sep).join('/')}/`))].sort((a, b) => b.length - a.length);
  const parsed = JSON.parse(Buffer.from(map).toString('utf8')) as { sources: string[] };
  parsed.sources = parsed.sources.map((source) => {
    const prefix = prefixes.find((candidate) => source.startsWith(candidate));
    return prefix === undefined ? source : source.slice(prefix.length);
  });
  return Buffer.from(JSON.stringify(parsed));
}

/** `path` as seen from the page address `from` (same origin): an absolute path and query. */
function resolveAgainst(path: string, from: string): string {
  const url = new URL(path, new URL(from, 'http://service.invalid'));
  return `${url.pathname}${url.search}${url.hash}`;
}
