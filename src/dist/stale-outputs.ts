// Outputs a previous `core dist` wrote into the same directory that this one no longer
// produces (an older version, a module that became invalid or was removed). Only paths the
// previous core-distribution.json lists are candidates, so nothing else in the directory is
// ever touched; a path that would leave the directory is ignored, and a file is removed only
// when it is still what that run wrote (src/dist/write-distribution.ts).
import { isInside, normalizeRelative } from '../workspace/paths.js';
import { DISTRIBUTION_FORMAT, type DistributionManifest } from './distribution-manifest.js';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';

/** Bytes a record lists at a place: their content hash and size (unknown when the record lacks them). */
export interface ListedBytes {
  hash?: string;
  size?: number;
}

/**
 * A file an earlier run listed: where, and the bytes it wrote there; a pending record (a run
 * stopped while writing) lists two at a place, the old and the new, and either is that run's
 * (README "Distribution: core dist").
 */
export interface ListedOutput {
  path: string;
  versions: ListedBytes[];
}

/**
 * A record's `pending` (the outputs) and `pendingPages`: what a run was about to rename into place
 * when it wrote that record, before its first rename.
 */
export interface PendingOutput {
  path: string;
  hash: string;
  size: number;
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
  const { outputs, page, pending, pendingPages } = previous as { outputs: unknown[]; page?: unknown; pending?: unknown; pendingPages?: unknown };
  const listedIn = (entries: unknown): unknown[] => (Array.isArray(entries) ? entries : []);
  for (const output of [...outputs, page, ...listedIn(pending), ...listedIn(pendingPages)]) add(listed, output);
  return listed;
}

// One more version of the bytes at a place: an interrupted run's record lists the old and the new.
function add(listed: Map<string, ListedOutput>, output: unknown): void {
  const entry = listedOutput(output);
  if (entry === null) return;
  const known = listed.get(entry.path);
  if (known === undefined) listed.set(entry.path, entry);
  else known.versions.push(...entry.versions);
}

function listedOutput(output: unknown): ListedOutput | null {
  const { path, hash, size } = (output ?? {}) as { path?: unknown; hash?: unknown; size?: unknown };
  if (typeof path !== 'string') return null;
  const normal = normalizeRelative(path);
  if (normal === null || normal === '.' || !isInside(normal) || normal !== path || path === DISTRIBUTION_MANIFEST) return null;
  return { path, versions: [{ ...(typeof hash === 'string' ? { hash } : {}), ...(typeof size === 'number' ? { size } : {}) }] };
}

/** `previous`: the parsed JSON of the old manifest, of any shape. */
// A pending record's new outputs are candidates as its old ones are: the run that wrote it may
// have renamed them into place before it stopped.
export function staleOutputs(previous: unknown, next: Pick<DistributionManifest, 'outputs'>): ListedOutput[] {
  const listed = (previous as { outputs?: unknown } | null)?.outputs;
  if (!Array.isArray(listed)) return [];
  const pending = (previous as { pending?: unknown }).pending;
  const kept = new Set(next.outputs.map((output) => output.path));
  const stale = new Map<string, ListedOutput>();
  for (const output of [...listed, ...(Array.isArray(pending) ? pending : [])]) {
    const entry = listedOutput(output);
    if (entry && !kept.has(entry.path)) add(stale, output);
  }
  return [...stale.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
