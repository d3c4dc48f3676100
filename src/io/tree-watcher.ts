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
// finds every change; `unwatched` with every path the watcher cannot look at, by error code,
// each time that list changes.
//
// No error of the file system ends the process (README "Links and large trees"): a path whose
// stat, listing or watch fails with anything but ENOENT (EACCES, ENAMETOOLONG, ELOOP, EMFILE,
// ENOSPC, EIO...) is treated as unreadable and listed as unwatched, until a notice naming it or
// a directory above it (a chmod is one) shows it readable again, or gone.
//
// The watcher's silence is also a proof (`unchangedSince`, README "Addresses"): on Linux, on a
// local file system, a path whose directory has been watched and walked since before its content
// was last confirmed, and that no notice has named since, has not changed. The kernel queues a
// notice before the write that made it returns, and the event loop reads the watch's descriptor
// in the same poll as a request's socket that became ready after it, so by the time the check
// before answering runs every change made before the request has been noticed. What the
// notices cannot see is never taken on their word: a symbolic link (its target changes
// elsewhere), a directory listing that holds one, a path through another file system (a
// mount inside the workspace), and everything once a burst of notices was large enough for
// the kernel's queue to have overflowed (libuv drops the overflow notice itself).
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { entryIdentity, isPlainRelative, nextWatchSequence, watchSequence } from './file-hashes.js';
import type { SeenEntry } from './watch-scope.js';

/** The file-system calls the watcher makes: the real ones, or counting ones in the tests. */
/** What the watch effect needs of a watcher (a scripted one in its marble tests). */
export interface WatcherLike {
  on(event: 'all', listener: (event: string, path: string) => void): unknown;
  on(event: 'raw', listener: (event: string, path: string, details: { watchedPath?: string }) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  /** The paths (absolute) the watcher cannot look at, with their error codes, each time that list changes. */
  on(event: 'unwatched', listener: (paths: ReadonlyMap<string, string>) => void): unknown;
  close(): Promise<void>;
}

export interface TreeWatcherFs {
  readdirSync(dir: string, options: { withFileTypes: true }): fs.Dirent[];
  statSync(file: string, options: { throwIfNoEntry: false }): fs.Stats | undefined;
  lstatSync(file: string, options: { throwIfNoEntry: false }): fs.Stats | undefined;
  watch(file: string, options: { persistent: boolean }, listener: (event: string, name: string | Buffer | null) => void): fs.FSWatcher;
}

export interface TreeWatcherOptions {
  /** True for what is not to be watched; `seen`, what the walk knows of the entry. May throw the error of a path it cannot look at (then listed as unwatched). */
  ignored(absolute: string, seen?: SeenEntry): boolean;
  /** Whether the watches keep the process running (true). */
  persistent?: boolean;
  /** How long the first walk works before it lets other work run (ms). */
  sliceMs?: number;
  fs?: TreeWatcherFs;
  /**
   * Whether notices may prove a path unchanged (`unchangedSince`): by default on Linux, when the
   * root is on a local file system whose changes all pass through this kernel.
   */
  trustNotices?: boolean;
  /** Notices in one poll past which the kernel's queue may have overflowed: nothing is proven from before. */
  burstLimit?: number;
}

/** Paths (absolute) the watcher cannot look at, with the error code of the call that failed. */
export type Unwatched = ReadonlyMap<string, string>;

/** The code of a file-system error; EUNKNOWN for something thrown without one. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'EUNKNOWN';
}

/** Codes that say the path is not there: nothing to watch, nothing to report. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

export interface TreeWatcher extends WatcherLike {
  /**
   * Whether the watches prove that `relative` (workspace-relative; a trailing `/` names a
   * directory's listing) has not changed since `since`, the watch sequence (`watchSequence` of
   * file-hashes.ts) when its content (or its absence) was last confirmed on disk. False whenever
   * they cannot.
   */
  unchangedSince(relative: string, since: number): boolean;
}

// File systems whose every change is made by this kernel, which then notifies its watches
// (statfs magic numbers): ext2-4, xfs, btrfs, tmpfs, ramfs, overlayfs, f2fs, zfs, bcachefs.
// A network or FUSE file system (NFS, 9p, virtiofs, SMB, a host folder in a VM) can change
// under the watch without a notice.
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0x794c7630, 0xf2f52010, 0x2fc12fc1, 0xca451a4e]);

function noticesAreComplete(root: string): boolean {
  if (process.platform !== 'linux') return false; // FSEvents and ReadDirectoryChangesW deliver later, not in the same poll
  try {
    return LOCAL_FILE_SYSTEMS.has(fs.statfsSync(root).type);
  } catch {
    return false;
  }
}

/** Half the kernel's queue of notices (fs.inotify.max_queued_events), and not more than 1,024. */
function defaultBurstLimit(): number {
  try {
    const queued = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    if (queued > 0) return Math.min(1024, Math.floor(queued / 2));
  } catch {
    // not Linux, or /proc unreadable: the default queue is 16,384
  }
  return 1024;
}

