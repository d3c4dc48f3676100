// The directories of packages and modules reached through a symbolic link inside the workspace
// (README "Links and large trees"): each by the path the manifests name it by, with where it
// really is. esbuild names every file by its real path; the bundlers map those back by this
// record, so that a module behind a link is built, checked and reported as the same tree
// without the link would be.
import type { SourceReader } from './source-reader.js';
import { listedEntry } from './source-finder.js';

/**
 * Each of `dirs` one of whose segments is listed as a symbolic link, with where it leads
 * (workspace-relative); one leading nowhere, out of the workspace, or to itself is left out.
 * The listings are those the read takes anyway, so a tree without links costs no look more.
 */
export function linkedDirsOf(dirs: Iterable<string>, list: SourceReader['listDir'], leadsTo: (path: string) => string | null): Record<string, string> {
  const linked: Record<string, string> = {};
  for (const dir of new Set(dirs)) {
    if (dir === '.' || !crossesLink(dir, list)) continue;
    const real = leadsTo(dir);
    if (real !== null && real !== dir) linked[dir] = real;
  }
  return linked;
}

function crossesLink(dir: string, list: SourceReader['listDir']): boolean {
  const segments = dir.split('/');
  for (let end = 1; end <= segments.length; end += 1) {
    if (listedEntry(list, segments.slice(0, end).join('/'))?.link) return true;
  }
  return false;
}
