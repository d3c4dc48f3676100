// Which source file an `exports` target stands for. Real packages point `exports` at build
// output (`./dist/index.js`, `./development/css-tag.js`) that a source checkout does not hold;
// the source is found the way TypeScript maps sources to outputs (README "Exports and sources"):
//   1. the target itself, when it is a source file that exists;
//   2. a `.js`/`.mjs`/`.cjs`/`.d.ts` target beside its source (`index.js` -> `index.ts`);
//   3. a target under the package tsconfig's `outDir` (or `declarationDir`), mapped to `rootDir`
//      (when absent, `src/` if the package has one, else the package: tsc's common source directory);
//   4. when no target maps (a bundler's output such as rollup's `dist/lib.mjs`), the tsconfig
//      `paths` entry for the public specifier (`"@floating-ui/dom": ["../dom/src/index.ts"]`).
// Every file and directory looked at is read through the recording reader, so one that
// appears later reads the workspace again.
import type { SourceReader } from './read-workspace.js';
import type { PackageManifest } from './package-manifest.js';
import { dirOf, isInside, joinRelative, normalizeRelative, relativeTo } from './paths.js';
import { moduleSpecifier, ROOT_SUBPATH } from './specifiers.js';
import { loadTsconfig, pathsTargets, type LoadedTsconfig } from './tsconfig.js';

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

export interface FoundSource {
  /** The entry file, relative to the workspace; null when none was found. */
  entry: string | null;
  /** Every place looked at, for the diagnostic when none is a source. */
  looked: string[];
}

export interface SourceFinder {
  find(key: string, targets: string[]): FoundSource;
  /** The modules of a `*` pattern: one per existing source file it matches. */
  expandPattern(key: string, targets: string[]): { subpath: string; entry: string }[];
}

export function createSourceFinder(pkg: PackageManifest, dir: string, read: SourceReader['readText'], list: SourceReader['listDir'], realPath: (path: string) => string | null = (path) => path): SourceFinder {
  // A file exists when its directory lists it: the listing's hash changes only when files come
  // and go, so an edit of an entry file does not read the workspace again.
  const exists = (file: string) => {
    const name = file.slice(file.lastIndexOf('/') + 1);
    return list(dirOf(file))?.entries.some((entry) => entry.name === name && !entry.directory) ?? false;
  };
  let tsconfig: LoadedTsconfig | null | undefined;
  const config = (): LoadedTsconfig | null => {
    if (tsconfig !== undefined) return tsconfig;
    const file = joinRelative(dir, 'tsconfig.json');
    tsconfig = read(file) === null ? null : loadTsconfig(file, { read: (f) => read(f)?.text ?? null, resolvePackage: (specifier, from) => {
          const file = resolvePackageFile(specifier, from, exists);
          return file === null ? null : (realPath(file) ?? file);
        } });
    return tsconfig;
  };
  const rootDir = (): string => {
    const dirs = config()?.dirs;
    if (dirs?.rootDir) return dirs.rootDir;
    const src = joinRelative(dir, 'src');
    return list(src) !== null ? src : dir;
  };

  // The source files a target may stand for, in the order tried.
  const candidates = (target: string): string[] => {
    const relative = normalizeRelative(target);
    if (relative === null || !isInside(relative)) return [];
    const file = joinRelative(dir, relative);
    const out: string[] = [];
    // A stylesheet stands for itself: a `*` pattern of sheets publishes each (README "Stylesheet modules").
    if ((SOURCE_FILE.test(file) && !DECLARATION_FILE.test(file)) || file.endsWith('.css')) out.push(file);
    const mapping = TS_SOURCES.find(([pattern]) => pattern.test(file));
    if (!mapping) return out;
    const [pattern, extensions] = mapping;
    const stem = file.replace(pattern, '');
    for (const extension of extensions) out.push(`${stem}${extension}`);
    const dirs = config()?.dirs;
    for (const outDir of [dirs?.outDir, dirs?.declarationDir]) {
      if (!outDir) continue;
      const inside = relativeTo(outDir, stem);
      if (!isInside(inside)) continue;
      for (const extension of extensions) out.push(joinRelative(rootDir(), `${inside}${extension}`));
    }
    return [...new Set(out)];
  };

  const fromPaths = (specifier: string): string[] => {
    const loaded = config();
    if (!loaded) return [];
    const out: string[] = [];
    for (const target of pathsTargets(loaded, specifier)) {
      if (SOURCE_FILE.test(target) && !DECLARATION_FILE.test(target)) out.push(target);
      else out.push(`${target}.ts`, `${target}.tsx`, `${target}/index.ts`, `${target}/index.tsx`);
    }
    return out;
  };

  return {
    find(key, targets) {
      const looked: string[] = [];
      const specifier = moduleSpecifier(pkg.name, key === '.' ? ROOT_SUBPATH : key.slice(2));
      const codeTargets = targets.filter((t) => SOURCE_FILE.test(t) || DECLARATION_FILE.test(t) || !/\.[a-z0-9]+$/i.test(t));
      if (codeTargets.length === 0) return { entry: null, looked: [] };
      for (const file of [...codeTargets.flatMap(candidates), ...fromPaths(specifier)]) {
        if (looked.includes(file)) continue;
        looked.push(file);
        if (exists(file)) return { entry: file, looked };
      }
      return { entry: null, looked };
    },
    expandPattern(key, targets) {
      const [keyPrefix, keySuffix] = splitStar(key.slice(2));
      for (const target of targets) {
        if (!target.includes('*')) continue;
        // The directory part of the target before `*`, mapped like a file: `./dist/components/*.js`
        // lists the sources under rootDir/components.
        const [targetPrefix, targetSuffix] = splitStar(target);
        const probe = candidates(`${targetPrefix}__core_star__${targetSuffix}`);
        for (const candidate of probe) {
          const [before, after] = candidate.split('__core_star__') as [string, string];
          const listed = list(dirOf(`${before}x`));
          if (!listed) continue;
          const base = dirOf(`${before}x`);
          const namePrefix = before.slice(base === '.' ? 0 : base.length + 1);
          const found: { subpath: string; entry: string }[] = [];
          for (const entry of listed.entries) {
            if (entry.directory || !entry.name.startsWith(namePrefix) || !entry.name.endsWith(after) || DECLARATION_FILE.test(entry.name)) continue;
            const star = entry.name.slice(namePrefix.length, entry.name.length - after.length);
            if (star === '') continue;
            found.push({ subpath: `${keyPrefix}${star}${keySuffix}`, entry: joinRelative(base, entry.name) });
          }
          if (found.length > 0) return found;
        }
      }
      return [];
    },
  };
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

