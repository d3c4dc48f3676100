// Reads taken ahead, in parallel on libuv's thread pool, for a start's many reads (the
// workspace's manifests and listings, the inputs of the builds a cache offers): the stat, the
// real path and the bytes or listing of each path, kept until the synchronous read that wants
// them takes them (ARCHITECTURE.md "Reads taken ahead"). A read taken ahead is the one a
// synchronous read would have made at the moment it began: it carries that moment (`at`) and the
// watch count then, and is given only while no watcher notice came since, and only once.
import fs from 'node:fs';
import path from 'node:path';
import { isPlainRelative, type ConfinedPaths } from './confined-paths.js';
import { runLimited } from './run-limited.js';

export interface ReadAhead {
  /** The clock before the stat: what the read remembers as the moment it was made. */
  at: number;
  /** Undefined: absent or unreachable. */
  stats: fs.Stats | undefined;
  /** Does the path lead out of the workspace through a link (nothing more was read then)? */
  leaves: boolean;
  /** A file's bytes; undefined when it was not a file or could not be read. */
  bytes?: Buffer;
  /** A directory's entries; undefined when it was not a directory or could not be listed. */
  dirents?: fs.Dirent[];
}

export interface FilePrefetch {
  /**
   * Reads `relatives` ahead (a trailing `/`: a directory's listing); at most `limit` at once. A
   * path that is not plain (`..`, a leading `/`) is not read ahead: its synchronous read decides.
   */
  prefetch(relatives: readonly string[], limit?: number): Promise<void>;
  /** The read taken ahead of `relative`, once, while no watcher notice came since it began. */
  take(relative: string): ReadAhead | undefined;
  /** The read taken ahead of `relative`, left for `take`: for a dry run finding what to read next. */
  peek(relative: string): ReadAhead | undefined;
  /** Drops every read not taken, and those still in flight: after the start's reads, nothing is given from before. */
  clear(): void;
}

/** The name a directory's listing is kept under (`dir/`, `./` for the root). */
export const listingName = (relative: string): string => `${relative.replace(/\/+$/, '') || '.'}/`;

/** Reads in flight: enough to keep libuv's four threads busy while the main thread hashes. */
export const PREFETCH_LIMIT = 16;

export function createFilePrefetch(paths: ConfinedPaths, root: string, now: () => number, watchCount: () => number): FilePrefetch {
  const ahead = new Map<string, ReadAhead & { seq: number }>();
  let generation = 0;
  let realRoot: Promise<string | null> | null = null;

  async function readAhead(relative: string): Promise<void> {
    const isDir = relative.endsWith('/');
    const name = isDir ? relative.slice(0, -1) || '.' : relative;
    const file = paths.absolute(name);
    const begun = generation;
    const seq = watchCount();
    const at = now();
    const stats = await fs.promises.stat(file).catch(() => undefined);
    const read: ReadAhead & { seq: number } = { at, seq, stats, leaves: false };
    if (stats) {
      realRoot ??= fs.promises.realpath(root).catch(() => null);
      const [real, top] = await Promise.all([fs.promises.realpath(file).catch(() => null), realRoot]);
      read.leaves = real !== null && top !== null && real !== top && !real.startsWith(top + path.sep);
      if (!read.leaves && isDir && stats.isDirectory()) read.dirents = await fs.promises.readdir(file, { withFileTypes: true }).catch(() => undefined);
      if (!read.leaves && !isDir && stats.isFile()) read.bytes = await fs.promises.readFile(file).catch(() => undefined);
    }
    if (begun === generation) ahead.set(relative, read);
  }

  const current = (relative: string) => {
    const read = ahead.get(relative);
    if (read && read.seq !== watchCount()) ahead.delete(relative);
    return read && read.seq === watchCount() ? read : undefined;
  };

  return {
    prefetch: (relatives, limit = PREFETCH_LIMIT) => runLimited([...new Set(relatives.filter((relative) => isPlainRelative(relative) && !ahead.has(relative)))], limit, readAhead),
    take(relative) {
      const read = current(relative);
      ahead.delete(relative);
      return read;
    },
    peek: current,
    clear() {
      ahead.clear();
      generation += 1;
    },
  };
}
