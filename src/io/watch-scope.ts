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
import { errorCode } from './error-code.js';
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
}

export function createWatchScope(root: string, options: WatchScopeOptions = {}): WatchScope {
  const limit = options.limit ?? DEFAULT_WATCH_LIMIT;
  let realRoot = root;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    // The workspace itself vanished: nothing will be admitted below anyway.
  }
  const decided = new Map<string, boolean>();
  /** `dev:ino` of each directory walked, to the workspace-relative path that walks it. */
  const owners = new Map<string, string>();
  /** A walked directory's relative path to the other relative paths of the same directory. */
  const aliasesOf = new Map<string, Set<string>>();
  let count = 0;
  let warned = false;

  const leaves = (real: string) => real !== realRoot && !real.startsWith(realRoot + path.sep);

  /** null: the path is absent (decided again once it exists); 'file': a plain file, seen through its directory. */
  function decide(absolute: string, seen: SeenEntry | undefined): boolean | null | 'file' {
    if (options.skip?.(absolute)) return true;
    const relative = toWorkspacePath(root, absolute);
    if (relative === null) return true;
    // A walk takes the stats of every entry anyway: asking again for each file of a large tree
    // was a third of the first walk's time. Only a plain file is taken on its word (a caller
    // may pass stats that followed a link: a link is always looked at here, the file it leads
    // to is then, at worst, seen through its directory like any file).
    if (seen?.isFile()) return 'file';
    let stats = fs.lstatSync(absolute, { throwIfNoEntry: false });
    if (!stats) return null; // gone already: the watcher reports the removal
    if (stats.isFile()) return 'file';
    if (stats.isSymbolicLink()) {
      let real: string;
      try {
        real = fs.realpathSync(absolute);
      } catch {
        return true; // dangling, or a loop the kernel refuses (ELOOP)
      }
      if (leaves(real)) return true;
      stats = fs.statSync(real, { throwIfNoEntry: false });
      if (!stats) return true;
    }
    if (stats.isDirectory()) {
      const key = entryIdentity(stats);
      const owner = owners.get(key);
      if (owner !== undefined && owner !== relative) {
        // A path inside the directory it shows is a loop: no file is known by it.
        const loop = owner === '.' || relative.startsWith(`${owner}/`);
        if (!loop) {
          let aliases = aliasesOf.get(owner);
          if (!aliases) aliasesOf.set(owner, (aliases = new Set()));
          aliases.add(relative);
        }
        return true;
      }
      owners.set(key, relative);
    }
    if (count >= limit) {
      if (!warned) {
        warned = true;
        options.onLimit?.(limit);
      }
      return true;
    }
    count += 1;
    return false;
  }

  return {
    ignored(absolute, seen) {
      const normal = path.resolve(absolute);
      const known = decided.get(normal);
      if (known !== undefined) return known;
      let answer: boolean | null | 'file';
      try {
        answer = decide(normal, seen);
      } catch (error) {
        // Absent after all (ENOTDIR): nothing to watch. Unreadable (EACCES, ENAMETOOLONG...): not
        // remembered, as a chmod may make it readable; thrown for the watcher, which lists it as
        // unwatched and asks again on a notice naming it.
        if (errorCode(error) === 'ENOTDIR') return true;
        throw error;
      }
      if (answer === null) return false;
      // Not remembered: a file removed unseen (its directory reports it, the watcher does not)
      // may come back as a directory, which is then watched.
      if (answer === 'file') return true;
      // Past the limit nothing more is remembered either: memory stays bounded.
      if (!answer || count < limit) decided.set(normal, answer);
      return answer;
    },
    aliases(relative) {
      if (aliasesOf.size === 0) return [];
      const found: string[] = [];
      for (const [owner, aliases] of aliasesOf) {
        // `rest` is '' or starts with '/'; the workspace root has no aliases (a link to it is a loop).
        const rest = relative === owner ? '' : relative.startsWith(`${owner}/`) ? relative.slice(owner.length) : null;
        if (rest === null) continue;
        for (const alias of aliases) found.push(`${alias}${rest}`);
      }
      return found;
    },
    forget(absolute, directory) {
      const normal = path.resolve(absolute);
      if (decided.get(normal) === false) count -= 1;
      decided.delete(normal);
      const relative = toWorkspacePath(root, normal);
      if (!directory || relative === null) return;
      for (const [key, admitted] of decided) {
        if (!key.startsWith(normal + path.sep)) continue;
        if (!admitted) count -= 1;
        decided.delete(key);
      }
      const within = (candidate: string) => candidate === relative || candidate.startsWith(`${relative}/`);
      for (const [key, owner] of owners) if (within(owner)) owners.delete(key);
      for (const [owner, aliases] of aliasesOf) {
        if (within(owner)) {
          // Another path to the same directory may now be walked: decide it again.
          for (const alias of aliases) decided.delete(path.join(root, alias));
          aliasesOf.delete(owner);
        } else {
          for (const alias of aliases) if (within(alias)) aliases.delete(alias);
        }
      }
    },
    get count() {
      return count;
    },
  };
}
