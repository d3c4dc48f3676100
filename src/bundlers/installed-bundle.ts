// One entry of an installed package as one ES module for browsers (README "The local CDN"):
// its own files bundled, its bare imports kept bare (the import map names one copy of each
// package for the whole page), CommonJS converted, production mode, minified; a stylesheet
// entry, or the sheets a code entry imports, as a sheet beside it. Every file it loads, the
// entry first, must lie inside the package's real directory (SECURITY.md): a sheet's `@import`
// of another package is taken out and recorded, for the preview to link that package's own sheet
// before this one (plugins/other-package-sheets.ts).
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { serviceCall, withLiveService } from './esbuild-service.js';
import { viteEnvDefines } from './vite-import-meta.js';
import { inputPath, relativeResolutions } from './build-results.js';
import { patternListings } from './glob-imports.js';
import { INSTALLED_EXTENSIONS } from '../workspace/resolution.js';
import { dirOf } from '../workspace/paths.js';
import { packageJsonPlaces } from '../workspace/tsconfig.js';
import { createNonRegularFiles, isConfigName } from './non-regular-files.js';
import { nonRegularKind, nonRegularText, readRegularFile } from '../regular-files.js';
import { browserMapPlugin } from './plugins/browser-map.js';
import { otherExportsPlugin, type OwnExports } from './plugins/other-exports.js';
import { conditionedSheetImports, otherPackageSheets, otherPackageSheetsPlugin } from './plugins/other-package-sheets.js';
import { declaredPackages, requiredPackagesPlugin } from './plugins/required-packages.js';
import { COMMONJS_ENTRY_FILE, commonJsEntrySource } from './commonjs-entry.js';
import { browserDisabledNames } from '../workspace/package-manifest.js';
import { BuildCancelled } from './types.js';

export interface InstalledBundle {
  /** Empty for a stylesheet entry (README "Stylesheet modules"). */
  code: Uint8Array;
  /** Its bare imports, kept as they are written, and the other packages' sheets its sheet `@import`s (`sheetImports`). */
  imports: string[];
  /** The sheets of other packages its sheet `@import`s (`tokens/tokens.css`), in the order CSS meets them: taken out of its sheet, for the page to link before it (README "The local CDN"). */
  sheetImports: string[];
  /**
   * What its build depended on, relative to the package's directory: the files it read, the
   * paths its relative imports tried before the file found (absent) and where a link crossed
   * leads (`relativeResolutions`), and the `package.json` of each directory below the package's
   * own that holds a file read (esbuild reads it there). The local CDN keeps the bundle while
   * each of these is as the build found it (README "The local CDN").
   */
  inputs: string[];
  /** The sheet of a stylesheet entry, or of the stylesheets a code entry imports, its `@import`s joined in and its `url()` files inlined; absent when none. */
  styles?: Uint8Array;
  /** The package's code files joined into its code, relative to the package's directory: one that two bundles of a page join runs twice there (README "The local CDN"). */
  joined: string[];
  /** A JSON entry's own bytes, which a browser's `import ... with { type: 'json' }` asks for (README "The local CDN"); absent for any other entry. */
  json?: Uint8Array;
  /** Each `@import` of its sheets that the page does not apply as written: the sheet (relative to the package's directory), its line and text, and why (README "The local CDN"). */
  ignoredImports: IgnoredImport[];
}

/**
 * An `@import` the page does not apply as written: `misplaced`, after a rule or inside a block
 * (esbuild keeps it as written, and a browser ignores it); `condition`, of another package's
 * sheet with a condition (`print`, `layer(x)`), which the page's link of that sheet lacks.
 */
export interface IgnoredImport {
  file: string;
  line: number;
  text: string;
  why: 'misplaced' | 'condition';
}

// esbuild's id for an `@import` that is not at the top of its sheet (build-results.ts judges a workspace sheet's by it).
const MISPLACED_IMPORT = 'invalid-@import';

// The `@import`s esbuild warned are not at the top of their sheets, as their places (its
// locations name files relative to the package's directory, the build's working directory).
function ignoredImportsOf(result: esbuild.BuildResult, packageDir: string): IgnoredImport[] {
  const misplaced = result.warnings.flatMap((warning) => {
    const file = warning.id === MISPLACED_IMPORT && warning.location ? inputPath(warning.location.file) : null;
    return file === null ? [] : [{ file, line: warning.location!.line, text: warning.location!.lineText.trim(), why: 'misplaced' as const }];
  });
  const conditioned = conditionedSheetImports(result.metafile!, (file) => sheetText(path.join(packageDir, file), packageDir));
  return [...misplaced, ...conditioned.map((found) => ({ ...found, why: 'condition' as const }))];
}

