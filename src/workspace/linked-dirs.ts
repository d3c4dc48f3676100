// The directories of packages and modules reached through a symbolic link inside the workspace
// (README "Links and large trees"): each by the path the manifests name it by, with where it
// really is. esbuild names every file by its real path; the bundlers name those under such a
// directory by this record again, so that a module behind a link is built, checked and reported
// as the same tree without the link would be.
import type { SourceReader } from './source-reader.js';
import { listedEntry } from './source-finder.js';

/**
 * The package directory when its real path is another (it, or a directory above it, a link),
 * and each directory of its modules reached through a link, with where each leads
 * (workspace-relative, recorded as `<dir> ->` by `leadsTo`). One leading nowhere or out of the
 * workspace is left out. A package without links costs one real path, and one more for its
 * `core.modules` directory and for each module outside it: the module directories the search
 * found are judged by the listings it took anyway (README "The build cache across restarts").
 */
export function linkedDirsOf(packageDir: string, modulesDir: string, moduleDirs: readonly string[], list: SourceReader['listDir'], realPath: (path: string) => string | null, leadsTo: (path: string) => string | null): Record<string, string> {
  const linked: Record<string, string> = {};
  const add = (dir: string) => {
    const real = leadsTo(dir);
    if (real !== null && real !== dir) linked[dir] = real;
  };
  const realPackage = realPath(packageDir) ?? packageDir;
  if (realPackage !== packageDir) add(packageDir);
  // Where a directory of the package is when no link below the package's directory leads elsewhere.
  const unlinked = (dir: string) => (packageDir === '.' ? (realPackage === '.' ? dir : `${realPackage}/${dir}`) : `${realPackage}${dir.slice(packageDir.length)}`);
  const leadsElsewhere = (dir: string) => {
    const real = realPath(dir);
    return real !== null && real !== unlinked(dir);
  };
  // A `core.modules` outside the package is never searched: its listings were not taken.
  const searched = packageDir === '.' || modulesDir === packageDir || modulesDir.startsWith(`${packageDir}/`);
  if (searched && modulesDir !== packageDir && leadsElsewhere(modulesDir)) add(modulesDir);
  const below = !searched ? null : modulesDir === '.' ? '' : `${modulesDir}/`;
  for (const dir of new Set(moduleDirs)) {
    if (dir === packageDir || dir === modulesDir) continue;
    if (below !== null && dir.startsWith(below) ? crossesLink(modulesDir, dir.slice(below.length), list) : leadsElsewhere(dir)) add(dir);
  }
  return linked;
}

// Whether a segment of `rest` below `from` is listed as a symbolic link.
function crossesLink(from: string, rest: string, list: SourceReader['listDir']): boolean {
  let dir = from;
  for (const segment of rest.split('/')) {
    dir = dir === '.' ? segment : `${dir}/${segment}`;
    if (listedEntry(list, dir)?.link) return true;
  }
  return false;
}
