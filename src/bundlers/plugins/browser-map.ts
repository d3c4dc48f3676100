// A package.json's `browser` field mapping a bare name to `false` (`{"fs": false}`: the browser
// needs no such module; README "Bundling real code", "The local CDN"). esbuild applies a map of a
// bare name to another name or a file itself, but every build of the service keeps bare imports
// external (`packages: 'external'`), which esbuild decides before it looks for `false`: the name
// stayed in the code, a Node built-in the page cannot load. So a bare import of a name some
// package.json maps to `false` is looked up here by esbuild's own rule, the nearest package.json
// above the importer that has a `browser` object deciding, and made an empty module as esbuild,
// Vite and esm.sh make it. A name no package.json maps costs nothing: the filter names exactly
// the mapped names, and with none the plugin is absent.
import path from 'node:path';
import fs from 'node:fs';
import type * as esbuild from 'esbuild';
import { escapeRegExp } from '../filters.js';
import { readRegularFile } from '../../regular-files.js';

export const BROWSER_MAP = 'core-browser-map';
/** The namespace of a module a `browser` field maps to `false`: esbuild's metafile names it `browser-disabled:<name>`. */
export const BROWSER_DISABLED = 'browser-disabled';

/**
 * The plugin making `names` empty modules where the `browser` field of the importer's nearest package.json
 * that has one, looked for from the importer's folder up to `topDir` (absolute: the package of an
 * installed bundle, the workspace root) maps them to `false`, each package.json read only when its
 * real path lies inside `topDir`'s real path; null when `names` is empty.
 */
export function browserMapPlugin(names: readonly string[], topDir: string): esbuild.Plugin | null {
  if (names.length === 0) return null;
  const filter = new RegExp(`^(?:${names.map(escapeRegExp).join('|')})$`);
  let realTop: string;
  try {
    realTop = fs.realpathSync(topDir);
  } catch {
    realTop = topDir;
  }
  const inside = (dir: string, top: string) => dir === top || dir.startsWith(top + path.sep);
  return {
    name: BROWSER_MAP,
    setup(build) {
      // Per build: a kept context's next build reads each package.json again, an edit of its field included.
      const maps = new Map<string, Record<string, unknown> | null>();
      build.onStart(() => {
        maps.clear();
      });
      const browserMapAt = (file: string): Record<string, unknown> | null => {
        if (maps.has(file)) return maps.get(file)!;
        let map: Record<string, unknown> | null = null;
        try {
          const real = fs.realpathSync(file);
          if (inside(real, realTop)) {
            const browser = (JSON.parse(readRegularFile(real).bytes.toString('utf8')) as { browser?: unknown }).browser;
            if (browser !== null && typeof browser === 'object' && !Array.isArray(browser)) map = browser as Record<string, unknown>;
          }
        } catch {
          // Absent, unreadable, no regular file or no JSON: esbuild's own resolution says what is wrong with it.
        }
        maps.set(file, map);
        return map;
      };
      const nearestMap = (fromDir: string): { map: Record<string, unknown>; dir: string } | null => {
        for (let dir = fromDir; inside(dir, topDir); dir = path.dirname(dir)) {
          const map = browserMapAt(path.join(dir, 'package.json'));
          if (map) return { map, dir };
          if (dir === topDir) break;
        }
        return null;
      };
      build.onResolve({ filter }, (args) => {
        if (!args.resolveDir) return undefined;
        return nearestMap(args.resolveDir)?.map[args.path] === false ? { path: args.path, namespace: BROWSER_DISABLED } : undefined;
      });
      // esbuild's own module for a name mapped to `false`: empty, so `require()` gives `{}` and
      // `import * as` an empty namespace.
      build.onLoad({ filter: /.*/, namespace: BROWSER_DISABLED }, () => ({ contents: '', loader: 'js' }));
    },
  };
}
