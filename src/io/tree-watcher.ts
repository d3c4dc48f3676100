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
// each time that list changes; `defect` for a throw of its own code in one of its callbacks
// (watcher-guard.ts), after which it may have missed a change.
//
// No error of the file system ends the process (README "Links and large trees"): a path whose
// stat, listing or watch fails with anything but an absence (ENOENT, ENOTDIR, ELOOP: error-code.ts)
// (EACCES, ENAMETOOLONG, EMFILE, ENOSPC, EIO...) is treated as unreadable and listed as unwatched, until a notice naming it or
// a directory above it (a chmod is one) shows it readable again, or gone.
//
// The watcher's silence is also a proof (`unchangedSince`, README "Addresses"; notice-proof.ts).
//
// Its parts, one job each: the watches (directory-watches.ts), the walk (tree-walk.ts), what is
// watched (tree-admission.ts), the notices (tree-notices.ts), the unwatched paths
// (unwatched-paths.ts), the guard of its callbacks (watcher-guard.ts).
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { createDirectoryWatches } from './directory-watches.js';
import { createLinkCensus } from './link-census.js';
import { nextWatchSequence, watchSequence } from './file-hashes.js';
import { createNoticeLedger, defaultBurstLimit, noticesAreComplete } from './notice-proof.js';
import { createAdmission, statEntry } from './tree-admission.js';
import { createNoticeHandler } from './tree-notices.js';
import { createTreeWalk } from './tree-walk.js';
import type { TreeWatcherFs } from './tree-watcher-fs.js';
import { createUnwatchedPaths, type Unwatched } from './unwatched-paths.js';
import type { SeenEntry } from './watch-scope.js';
import { createDefectGuard } from './watcher-guard.js';

export type { TreeWatcherFs } from './tree-watcher-fs.js';
export type { Unwatched } from './unwatched-paths.js';

/** What the watch effect needs of a watcher (a scripted one in its marble tests). */
export interface WatcherLike {
  on(event: 'all', listener: (event: string, path: string) => void): unknown;
  on(event: 'raw', listener: (event: string, path: string, details: { watchedPath?: string }) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  /** The paths (absolute) the watcher cannot look at, with their error codes, each time that list changes. */
  on(event: 'unwatched', listener: (paths: ReadonlyMap<string, string>) => void): unknown;
  /** A throw of the watcher's own code in one of its callbacks (watcher-guard.ts): it may have missed a change. */
  on(event: 'defect', listener: (error: unknown) => void): unknown;
  close(): Promise<void>;
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
  /** Whether `ignored` has admitted every path it was asked about that it would watch (false past its limit: a directory not walked may hold any link). */
  complete?(): boolean;
}

export interface TreeWatcher extends WatcherLike {
  /**
   * Whether the watches prove that `relative` (workspace-relative; a trailing `/` names a
   * directory's listing) has not changed since `since`, the watch sequence (`watchSequence` of
   * file-hashes.ts) when its content (or its absence) was last confirmed on disk. False whenever
   * they cannot.
   */
  unchangedSince(relative: string, since: number): boolean;
  /**
   * The watch sequence now: every event after which an answer of `unchangedSince` may turn from
   * true to false (a notice, a walk, a link seen, a watch lost, a defect, the close) advances it,
   * so while it stays, what was proven stays proven (the check before answering keeps its proofs by it).
   */
  proofGeneration(): number;
  /**
   * Whether the watcher vouches, now, that no symbolic link of the workspace leads out of it
   * (link-census.ts; README "Links and large trees"): its first walk done and no directory
   * waiting to be walked, every directory listed and watched (none unwatched, none past the limit), every notice trusted and none lost
   * to an overflow, not closed, and no link seen that may lead out. Read when a build's options
   * are made: a link is judged in the notice of its entry, before what that notice starts.
   */
  noLinkLeadsOut(): boolean;
  /** Whether, authoritative as above, it has seen a link that may lead out (false when it cannot tell). */
  linkLeadsOut(): boolean;
}

export function watchTree(root: string, options: TreeWatcherOptions): TreeWatcher {
  const files: TreeWatcherFs = options.fs ?? fs;
  const emitter = new EventEmitter();
  let closed = false;
  // A defect may have lost a notice, and a lost watch loses its notices: what was proven before is proven again.
  const defects = { listenerCount: (event: 'defect') => emitter.listenerCount(event), emit: (event: 'defect', error: unknown) => (nextWatchSequence(), emitter.emit(event, error)) };
  const guard = createDefectGuard(defects, () => closed);
  const failed = (error: unknown) => {
    nextWatchSequence();
    if (!closed && emitter.listenerCount('error') > 0) emitter.emit('error', error);
  };
  const unwatched = createUnwatchedPaths(guard((list: Unwatched) => void emitter.emit('unwatched', list)));
  const start = statEntry(files, unwatched, root);
  const ledger = createNoticeLedger(root, { trusting: options.trustNotices ?? noticesAreComplete(root), burstLimit: options.burstLimit ?? defaultBurstLimit(), rootDev: start?.dev ?? -1 });
  const census = createLinkCensus(root);
  const watches = createDirectoryWatches({ files, persistent: options.persistent ?? true, unwatched, guard, failed, notice: (...args) => notice(...args) });
  const walk = createTreeWalk({
    files,
    watches,
    unwatched,
    ledger,
    census,
    guard,
    sliceMs: options.sliceMs ?? 8,
    found: (absolute, report, entry) => admission.admit(absolute, report, entry),
    ready: () => void emitter.emit('ready'),
    isClosed: () => closed,
  });
  const added = (event: string, absolute: string) => void emitter.emit('all', event, absolute);
  const admission = createAdmission({ root, files, watches, unwatched, walk, ignored: options.ignored, added });
  const raw = (event: string, name: string, watchedPath: string) => void emitter.emit('raw', event, name, { watchedPath });
  const notice = createNoticeHandler({ files, watches, unwatched, ledger, census, walk, admission, raw, all: added });

  // Every link of the tree seen, every change noticed since (link-census.ts).
  const authoritative = () => !closed && walk.ready && walk.idle && ledger.complete && unwatched.size === 0 && (options.complete?.() ?? true);

  if (start?.isDirectory()) admission.admit(root, false);
  walk.start(); // `ready` even when the root could not be watched

  const watcher: TreeWatcher = {
    unchangedSince: (relative, since) => !closed && ledger.unchangedSince(relative, since, (dir) => watches.get(dir)),
    proofGeneration: watchSequence,
    noLinkLeadsOut: () => authoritative() && census.leadingOut === 0,
    linkLeadsOut: () => authoritative() && census.leadingOut > 0,
    on(event: string, listener: (...args: never[]) => void) {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return watcher;
    },
    async close() {
      closed = true;
      nextWatchSequence();
      walk.close();
      unwatched.close();
      watches.closeAll();
    },
  } as TreeWatcher;
  return watcher;
}
