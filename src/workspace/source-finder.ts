// Which source file an `exports` target stands for. Real packages point `exports` at build
// output (`./dist/index.js`, `./development/css-tag.js`) that a source checkout does not hold;
// the source is found the way TypeScript maps sources to outputs (README "Exports and sources"):
//   1. the target itself, when it is a source file that exists;
//   2. a `.js`/`.mjs`/`.cjs`/`.d.ts` target beside its source (`index.js` -> `index.ts`);
//   3. a target under the `outDir` (or `declarationDir`) of the tsconfig that builds the package,
//      mapped to `rootDir` (when absent, `src/` if the package has one, else the package: tsc's
//      common source directory); that tsconfig is the one `tsc -p` of `scripts.build` names, else
//      the package's `tsconfig.build.json`, else the tsconfig tsc finds for the package: its own or
//      the nearest above, as the builds find theirs (`findTsconfig`);
//   4. when no target maps (a bundler's output such as rollup's `dist/lib.mjs`), the tsconfig
//      `paths` entry for the public specifier (`"@floating-ui/dom": ["../dom/src/index.ts"]`).
// A `*` pattern publishes what Node would resolve (README "Exports and sources"): every file
// whose path the target's `*` can stand for, in any directory below, built or still a source.
// Every file and directory looked at is read through the recording reader, so one that
// appears later reads the workspace again.
import type { SourceReader } from './source-reader.js';
import type { PackageManifest } from './package-manifest.js';
import { dirOf, isInside, isSkippedDirectory, joinRelative, normalizeRelative, relativeTo } from './paths.js';
import { moduleSpecifier, ROOT_SUBPATH } from './specifiers.js';
import { findTsconfig, loadTsconfig, pathsTargets, type LoadedTsconfig } from './tsconfig.js';

const SOURCE_FILE = /\.(?:[cm]?tsx?|[cm]?jsx?)$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;
const TS_SOURCES: readonly [RegExp, string[]][] = [
  [/\.d\.ts$/, ['.ts', '.tsx']],
  [/\.d\.mts$/, ['.mts']],
  [/\.d\.cts$/, ['.cts']],
  [/\.jsx?$/, ['.ts', '.tsx']],
  [/\.mjs$/, ['.mts']],
  [/\.cjs$/, ['.cts']],
];

// Any of TS_SOURCES' patterns, tried first: most targets are sources that map from nothing.
const MAPPED_OUTPUT = /\.(?:d\.[cm]?ts|jsx?|[cm]js)$/;

export interface FoundSource {
  /** The entry file, relative to the workspace; null when none was found. */
  entry: string | null;
  /** Every place looked at, for the diagnostic when none is a source. */
  looked: string[];
}

export interface SourceFinder {
  /** `asBuilt`: as Node resolves in the built package (a deep import of a package without `exports`). */
  find(key: string, targets: string[], asBuilt?: boolean): FoundSource;
  /** The modules of a `*` pattern key: one per subpath Node resolves through it to a file that is, or maps to, a source. */
  expandPattern(key: string, targets: string[]): { subpath: string; entry: string }[];
  /** The files a `*` pattern key maps to whose targets are data (JSON, an image): each subpath Node resolves through it, with its target. */
  expandDataPattern(key: string, targets: string[]): { subpath: string; target: string }[];
  /** The first `.css` target that is a file of the package (README "Stylesheet modules"), workspace-relative; null when none is. */
  stylesheet(targets: string[]): string | null;
  /** The tsconfig files whose `outDir`/`rootDir` and `paths` were read, for diagnostics; empty when none. */
  tsconfigs(): string[];
  /** What is wrong with them (JSON, a broken `extends`): the mapping cannot be trusted then. */
  tsconfigProblems(): string[];
}

// What tsc writes for a source file: the output a target names.
const OUTPUT_EXTENSIONS: readonly [RegExp, string][] = [
  [/\.tsx?$/, '.js'],
  [/\.mts$/, '.mjs'],
  [/\.cts$/, '.cjs'],
  [/\.jsx$/, '.js'],
];

