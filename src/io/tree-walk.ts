// The tree watcher's walk: each directory watched is listed once, and what it holds is offered
// to the watcher. A plain file is seen through its directory's watch and needs no decision; a
// directory or a link is decided by the scope (a link may lead out of the workspace, or to a
// directory walked already). The first walk of a large tree is thousands of directories: it
// works in slices, so a request arriving meanwhile waits for one slice at most.
import type fs from 'node:fs';
import path from 'node:path';
import type { DirectoryWatches } from './directory-watches.js';
import type { LinkCensus } from './link-census.js';
import { nextWatchSequence } from './file-hashes.js';
import type { NoticeLedger } from './notice-proof.js';
import type { TreeWatcherFs } from './tree-watcher-fs.js';
import type { UnwatchedPaths } from './unwatched-paths.js';
import type { Guard } from './watcher-guard.js';

export interface TreeWalkOptions {
  files: TreeWatcherFs;
  watches: DirectoryWatches;
  unwatched: UnwatchedPaths;
  ledger: NoticeLedger;
  /** Every link the walk lists is judged there (may it lead out of the workspace?). */
  census: LinkCensus;
  guard: Guard;
  /** How long a slice works before it lets other work run (ms). */
  sliceMs: number;
  /** An entry of a walked directory that is a directory or a link; `report`: what it finds is told. */
  found(absolute: string, report: boolean, entry: fs.Dirent): void;
  /** Every directory queued has been walked, for the first time. */
  ready(): void;
  isClosed(): boolean;
}

export interface TreeWalk {
  /** Whether every directory queued has been walked once (`ready` was told). */
  readonly ready: boolean;
  /** Whether no directory waits to be walked (one made since the first walk is walked in a later slice: what it holds is not seen yet). */
  readonly idle: boolean;
  /** Walks the watched directory `dir` soon; `report`: what the walk finds is told to the listeners. */
  add(dir: string, report: boolean): void;
  /** Runs the walk, which ends at once when nothing was added: `ready` is then told. */
  start(): void;
  close(): void;
}

export function createTreeWalk(options: TreeWalkOptions): TreeWalk {
  const { files, watches, unwatched, ledger, census } = options;
  /** Directories watched and not walked yet, with whether what the walk finds is reported. */
  const walks: { dir: string; report: boolean }[] = [];
  let walking: NodeJS.Immediate | null = null;
  let ready = false;

  function walk(dir: string, report: boolean) {
    const at = nextWatchSequence();
    ledger.walkBegan(at);
    let entries: fs.Dirent[];
    try {
      entries = files.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      unwatched.cannotWatch(dir, error); // removed (its parent's watcher reports it) or unreadable (listed)
      return;
    }
    for (const entry of entries) {
      if (options.isClosed()) return;
      if (entry.isSymbolicLink()) {
        ledger.noteLink(path.join(dir, entry.name), true);
        census.note(path.join(dir, entry.name), true);
      }
      if (entry.isDirectory() || entry.isSymbolicLink()) options.found(path.join(dir, entry.name), report, entry);
    }
    const watch = watches.get(dir);
    if (watch?.directory) watch.walkedAt = at;
  }

  const slice = options.guard(() => {
    walking = null;
    const until = performance.now() + options.sliceMs;
    while (walks.length > 0 && !options.isClosed()) {
      const { dir, report } = walks.shift()!;
      if (watches.get(dir)?.directory) walk(dir, report);
      if (performance.now() >= until) break;
    }
    if (options.isClosed()) return;
    if (walks.length > 0) return start();
    if (!ready) {
      ready = true;
      options.ready();
    }
  });

  function start() {
    if (walking === null && !options.isClosed()) walking = setImmediate(slice);
  }

  return {
    get ready() {
      return ready;
    },
    get idle() {
      return walks.length === 0;
    },
    add(dir, report) {
      walks.push({ dir, report });
      start();
    },
    start,
    close() {
      if (walking !== null) clearImmediate(walking);
      walking = null;
      walks.length = 0;
    },
  };
}
