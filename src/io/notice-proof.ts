// The tree watcher's silence as a proof (`unchangedSince`, README "Addresses"): on Linux, on a
// local file system, a path whose directory has been watched and walked since before its content
// was last confirmed, and that no notice has named since, has not changed. The kernel queues a
// notice before the write that made it returns, and the event loop reads the watch's descriptor
// in the same poll as a request's socket that became ready after it, so by the time the check
// before answering runs every change made before the request has been noticed. What the
// notices cannot see is never taken on their word: a symbolic link (its target changes
// elsewhere), a directory listing that holds one, a path through another file system (a
// mount inside the workspace), and everything once a burst of notices was large enough for
// the kernel's queue to have overflowed (libuv drops the overflow notice itself).
import fs from 'node:fs';
import path from 'node:path';
import { isPlainRelative, nextWatchSequence, watchSequence } from './file-hashes.js';

// File systems whose every change is made by this kernel, which then notifies its watches
// (statfs magic numbers): ext2-4, xfs, btrfs, tmpfs, ramfs, overlayfs, f2fs, zfs, bcachefs.
// A network or FUSE file system (NFS, 9p, virtiofs, SMB, a host folder in a VM) can change
// under the watch without a notice.
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0x794c7630, 0xf2f52010, 0x2fc12fc1, 0xca451a4e]);

export function noticesAreComplete(root: string): boolean {
  if (process.platform !== 'linux') return false; // FSEvents and ReadDirectoryChangesW deliver later, not in the same poll
  try {
    return LOCAL_FILE_SYSTEMS.has(fs.statfsSync(root).type);
  } catch {
    return false;
  }
}

/** Half the kernel's queue of notices (fs.inotify.max_queued_events), and not more than 1,024. */
export function defaultBurstLimit(): number {
  try {
    const queued = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    if (queued > 0) return Math.min(1024, Math.floor(queued / 2));
  } catch {
    // not Linux, or /proc unreadable: the default queue is 16,384
  }
  return 1024;
}

/** What the proof needs of a watch. */
export interface WatchedEntry {
  directory: boolean;
  /** The device of what the path led to when it was watched. */
  dev: number;
  /** A directory: the watch sequence when its walk began reading it; from then on its notices name every change of its entries. */
  walkedAt?: number;
}

export interface NoticeLedger {
  /** A walk of a directory began at `at` (a watch sequence). */
  walkBegan(at: number): void;
  /** A notice of the watch of `watchedPath`; `itself`: a watched directory's notice about itself (removed, moved). */
  noticed(watchedPath: string, directory: boolean, event: string, name: string, itself: boolean): void;
  /** `absolute` was seen to be a symbolic link, or not. */
  noteLink(absolute: string, isLink: boolean): void;
  /** Nothing confirmed before now is proven any more. */
  distrustAll(): void;
  /** Whether every change has been noticed since the watches began: notices trusted (`trusting`), and no burst that may have overflowed the kernel's queue. */
  readonly complete: boolean;
  /** See `unchangedSince` of the tree watcher; `watchOf` gives the watch of a path, if any. */
  unchangedSince(relative: string, since: number, watchOf: (absolute: string) => WatchedEntry | undefined): boolean;
}

export interface NoticeLedgerOptions {
  /** Whether notices may prove anything at all (`noticesAreComplete`). */
  trusting: boolean;
  /** Notices in one poll past which the kernel's queue may have overflowed. */
  burstLimit: number;
  /** The device of the root (-1 when unknown): a directory on another one is a mount, which may change unnoticed. */
  rootDev: number;
}

export function createNoticeLedger(root: string, options: NoticeLedgerOptions): NoticeLedger {
  /** When each entry (absolute) was last named by a notice; a directory's listing, by a notice of an entry made, removed or renamed in it. */
  const noticedAt = new Map<string, number>();
  const listingChangedAt = new Map<string, number>();
  /** Entries seen to be symbolic links, and the directories holding them. */
  const links = new Set<string>();
  const directoriesWithLinks = new Set<string>();
  /** Nothing confirmed before this count is proven by the watches (an overflow, a watched directory's own notice). */
  let provenFrom = 0;
  /** The count when the first walk began: nothing confirmed before is covered by a watch. */
  let firstWalk = Infinity;
  let burst = 0;
  let overflowed = false;
  const prefix = root.endsWith('/') ? root : `${root}/`;

  return {
    walkBegan(at) {
      if (firstWalk === Infinity) firstWalk = at;
    },
    // A watched directory's notice about itself, and a burst large enough to have overflowed the
    // kernel's queue, leave nothing proven from before.
    noticed(watchedPath, directory, event, name, itself) {
      const at = nextWatchSequence();
      if (burst++ === 0) setImmediate(() => (burst = 0));
      if (burst > options.burstLimit) overflowed = true;
      if (burst > options.burstLimit || name === '' || itself) provenFrom = at;
      if (!directory) return void noticedAt.set(watchedPath, at);
      noticedAt.set(path.join(watchedPath, name), at);
      if (event === 'rename') listingChangedAt.set(watchedPath, at);
    },
    // Both take back proofs given before: the count moves, so that no proof is kept past them (`proofGeneration` of the tree watcher).
    noteLink(absolute, isLink) {
      if (!isLink) return void links.delete(absolute);
      if (!links.has(absolute)) nextWatchSequence();
      links.add(absolute);
      directoriesWithLinks.add(path.dirname(absolute));
    },
    distrustAll() {
      provenFrom = watchSequence();
      nextWatchSequence();
    },
    get complete() {
      return options.trusting && !overflowed;
    },
    unchangedSince(relative, since, watchOf) {
      // Confirmed before the first walk began (most paths, until the first check after it): no watch covers it.
      if (!options.trusting || since < provenFrom || since < firstWalk) return false;
      const listing = relative.endsWith('/');
      const name = listing ? relative.slice(0, -1) : relative;
      if (!isPlainRelative(name) || (name === '' && !listing)) return false;
      const absolute = name === '' || name === '.' ? root : `${prefix}${name}`;
      const dir = listing ? absolute : path.dirname(absolute);
      const watch = watchOf(dir);
      if (!watch?.directory || watch.walkedAt === undefined || watch.walkedAt > since || watch.dev !== options.rootDev) return false;
      if (listing) return !directoriesWithLinks.has(dir) && !((listingChangedAt.get(dir) ?? -1) > since);
      return !links.has(absolute) && !((noticedAt.get(absolute) ?? -1) > since);
    },
  };
}
