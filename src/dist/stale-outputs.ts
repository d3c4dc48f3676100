// Outputs a previous `core dist` wrote into the same directory that this one no longer
// produces (an older version, a module that became invalid or was removed). Only paths the
// previous core-distribution.json lists are candidates, so nothing else in the directory is
// ever touched; a path that would leave the directory is ignored, and a file is removed only
// when it is still what that run wrote (src/dist/write-distribution.ts).
import { isInside, normalizeRelative } from '../workspace/paths.js';
import { DISTRIBUTION_FORMAT, type DistributionManifest } from './distribution-manifest.js';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';

/** A file an earlier run listed: where, and the content hash and size it wrote there (unknown when the record lacks them). */
export interface ListedOutput {
  path: string;
  hash?: string;
  size?: number;
}

/**
 * Whether `value` (a parsed core-distribution.json) is a record of core dist: of this format, with
 * its list of outputs. Any other JSON there is a file of the user's (README "Distribution: core dist").
 */
export function isDistributionRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { format, outputs } = value as { format?: unknown; outputs?: unknown };
  return format === DISTRIBUTION_FORMAT && Array.isArray(outputs);
}

/**
 * Every file an earlier run's record lists, the page included, by path, with the hash and size it
 * wrote there when the record keeps them: the only files at an output's place a run may replace
 * (README "Distribution: core dist").
 */
export function listedOutputs(previous: unknown): Map<string, ListedOutput> {
  const listed = new Map<string, ListedOutput>();
  if (!isDistributionRecord(previous)) return listed;
  const { outputs, page } = previous as { outputs: unknown[]; page?: unknown };
  for (const output of [...outputs, page]) {
    const entry = listedOutput(output);
    if (entry && !listed.has(entry.path)) listed.set(entry.path, entry);
  }
  return listed;
}

function listedOutput(output: unknown): ListedOutput | null {
  const { path, hash, size } = (output ?? {}) as { path?: unknown; hash?: unknown; size?: unknown };
  if (typeof path !== 'string') return null;
  const normal = normalizeRelative(path);
  if (normal === null || normal === '.' || !isInside(normal) || normal !== path || path === DISTRIBUTION_MANIFEST) return null;
  return { path, ...(typeof hash === 'string' ? { hash } : {}), ...(typeof size === 'number' ? { size } : {}) };
}

/** `previous`: the parsed JSON of the old manifest, of any shape. */
export function staleOutputs(previous: unknown, next: Pick<DistributionManifest, 'outputs'>): ListedOutput[] {
  const listed = (previous as { outputs?: unknown } | null)?.outputs;
  if (!Array.isArray(listed)) return [];
  const kept = new Set(next.outputs.map((output) => output.path));
  const stale = new Map<string, ListedOutput>();
  for (const output of listed) {
    const entry = listedOutput(output);
    if (entry && !kept.has(entry.path) && !stale.has(entry.path)) stale.set(entry.path, entry);
  }
  return [...stale.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
