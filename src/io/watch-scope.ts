// What the watcher may walk: the workspace, and nothing else, each directory once, and not
// more than a bound. A symbolic link to `/` (or to a parent: a loop) would otherwise make it
// walk the whole file system, through /proc and back, without end.
//
// - A link whose real path leaves the workspace is not followed; nor is a dangling one.
// - A directory is walked once, by device and inode: a second path to it (a link inside the
//   workspace, a loop) is not walked again but remembered as an alias, so a change seen under
//   the first path is reported under the other too (the state may know a file by either).
// - A plain file is not watched on its own: the watcher of its directory reports a change of
//   it (by name), so a tree of N files and D directories costs D watches, not N + D. A link
//   to a file is watched itself: its directory's watcher does not see the file it leads to
//   change.
// - Past `limit` watched directories and linked files nothing more is watched, and `onLimit`
//   says so once.
import fs from 'node:fs';
import path from 'node:path';
import { toWorkspacePath } from '../workspace/paths.js';
import { createDirectoryOwners } from './directory-owners.js';
import { errorCode, isAbsence } from './error-code.js';
import { entryIdentity } from './file-hashes.js';

export const DEFAULT_WATCH_LIMIT = 50_000;

export interface WatchScopeOptions {
  /** Directories and linked files watched at most. */
  limit?: number;
  onLimit?(limit: number): void;
  /** Paths never watched at all (node_modules, dot-directories). */
  skip?(absolute: string): boolean;
}

/** What the caller already knows of an entry: the watcher's walk passes its directory entry. */
export interface SeenEntry {
  isFile(): boolean;
}

export interface WatchScope {
  /** For the watcher (tree-watcher.ts): true for what is not to be watched; `seen`, what the caller knows of the entry. Throws the error of a path it cannot look at (EACCES, ENAMETOOLONG...), which is not remembered. */
  ignored(absolute: string, seen?: SeenEntry): boolean;
  /** Other workspace-relative paths of `relative` (through links to a directory inside the workspace). */
  aliases(relative: string): string[];
  /** A path was removed: what was decided about it (and beneath it, for a directory) no longer holds. */
  forget(absolute: string, directory: boolean): void;
  /** Directories and linked files admitted so far. */
  readonly count: number;
  /** False once a path was refused past the limit: what lies there is not walked (no link there is seen). */
  readonly complete: boolean;
}

/** What a path is once looked at: absent (decided again once it exists), a plain file (seen through its directory), or whether it is ignored. */
type Decision = boolean | null | 'file';

/** The stats of what the link `absolute` leads to, or true when it is not followed. */
function followLink(absolute: string, leaves: (real: string) => boolean): fs.Stats | true {
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    return true; // dangling, or a loop the kernel refuses (ELOOP)
  }
  if (leaves(real)) return true;
  return fs.statSync(real, { throwIfNoEntry: false }) ?? true;
}

/** The real path of `root`, or `root` itself when it vanished (nothing is admitted below it then). */
function realPathOf(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return root;
  }
}

/** How many paths are admitted, up to `limit`: past it nothing more is, and `onLimit` is told once. */
function createAdmittedCount(limit: number, onLimit?: (limit: number) => void) {
  let count = 0;
  let warned = false;
  return {
    get count() {
      return count;
    },
    get full() {
      return count >= limit;
    },
    /** Whether a path was refused past the limit. */
    get refused() {
      return warned;
    },
    /** Admits one more path; false past the limit. */
    add(): boolean {
      if (count < limit) {
        count += 1;
        return true;
      }
      if (!warned) {
        warned = true;
        onLimit?.(limit);
      }
      return false;
    },
    remove() {
      count -= 1;
    },
  };
}

export function createWatchScope(root: string, options: WatchScopeOptions = {}): WatchScope {
  const limit = options.limit ?? DEFAULT_WATCH_LIMIT;
  const realRoot = realPathOf(root);
  const decided = new Map<string, boolean>();
  const owners = createDirectoryOwners();
  const admitted = createAdmittedCount(limit, options.onLimit);

  const leaves = (real: string) => real !== realRoot && !real.startsWith(realRoot + path.sep);

  function decide(absolute: string, seen: SeenEntry | undefined): Decision {
    if (options.skip?.(absolute)) return true;
    const relative = toWorkspacePath(root, absolute);
    if (relative === null) return true;
    // A walk takes the stats of every entry anyway: asking again for each file of a large tree
    // was a third of the first walk's time. Only a plain file is taken on its word (a caller
    // may pass stats that followed a link: a link is always looked at here, the file it leads
    // to is then, at worst, seen through its directory like any file).
    if (seen?.isFile()) return 'file';
    const entry = fs.lstatSync(absolute, { throwIfNoEntry: false });
    if (!entry) return null; // gone already: the watcher reports the removal
    if (entry.isFile()) return 'file';
    const stats = entry.isSymbolicLink() ? followLink(absolute, leaves) : entry;
    if (stats === true) return true;
    if (stats.isDirectory() && !owners.claim(entryIdentity(stats), relative)) return true;
    return !admitted.add();
  }

  function ignored(absolute: string, seen?: SeenEntry): boolean {
    const normal = path.resolve(absolute);
    const known = decided.get(normal);
    if (known !== undefined) return known;
    let answer: Decision;
    try {
      answer = decide(normal, seen);
    } catch (error) {
      // Absent after all (ENOTDIR, or a loop of links: error-code.ts): nothing to watch.
      // Unreadable (EACCES, ENAMETOOLONG...): not remembered, as a chmod may make it readable;
      // thrown for the watcher, which lists it as unwatched and asks again on a notice naming it.
      if (isAbsence(errorCode(error))) return true;
      throw error;
    }
    if (answer === null) return false;
    // Not remembered: a file removed unseen (its directory reports it, the watcher does not)
    // may come back as a directory, which is then watched.
    if (answer === 'file') return true;
    // Past the limit nothing more is remembered either: memory stays bounded.
    if (!answer || !admitted.full) decided.set(normal, answer);
    return answer;
  }

  function forget(absolute: string, directory: boolean) {
    const normal = path.resolve(absolute);
    if (decided.get(normal) === false) admitted.remove();
    decided.delete(normal);
    const relative = toWorkspacePath(root, normal);
    if (!directory || relative === null) return;
    for (const [key, ignoredThere] of decided) {
      if (!key.startsWith(normal + path.sep)) continue;
      if (!ignoredThere) admitted.remove();
      decided.delete(key);
    }
    // Another path to the same directory may now be walked: decide it again.
    for (const alias of owners.forget(relative)) decided.delete(path.join(root, alias));
  }

  return {
    ignored,
    aliases: (relative) => owners.aliases(relative),
    forget,
    get count() {
      return admitted.count;
    },
    get complete() {
      return !admitted.refused;
    },
  };
}
