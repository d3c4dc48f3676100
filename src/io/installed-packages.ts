// Packages installed in node_modules, found as Node finds them from a directory (node_modules
// of it and of every directory above), and the entry file of one of their subpaths, as a
// browser build resolves it: `exports` with the conditions browser, import, module, default;
// else `module`, a string `browser`, `main`, `index.js`, which an object `browser` may map to
// another file (README "The local CDN").
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../regular-files.js';
import { initSync, parse } from 'cjs-module-lexer';
import { isPackageName } from '../workspace/package-name.js';
import { MAX_MANIFEST_DEPTH } from '../workspace/json.js';

export interface InstalledPackage {
  name: string;
  version: string;
  /** The package's directory, absolute (links resolved). */
  dir: string;
  manifest: Record<string, unknown>;
  /** The stat of the package.json read, taken before reading it: another copy installed there (`npm install`) changes it. */
  manifestStamp: string;
}

const CONDITIONS = ['browser', 'import', 'module', 'default'];

/**
 * The copy of `name` that `fromDir` would load, or null. The name is judged by npm's rules
 * first, so it never climbs out of `node_modules`; the copy found must really be a
 * `node_modules/<name>` directory (pnpm's store is one), and a link from there to anywhere
 * else is not an installed package: that copy is refused, not one further up. Links are
 * `'followed'` only where no file of the package is read but its manifest.
 */
