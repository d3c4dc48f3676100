// The name a listed package directory may own while it has no package.json to read (README
// "Workspaces"): moved away by a checkout half-way, emptied, or not yet written. Its importers'
// imports of that name are never sent to a CDN, where anyone may have published it. Pure.
import { isObject, parseJson } from './json.js';
import type { WorkspaceModel } from './model.js';
import { isPackageName } from './package-manifest.js';
import type { SourceReader } from './source-reader.js';

export interface KnownIdentity {
  name: string;
  version: string | null;
}

/** By package directory (workspace-relative), the name and version an earlier model knew it by. */
export type KnownIdentities = ReadonlyMap<string, KnownIdentity>;

/**
 * What `model` knew of each listed directory: the packages it read, and the unread ones whose
 * name it knew. An earlier read of this run, or the build cache's saved model, passes a
 * directory's name on to the reads that find it absent.
 */
export function knownIdentities(model: WorkspaceModel | null | undefined): Map<string, KnownIdentity> {
  const known = new Map<string, KnownIdentity>();
  if (!model) return known;
  for (const pkg of model.packages) known.set(pkg.dir, { name: pkg.name, version: pkg.version });
  for (const pkg of model.unreadPackages ?? []) {
    // A file broken before its name still has the name of its last good read, kept for the contest it holds.
    const name = pkg.name ?? pkg.lastReadName ?? null;
    if (name !== null && !known.has(pkg.dir)) known.set(pkg.dir, { name, version: pkg.version });
  }
  return known;
}

/** The lockfiles npm writes for workspaces, the one in the workspace first, then the one it keeps in node_modules. */
export const LOCKFILES = ['package-lock.json', 'node_modules/.package-lock.json'] as const;

/**
 * The name npm's lockfile gives the workspace directory `dir`: `packages[dir].name`, else the
 * `node_modules/<name>` entry that links to `dir` (npm links each workspace package so). A
 * lockfile reached through a link leaving the workspace is not read; one that is not JSON, or
 * names nothing valid, gives null.
 */
export function lockfileIdentity(reader: Pick<SourceReader, 'readText' | 'leaves'>, dir: string): KnownIdentity | null {
  for (const lockfile of LOCKFILES) {
    if (reader.leaves?.(lockfile) || (lockfile.startsWith('node_modules/') && reader.leaves?.('node_modules'))) continue;
    const file = reader.readText(lockfile);
    if (!file) continue;
    const parsed = parseJson(file.text, lockfile);
    const packages = parsed.ok && isObject(parsed.value) ? parsed.value.packages : undefined;
    if (!isObject(packages)) continue;
    const entry = Object.hasOwn(packages, dir) ? packages[dir] : undefined;
    const version = isObject(entry) && typeof entry.version === 'string' ? entry.version : null;
    if (isObject(entry) && typeof entry.name === 'string' && isPackageName(entry.name)) return { name: entry.name, version };
    for (const [key, link] of Object.entries(packages)) {
      if (!key.startsWith('node_modules/') || !isObject(link) || link.link !== true || link.resolved !== dir) continue;
      const name = key.slice('node_modules/'.length);
      if (isPackageName(name)) return { name, version };
    }
  }
  return null;
}
