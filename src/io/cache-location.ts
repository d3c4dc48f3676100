// Where the build cache lives (README "The build cache"), and the caches of removed workspaces
// that no service would otherwise ever remove from the shared place.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realDirectory } from './confined-paths.js';
import { INDEX, readCacheFileAsync } from './build-cache/cache-files.js';
import { clearCacheDirectory } from './build-cache/own-files.js';

/**
 * Where the cache lives: `CORE_CACHE_DIR`, else `node_modules/.cache/core-js-packages` in the
 * workspace when it has a node_modules directory (as Babel, Vite and ESLint keep theirs), else
 * `$XDG_CACHE_HOME/core-js-packages/<hash of the workspace path>` (`~/.cache` by default).
 */
export function cacheLocation(root: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.CORE_CACHE_DIR) return path.resolve(env.CORE_CACHE_DIR);
  const modules = path.join(root, 'node_modules');
  if (fs.statSync(modules, { throwIfNoEntry: false })?.isDirectory()) return path.join(modules, '.cache', 'core-js-packages');
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(base, 'core-js-packages', crypto.createHash('sha256').update(realDirectory(root)).digest('hex').slice(0, 16));
}

// In the shared place (`~/.cache/core-js-packages/<id>/`), the caches of workspaces that no
// longer exist (a temporary directory, a removed clone) would stay for ever: each service, once,
// removes those whose recorded workspace is gone.
export async function removeCachesOfRemovedWorkspaces(dir: string) {
  const shared = path.dirname(dir);
  if (path.basename(shared) !== 'core-js-packages' || !/^[0-9a-f]{16}$/.test(path.basename(dir))) return;
  const ids = await fs.promises.readdir(shared).catch(() => [] as string[]);
  for (const id of ids) {
    if (!/^[0-9a-f]{16}$/.test(id) || id === path.basename(dir)) continue;
    // Read as every file of the cache is: one that is no regular file is never waited on, and judged by nobody.
    const read = await readCacheFileAsync(path.join(shared, id, INDEX));
    const text = read === 'missing' || 'damage' in read ? null : read.bytes.toString('utf8');
    let root: unknown = null;
    try {
      root = text === null ? null : (JSON.parse(text) as { root?: unknown }).root;
    } catch {
      continue; // being written, or not ours to judge
    }
    // Only a workspace known to be gone: a path that cannot be looked at (a drive not mounted,
    // no permission) or is not absolute says nothing about it, and its cache stays.
    if (typeof root !== 'string' || !path.isAbsolute(root) || !isGone(root)) continue;
    // The cache's own files only, as `core cache --clear` removes them: anything else stays.
    clearCacheDirectory(path.join(shared, id));
  }
}

function isGone(file: string): boolean {
  try {
    fs.lstatSync(file);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