export function findInstalled(name: string, fromDir: string, links: 'refused' | 'followed' = 'refused'): InstalledPackage | null {
  if (!isPackageName(name)) return null;
  const installedTail = path.join(path.sep, 'node_modules', name);
  let dir = path.resolve(fromDir);
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    let real: string | null = null;
    try {
      real = fs.realpathSync(candidate);
    } catch {
      // not installed here: look further up
    }
    if (real !== null) {
      if (links === 'refused' && !real.endsWith(installedTail)) return null;
      const manifestFile = links === 'refused' ? realFileInside(real, path.join(real, 'package.json')) : path.join(real, 'package.json');
      try {
        const manifestStamp = manifestFile ? stampOf(manifestFile) : null;
        // Never waits on a FIFO (README "Files that are not files").
        const manifest = manifestFile ? (JSON.parse(readRegularFile(manifestFile).bytes.toString('utf8')) as Record<string, unknown>) : null;
        if (manifest && manifestStamp && typeof manifest.version === 'string') return { name, version: manifest.version, dir: real, manifest, manifestStamp };
      } catch {
        // no readable manifest: not an installed package, look further up
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** A file's identity and times, or null when absent: what a copy installed over it changes. */
function stampOf(file: string): string | null {
  const stats = fs.statSync(file, { throwIfNoEntry: false, bigint: true });
  return stats ? `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : null;
}

/** Whether the copy found is still the one installed there: its package.json has the stat it was read with. */
export const stillInstalled = (pkg: InstalledPackage): boolean => stampOf(path.join(pkg.dir, 'package.json')) === pkg.manifestStamp;

/** `file`'s real path when it is a file whose real path lies inside `dir` (itself a real path), else null. */
export function realFileInside(dir: string, file: string): string | null {
  try {
    const real = fs.realpathSync(file);
    return real.startsWith(`${dir}${path.sep}`) && fs.statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/**
 * The version of `name` that `fromDir` would load, or null: a number for an import map, so a
 * linked copy (`npm link`) has one too, though the local CDN serves none of its files.
 */
export const installedVersion = (name: string, fromDir: string): string | null => findInstalled(name, fromDir, 'followed')?.version ?? null;

/**
 * What an import map knows of an installed copy: its version; or that it is a link left under a
 * former name, with the directory of the workspace package it leads to as the workspace names
 * it (null when it leads to none).
 */
export type InstalledCopy = { version: string } | { formerNameLinkTo: string | null };

/**
 * The copy of `name` that `fromDir` would load, for an import map (links followed, as
 * `installedVersion`). A link in node_modules (one whose real directory is no
 * `node_modules/<name>`) to a package whose package.json gives another name is no install of
 * `name`: npm links a package under the name it has, so that name changed since (a workspace
 * package renamed leaves npm's link of its old name; README "Workspaces"). A copy npm installed
 * under an alias (`"old": "npm:new@1"`) is a real `node_modules/old` directory: an install.
 */
export function installedCopy(name: string, fromDir: string, workspace: { root: string; packageDirs: readonly string[] }): InstalledCopy | null {
  const found = findInstalled(name, fromDir, 'followed');
  if (!found) return null;
  const linked = !found.dir.endsWith(path.join(path.sep, 'node_modules', name));
  if (!linked || typeof found.manifest.name !== 'string' || found.manifest.name === name) return { version: found.version };
  const packageDir = workspace.packageDirs.find((dir) => realPathOrNull(path.resolve(workspace.root, dir)) === found.dir);
  return { formerNameLinkTo: packageDir ?? null };
}

/**
 * The workspace package directory (of `workspace.packageDirs`) that the `node_modules/<name>`
 * `fromDir` would load leads to by a link, or null: a real install there, no such entry, or a
 * link elsewhere. Only paths are resolved, no file is read (the local CDN reads nothing outside an
 * installed package, README "The local CDN"): the caller knows that package's name from its model.
 */
export function linkedWorkspacePackage(name: string, fromDir: string, workspace: { root: string; packageDirs: readonly string[] }): string | null {
  if (!isPackageName(name)) return null;
  const installedTail = path.join(path.sep, 'node_modules', name);
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    const real = realPathOrNull(path.join(dir, 'node_modules', name));
    if (real !== null) return real.endsWith(installedTail) ? null : (workspace.packageDirs.find((packageDir) => realPathOrNull(path.resolve(workspace.root, packageDir)) === real) ?? null);
    if (path.dirname(dir) === dir) return null;
  }
}

function realPathOrNull(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}

/**
 * The file a subpath (`''` for the root) of an installed package stands for, its real path;
 * null when it exports none. It may lie outside the package (an `exports` target of `../x`, a
 * link): the bundle refuses it then, with its reason (`bundleInstalled`).
 */
export function entryOf(pkg: InstalledPackage, subpath: string): string | null {
  const exports = pkg.manifest.exports;
  const key = subpath === '' ? '.' : `./${subpath}`;
  if (exports !== undefined && exports !== null) {
    const keyed = typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'));
    const table = keyed ? (exports as Record<string, unknown>) : { '.': exports };
    let target: string | null = null;
    if (key in table) target = pick(table[key]);
    else {
      const pattern = matchingPattern(Object.keys(table), key);
      if (pattern !== null) {
        const chosen = pick(table[pattern.key]);
        target = chosen === null ? null : chosen.replace('*', pattern.match);
      }
    }
    return target === null ? null : existing(path.join(pkg.dir, target));
  }
  if (subpath !== '') return browserMapped(pkg, existing(path.join(pkg.dir, subpath)) ?? existing(`${path.join(pkg.dir, subpath)}.js`));
  // esbuild's order for the browser platform (and webpack's): a `browser` string names the build
  // for browsers where `module` may be a Node one (node-fetch 2: `module` imports `http`).
  for (const field of ['browser', 'module', 'main']) {
    const value = pkg.manifest[field];
    if (typeof value === 'string') {
      const found = existing(path.join(pkg.dir, value)) ?? existing(`${path.join(pkg.dir, value)}.js`) ?? existing(path.join(pkg.dir, value, 'index.js'));
      if (found) return browserMapped(pkg, found);
    }
  }
  return browserMapped(pkg, existing(path.join(pkg.dir, 'index.js')));
}

// The pattern key of `exports` that decides `key`, as Node picks it: of those matching, the one
// with the longest part before `*`, then the longest (`./directives/private/*` before
// `./directives/*`, whatever their order), with what its `*` stands for.
function matchingPattern(keys: readonly string[], key: string): { key: string; match: string } | null {
  let best: { key: string; match: string; before: number } | null = null;
  for (const pattern of keys) {
    const star = pattern.indexOf('*');
    if (star === -1) continue;
    const [before, after] = [pattern.slice(0, star), pattern.slice(star + 1)];
    if (!(key.startsWith(before) && key.endsWith(after) && key.length >= pattern.length - 1)) continue;
    if (best && (star < best.before || (star === best.before && pattern.length <= best.key.length))) continue;
    best = { key: pattern, match: key.slice(before.length, key.length - after.length), before: star };
  }
  return best && { key: best.key, match: best.match };
}

/**
 * The subpath (`''` for the root) of the export whose entry `file` (a real path) is, by
 * `entryOf`; null when it is none or lies outside the package. Of exports sharing one entry, the
 * first the manifest lists. A file a pattern export (`./*`, `./directives/*.js`) matches is the
 * entry of the subpath the pattern gives it. Without `exports`, only the root's entry counts: any
 * other file is some subpath's, and would be no bundle's own (README "The local CDN").
 */
export function exportedAs(pkg: InstalledPackage, file: string): string | null {
  if (!file.startsWith(`${pkg.dir}${path.sep}`)) return null;
  const exports = pkg.manifest.exports;
  const keyed = exports !== null && typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'));
  const keys = exports === undefined || exports === null || !keyed ? ['.'] : Object.keys(exports as Record<string, unknown>).filter((key) => key.startsWith('.'));
  const relative = `./${path.relative(pkg.dir, file).split(path.sep).join('/')}`;
  for (const key of keys) {
    const star = key.indexOf('*');
    const subpath = star === -1 ? key : patternSubpath(key, pick((exports as Record<string, unknown>)[key]), relative);
    if (subpath === null) continue;
    const named = subpath === '.' ? '' : subpath.slice(2);
    if (entryOf(pkg, named) === file) return named;
  }
  return null;
}

// The subpath a pattern export (`./lib/*` -> `./dist/*.js`) gives the file at `relative`, when
// its target matches it; null otherwise. `entryOf` then confirms it (a more specific key wins).
function patternSubpath(key: string, target: string | null, relative: string): string | null {
  const star = target?.indexOf('*') ?? -1;
  if (target === null || star === -1) return null;
  const [before, after] = [target.slice(0, star), target.slice(star + 1)];
  if (!(relative.startsWith(before) && relative.endsWith(after) && relative.length >= target.length - 1)) return null;
  return key.replace('*', relative.slice(before.length, relative.length - after.length));
}

// What the package's `browser` object maps its entry file to (`{"./index.js": "./browser.js"}`),
// as esbuild maps a file it resolves itself (README "The local CDN"): a key names the file as
// written, or without its extension or `/index.js`. The local CDN names the entry to esbuild by
// its path, which esbuild maps no more. A file mapped to `false`, or to no file, stays itself.
function browserMapped(pkg: InstalledPackage, file: string | null): string | null {
  const browser = pkg.manifest.browser;
  if (file === null || browser === null || typeof browser !== 'object' || Array.isArray(browser)) return file;
  const relative = path.relative(pkg.dir, file).split(path.sep).join('/');
  for (const [key, target] of Object.entries(browser as Record<string, unknown>)) {
    if (typeof target !== 'string' || !(key.startsWith('./') || key.startsWith('../'))) continue;
    const named = path.posix.normalize(key);
    if (named !== relative && `${named}.js` !== relative && `${named}/index.js` !== relative) continue;
    const mapped = path.join(pkg.dir, target);
    return existing(mapped) ?? existing(`${mapped}.js`) ?? existing(path.join(mapped, 'index.js')) ?? file;
  }
  return file;
}

// An installed package's manifest is never judged: its nesting is bounded here, as a deeper one would overflow the stack.
function pick(target: unknown, depth = 0): string | null {
  if (typeof target === 'string') return target;
  if (depth >= MAX_MANIFEST_DEPTH) return null;
  if (Array.isArray(target)) {
    for (const item of target) {
      const chosen = pick(item, depth + 1);
      if (chosen !== null) return chosen;
    }
    return null;
  }
  if (target && typeof target === 'object') {
    for (const condition of CONDITIONS) if (condition in target) return pick((target as Record<string, unknown>)[condition], depth + 1);
  }
  return null;
}

function existing(file: string): string | null {
  try {
    return fs.statSync(file).isFile() ? fs.realpathSync(file) : null;
  } catch {
    return null;
  }
}

/**
 * The export names of a CommonJS file of an installed package, found as Node finds them for an
 * `import` of it, by reading its source with Node's own lexer (`cjs-module-lexer`), never by
 * running it (README "The local CDN"). Its re-exports (`module.exports = require('./x')`) are
 * followed to the package's own files only: `packageDir` (a real path) confines every read.
 */
export function commonJsExportNames(file: string, packageDir: string): string[] {
  initSync();
  const names = new Set<string>();
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length > 0 && seen.size < MAX_REEXPORTED_FILES) {
    const next = realFileInside(packageDir, queue.shift()!);
    if (next === null || seen.has(next)) continue;
    seen.add(next);
    let found: ReturnType<typeof parse>;
    try {
      // Never waits on a FIFO (README "Files that are not files"); not a regular file: a default export only.
      found = parse(readRegularFile(next).bytes.toString('utf8'), next);
    } catch {
      continue; // not CommonJS the lexer reads: its default export only
    }
    for (const name of found.exports) if (/^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default' && name !== '__esModule') names.add(name);
    for (const specifier of found.reexports) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue; // another package's names are its own
      const target = requiredFile(path.resolve(path.dirname(next), specifier), packageDir);
      if (target) queue.push(target);
    }
  }
  return [...names].sort();
}

// A chain of re-exports longer than this is not a package's layout but a loop or an attack.
const MAX_REEXPORTED_FILES = 64;

/** The file `require()` of a relative path loads, when it lies inside the package: the path, with `.js` or `.cjs`, or its directory's `index.js`. */
function requiredFile(resolved: string, packageDir: string): string | null {
  for (const candidate of [resolved, `${resolved}.js`, `${resolved}.cjs`, path.join(resolved, 'index.js')]) {
    const found = realFileInside(packageDir, candidate);
    if (found) return found;
  }
  return null;
}

/** How deep a nested copy is looked for (`node_modules/a/node_modules/b/node_modules/<name>` is 3), and how many directories are listed at most: an install's layout, not a walk of the disk. */
const NESTED_DEPTH = 4;
const NESTED_LISTINGS = 4000;

/**
 * A copy of `name` at exactly `version` installed below one of `trees` (each a directory holding
 * a `node_modules`), where no directory's own look-up finds it: nested by npm in another
 * package's `node_modules` (a version conflicting with the one above), or in pnpm's
 * `node_modules/.pnpm/<name>@<version>/node_modules/<name>`. As `findInstalled` with links
 * refused: the copy is a real `node_modules/<name>` directory; a link is no install, and no
 * link is followed while looking.
 */
export function findNestedInstalled(name: string, version: string, trees: readonly string[]): InstalledPackage | null {
  if (!isPackageName(name)) return null;
  const pending = trees.flatMap((dir) => {
    const real = realPathOrNull(path.join(dir, 'node_modules'));
    return real === null ? [] : [{ dir: real, depth: 1, tree: real }];
  });
  // Only a copy whose real directory lies in the tree it was found in: nothing a link leads to elsewhere.
  const inside = (found: InstalledPackage | null, tree: string) => (found && found.dir.startsWith(`${tree}${path.sep}`) ? found : null);
  let listings = 0;
  while (pending.length > 0 && listings < NESTED_LISTINGS) {
    const { dir, depth, tree } = pending.shift()!;
    listings += 1;
    const pnpm = inside(pnpmCopy(name, version, dir), tree);
    if (pnpm) return pnpm;
    for (const packageDir of packageDirsIn(dir)) {
      const found = inside(copyAt(name, version, packageDir), tree);
      if (found) return found;
      if (depth < NESTED_DEPTH) pending.push({ dir: path.join(packageDir, 'node_modules'), depth: depth + 1, tree });
    }
  }
  return null;
}

/** The copy at `<parent>/node_modules/<name>` itself, when it is a real install of that version. */
function copyAt(name: string, version: string, parent: string): InstalledPackage | null {
  const candidate = realPathOrNull(path.join(parent, 'node_modules', name));
  if (candidate === null) return null;
  const found = findInstalled(name, parent);
  return found && found.dir === candidate && found.version === version ? found : null;
}

// pnpm's store of this install: `.pnpm/<name, its / as +>@<version>[_<peers>]/node_modules/<name>`.
function pnpmCopy(name: string, version: string, nodeModules: string): InstalledPackage | null {
  const prefix = `${name.replace('/', '+')}@${version}`;
  for (const entry of listing(path.join(nodeModules, '.pnpm'))) {
    if (!entry.isDirectory() || !(entry.name === prefix || entry.name.startsWith(`${prefix}_`))) continue;
    const found = copyAt(name, version, path.join(nodeModules, '.pnpm', entry.name));
    if (found) return found;
  }
  return null;
}

/** The package directories in a `node_modules` (`<name>`, `@scope/<name>`), real directories only: no link is followed. */
function packageDirsIn(nodeModules: string): string[] {
  const dirs: string[] = [];
  for (const entry of listing(nodeModules)) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dir = path.join(nodeModules, entry.name);
    if (!entry.name.startsWith('@')) dirs.push(dir);
    else for (const scoped of listing(dir)) if (scoped.isDirectory()) dirs.push(path.join(dir, scoped.name));
  }
  return dirs;
}

function listing(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