// A sheet of the package the build read, by its real path inside it; null otherwise (nothing is said of it).
function sheetText(file: string, packageDir: string): string | null {
  try {
    const real = fs.realpathSync(file);
    return real.startsWith(`${packageDir}${path.sep}`) ? readRegularFile(real).bytes.toString('utf8') : null;
  } catch {
    return null;
  }
}

// The files a published sheet may reference with `url()`: inlined, since the local CDN serves
// subpaths that `exports` names, never a package's other files.
const SHEET_FILES = ['.woff2', '.woff', '.ttf', '.otf', '.eot', '.svg', '.png', '.jpg', '.jpeg', '.gif', '.webp', '.avif'] as const;

/** A file the entry is or imports whose real path leaves the package: never read, never served. */
export class OutsidePackageError extends Error {
  constructor(readonly files: string[]) {
    super(`${files.join(', ')} ${files.length === 1 ? 'lies' : 'lie'} outside the package`);
    this.name = 'OutsidePackageError';
  }
}

const CONFINE_PLUGIN = 'confine-to-package';
// Its refusal of a file outside the package, told from its refusal of a FIFO inside.
const OUTSIDE_TEXT = 'outside the package';

// esbuild resolves a relative import wherever it leads (`../../secret.js`, a link); each file it
// is about to load is checked here first, by real path, and refused before it is read; so is one
// that is no regular file.
const confineToPackage = (packageDir: string): esbuild.Plugin => ({
  name: CONFINE_PLUGIN,
  setup(build) {
    build.onLoad({ filter: /.*/ }, (args) => {
      let real: string;
      try {
        real = fs.realpathSync(args.path);
      } catch {
        real = args.path;
      }
      if (!real.startsWith(`${packageDir}${path.sep}`)) return { errors: [{ text: OUTSIDE_TEXT, detail: real }] };
      // A FIFO would hold esbuild's open forever (README "Files that are not files"); the stat opens nothing.
      const stats = fs.statSync(real, { throwIfNoEntry: false });
      const kind = stats && nonRegularKind(stats);
      return kind ? { errors: [{ text: nonRegularText(path.relative(packageDir, real).split(path.sep).join('/'), kind) }] } : undefined;
    });
  },
});