/** The entry of `file` (workspace-relative) in its directory's listing, a directory's included; null when it lists none of that name. */
export function listedEntry(list: SourceReader['listDir'], file: string): ListedEntry | null {
  const listing = list(dirOf(file));
  if (!listing) return null;
  const name = file.slice(file.lastIndexOf('/') + 1);
  // A loop, not `find`: every candidate source of every module is looked up here.
  for (const entry of listing.entries) if (entry.name === name) return entry;
  return null;
}

type ListedEntry = NonNullable<ReturnType<SourceReader['listDir']>>['entries'][number];

/**
 * What the listing of `file`'s directory says it is when it is there but no regular file (a
 * directory, a FIFO: in words for a diagnostic), told by the entry's type alone, never an open;
 * null when absent, a file, or a link (README "Files that are not files").
 */
export function listedNotAFile(list: SourceReader['listDir'], file: string): string | null {
  const entry = listedEntry(list, file);
  return entry === null ? null : entry.directory ? 'a directory' : (entry.special ?? null);
}

/** Whether `file` (workspace-relative) is a file its directory lists. */
export function isListedFile(list: SourceReader['listDir'], file: string): boolean {
  const entry = listedEntry(list, file);
  return entry !== null && !entry.directory;
}

// What a finder's parts share: the package, its reader, and its tsconfigs, read once when first asked.
interface FinderContext {
  pkg: PackageManifest;
  dir: string;
  list: SourceReader['listDir'];
  /** A file exists when its directory lists it: the listing's hash changes only when files come and go, so an edit of an entry file does not read the workspace again. */
  exists: (file: string) => boolean;
  tsconfigs: () => PackageTsconfigs;
}

interface PackageTsconfigs {
  /** The tsconfig tsc finds for the package: its own or the nearest above. */
  nearest: LoadedTsconfig | null;
  /** The one `tsc -p` of `scripts.build` names, else the package's `tsconfig.build.json`. */
  build: LoadedTsconfig | null;
}

/**
 * `loaded`: the tsconfig files loaded so far in this read of the workspace, by file. A config and
 * its `extends` chain are the same whichever package finds it (a monorepo's root config is every
 * package's nearest): each is read and parsed once per read, not once per package.
 */
export function createSourceFinder(
  pkg: PackageManifest,
  dir: string,
  read: SourceReader['readText'],
  list: SourceReader['listDir'],
  realPath: (path: string) => string | null = (path) => path,
  loaded: Map<string, LoadedTsconfig> = new Map(),
): SourceFinder {
  let tsconfigs: PackageTsconfigs | undefined;
  const context: FinderContext = { pkg, dir, list, exists: (file) => isListedFile(list, file), tsconfigs: () => (tsconfigs ??= readPackageTsconfigs(pkg, dir, read, list, realPath, loaded)) };
  return {
    find: (key, targets, asBuilt = false) => findSource(context, key, targets, asBuilt),
    expandPattern: (key, targets) => patternModules(context, key, targets),
    expandDataPattern: (key, targets) => patternData(context, key, targets),
    stylesheet: (targets) => existingStylesheet(context, targets),
    tsconfigProblems() {
      const { nearest, build } = context.tsconfigs();
      return [...new Set([build, nearest].flatMap((c) => c?.diagnostics.map((d) => d.message) ?? []))];
    },
    tsconfigs() {
      const { nearest, build } = context.tsconfigs();
      return [...new Set([build?.file, nearest?.file].filter((f): f is string => typeof f === 'string'))];
    },
  };
}

