// The build cache's write (README "The build cache"): every successful build of the built-in
// bundlers with its outputs still in memory, a pack of the outputs no pack holds first, the
// index last, each renamed into place; a write that would change nothing writes nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { BuildRecord } from '../../store/state.js';
import type { OutputCache } from '../../outputs/output-cache.js';
import { UNVERIFIED, type OutputRef } from '../../store/events.js';
import { fingerprintOf } from '../../store/reducer.js';
import { workspaceBoundaries } from '../../workspace/boundaries.js';
import { bundlerKey, type WorkspaceModel } from '../../workspace/model.js';
import type { FileHashes, FileSignature } from '../file-hashes.js';
import type { LinksOfReads } from '../read-links.js';
import { pathRecord } from '../../workspace/path-records.js';
import { LINK_TARGET } from '../../workspace/paths.js';
import { removeCachesOfRemovedWorkspaces } from '../cache-location.js';
import { CACHE_FORMAT, isCacheEntry, isOutputPack, sealedIndex, type CacheEntry, type CacheIdentity, type CacheIndex, type OutputPack, type WorkspaceSnapshot } from '../cache-index.js';
import type { OutputPacks } from './output-packs.js';
import { isKeptBundler } from './restore.js';
import { exists, removeAbandonedWrites, writeAtomically } from './write-atomically.js';

/** How many times a write names its outputs again when another service removed a pack its index names, before it gives up until the next write. */
const MAX_REWRITES = 3;

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
  /** What each read of this run asked of links, by its model's sources: a model of no known read is not saved. */
  links: LinksOfReads;
  /** The clock a temporary file's age is judged by (Date.now unless a test moves it). */
  now?(): number;
}

export interface CacheWriter {
  write(builds: readonly SavedBuild[], workspace: WorkspaceModel): Promise<void>;
  /** The index as read at start, and the checksum it was sealed with: written again unchanged, it is not written. */
  readAtStart(index: CacheIndex, checksum: string): void;
}

/** What the index on disk says, as this service last read or wrote it. */
interface IndexOnDisk {
  /** The hash its text was sealed with (`indexText`): a new text of the same hash is the same index. */
  checksum: string;
  /**
   * Its entries by module and variant, made on the first write that asks (read at start, the
   * index is not gone through again before the page); `count` counts every one, also those not
   * of an entry's shape.
   */
  entries(): ReadonlyMap<string, CacheEntry>;
  count: number;
  /** Its packs, or null when the index names one that is not a pack of ours (`isOutputPack`): then it is written again. */
  packs: readonly OutputPack[] | null;
  workspace: WorkspaceSnapshot | undefined;
}

export function createCacheWriter(deps: CacheWriterDeps): CacheWriter {
  const { dir, indexFile, packs } = deps;
  // The index on disk as this service last read or wrote it, so that a write that would change
  // nothing (a restart that built nothing) writes nothing, and finds that out without making
  // the index's text (`unchangedSince`).
  let onDisk: IndexOnDisk | null = null;
  let prunedSiblings = false;

  async function writeIndex(entries: CacheEntry[], named: OutputPack[], workspace: WorkspaceModel) {
    const index: CacheIndex = { format: CACHE_FORMAT, identity: deps.identity, root: deps.workspaceRoot, entries, packs: named, ...snapshotOf(workspace, deps) };
    const { text, checksum } = sealedIndex(index);
    if (onDisk?.checksum !== checksum || !(await exists(indexFile))) await writeAtomically(indexFile, text);
    onDisk = diskView(index, checksum);
  }

  async function tidy(named: readonly OutputPack[]) {
    // The index is written: what follows only tidies, and a failure of it costs nothing the next start needs.
    await packs.tidy(named, indexFile);
    if (!prunedSiblings) {
      prunedSiblings = true;
      // An index's write killed before its rename leaves its temporary file beside it, which no
      // pack's tidy sees (README "The build cache", "Writing"): once a run is enough.
      await removeAbandonedWrites(indexFile, deps.now ?? Date.now);
      await removeCachesOfRemovedWorkspaces(dir).catch(() => {});
    }
  }

  return {
    readAtStart(index, checksum) {
      onDisk = diskView(index, checksum);
    },
    async write(builds, workspace) {
      if (onDisk?.packs && (await unchangedSince(onDisk, onDisk.packs, builds, workspace, deps))) return tidy(onDisk.packs);
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
      // Another service sharing the cache may have removed a pack this index names after it was
      // checked, before the index was renamed into place (src/io/build-cache/output-packs.ts,
      // `removeUnreferenced`): what it held goes to a new pack and the index is written again.
      for (let rewrites = 0; (await packs.gone(named)).length > 0; rewrites += 1) {
        if (rewrites === MAX_REWRITES) throw new CacheNotWritten(new Error('another service sharing it kept removing the packs it named'), true);
        try {
          named = await packs.pack(needed);
          await writeIndex(entries, named, workspace);
        } catch (error) {
          // A new pack the index does not name yet is removed by a later write's tidying.
          throw new CacheNotWritten(error as Error, true);
        }
      }
      await tidy(named);
    },
  };
}