// A sheet's `url()` or `@import` from the origin's root (`url(/images/bg.png)`, the app's public
// files, as published component sheets write) names an address, not a file of the disk: kept as
// written, as a workspace sheet's is (README "Workspaces", "The local CDN"), never resolved as a
// path, which refused the whole package, its code too.
const keepRootAddresses: esbuild.Plugin = {
  name: 'keep-root-addresses',
  setup(build) {
    build.onResolve({ filter: /^\// }, (args) => (args.kind === 'url-token' || args.kind === 'import-rule' ? { path: args.path, external: true } : undefined));
  },
};

const COMMON: esbuild.BuildOptions = {
  bundle: true,
  loader: Object.fromEntries(SHEET_FILES.map((extension) => [extension, 'dataurl' as const])),
  format: 'esm',
  platform: 'browser',
  packages: 'external',
  minify: true,
  write: false,
  metafile: true,
  logLevel: 'silent',
  // Vite's own `import.meta.env` members, as a module's production build defines them
  // (README "The local CDN"): a package written for Vite reads them, and no browser defines them.
  define: { ...viteEnvDefines({ env: 'production', target: 'browser' }), 'process.env.NODE_ENV': '"production"' },
  supported: { decorators: false },
};

/** What the bundle asks of the package beside its files. */
export interface InstalledExports extends OwnExports {
  /** The names a CommonJS file exports, asked only for a CommonJS entry (esbuild gives it a default export alone) or a CommonJS file an ES module entry re-exports with `export *` (esbuild gives that no name); each becomes a named export (commonjs-entry.ts). */
  commonJsNames(file: string): string[];
  /** The bare specifier of the export whose entry `file` (a real path) is, or null: such a file imported or required by the bundle's code stays that export's module (README "The local CDN"). */
  exportOf(file: string): string | null;
}

/**
 * `signal` aborted (the service closing): no further build of esbuild's is started, and the
 * bundle rejects with BuildCancelled (a build already running is not cut short: esbuild's
 * one-off builds cannot be).
 */
export async function bundleInstalled(entry: string, packageDir: string, exports: InstalledExports, signal?: AbortSignal): Promise<InstalledBundle> {
  // esbuild reads the package.json of each folder it resolves in itself, where the confinement's
  // load never sees it: a FIFO there held the build forever. The watchdog of the workspace's
  // builds (non-regular-files.ts) releases it, and the bundle is refused naming it.
  const watchdog = createNonRegularFiles(packageDir);
  const outcome = await watchdog.watched(
    () => withLiveService(() => bundleOnce(entry, packageDir, exports, buildOf(signal))).then((bundle) => ({ bundle }), (error: unknown) => ({ error })),
    undefined,
    1,
  );
  // Only a config: any other special file is refused at its load, and one found while another
  // build waited is none of this bundle's.
  const special = watchdog.known().find((known) => isConfigName(known.file));
  if (special) throw new Error(nonRegularText(special.file, special.kind));
  if ('bundle' in outcome) return outcome.bundle;
  throw refusalOf(outcome.error);
}

/** esbuild's build, refused once `signal` is aborted. */
const buildOf =
  (signal: AbortSignal | undefined) =>
  (options: esbuild.BuildOptions): Promise<esbuild.BuildResult> =>
    signal?.aborted ? Promise.reject(new BuildCancelled()) : serviceCall(() => esbuild.build(options));

type Build = ReturnType<typeof buildOf>;

function refusalOf(error: unknown): unknown {
  const refused = (error as Partial<esbuild.BuildFailure>).errors?.filter((message) => message.pluginName === CONFINE_PLUGIN && message.text === OUTSIDE_TEXT) ?? [];
  return refused.length > 0 ? new OutsidePackageError([...new Set(refused.map((message) => String(message.detail)))]) : error;
}

// The metafile names files relative to `absWorkingDir`, the package's real directory; the
// confinement let none outside it be read. A dynamic import by a pattern depends on the listings
// of the directories it matches, by the rule of a module's build (README "Bundling real code"):
// a locale added to an installed package builds its bundle again.
function inputsOf(result: esbuild.BuildResult, packageDir: string): string[] {
  const { inputs } = result.metafile!;
  const read = Object.keys(inputs)
    .filter((input) => input !== '<stdin>')
    .map(inputPath)
    .filter((file): file is string => file !== null);
  const listings = patternListings(packageDir, inputs, Object.keys(inputs), inputPath);
  return [...new Set([...read, ...relativeResolutions(inputs, INSTALLED_EXTENSIONS), ...manifestPlaces(read), ...listings])].sort();
}

// esbuild reads the package.json of each directory it resolves in (`type`, `sideEffects`, a
// `browser` map): one written there, or removed, changes the build. The package's own is the
// installed copy's identity (`manifestStamp`), judged before the bundle is looked for.
function manifestPlaces(files: readonly string[]): string[] {
  const places = new Set<string>();
  for (const file of files) {
    for (const place of packageJsonPlaces(dirOf(file))) {
      // Nearest first: once one is in, so are those above it.
      if (places.has(place)) break;
      if (place !== 'package.json') places.add(place);
    }
  }
  return [...places];
}

async function bundleSheet(entry: string, packageDir: string, build: Build): Promise<InstalledBundle> {
  const { packages: _external, ...common } = COMMON;
  const result = await build({ ...common, absWorkingDir: packageDir, plugins: [keepRootAddresses, otherPackageSheetsPlugin(packageDir), confineToPackage(packageDir)], entryPoints: [entry], outfile: 'out.css' });
  const sheetImports = otherPackageSheets(result.metafile!);
  return { code: new Uint8Array(0), imports: [...sheetImports].sort(), sheetImports, inputs: inputsOf(result, packageDir), styles: result.outputFiles![0]!.contents, joined: [], ignoredImports: ignoredImportsOf(result, packageDir) };
}

async function bundleOnce(entry: string, packageDir: string, exports: InstalledExports, build: Build): Promise<InstalledBundle> {
  if (entry.endsWith('.css')) return bundleSheet(entry, packageDir, build);
  if (entry.endsWith('.json')) return withJsonBytes(await bundleCode(entry, packageDir, exports, build), entry);
  return bundleCode(entry, packageDir, exports, build);
}

// Read once its build has loaded it (inside the package, a regular file: the confinement let it
// through): a write since moved its mtime, and the bundle is then recorded unverified and built
// again (README "The local CDN"), so its module and its JSON are of the same bytes.
const withJsonBytes = (bundle: InstalledBundle, entry: string): InstalledBundle => ({ ...bundle, json: readRegularFile(entry).bytes });

async function bundleCode(entry: string, packageDir: string, exports: InstalledExports, build: Build): Promise<InstalledBundle> {
  let names = browserDisabledNames(manifestAt(path.join(packageDir, 'package.json'), packageDir));
  const otherExports = otherExportsPlugin(entry, exports);
  let options = codeOptions(packageDir, names, otherExports);
  let result: esbuild.BuildResult = await build({ ...options, entryPoints: [entry] });
  // A package.json below the package's own may map a name too (esbuild's rule: the nearest one
  // with a `browser` field decides); read only when the build read a file there, and built again
  // only when it maps a name the bundle kept.
  const below = inputsOf(result, packageDir)
    .filter((input) => input !== 'package.json' && path.posix.basename(input) === 'package.json')
    .flatMap((place) => browserDisabledNames(manifestAt(path.join(packageDir, place), packageDir)));
  if (below.some((name) => !names.includes(name) && keptImports(result).has(name))) {
    names = [...new Set([...names, ...below])];
    options = codeOptions(packageDir, names, otherExports);
    result = await build({ ...options, entryPoints: [entry] });
  }
  const contents = commonJsEntrySource(result.metafile!, entry, packageDir, exports.commonJsNames);
  if (contents !== null) result = await build({ ...options, stdin: { contents, resolveDir: path.dirname(entry), sourcefile: COMMONJS_ENTRY_FILE, loader: 'js' } });
  // A `require` left as esbuild's helper (in a `try`, of an undeclared name) is no import of the bundle.
  const sheetImports = otherPackageSheets(result.metafile!);
  const imports = new Set([...keptImports(result, false), ...sheetImports]);
  // The stylesheets the code imports (a component's own sheet) go to a sheet beside it, which
  // the preview links as it links a stylesheet export's (README "Stylesheet modules").
  const styles = result.outputFiles!.find((file) => file.path.endsWith('.css'))?.contents;
  const code = result.outputFiles!.find((file) => file.path.endsWith('.js'))!.contents;
  return { code, imports: [...imports].sort(), sheetImports, inputs: inputsOf(result, packageDir), ...(styles && styles.length > 0 ? { styles } : {}), joined: joinedCode(result, contents !== null), ignoredImports: ignoredImportsOf(result, packageDir) };
}

const CODE_FILE = /\.[cm]?[jt]sx?$/;

// The code files of the package the bundle's code holds: its metafile's inputs that are code (a
// sheet goes to the sheet beside it; a CommonJS entry's wrapper is no file, and each such entry's
// bundle has one: counted, it made two CommonJS exports of a page each hold a copy of "cdn-entry.js", its former name).
function joinedCode(result: esbuild.BuildResult, wrapped: boolean): string[] {
  return Object.keys(result.metafile!.inputs)
    .map(inputPath)
    .filter((file): file is string => file !== null && file !== '<stdin>' && !(wrapped && file === COMMONJS_ENTRY_FILE) && CODE_FILE.test(file))
    .sort();
}

// The bare imports a bundle keeps, as its code writes them.
function keptImports(result: esbuild.BuildResult, withRequires = true): Set<string> {
  const imports = new Set<string>();
  for (const input of Object.values(result.metafile!.inputs)) {
    for (const record of input.imports) {
      if (record.external && !/^(?:[a-z]+:|\/|\.)/.test(record.path) && (withRequires || record.kind !== 'require-call')) imports.add(record.path);
    }
  }
  return imports;
}

// The options of a code bundle: `names`, those a package.json of the package maps to `false`, are
// empty modules where the importer's nearest `browser` field says so; the entries of the
// package's other exports stay external (`otherExports`; README "The local CDN").
function codeOptions(packageDir: string, names: readonly string[], otherExports: esbuild.Plugin): esbuild.BuildOptions {
  const browserMap = browserMapPlugin(names, packageDir);
  const required = requiredPackagesPlugin(declaredPackages(manifestAt(path.join(packageDir, 'package.json'), packageDir)));
  // Before the confinement, whose load would refuse their modules, whose paths are no files; a name mapped to `false` stays empty.
  const own = [browserMap, required].filter((plugin): plugin is esbuild.Plugin => plugin !== null);
  return { ...COMMON, absWorkingDir: packageDir, plugins: [...own, otherExports, keepRootAddresses, otherPackageSheetsPlugin(packageDir), confineToPackage(packageDir)], outfile: 'out.js' };
}

// A package.json of the package, parsed; null when absent, leading out of the package, no regular
// file or no JSON (esbuild's build then says what is wrong).
function manifestAt(file: string, packageDir: string): unknown {
  try {
    const real = fs.realpathSync(file);
    if (!real.startsWith(`${packageDir}${path.sep}`)) return null;
    return JSON.parse(readRegularFile(real).bytes.toString('utf8'));
  } catch {
    return null;
  }
}
