// Packages installed in node_modules, found as Node finds them from a directory (node_modules
// of it and of every directory above), and the entry file of one of their subpaths, as a
// browser build resolves it: `exports` with the conditions browser, import, module, default;
// else `module`, a string `browser`, `main`, `index.js` (README "The local CDN").
import fs from 'node:fs';
import path from 'node:path';
import { MAX_MANIFEST_DEPTH } from '../workspace/json.js';

export interface InstalledPackage {
  name: string;
  version: string;
  /** The package's directory, absolute (links resolved). */
  dir: string;
  manifest: Record<string, unknown>;
}

const CONDITIONS = ['browser', 'import', 'module', 'default'];

/** The copy of `name` that `fromDir` would load, or null. */
export function findInstalled(name: string, fromDir: string): InstalledPackage | null {
  let dir = path.resolve(fromDir);
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(candidate, 'package.json'), 'utf8')) as Record<string, unknown>;
      if (typeof manifest.version === 'string') return { name, version: manifest.version, dir: fs.realpathSync(candidate), manifest };
    } catch {
      // not installed here: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The version of `name` that `fromDir` would load, or null. */
export const installedVersion = (name: string, fromDir: string): string | null => findInstalled(name, fromDir)?.version ?? null;

/** The file a subpath (`''` for the root) of an installed package stands for, absolute; null when it exports none. */
export function entryOf(pkg: InstalledPackage, subpath: string): string | null {
  const exports = pkg.manifest.exports;
  const key = subpath === '' ? '.' : `./${subpath}`;
  if (exports !== undefined && exports !== null) {
    const keyed = typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'));
    const table = keyed ? (exports as Record<string, unknown>) : { '.': exports };
    let target: string | null = null;
    if (key in table) target = pick(table[key]);
    else {
      for (const [pattern, value] of Object.entries(table)) {
        const star = pattern.indexOf('*');
        if (star === -1) continue;
        const [before, after] = [pattern.slice(0, star), pattern.slice(star + 1)];
        if (key.startsWith(before) && key.endsWith(after) && key.length >= pattern.length - 1) {
          const chosen = pick(value);
          target = chosen === null ? null : chosen.replace('*', key.slice(before.length, key.length - after.length));
          break;
        }
      }
    }
    return target === null ? null : existing(path.join(pkg.dir, target));
  }
  if (subpath !== '') return existing(path.join(pkg.dir, subpath)) ?? existing(`${path.join(pkg.dir, subpath)}.js`);
  for (const field of ['module', 'browser', 'main']) {
    const value = pkg.manifest[field];
    if (typeof value === 'string') {
      const found = existing(path.join(pkg.dir, value)) ?? existing(`${path.join(pkg.dir, value)}.js`) ?? existing(path.join(pkg.dir, value, 'index.js'));
      if (found) return found;
    }
  }
  return existing(path.join(pkg.dir, 'index.js'));
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
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** The export names of a CommonJS module, as Node sees them when it loads it (a package's own code). */
export function commonJsExportNames(file: string, load: (file: string) => unknown): string[] {
  try {
    const value = load(file);
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return [];
    return Object.keys(value).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default');
  } catch {
    return []; // code that needs a browser to load: its default export only
  }
}
