// The watcher of the workspace tree (README "Links and large trees"): one `fs.watch` per
// directory, and one per linked file, as the watch scope admits them (watch-scope.ts).
//
// A save of a file reads nothing here: its directory's watcher names it, and that notice is
// passed on as it comes (`raw`). Only an entry made, removed or renamed (`rename`) is looked
// at, alone, with one stat. chokidar, used before, listed the directory again and took the
// stats of every entry in it on every notice of its watcher, saves included: on two cores that
// work competes with the build the save starts, and it grows with the directory (a code edit
// in a directory of 300 files took 23 ms instead of 7.5; bench/RESULTS.md).
//
// Events, as `WatcherLike` names them: `raw` for every notice (the event, the entry's name,
// the watched path); `addDir` and `unlinkDir` for directories made or removed after the first
// walk; `add`, `change` and `unlink` for a linked file, which is watched itself; `ready` once
// the first walk is done; `error` for a watch that could not be made or failed (too many
// watches, a vanished directory): those events are lost, and the check before answering still
// finds every change.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { entryIdentity } from './file-hashes.js';
import type { SeenEntry } from './watch-scope.js';
import type { WatcherLike } from './watch.js';

/** The file-system calls the watcher makes: the real ones, or counting ones in the tests. */
export interface TreeWatcherFs {
  readdirSync(dir: string, options: { withFileTypes: true }): fs.Dirent[];
  statSync(file: string, options: { throwIfNoEntry: false }): fs.Stats | undefined;
  watch(file: string, options: { persistent: boolean }, listener: (event: string, name: string | Buffer | null) => void): fs.FSWatcher;
}

export interface TreeWatcherOptions {
  /** True for what is not to be watched; `seen`, what the walk knows of the entry. */
  ignored(absolute: string, seen?: SeenEntry): boolean;
  /** Whether the watches keep the process running (true). */
  persistent?: boolean;
  /** How long the first walk works before it lets other work run (ms). */
  sliceMs?: number;
  fs?: TreeWatcherFs;
}

interface Watched {
  handle: fs.FSWatcher;
  directory: boolean;
  /** `dev:ino` of what the path led to when it was watched: a path made again is another entry. */
  id: string;
}

export function watchTree(root: string, options: TreeWatcherOptions): WatcherLike {
  const files: TreeWatcherFs = options.fs ?? fs;
  const persistent = options.persistent ?? true;
  const sliceMs = options.sliceMs ?? 8;
  const emitter = new EventEmitter();
  const watched = new Map<string, Watched>();
  /** Directories watched and not walked yet, with whether what the walk finds is reported. */
  const walks: { dir: string; report: boolean }[] = [];
  let walking: NodeJS.Immediate | null = null;
  let ready = false;
  let closed = false;

  const fail = (error: unknown) => {
    if (!closed && emitter.listenerCount('error') > 0) emitter.emit('error', error);
  };

  function watchPath(absolute: string, stats: fs.Stats): boolean {
    const directory = stats.isDirectory();
    let handle: fs.FSWatcher;
    try {
      handle = files.watch(absolute, { persistent }, (event, name) => notice(absolute, directory, event, name === null ? '' : String(name)));
    } catch (error) {
      fail(error); // ENOSPC (the system's limit of watches), EACCES, gone meanwhile
      return false;
    }
    handle.on('error', (error) => {
      unwatch(absolute);
      fail(error);
    });
    watched.set(absolute, { handle, directory, id: entryIdentity(stats) });
    return true;
  }

  function unwatch(absolute: string) {
    const entry = watched.get(absolute);
    if (!entry) return;
    watched.delete(absolute);
    entry.handle.close();
    if (!entry.directory) return;
    const inside = absolute + path.sep;
    for (const [other, { handle }] of watched) {
      if (!other.startsWith(inside)) continue;
      watched.delete(other);
      handle.close();
    }
  }

  /** Watches `absolute` if the scope admits it: a directory (then walked) or a linked file. */
  function admit(absolute: string, report: boolean, seen?: SeenEntry) {
    if (watched.has(absolute) || options.ignored(absolute, seen)) return;
    const stats = files.statSync(absolute, { throwIfNoEntry: false });
    if (!stats || !(stats.isDirectory() || stats.isFile())) return;
    if (!watchPath(absolute, stats)) return;
    if (stats.isDirectory()) {
      walks.push({ dir: absolute, report });
      walkSoon();
    }
    if (report) emitter.emit('all', stats.isDirectory() ? 'addDir' : 'add', absolute);
  }

  // A plain file is seen through its directory's watcher and needs no decision; a directory or
  // a link is decided by the scope (a link may lead out of the workspace, or to a directory
  // walked already).
  function walk(dir: string, report: boolean) {
    let entries: fs.Dirent[];
    try {
      entries = files.readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // removed or unreadable since: its parent's watcher reports a removal
    }
    for (const entry of entries) {
      if (closed) return;
      if (entry.isDirectory() || entry.isSymbolicLink()) admit(path.join(dir, entry.name), report, entry);
    }
  }

  function walkSoon() {
    if (walking === null && !closed) walking = setImmediate(walkSlice);
  }

  // The first walk of a large tree is thousands of directories: it works in slices, so a
  // request arriving meanwhile waits for one slice at most.
  function walkSlice() {
    walking = null;
    const until = performance.now() + sliceMs;
    while (walks.length > 0 && !closed) {
      const { dir, report } = walks.shift()!;
      if (watched.get(dir)?.directory) walk(dir, report);
      if (performance.now() >= until) break;
    }
    if (closed) return;
    if (walks.length > 0) return walkSoon();
    if (!ready) {
      ready = true;
      emitter.emit('ready');
    }
  }

  function notice(watchedPath: string, directory: boolean, event: string, name: string) {
    if (closed) return;
    emitter.emit('raw', event, name, { watchedPath });
    if (!directory) return linkedFileNotice(watchedPath, event);
    // Only an entry made, removed or renamed changes what is watched: every platform reports
    // those as 'rename', and a save of a file's content as 'change'.
    if (event !== 'rename' || name === '') return;
    entryNotice(path.join(watchedPath, name));
  }

  function entryNotice(absolute: string) {
    const known = watched.get(absolute);
    if (!known) return admit(absolute, ready);
    const stats = files.statSync(absolute, { throwIfNoEntry: false });
    if (stats && entryIdentity(stats) === known.id) return;
    // Removed, or made again (another entry under the same name): the old watch is of a gone entry.
    unwatch(absolute);
    emitter.emit('all', known.directory ? 'unlinkDir' : 'unlink', absolute);
    if (stats) admit(absolute, ready);
  }

  // A linked file's own watcher: a save is a change; a removal or a replacement (an editor's
  // save by rename) ends the watch of that file, and the path is decided again.
  function linkedFileNotice(absolute: string, event: string) {
    if (event === 'rename') return entryNotice(absolute);
    emitter.emit('all', 'change', absolute);
  }

  const start = files.statSync(root, { throwIfNoEntry: false });
  if (start?.isDirectory()) admit(root, false);
  walkSoon(); // `ready` even when the root could not be watched

  const watcher: WatcherLike = {
    on(event: string, listener: (...args: never[]) => void) {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return watcher;
    },
    async close() {
      closed = true;
      if (walking !== null) clearImmediate(walking);
      walks.length = 0;
      for (const { handle } of watched.values()) handle.close();
      watched.clear();
    },
  } as WatcherLike;
  return watcher;
}
