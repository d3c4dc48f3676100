// The build cache's write (README "The build cache"): every successful build of the built-in
// bundlers with its outputs still in memory, a pack of the outputs no pack holds first, the
// index last, each renamed into place; a write that would change nothing writes nothing.
import fs from 'node:fs';
import type { BuildRecord } from '../../store/state.js';
import type { OutputCache } from '../../outputs/output-cache.js';
import { contentHash } from '../../outputs/content-hash.js';
import { UNVERIFIED, type OutputRef } from '../../store/events.js';
import { fingerprintOf } from '../../store/reducer.js';
import { workspaceBoundaries } from '../../workspace/boundaries.js';
import { bundlerKey, type WorkspaceModel } from '../../workspace/model.js';
import type { FileHashes, FileSignature } from '../file-hashes.js';
import { removeCachesOfRemovedWorkspaces } from '../cache-location.js';
import { CACHE_FORMAT, indexText, type CacheEntry, type CacheIdentity, type CacheIndex, type OutputPack, type WorkspaceSnapshot } from '../cache-index.js';
import type { OutputPacks } from './output-packs.js';
import { isKeptBundler } from './restore.js';
import { exists, writeAtomically } from './write-atomically.js';

export interface SavedBuild {
  module: string;
  variant: string;
  record: BuildRecord;
}

/** The index could not be written; `earlierIndexKept`: the one an earlier write left is still there. */
export class CacheNotWritten extends Error {
  constructor(
    cause: Error,
    readonly earlierIndexKept: boolean,
  ) {
    super(cause.message, { cause });
  }
}

export interface CacheWriterDeps {
  dir: string;
  indexFile: string;
  identity: CacheIdentity;
  workspaceRoot: string;
  reader: string;
  hashes: FileHashes;
  outputs: OutputCache;
  packs: OutputPacks;
}

export interface CacheWriter {
  write(builds: readonly SavedBuild[], workspace: WorkspaceModel): Promise<void>;
  /** The index's text as read at start: written again unchanged, it is not written. */
  readAtStart(text: string): void;
}

export function createCacheWriter(deps: CacheWriterDeps): CacheWriter {
  const { dir, indexFile, packs } = deps;
  // The index on disk as this service last read or wrote it, so that a write that would change
  // nothing (a restart that built nothing) writes nothing: its text as read at start, then the
  // hash of what was written.
  let indexOnDisk: { text: string } | { hash: string } | null = null;
  let prunedSiblings = false;

  async function writeIndex(entries: CacheEntry[], named: OutputPack[], workspace: WorkspaceModel) {
    const index: CacheIndex = { format: CACHE_FORMAT, identity: deps.identity, root: deps.workspaceRoot, entries, packs: named, ...snapshotOf(workspace, deps) };
    const text = indexText(index);
    const hash = contentHash(text);
    const unchanged = indexOnDisk !== null && ('text' in indexOnDisk ? indexOnDisk.text === text : indexOnDisk.hash === hash);
    if (!unchanged || !(await exists(indexFile))) await writeAtomically(indexFile, text);
    indexOnDisk = { hash };
  }

  return {
    readAtStart(text) {
      indexOnDisk = { text };
    },
    async write(builds, workspace) {
      const { entries, needed } = entriesOf(builds, workspace, deps);
      const packsBefore = packs.known();
      let named: OutputPack[] = [];
      try {
        await fs.promises.mkdir(packs.dir, { recursive: true });
        named = await packs.pack(needed);
        await writeIndex(entries, named, workspace);
      } catch (error) {
        // The index on disk is the one before: a pack only this write named would stay for ever,
        // and nothing here remembers the failure, so the next write starts as this one did.
        await packs.discard(named, packsBefore);
        throw new CacheNotWritten(error as Error, await exists(indexFile));
      }
      // The index is written: what follows only tidies, and a failure of it costs nothing the next start needs.
      await packs.tidy(named);
      if (!prunedSiblings) {
        prunedSiblings = true;
        await removeCachesOfRemovedWorkspaces(dir).catch(() => {});
      }
    },
  };
}

// The entries of the builds worth keeping, and the outputs they name by hash.
function entriesOf(builds: readonly SavedBuild[], workspace: WorkspaceModel, { hashes, outputs }: CacheWriterDeps) {
  const boundaries = workspaceBoundaries(workspace).key;
  const modules = new Map(workspace.modules.map((module) => [module.specifier, module]));
  const entries: CacheEntry[] = [];
  const needed = new Map<string, Buffer>();
  for (const { module: specifier, variant, record } of builds) {
    const module = modules.get(specifier);
    if (!module || !record.outputs || !isKeptBundler(module.bundler.specifier)) continue;
    if (Object.values(record.inputs).includes(UNVERIFIED)) continue;
    // Only outputs still in memory: one collected since has no entry.
    const refs = [record.outputs.code, record.outputs.styles, ...Object.values(record.outputs.chunks ?? {})].filter((ref): ref is OutputRef => ref !== null);
    if (!refs.every((ref) => outputs.get(ref.hash))) continue;
    for (const ref of refs) needed.set(ref.hash, outputs.get(ref.hash)!);
    const { build: _build, errors: _errors, outputs: _outputs, ...kept } = record;
    const signatures: Record<string, FileSignature> = {};
    for (const [input, hash] of Object.entries(record.inputs)) {
      const signature = hash === null ? null : hashes.signature(input);
      if (signature && signature[0] === hash) signatures[input] = signature;
    }
    entries.push({ module: specifier, variant, fingerprint: fingerprintOf(module), bundler: bundlerKey(module.bundler), boundaries, record: { ...kept, outputs: record.outputs }, signatures });
  }
  return { entries, needed };
}

// Only a model whose every source this reader last saw with the recorded hash: a manifest
// changed since the model was read (the state is about to read it again) leaves no snapshot.
function snapshotOf(workspace: WorkspaceModel, { hashes, reader }: CacheWriterDeps): { workspace?: WorkspaceSnapshot } {
  const signatures: Record<string, FileSignature> = {};
  for (const [source, hash] of Object.entries(workspace.sources)) {
    if (hash === null) continue;
    const signature = hashes.signature(source);
    if (!signature || signature[0] !== hash) return {};
    signatures[source] = signature;
  }
  return { workspace: { reader, model: workspace, signatures } };
}

