// What the tree watcher's events say for the workspace: which workspace-relative paths (a
// trailing `/`: a directory's listing) to look at, and the list of unwatched paths for /state.
import path from 'node:path';
import { toWorkspacePath } from '../workspace/paths.js';

/** The paths an `all` event names (`absolute` resolved): the path itself, then, unless its content changed, its directory's listing. */
export function pathsOfEvent(root: string, event: string, absolute: string): string[] {
  const relative = toWorkspacePath(root, absolute);
  if (relative === null || relative === '.') return [];
  const parent = path.posix.dirname(relative);
  const own = event === 'addDir' || event === 'unlinkDir' ? `${relative}/` : relative;
  return event === 'change' ? [own] : [own, parent === '.' ? './' : `${parent}/`];
}

/** The paths a `raw` notice names: a directory's watch names the child; a file's watch names the file itself. */
export function pathsOfNotice(root: string, event: string, name: string, watchedPath: string | undefined): string[] {
  if (!watchedPath) return [];
  const paths: string[] = [];
  for (const candidate of name ? [path.resolve(watchedPath, name), watchedPath] : [watchedPath]) {
    const relative = toWorkspacePath(root, candidate);
    if (relative === null) continue;
    if (relative !== '.') paths.push(relative);
    // Only an entry made, removed or renamed changes a listing: every platform reports
    // those as 'rename', and a save of a file's content as 'change'.
    if (event !== 'change') paths.push(relative === '.' ? './' : `${relative}/`);
  }
  return paths;
}

/** The first `limit` unwatched paths inside the workspace by name, workspace-relative, with their codes. */
export function reportedUnwatched(root: string, list: ReadonlyMap<string, string>, limit: number): Record<string, string> {
  const paths: Record<string, string> = {};
  const relative = [...list]
    .map(([absolute, code]) => [toWorkspacePath(root, absolute), code] as const)
    .filter((entry): entry is readonly [string, string] => entry[0] !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, code] of relative.slice(0, limit)) paths[name] = code;
  return paths;
}
