// The reads behind file hashes: a file's bytes or a directory's listing, hashed, and
// remembered with the stat they were read under (`src/io/file-memory.ts`).
import fs from 'node:fs';
import { contentHash } from '../outputs/content-hash.js';
import { isNotRegularFile, listedNonRegularKind, readRegularFile } from '../regular-files.js';
import type { ConfinedPaths } from './confined-paths.js';
import type { FileMemory } from './file-memory.js';

export interface ReadFile {
  text: string;
  hash: string;
  bytes: Buffer;
  stats: fs.Stats;
}

export interface Listing {
  entries: ListedEntry[];
  hash: string;
  id: string;
}

/**
 * A name of a listing; `special`: what it is when its type says it is no regular file (a FIFO...);
 * `link`: the entry is a symbolic link (its type in the listing), whatever it leads to.
 */
export interface ListedEntry {
  name: string;
  directory: boolean;
  special?: string;
  link?: true;
}

/**
 * A listing's entry as its hash holds it: a directory's name ends in `/`, a special file's in a
 * NUL (no name holds one), a link's to anything but a directory in a NUL and `>`, so a FIFO
 * replaced by a file of its name changes the hash, and so does a file replaced by a link, which
 * may lead to what is not served (README "Files that are not files"); a listing with none of
 * them hashes as it always did.
 */
export const listedName = (entry: ListedEntry): string => (entry.directory ? `${entry.name}/` : entry.special !== undefined ? `${entry.name}\0` : entry.link ? `${entry.name}\0>` : entry.name);

/** What a path leads to, whatever the path: its device and inode. */
export const entryIdentity = (stats: fs.Stats): string => `${stats.dev}:${stats.ino}`;

export interface FileReads {
  /** `stats`: taken by the caller just before, not asked again. */
  readFile(relative: string, stats?: fs.Stats): ReadFile | null;
  listDir(relative: string, stats?: fs.Stats): Listing | null;
}

/** What `readConfinedFile` found instead of a file's bytes. */
export type UnreadFile = 'not-a-file' | 'outside' | 'unreadable';

/**
 * The one gate of every file read: a file (not gone, not a directory) whose path does not lead
 * out of the workspace through a link, its bytes and their hash. Remembers nothing: a code frame
 * (src/io/source-frames.ts) reads through it too. `stats`: taken by the caller just before.
 */
export function readConfinedFile(paths: ConfinedPaths, relative: string, stats = paths.statOf(relative)): { bytes: Buffer; hash: string; stats: fs.Stats } | UnreadFile {
  if (!stats || !stats.isFile()) return 'not-a-file';
  if (paths.leaves(relative)) return 'outside';
  let read: { bytes: Buffer; stats: fs.Stats };
  try {
    // The stat above may be older than the open: what the open meets is asked again, without
    // ever waiting on a FIFO put there since (README "Files that are not files").
    read = readRegularFile(paths.absolute(relative));
  } catch (error) {
    return isNotRegularFile(error) ? 'not-a-file' : 'unreadable';
  }
  return { bytes: read.bytes, hash: contentHash(read.bytes), stats };
}

/** `observe`: told the stats of every read (the granularity of their file system). */
export function createFileReads(paths: ConfinedPaths, memory: FileMemory, now: () => number, observe: (stats: fs.Stats) => void): FileReads {
  function readFile(relative: string, stats = paths.statOf(relative)): ReadFile | null {
    // Taken before the read begins: a write after it is seen as racy, never missed.
    const at = now();
    const read = readConfinedFile(paths, relative, stats);
    if (read === 'unreadable') return null;
    if (typeof read === 'string') {
      memory.forget(relative);
      return null;
    }
    const { bytes, hash } = read;
    observe(read.stats);
    memory.remember(relative, read.stats, hash, at, bytes);
    // Decoded on demand: a stamp wants the hash only.
    return {
      get text() {
        return bytes.toString('utf8');
      },
      hash,
      bytes,
      stats: read.stats,
    };
  }

  function listDir(relative: string, stats?: fs.Stats): Listing | null {
    const dir = relative.replace(/\/+$/, '') || '.';
    stats ??= paths.statOf(dir);
    if (!stats || !stats.isDirectory() || paths.leaves(dir)) {
      memory.forget(`${dir}/`);
      return null;
    }
    const at = now();
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(paths.absolute(dir), { withFileTypes: true });
    } catch {
      return null;
    }
    const entries = dirents
      .map((entry): ListedEntry => {
        const special = listedNonRegularKind(entry);
        if (special !== null) return { name: entry.name, directory: false, special };
        if (!entry.isSymbolicLink()) return { name: entry.name, directory: entry.isDirectory() };
        return { name: entry.name, directory: isDirectoryInside(dir === '.' ? entry.name : `${dir}/${entry.name}`), link: true };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const hash = contentHash(entries.map(listedName).join('\n'));
    observe(stats);
    memory.remember(`${dir}/`, stats, hash, at);
    // The directory itself, whatever path leads to it: a search visits it once (a link loop ends).
    return { entries, hash, id: entryIdentity(stats) };
  }

  function isDirectoryInside(relative: string): boolean {
    return paths.statOf(relative)?.isDirectory() === true && !paths.leaves(relative);
  }

  return { readFile, listDir };
}
