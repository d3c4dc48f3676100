// What of the build cache's directory is the cache's own (README "The build cache", "Clearing"):
// the names services write there, and nothing else. `CORE_CACHE_DIR` may name any folder (by a
// slip `.`, a package, $HOME), so what removes the cache (`core cache --clear`, the caches of
// removed workspaces) removes those names only, never follows a link, and says what it left.
import fs from 'node:fs';
import path from 'node:path';
import { nonRegularKind } from '../../regular-files.js';
import { isOwnPagesName } from '../joined-pages.js';
import { INDEX, OUTPUTS, PAGES } from './cache-files.js';
import { isOwnOutputsName } from './output-packs.js';
import { TEMPORARY_SUFFIX } from './write-atomically.js';

const isOwnIndexName = (name: string) => name === INDEX || (TEMPORARY_SUFFIX.test(name) && name.replace(TEMPORARY_SUFFIX, '') === INDEX);

/** The cache's own folders, and the names of each a service writes. */
const OWN_FOLDERS: ReadonlyMap<string, (name: string) => boolean> = new Map([
  [OUTPUTS, isOwnOutputsName],
  [PAGES, isOwnPagesName],
]);

/** No directory where the cache should be; `notDirectory`: `CORE_CACHE_DIR` names a file, a FIFO, ...: what it is. */
export type NoCacheDirectory = { missing: true } | { notDirectory: string };

/** The cache's directory as found: its own files apart from everything else in it. */
export type CacheDirectory =
  | NoCacheDirectory
  | {
      /** The cache's own entries, relative to its directory; none is a folder but an empty one at the index's name. */
      own: { name: string; size: number; folder: boolean }[];
      /** Everything else, relative to its directory: never removed. */
      foreign: string[];
    };

export function listCacheDirectory(dir: string): CacheDirectory {
  let stats: fs.Stats | undefined;
  try {
    stats = fs.statSync(dir, { throwIfNoEntry: false });
  } catch (error) {
    // A file on the way (`CORE_CACHE_DIR=notes.txt/cache`): no directory either.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return { notDirectory: 'under a file' };
    throw error;
  }
  if (!stats) return { missing: true };
  if (!stats.isDirectory()) return { notDirectory: nonRegularKind(stats) ?? 'a regular file' };
  const own: { name: string; size: number; folder: boolean }[] = [];
  const foreign: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const { name } = entry;
    const file = path.join(dir, name);
    const ownNames = OWN_FOLDERS.get(name);
    if (ownNames && entry.isDirectory()) {
      for (const inner of fs.readdirSync(file, { withFileTypes: true })) {
        const relative = `${name}/${inner.name}`;
        // A folder is never written inside these: whatever it holds is someone else's.
        if (ownNames(inner.name) && !inner.isDirectory()) own.push({ name: relative, size: sizeOf(path.join(file, inner.name)), folder: false });
        else foreign.push(relative);
      }
    } else if (ownNames || isOwnIndexName(name)) {
      // At one of the cache's names, anything but a folder is the cache's or its damage (a link
      // goes, its target never does); a folder at the index's name only when it holds nothing.
      if (!entry.isDirectory()) own.push({ name, size: sizeOf(file), folder: false });
      else if (fs.readdirSync(file).length === 0) own.push({ name, size: 0, folder: true });
      else foreign.push(name);
    } else foreign.push(name);
  }
  return { own, foreign };
}

/** `core cache --clear`: the cache's own files removed; a folder left empty by that goes too. */
export function clearCacheDirectory(dir: string): NoCacheDirectory | { removed: number; bytes: number; left: string[]; dirRemoved: boolean } {
  const found = listCacheDirectory(dir);
  if (!('own' in found)) return found;
  let removed = 0;
  let bytes = 0;
  const left = [...found.foreign];
  for (const { name, size, folder } of found.own) {
    try {
      // Never recursive: a file (or a link, a FIFO) is unlinked, an empty folder removed.
      if (folder) fs.rmdirSync(path.join(dir, name));
      else fs.rmSync(path.join(dir, name), { force: true });
      removed += 1;
      bytes += size;
    } catch {
      left.push(name);
    }
  }
  for (const folder of [...OWN_FOLDERS.keys(), '']) removeIfEmpty(path.join(dir, folder));
  return { removed, bytes, left, dirRemoved: !fs.existsSync(dir) };
}

function removeIfEmpty(folder: string): void {
  try {
    fs.rmdirSync(folder);
  } catch {
    // not empty (another's files, or a service writing now), not a folder, or gone: it stays
  }
}

function sizeOf(file: string): number {
  return fs.lstatSync(file, { throwIfNoEntry: false })?.size ?? 0;
}