const entryKey = (module: string, variant: string) => `${module}\0${variant}`;

function diskView(index: CacheIndex, checksum: string): IndexOnDisk {
  let entries: Map<string, CacheEntry> | null = null;
  const byKey = () => {
    if (entries) return entries;
    entries = new Map();
    for (const entry of index.entries as unknown[]) if (isCacheEntry(entry)) entries.set(entryKey(entry.module, entry.variant), entry);
    return entries;
  };
  // The index read at start is believed for its entries one by one (`isCacheEntry`) and for its
  // packs only if every one is a pack's name: a path of any other shape is never joined to the directory.
  const packs = Array.isArray(index.packs) && (index.packs as unknown[]).every(isOutputPack) ? index.packs : null;
  return { checksum, entries: byKey, count: index.entries.length, packs, workspace: index.workspace };
}

// Whether the index on disk already says what a write of `builds` would: the same builds (each
// record's parts the very objects the entry was read or written with: a build since makes new
// ones), each input and workspace source with the stat it was last proved by, the same model
// and its packs still there. A record read from an entry was judged against this very model on
// restore (its declaration, bundler and boundaries: `factsHold`), and one written was made from
// it, so those need no second look. Anything else, or any doubt, takes the whole write, which
// compares the text it makes.
async function unchangedSince(disk: IndexOnDisk, packs: readonly OutputPack[], builds: readonly SavedBuild[], workspace: WorkspaceModel, deps: CacheWriterDeps): Promise<boolean> {
  const { hashes, outputs } = deps;
  if (builds.length !== disk.count || disk.workspace?.model !== workspace || disk.workspace.reader !== deps.reader) return false;
  const entries = disk.entries();
  if (entries.size !== disk.count) return false;
  for (const [source, hash] of Object.entries(workspace.sources)) {
    if (hash !== null && !source.endsWith(LINK_TARGET) && !sameSignature(hashes.signature(source), disk.workspace.signatures[source])) return false;
  }
  for (const { module, variant, record } of builds) {
    const entry = entries.get(entryKey(module, variant));
    if (!entry || !record.outputs || record.outputs !== entry.record.outputs || !sameFindings(record, entry.record)) return false;
    // Only outputs still in memory are written (`entriesOf`): one collected since leaves its entry out.
    const { code, styles, chunks } = record.outputs;
    if (!outputs.get(code.hash) || (styles !== null && !outputs.get(styles.hash))) return false;
    if (chunks) for (const chunk of Object.values(chunks)) if (!outputs.get(chunk.hash)) return false;
    const signatures = entry.signatures;
    for (const input in record.inputs) {
      if (record.inputs[input] === null ? signatures?.[input] !== undefined : !sameSignature(hashes.signature(input), signatures?.[input])) return false;
    }
  }
  for (const { file } of packs) if (!(await exists(path.join(deps.packs.dir, file)))) return false;
  return exists(deps.indexFile);
}

// What an entry keeps of a record besides its outputs (`entriesOf`), member by member the same objects.
function sameFindings(record: BuildRecord, kept: CacheEntry['record']): boolean {
  let members = 0;
  for (const name in record) {
    if (name === 'build' || name === 'errors' || name === 'outputs') continue;
    if (record[name as keyof BuildRecord] !== kept[name as keyof CacheEntry['record']]) return false;
    members += 1;
  }
  // `kept` holds its outputs besides these.
  return Object.keys(kept).length === members + 1;
}

function sameSignature(now: FileSignature | null | undefined, then: FileSignature | undefined): boolean {
  if (!now || !then || now.length !== then.length) return false;
  for (let at = 0; at < now.length; at += 1) if (now[at] !== then[at]) return false;
  return true;
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
    // Keyed by this module's own paths, kept with the index (src/workspace/path-records.ts).
    const signatures: Record<string, FileSignature> = pathRecord();
    for (const [input, hash] of Object.entries(record.inputs)) {
      const signature = hash === null ? null : hashes.signature(input);
      if (signature && signature[0] === hash) signatures[input] = signature;
    }
    entries.push({ module: specifier, variant, fingerprint: fingerprintOf(module), bundler: bundlerKey(module.bundler), boundaries, record: { ...kept, outputs: record.outputs }, signatures });
  }
  return { entries, needed };
}

// Only a model whose every source this reader last saw with the recorded hash, and whose read's
// links are known: a manifest changed since the model was read (the state is about to read it
// again) leaves no snapshot.
function snapshotOf(workspace: WorkspaceModel, { hashes, reader, links: linksOfReads }: CacheWriterDeps): { workspace?: WorkspaceSnapshot } {
  const links = linksOfReads.get(workspace.sources);
  if (!links) return {};
  const signatures: Record<string, FileSignature> = {};
  for (const [source, hash] of Object.entries(workspace.sources)) {
    // Where a link leads has no stat to sign: the links the read asked (`links`) are checked instead.
    if (hash === null || source.endsWith(LINK_TARGET)) continue;
    const signature = hashes.signature(source);
    if (!signature || signature[0] !== hash) return {};
    signatures[source] = signature;
  }
  return { workspace: { reader, model: workspace, signatures, links } };
}

