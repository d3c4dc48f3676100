// Outputs a previous `core dist` wrote into the same directory that this one no longer
// produces (an older version, a module that became invalid or was removed). Only paths the
// previous core-distribution.json lists are candidates, so nothing else in the directory is
// ever touched; a path that would leave the directory is ignored.
import { isInside, normalizeRelative } from '../workspace/paths.js';
import type { DistributionManifest } from './distribution-manifest.js';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';

/** `previous`: the parsed JSON of the old manifest, of any shape. */
export function staleOutputs(previous: unknown, next: Pick<DistributionManifest, 'outputs'>): string[] {
  const listed = (previous as { outputs?: unknown } | null)?.outputs;
  if (!Array.isArray(listed)) return [];
  const kept = new Set(next.outputs.map((output) => output.path));
  const stale = new Set<string>();
  for (const output of listed) {
    const path = (output as { path?: unknown } | null)?.path;
    if (typeof path !== 'string') continue;
    const normal = normalizeRelative(path);
    if (normal === null || normal === '.' || !isInside(normal) || normal !== path || path === DISTRIBUTION_MANIFEST) continue;
    if (!kept.has(path)) stale.add(path);
  }
  return [...stale].sort();
}