function readPackageTsconfigs(pkg: PackageManifest, dir: string, read: SourceReader['readText'], list: SourceReader['listDir'], realPath: (path: string) => string | null, loaded: Map<string, LoadedTsconfig>): PackageTsconfigs {
  const load = (file: string): LoadedTsconfig => {
    let config = loaded.get(file);
    if (config === undefined) {
      config = loadTsconfig(file, {
        read: (f) => read(f)?.text ?? null,
        resolvePackage: (specifier, from) => {
          const found = resolvePackageFile(specifier, from, (candidate) => isListedFile(list, candidate));
          return found === null ? null : (realPath(found) ?? found);
        },
      });
      loaded.set(file, config);
    }
    return config;
  };
  // Each place is read (absent ones recorded as such), so a tsconfig that appears reads the workspace again.
  const nearestFile = findTsconfig(dir, '.', (file) => read(file) !== null);
  const nearest = nearestFile === null ? null : load(nearestFile);
  const named = pkg.buildTsconfig === null ? null : normalizeRelative(pkg.buildTsconfig);
  // The project the build script names wins, even when it is the nearest one (`tsc -p .`).
  const namedFile = (named !== null && isInside(named) ? [joinRelative(dir, named), joinRelative(dir, `${named}/tsconfig.json`)] : []).find((file) => file.endsWith('.json') && read(file) !== null);
  const buildFile = namedFile ?? [joinRelative(dir, 'tsconfig.build.json')].find((file) => read(file) !== null);
  const build = buildFile === undefined ? null : buildFile === nearestFile ? nearest : load(buildFile);
  return { nearest, build };
}

/** Pairs of (output directory, source directory) a target may be mapped through: outDir and rootDir from the config that builds the package. */
function outputRoots(context: FinderContext): [string, string][] {
  const { nearest, build } = context.tsconfigs();
  const dirs = ([build, nearest].find((c) => c?.dirs.outDir || c?.dirs.declarationDir) ?? build ?? nearest)?.dirs;
  const outDirs = [dirs?.outDir, dirs?.declarationDir].filter((d): d is string => Boolean(d));
  if (outDirs.length === 0) return [];
  // Without rootDir, tsc's common source directory: `src/` if the package has one, else the package.
  const src = joinRelative(context.dir, 'src');
  const rootDir = dirs?.rootDir ?? (context.list(src) !== null ? src : context.dir);
  return outDirs.map((out) => [out, rootDir]);
}

// The source files a target may stand for, in the order tried.
// `asBuilt`: only a source the build writes the target from (a deep import of a package
// without `exports` names what Node resolves in the built package): beside it only when no
// outDir is declared, since tsc then writes nothing beside its sources.
function sourceCandidates(context: FinderContext, target: string, asBuilt: boolean): string[] {
  const relative = normalizeRelative(target);
  if (relative === null || !isInside(relative)) return [];
  const file = joinRelative(context.dir, relative);
  const out: string[] = [];
  // A stylesheet stands for itself: a `*` pattern of sheets publishes each (README "Stylesheet modules").
  if ((SOURCE_FILE.test(file) && !DECLARATION_FILE.test(file)) || file.endsWith('.css')) out.push(file);
  const mapping = MAPPED_OUTPUT.test(file) ? TS_SOURCES.find(([pattern]) => pattern.test(file)) : undefined;
  if (!mapping) return out;
  const [pattern, extensions] = mapping;
  const stem = file.replace(pattern, '');
  const roots = outputRoots(context);
  if (!asBuilt || roots.length === 0) for (const extension of extensions) out.push(`${stem}${extension}`);
  for (const [outDir, sourceDir] of roots) {
    const inside = relativeTo(outDir, stem);
    if (!isInside(inside)) continue;
    for (const extension of extensions) out.push(joinRelative(sourceDir, `${inside}${extension}`));
  }
  // `a.d.js` is no output of `a.d.ts`: a declaration file is never an entry.
  return [...new Set(out)].filter((candidate) => !DECLARATION_FILE.test(candidate));
}

