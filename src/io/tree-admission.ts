// What the tree watcher watches: a path the scope admits, a directory (then walked) or a linked
// file, looked at with one stat; and the unwatched paths, looked at again when a notice names
// them or a directory above them (a chmod is one), as they may have become readable.
import type fs from 'node:fs';
import path from 'node:path';
import type { DirectoryWatches } from './directory-watches.js';
import type { TreeWalk } from './tree-walk.js';
import type { TreeWatcherFs } from './tree-watcher-fs.js';
import type { UnwatchedPaths } from './unwatched-paths.js';
import type { SeenEntry } from './watch-scope.js';

/** The stat (`lstat`: of the link itself) of `absolute`, or undefined when it is absent or unreadable (then listed). */
export function statEntry(files: TreeWatcherFs, unwatched: UnwatchedPaths, absolute: string, link = false): fs.Stats | undefined {
  try {
    const stats = link ? files.lstatSync(absolute, { throwIfNoEntry: false }) : files.statSync(absolute, { throwIfNoEntry: false });
    if (!stats) unwatched.forget(absolute);
    return stats;
  } catch (error) {
    unwatched.cannotWatch(absolute, error);
    return undefined;
  }
}

export interface AdmissionOptions {
  root: string;
  files: TreeWatcherFs;
  watches: DirectoryWatches;
  unwatched: UnwatchedPaths;
  walk: TreeWalk;
  /** The scope's decision (TreeWatcherOptions `ignored`); may throw the error of a path it cannot look at. */
  ignored(absolute: string, seen?: SeenEntry): boolean;
  /** Tells the watcher's `all` listeners of a path added. */
  added(event: 'add' | 'addDir', absolute: string): void;
}

export interface Admission {
  /** Watches `absolute` if the scope admits it; `report`: tell the listeners. */
  admit(absolute: string, report: boolean, seen?: SeenEntry): void;
  /** Unwatched paths at or below `absolute` are looked at again. */
  retryUnwatched(absolute: string): void;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const { root, files, watches, unwatched, walk } = options;

  function admit(absolute: string, report: boolean, seen?: SeenEntry) {
    if (watches.has(absolute)) return;
    try {
      if (options.ignored(absolute, seen)) return;
    } catch (error) {
      return unwatched.cannotWatch(absolute, error); // the scope could not look at it (EACCES, ENAMETOOLONG...)
    }
    const stats = statEntry(files, unwatched, absolute);
    if (!stats || !(stats.isDirectory() || stats.isFile())) return;
    if (!watches.watch(absolute, stats)) return;
    unwatched.forget(absolute);
    if (stats.isDirectory()) walk.add(absolute, report);
    if (report) options.added(stats.isDirectory() ? 'addDir' : 'add', absolute);
  }

  function retryUnwatched(absolute: string) {
    if (unwatched.size === 0) return;
    const inside = absolute + path.sep;
    for (const other of unwatched.paths()) {
      if (other !== absolute && !other.startsWith(inside)) continue;
      if (other !== root && !watches.has(path.dirname(other))) {
        unwatched.forget(other); // its directory is not watched any more: nothing there is looked at
        continue;
      }
      const stats = statEntry(files, unwatched, other);
      if (!stats) continue;
      unwatched.forget(other);
      if (stats.isDirectory() && watches.get(other)?.directory) walk.add(other, walk.ready); // its listing failed before: walked now
      else admit(other, walk.ready);
    }
  }

  return { admit, retryUnwatched };
}
