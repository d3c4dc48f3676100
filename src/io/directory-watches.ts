// The tree watcher's watches: one `fs.watch` per directory and per linked file, by path. A watch
// that cannot be made, or fails later (too many watches, a vanished directory), lists its path as
// unwatched and is told to the watcher's `error` listeners: its notices are lost, and the check
// before answering still finds every change.
import type fs from 'node:fs';
import path from 'node:path';
import { entryIdentity } from './file-hashes.js';
import type { WatchedEntry } from './notice-proof.js';
import type { TreeWatcherFs } from './tree-watcher-fs.js';
import type { UnwatchedPaths } from './unwatched-paths.js';
import type { Guard } from './watcher-guard.js';

export interface Watched extends WatchedEntry {
  handle: fs.FSWatcher;
  /** `dev:ino` of what the path led to when it was watched: a path made again is another entry. */
  id: string;
}

export interface DirectoryWatchOptions {
  files: TreeWatcherFs;
  /** Whether the watches keep the process running. */
  persistent: boolean;
  unwatched: UnwatchedPaths;
  guard: Guard;
  /** A notice of the watch of `watchedPath`: `name` is the entry a directory's watch names ('' for none). */
  notice(watchedPath: string, directory: boolean, event: string, name: string): void;
  /** A watch could not be made, or failed. */
  failed(error: unknown): void;
}

export interface DirectoryWatches {
  get(absolute: string): Watched | undefined;
  has(absolute: string): boolean;
  /** Watches `absolute`, whose stats are `stats`; false when the watch could not be made. */
  watch(absolute: string, stats: fs.Stats): boolean;
  /** Ends the watch of `absolute` and, for a directory, every watch and unwatched path below it. */
  unwatch(absolute: string): void;
  closeAll(): void;
}

export function createDirectoryWatches(options: DirectoryWatchOptions): DirectoryWatches {
  const { files, persistent, unwatched, guard } = options;
  const watched = new Map<string, Watched>();

  function unwatch(absolute: string) {
    const entry = watched.get(absolute);
    if (!entry) return;
    watched.delete(absolute);
    entry.handle.close();
    if (!entry.directory) return;
    unwatched.forgetBelow(absolute);
    const inside = absolute + path.sep;
    for (const [other, { handle }] of watched) {
      if (!other.startsWith(inside)) continue;
      watched.delete(other);
      handle.close();
    }
  }

  function watch(absolute: string, stats: fs.Stats): boolean {
    const directory = stats.isDirectory();
    const notice = guard((event: string, name: string | Buffer | null) => options.notice(absolute, directory, event, name === null ? '' : String(name)));
    let handle: fs.FSWatcher;
    try {
      handle = files.watch(absolute, { persistent }, notice);
    } catch (error) {
      unwatched.cannotWatch(absolute, error);
      options.failed(error); // ENOSPC (the system's limit of watches), EACCES, gone meanwhile
      return false;
    }
    handle.on(
      'error',
      guard((error: unknown) => {
        unwatch(absolute);
        unwatched.cannotWatch(absolute, error);
        options.failed(error);
      }),
    );
    watched.set(absolute, { handle, directory, id: entryIdentity(stats), dev: stats.dev });
    return true;
  }

  return {
    get: (absolute) => watched.get(absolute),
    has: (absolute) => watched.has(absolute),
    watch,
    unwatch,
    closeAll() {
      for (const { handle } of watched.values()) handle.close();
      watched.clear();
    },
  };
}