/** The sources tsconfig `paths` gives for the public specifier. */
function pathsCandidates(context: FinderContext, specifier: string): string[] {
  const { nearest, build } = context.tsconfigs();
  const loaded = [nearest, build].find((c) => c?.pathsBase) ?? null;
  if (!loaded) return [];
  const out: string[] = [];
  for (const target of pathsTargets(loaded, specifier)) {
    if (SOURCE_FILE.test(target) && !DECLARATION_FILE.test(target)) out.push(target);
    else out.push(`${target}.ts`, `${target}.tsx`, `${target}/index.ts`, `${target}/index.tsx`);
  }
  return out;
}

function findSource(context: FinderContext, key: string, targets: string[], asBuilt: boolean): FoundSource {
  const looked: string[] = [];
  const specifier = moduleSpecifier(context.pkg.name, key === '.' ? ROOT_SUBPATH : key.slice(2));
  const codeTargets = targets.filter((t) => SOURCE_FILE.test(t) || DECLARATION_FILE.test(t) || !/\.[a-z0-9]+$/i.test(t));
  if (codeTargets.length === 0) return { entry: null, looked: [] };
  for (const file of [...codeTargets.flatMap((target) => sourceCandidates(context, target, asBuilt)), ...pathsCandidates(context, specifier)]) {
    if (looked.includes(file)) continue;
    looked.push(file);
    if (context.exists(file)) return { entry: file, looked };
  }
  return { entry: null, looked };
}

// Every file below a directory, relative to it; node_modules and dot-directories skipped.
function filesBelow(list: SourceReader['listDir'], start: string): string[] {
  const found: string[] = [];
  // A directory linked below itself is walked once (`id`: the same for every path to it); a
  // loop, not recursion, so no depth of the tree a pattern covers can exhaust the stack.
  const visited = new Set<string>();
  const pending: [string, string][] = [[start, '']];
  while (pending.length > 0) {
    const [current, prefix] = pending.pop()!;
    const listing = list(current);
    if (!listing || (listing.id !== undefined && visited.has(listing.id))) continue;
    if (listing.id !== undefined) visited.add(listing.id);
    for (const entry of listing.entries) {
      if (entry.directory) {
        if (!isSkippedDirectory(entry.name)) pending.push([joinRelative(current, entry.name), `${prefix}${entry.name}/`]);
      } else found.push(`${prefix}${entry.name}`);
    }
  }
  return found;
}

// A stylesheet target stands for itself (README "Stylesheet modules"): the first `.css` target
// that is a file of the package, workspace-relative; null when none is.
function existingStylesheet(context: FinderContext, targets: string[]): string | null {
  for (const target of targets) {
    const relative = target.endsWith('.css') ? normalizeRelative(target) : null;
    if (relative !== null && isInside(relative) && context.exists(joinRelative(context.dir, relative))) return joinRelative(context.dir, relative);
  }
  return null;
}

function patternModules(context: FinderContext, key: string, targets: string[]): { subpath: string; entry: string }[] {
  const [keyPrefix, keySuffix] = splitStar(key.slice(2));
  const concrete = (star: string) => targets.filter((t) => t.includes('*')).map((t) => t.split('*').join(star));
  const found: { subpath: string; entry: string }[] = [];
  for (const star of [...patternStars(context, targets)].sort()) {
    const subpath = `${keyPrefix}${star}${keySuffix}`;
    // The key Node picks for this subpath: only that key publishes it.
    if (exportsKeyFor(context.pkg.exports, `./${subpath}`) !== key) continue;
    const codeTargets = concrete(star).filter((t) => SOURCE_FILE.test(t) && !DECLARATION_FILE.test(t));
    const entry = findSource(context, `./${subpath}`, codeTargets, false).entry ?? existingStylesheet(context, concrete(star));
    if (entry !== null) found.push({ subpath, entry });
  }
  return found;
}

function patternData(context: FinderContext, key: string, targets: string[]): { subpath: string; target: string }[] {
  const [keyPrefix, keySuffix] = splitStar(key.slice(2));
  const target = targets.find((t) => t.split('*').length === 2);
  if (target === undefined) return [];
  const found: { subpath: string; target: string }[] = [];
  for (const star of [...patternStars(context, [target])].sort()) {
    const subpath = `${keyPrefix}${star}${keySuffix}`;
    if (exportsKeyFor(context.pkg.exports, `./${subpath}`) === key) found.push({ subpath, target: target.split('*').join(star) });
  }
  return found;
}

