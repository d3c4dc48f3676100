// The symbolic links of the workspace that may lead out of it, as the tree watcher sees them
// (README "Links and large trees"). Its walk lists every directory it watches, and a notice of an
// entry made, removed or renamed has that entry looked at: so every link of a watched directory is
// judged here when it is first seen and again whenever its entry changes. While none may lead out,
// a build's confinement needs not look at its `./` imports (workspace-confinement.ts).
//
// A link is judged harmless only when nothing outside the watched tree can change where it leads:
// its target (taken from the link's real folder) and its real path are inside the workspace's real
// root, and neither goes through a folder the watcher does not walk (`node_modules`, a
// dot-directory), where a link is never seen. A link whose target is outside may be led elsewhere
// with no notice inside the workspace (the file it names made later, a link out there retargeted),
// so it counts whatever it leads to now; a dangling link whose target is inside counts not (what
// is made there later is seen). Links inside `node_modules` are not watched, nor counted:
// installed packages may live anywhere (README "Links and large trees").
import fs from 'node:fs';
import path from 'node:path';
import { isSkippedDirectory } from '../workspace/paths.js';

export interface LinkCensus {
  /** `absolute` was seen to be a symbolic link (judged again), or not (forgotten). */
  note(absolute: string, isLink: boolean): void;
  /** `absolute` is gone, or is no directory: a link counted at it or below it is forgotten. */
  gone(absolute: string): void;
  /** How many links seen may lead out of the workspace. */
  readonly leadingOut: number;
}

export function createLinkCensus(root: string): LinkCensus {
  const realRoot = realPathOrNull(root) ?? root;
  const leading = new Set<string>();
  /** Inside the real root, through no folder the watcher skips. */
  const watchedInside = (real: string): boolean => {
    if (real === realRoot) return true;
    if (!real.startsWith(realRoot + path.sep)) return false;
    return !real
      .slice(realRoot.length + 1)
      .split(path.sep)
      .some(isSkippedDirectory);
  };
  const mayLeadOut = (absolute: string): boolean => {
    let target: string;
    let folder: string | null;
    try {
      target = fs.readlinkSync(absolute);
      folder = realPathOrNull(path.dirname(absolute));
    } catch {
      return false; // gone meanwhile: its directory's notice says so
    }
    if (folder === null || !watchedInside(path.resolve(folder, target))) return true;
    const real = realPathOrNull(absolute);
    return real !== null && !watchedInside(real);
  };
  return {
    note(absolute, isLink) {
      if (isLink && mayLeadOut(absolute)) leading.add(absolute);
      else leading.delete(absolute);
    },
    gone(absolute) {
      if (leading.size === 0) return;
      const below = absolute + path.sep;
      for (const link of leading) if (link === absolute || link.startsWith(below)) leading.delete(link);
    },
    get leadingOut() {
      return leading.size;
    },
  };
}

function realPathOrNull(file: string): string | null {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return null;
  }
}
