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

export interface ConfinedPaths {
  absolute(relative: string): string;
  /** Undefined when absent, or not reachable (ENOTDIR, EACCES): as good as absent for the service. */
  statOf(relative: string): fs.Stats | undefined;
  /** Does the path, through a symbolic link, lead out of the workspace? */
  leaves(relative: string): boolean;
  /** The workspace-relative path with links resolved; null when absent or outside. */
  realPath(relative: string): string | null;
}

export function createConfinedPaths(root: string, stat: (absolute: string) => fs.Stats | undefined = (file) => fs.statSync(file, { throwIfNoEntry: false })): ConfinedPaths {
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
  return {
    absolute,
    statOf(relative) {
      try {
        return stat(absolute(relative));
      } catch {
        return undefined;
      }
    },
    // A link to `/` or to another project is as good as absent (a link to `/` would otherwise
    // make the module.json search walk the whole file system).
    leaves(relative) {
      let real: string;
      try {
        realRoot ??= realpath(root);
        real = realpath(absolute(relative));
      } catch {
        return false; // absent: not a link that leaves
      }
      return real !== realRoot && !real.startsWith(realRoot + path.sep);
    },
    realPath(relative) {
      try {
        realRoot ??= realpath(root);
        return toWorkspacePath(realRoot, realpath(absolute(relative)));
      } catch {
        return null;
      }
    },
  };
}
