// Outputs a previous `core dist` wrote into the same directory that this one no longer
// produces (an older version, a module that became invalid or was removed). Only paths the
// previous core-distribution.json lists are candidates, so nothing else in the directory is
// ever touched; a path that would leave the directory is ignored, and a file is removed only
// when it is still what that run wrote (src/dist/write-distribution.ts).
import { isInside, normalizeRelative } from '../workspace/paths.js';
import type { DistributionManifest } from './distribution-manifest.js';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';

/** A file an earlier run listed: where, and the content hash and size it wrote there (unknown when the record lacks them). */
export interface ListedOutput {
  path: string;
  hash?: string;
  size?: number;
}

/** `previous`: the parsed JSON of the old manifest, of any shape. */
export function staleOutputs(previous: unknown, next: Pick<DistributionManifest, 'outputs'>): ListedOutput[] {
  const listed = (previous as { outputs?: unknown } | null)?.outputs;
  if (!Array.isArray(listed)) return [];
  const kept = new Set(next.outputs.map((output) => output.path));
  const stale = new Map<string, ListedOutput>();
  for (const output of listed) {
    const { path, hash, size } = (output ?? {}) as { path?: unknown; hash?: unknown; size?: unknown };
    if (typeof path !== 'string') continue;
    const normal = normalizeRelative(path);
    if (normal === null || normal === '.' || !isInside(normal) || normal !== path || path === DISTRIBUTION_MANIFEST) continue;
    if (!kept.has(path) && !stale.has(path)) stale.set(path, { path, ...(typeof hash === 'string' ? { hash } : {}), ...(typeof size === 'number' ? { size } : {}) });
  }
  return [...stale.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
