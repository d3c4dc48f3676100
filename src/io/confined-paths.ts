// Workspace-relative paths turned into the files they name, confined to the workspace: a link
// is followed inside it only (README "Links and large trees").
import fs from 'node:fs';
import path from 'node:path';
import { hasParentSegment, toWorkspacePath } from '../workspace/paths.js';

/**
 * A workspace-relative path joined by concatenation as it is: no leading `/`, no `..` segment,
 * no `//` or `\\`. A name holding `..` (`a..b/x.js`) is a name like any other.
 */
export const isPlainRelative = (relative: string): boolean =>
  !(relative.startsWith('/') || relative.includes('//') || relative.includes('\\') || (relative.includes('..') && hasParentSegment(relative)));

// Every file read asks where it really is (a link must not lead out of the workspace): the C
// library's realpath gives the same answer in about half the time of Node's own walk, which
// is most of the cost of reading 1,000 modules' sources on a first start.
const realpath = (file: string): string => fs.realpathSync.native(file);

/**
 * The workspace's directory by its real path: esbuild, the confinement and the watcher see the
 * real paths of its files, which a root named through a link would place outside it (README
 * "Links and large trees"). As given when it cannot be resolved, for the caller's own error.
 */
export function realDirectory(dir: string): string {
  const resolved = path.resolve(dir);
  try {
    return realpath(resolved);
  } catch {
    return resolved;
  }
}

export interface ConfinedPaths {
  absolute(relative: string): string;
  /** Undefined when absent, or not reachable (ENOTDIR, EACCES): as good as absent for the service. */
  statOf(relative: string): fs.Stats | undefined;
  /** Does the path, through a symbolic link, lead out of the workspace? */
  leaves(relative: string): boolean;
  /** The workspace-relative path with links resolved; null when absent or outside. */
  realPath(relative: string): string | null;
  /**
   * Runs `run` (synchronous) with each directory's real path asked once for `leaves` (a team
   * start's judgement of one entry reads several files of a module's directory): see `leavesInPass`.
   */
  inPass<T>(run: () => T): T;
}

/** How a pass knows a directory: its real path, and the directory it was (device and inode) when asked. */
interface KnownDirectory {
  real: string;
  id: string;
}

export interface ConfinedPathsOptions {
  /** How a path is stat'ed (through links): `fs.statSync` by default. */
  stat?: (absolute: string) => fs.Stats | undefined;
  /** How a path's real path is asked (tests count them): the C library's by default. */
  realpath?: (absolute: string) => string;
}

/** What confining a path takes: the root, how a path is joined, stat'ed and resolved. */
interface Confinement {
  root: string;
  absolute(relative: string): string;
  stat(absolute: string): fs.Stats | undefined;
  realpath(absolute: string): string;
  /** The root's real path, asked once. */
  realRoot(): string;
}

const isOutside = (confinement: Confinement, real: string): boolean => {
  const realRoot = confinement.realRoot();
  return real !== realRoot && !real.startsWith(realRoot + path.sep);
};

// A link to `/` or to another project is as good as absent (a link to `/` would otherwise
// make the module.json search walk the whole file system).
function leavesByRealPath(confinement: Confinement, relative: string): boolean {
  let real: string;
  try {
    confinement.realRoot();
    real = confinement.realpath(confinement.absolute(relative));
  } catch {
    return false; // absent: not a link that leaves
  }
  return isOutside(confinement, real);
}

// Within a pass, a path that is no link itself (`lstat`) is where its directory really is: that
// directory's real path is asked once, as the read-ahead worker asks it once per batch
// (src/io/read-ahead.ts). A link anywhere on the way swapped in during the pass is still caught:
// each path's directory is stat'ed through the path as the read will take it, and a directory
// other than the one whose real path was asked (another device or inode) is asked again. What
// no stat can tell, the same directory moved out of the workspace and linked back meanwhile, is
// the race a real path asked before the read always leaves (it is open until the read begins).
function leavesInPass(confinement: Confinement, relative: string, known: Map<string, KnownDirectory>): boolean {
  const slash = relative.lastIndexOf('/');
  const name = relative.slice(slash + 1);
  if (!isPlainRelative(relative) || name === '' || name === '.') return leavesByRealPath(confinement, relative);
  const dir = slash < 0 ? confinement.root : confinement.absolute(relative.slice(0, slash));
  let itself: fs.Stats | undefined;
  let reached: fs.Stats | undefined;
  try {
    itself = fs.lstatSync(confinement.absolute(relative), { throwIfNoEntry: false });
    reached = itself && !itself.isSymbolicLink() ? confinement.stat(dir) : undefined;
  } catch {
    return leavesByRealPath(confinement, relative);
  }
  if (!itself) return false; // absent: not a link that leaves
  if (!reached) return leavesByRealPath(confinement, relative);
  const id = `${reached.dev}:${reached.ino}`;
  let directory = known.get(dir);
  if (directory?.id !== id) {
    try {
      confinement.realRoot();
      directory = { real: confinement.realpath(dir), id };
    } catch {
      return leavesByRealPath(confinement, relative);
    }
    known.set(dir, directory);
  }
  return isOutside(confinement, `${directory.real}${path.sep}${name}`);
}

export function createConfinedPaths(root: string, options: ConfinedPathsOptions = {}): ConfinedPaths {
  const stat = options.stat ?? ((file: string) => fs.statSync(file, { throwIfNoEntry: false }));
  const realpathOf = options.realpath ?? realpath;
  // The check before each answer stats every path the answer depends on: the hottest call of
  // the service. Workspace paths are normal, so they are joined by concatenation (path.join's
  // normalization costs a third of a stat), and not at all while the process runs in the
  // workspace (`core run`), so the kernel walks fewer components. Anything else: path.join.
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  const absolute = (relative: string): string => {
    if (!isPlainRelative(relative)) return path.join(root, relative);
    return process.cwd() === root ? relative : `${prefix}${relative}`;
  };
  let realRoot: string | null = null;
  const confinement: Confinement = { root, absolute, stat, realpath: realpathOf, realRoot: () => (realRoot ??= realpathOf(root)) };
  /** The directories a pass has asked about (by absolute path); null outside a pass. */
  let pass: Map<string, KnownDirectory> | null = null;
  return {
    absolute,
    statOf(relative) {
      try {
        return stat(absolute(relative));
      } catch {
        return undefined;
      }
    },
    leaves: (relative) => (pass ? leavesInPass(confinement, relative, pass) : leavesByRealPath(confinement, relative)),
    realPath(relative) {
      try {
        return toWorkspacePath(confinement.realRoot(), realpathOf(absolute(relative)));
      } catch {
        return null;
      }
    },
    inPass(run) {
      if (pass) return run();
      pass = new Map();
      try {
        return run();
      } finally {
        pass = null;
      }
    },
  };
}