interface Watched {
  handle: fs.FSWatcher;
  directory: boolean;
  /** `dev:ino` of what the path led to when it was watched: a path made again is another entry. */
  id: string;
  dev: number;
  /** A directory: the watch sequence when its walk began reading it; from then on its notices name every change of its entries. */
  walkedAt?: number;
}

export function watchTree(root: string, options: TreeWatcherOptions): TreeWatcher {
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
  const trusting = options.trustNotices ?? noticesAreComplete(root);
  const burstLimit = options.burstLimit ?? defaultBurstLimit();
  /** When each entry (absolute) was last named by a notice; a directory's listing, by a notice of an entry made, removed or renamed in it. */
  const noticedAt = new Map<string, number>();
  const listingChangedAt = new Map<string, number>();
  /** Entries seen to be symbolic links, and the directories holding them. */
  const links = new Set<string>();
  const directoriesWithLinks = new Set<string>();
  /** Nothing confirmed before this count is proven by the watches (an overflow, a watched directory's own notice). */
  let provenFrom = 0;
  /** The count when the first walk began. */
  let firstWalk = Infinity;
  let burst = 0;
  let rootDev = -1;
  const prefix = root.endsWith('/') ? root : `${root}/`;

  const fail = (error: unknown) => {
    if (!closed && emitter.listenerCount('error') > 0) emitter.emit('error', error);
  };

  const unwatched = new Map<string, string>();
  let reporting: NodeJS.Immediate | null = null;
  /** The list is reported once per turn, however many paths a burst of notices changed. */
  function reportSoon() {
    reporting ??= setImmediate(() => {
      reporting = null;
      if (!closed) emitter.emit('unwatched', new Map(unwatched) as Unwatched);
    });
  }
  function cannotWatch(absolute: string, error: unknown) {
    const code = errorCode(error);
    if (ABSENT.has(code)) return forgetUnwatched(absolute);
    if (unwatched.get(absolute) === code) return;
    unwatched.set(absolute, code);
    reportSoon();
  }
  function forgetUnwatched(absolute: string) {
    if (unwatched.delete(absolute)) reportSoon();
  }

  /** The stat (`lstat`: of the link itself) of `absolute`, or undefined when it is absent or unreadable (then listed). */
  function statOf(absolute: string, link = false): fs.Stats | undefined {
    try {
      const stats = link ? files.lstatSync(absolute, { throwIfNoEntry: false }) : files.statSync(absolute, { throwIfNoEntry: false });
      if (!stats) forgetUnwatched(absolute);
      return stats;
    } catch (error) {
      cannotWatch(absolute, error);
      return undefined;
    }
  }

  /** Unwatched paths at or below `absolute` are looked at again: a notice there (a chmod is one) may have made them readable. */
  function retryUnwatched(absolute: string) {
    if (unwatched.size === 0) return;
    const inside = absolute + path.sep;
    for (const other of [...unwatched.keys()]) {
      if (other !== absolute && !other.startsWith(inside)) continue;
      if (other !== root && !watched.has(path.dirname(other))) {
        forgetUnwatched(other); // its directory is not watched any more: nothing there is looked at
        continue;
      }
      const stats = statOf(other);
      if (!stats) continue;
      forgetUnwatched(other);
      if (stats.isDirectory() && watched.get(other)?.directory) {
        walks.push({ dir: other, report: ready }); // its listing failed before: walked now
        walkSoon();
      } else admit(other, ready);
    }
  }

  function watchPath(absolute: string, stats: fs.Stats): boolean {
    const directory = stats.isDirectory();
    let handle: fs.FSWatcher;
    try {
      handle = files.watch(absolute, { persistent }, (event, name) => notice(absolute, directory, event, name === null ? '' : String(name)));
    } catch (error) {
      cannotWatch(absolute, error);
      fail(error); // ENOSPC (the system's limit of watches), EACCES, gone meanwhile
      return false;
    }
    handle.on('error', (error) => {
      unwatch(absolute);
      cannotWatch(absolute, error);
      fail(error);
    });
    watched.set(absolute, { handle, directory, id: entryIdentity(stats), dev: stats.dev });
    return true;
  }

  function unwatch(absolute: string) {
    const entry = watched.get(absolute);
    if (!entry) return;
    watched.delete(absolute);
    entry.handle.close();
    if (!entry.directory) return;
    const inside = absolute + path.sep;
    for (const other of unwatched.keys()) if (other.startsWith(inside)) forgetUnwatched(other);
    for (const [other, { handle }] of watched) {
      if (!other.startsWith(inside)) continue;
      watched.delete(other);
      handle.close();
    }
  }

  /** Watches `absolute` if the scope admits it: a directory (then walked) or a linked file. */
  function admit(absolute: string, report: boolean, seen?: SeenEntry) {
    if (watched.has(absolute)) return;
    try {
      if (options.ignored(absolute, seen)) return;
    } catch (error) {
      return cannotWatch(absolute, error); // the scope could not look at it (EACCES, ENAMETOOLONG...)
    }
    const stats = statOf(absolute);
    if (!stats || !(stats.isDirectory() || stats.isFile())) return;
    if (!watchPath(absolute, stats)) return;
    forgetUnwatched(absolute);
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
    const at = nextWatchSequence();
    if (firstWalk === Infinity) firstWalk = at;
    let entries: fs.Dirent[];
    try {
      entries = files.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      cannotWatch(dir, error); // removed (its parent's watcher reports it) or unreadable (listed)
      return;
    }
    for (const entry of entries) {
      if (closed) return;
      if (entry.isSymbolicLink()) noteLink(path.join(dir, entry.name), true);
      if (entry.isDirectory() || entry.isSymbolicLink()) admit(path.join(dir, entry.name), report, entry);
    }
    const watch = watched.get(dir);
    if (watch?.directory) watch.walkedAt = at;
  }

  function noteLink(absolute: string, isLink: boolean) {
    if (!isLink) return void links.delete(absolute);
    links.add(absolute);
    directoriesWithLinks.add(path.dirname(absolute));
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
    // The watched directory itself removed or moved: libuv names it by its base name.
    const itself = directory && name === path.basename(watchedPath);
    remember(watchedPath, directory, event, name, itself);
    emitter.emit('raw', event, name, { watchedPath });
    retryUnwatched(name === '' || itself || !directory ? watchedPath : path.join(watchedPath, name));
    if (!directory) return linkedFileNotice(watchedPath, event);
    // Only an entry made, removed or renamed changes what is watched: every platform reports
    // those as 'rename', and a save of a file's content as 'change'.
    if (event !== 'rename' || name === '') return;
    // Its watch has ended, even when a directory made again at once got the same inode number.
    if (itself) entryNotice(watchedPath, true);
    entryNotice(path.join(watchedPath, name), false);
  }

  // What `unchangedSince` needs: when each path was last named. A watched directory's notice about
  // itself (removed, moved) and a burst large enough to have overflowed the kernel's queue leave
  // nothing proven from before.
  function remember(watchedPath: string, directory: boolean, event: string, name: string, itself: boolean) {
    const at = nextWatchSequence();
    if (burst++ === 0) setImmediate(() => (burst = 0));
    if (burst > burstLimit || name === '' || itself) provenFrom = at;
    if (!directory) return void noticedAt.set(watchedPath, at);
    noticedAt.set(path.join(watchedPath, name), at);
    if (event === 'rename') listingChangedAt.set(watchedPath, at);
  }

  /** `ended`: the entry's own watch reported it moved or removed, so it is watched again whatever its identity now. */
  function entryNotice(absolute: string, ended: boolean) {
    const link = statOf(absolute, true);
    if (!link && unwatched.has(absolute)) return; // unreadable: listed, and looked at again on a notice naming it or a directory above
    noteLink(absolute, link?.isSymbolicLink() === true);
    // A hard link made here to a file named elsewhere: a write through this name is noticed in
    // this directory only, never in the other name's, which no earlier confirmation may vouch for.
    if (link?.isFile() && link.nlink > 1) provenFrom = watchSequence();
    const known = watched.get(absolute);
    if (!known) return admit(absolute, ready);
    const stats = statOf(absolute);
    if (!ended && stats && entryIdentity(stats) === known.id) return;
    // Removed, or made again (another entry under the same name): the old watch is of a gone entry.
    unwatch(absolute);
    emitter.emit('all', known.directory ? 'unlinkDir' : 'unlink', absolute);
    if (stats) admit(absolute, ready);
  }

  // A linked file's own watcher: a save is a change; a removal or a replacement (an editor's
  // save by rename) ends the watch of that file, and the path is decided again.
  function linkedFileNotice(absolute: string, event: string) {
    if (event === 'rename') return entryNotice(absolute, true);
    emitter.emit('all', 'change', absolute);
  }

  function unchangedSince(relative: string, since: number): boolean {
    // Confirmed before the first walk began (most paths, until the first check after it): no watch covers it.
    if (!trusting || closed || since < provenFrom || since < firstWalk) return false;
    const listing = relative.endsWith('/');
    const name = listing ? relative.slice(0, -1) : relative;
    if (!isPlainRelative(name) || (name === '' && !listing)) return false;
    const absolute = name === '' || name === '.' ? root : `${prefix}${name}`;
    const dir = listing ? absolute : path.dirname(absolute);
    const watch = watched.get(dir);
    if (!watch?.directory || watch.walkedAt === undefined || watch.walkedAt > since || watch.dev !== rootDev) return false;
    if (listing) return !directoriesWithLinks.has(dir) && !((listingChangedAt.get(dir) ?? -1) > since);
    return !links.has(absolute) && !((noticedAt.get(absolute) ?? -1) > since);
  }

  const start = statOf(root);
  if (start) rootDev = start.dev;
  if (start?.isDirectory()) admit(root, false);
  walkSoon(); // `ready` even when the root could not be watched

  const watcher: TreeWatcher = {
    unchangedSince,
    on(event: string, listener: (...args: never[]) => void) {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return watcher;
    },
    async close() {
      closed = true;
      if (walking !== null) clearImmediate(walking);
      if (reporting !== null) clearImmediate(reporting);
      walks.length = 0;
      for (const { handle } of watched.values()) handle.close();
      watched.clear();
    },
  } as TreeWatcher;
  return watcher;
}