/** What the `*` of the targets can stand for: each path, built or still a source, Node would resolve through them. */
function patternStars(context: FinderContext, targets: string[]): Set<string> {
  const { dir, list } = context;
  const stars = new Set<string>();
  for (const target of targets) {
    const relative = normalizeRelative(target.replace(/\*/g, '__core_star__'));
    if (relative === null || !isInside(relative) || target.split('*').length !== 2) continue;
    // The package-relative path before and after `*`: `dist/components/` and `.js`.
    const [before, after] = relative.split('__core_star__') as [string, string];
    const base = dirOf(`${before}x`);
    const take = (outputPath: string) => {
      if (!outputPath.startsWith(before) || !outputPath.endsWith(after) || outputPath.length <= before.length + after.length) return;
      const star = outputPath.slice(before.length, outputPath.length - after.length);
      // Node refuses a `*` standing for `.`, `..` or `node_modules` segments.
      if (star.split('/').some((segment) => segment === '' || segment === '.' || segment === '..' || segment === 'node_modules')) return;
      stars.add(star);
    };
    // Built files, and sources beside their outputs (`a.ts` stands for `a.js`).
    for (const file of filesBelow(list, joinRelative(dir, base))) {
      const path = base === '.' ? file : `${base}/${file}`;
      take(path);
      take(writtenAs(path));
    }
    // Sources of outputs not built yet: the files under rootDir, as tsc would write them under outDir.
    for (const [outDir, sourceDir] of outputRoots(context)) {
      const inside = relativeTo(outDir, joinRelative(dir, base));
      if (!isInside(inside)) continue;
      const packageOut = relativeTo(dir, outDir);
      for (const file of filesBelow(list, joinRelative(sourceDir, inside))) take(joinRelative(packageOut, joinRelative(inside, writtenAs(file))));
    }
  }
  return stars;
}

/** The output tsc writes for a source file (`a.ts` -> `a.js`); any other file as it is. */
function writtenAs(file: string): string {
  const output = OUTPUT_EXTENSIONS.find(([pattern]) => pattern.test(file) && !DECLARATION_FILE.test(file));
  return output ? file.replace(output[0], output[1]) : file;
}

/**
 * The `exports` key Node matches a `./<subpath>` request with: the key itself, else the pattern
 * whose part before `*` is longest (then the longer key), as Node's PATTERN_KEY_COMPARE orders them.
 */
export function exportsKeyFor(exports: Record<string, string[]>, request: string): string | null {
  if (Object.hasOwn(exports, request) && !request.includes('*')) return request;
  let best: string | null = null;
  for (const key of Object.keys(exports)) {
    const star = key.indexOf('*');
    if (star === -1 || key.indexOf('*', star + 1) !== -1) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (request.length < key.length || !request.startsWith(prefix) || !request.endsWith(suffix)) continue;
    if (best === null) best = key;
    else {
      const bestStar = best.indexOf('*');
      if (star > bestStar || (star === bestStar && key.length > best.length)) best = key;
    }
  }
  return best;
}

function splitStar(text: string): [string, string] {
  const star = text.indexOf('*');
  return [text.slice(0, star), text.slice(star + 1)];
}

/** `config/tsconfig.base.json` through node_modules, from `fromDir` up to the workspace root. */
function resolvePackageFile(specifier: string, fromDir: string, exists: (file: string) => boolean): string | null {
  let current = fromDir;
  for (;;) {
    const base = joinRelative(current, `node_modules/${specifier}`);
    for (const file of [base, `${base}.json`, `${base}/tsconfig.json`]) if (exists(file)) return file;
    if (current === '.' || current === '') return null;
    current = dirOf(current);
  }
}
