// The persistent build cache (README "The build cache"): what a build produced, and the facts
// that produced it, kept on disk so that a restart builds only what changed. Every entry is
// keyed by content hashes (of each input, tsconfig files included), the module's declaration,
// the workspace's module boundaries, the variant, and the versions of the service and of
// esbuild; on load, each is checked against the disk and kept only if all still hold. A file
// that cannot be parsed or was changed since written (`cache-index.ts`), a format, version or
// workspace that is not this one, an output whose bytes do not hash to their name: ignored, and
// those modules are built as on a first start.
//
// Writes are atomic (a temporary file renamed over the old one), so services sharing a cache
// never read a half-written file. The outputs are in a few pack files that the index names,
// written before it: a restart reads those instead of one file per output (2,000 opens, reads
// and closes for 1,000 modules). A write adds a pack of the outputs no pack holds yet; once the
// packs named are mostly outputs no entry needs, or too many, one pack of the rest replaces them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BuildRecord } from '../store/state.js';
import type { OutputCache } from '../outputs/output-cache.js';
import { contentHash, isContentHash } from '../outputs/content-hash.js';
import { UNVERIFIED, type Fact, type OutputRef, type RestoredBuild } from '../store/events.js';
import { workspaceBoundaries } from '../workspace/boundaries.js';
import { bundlerKey, type ModuleModel, type WorkspaceModel } from '../workspace/model.js';
import { BUILTIN_BUNDLERS } from '../workspace/read-workspace.js';
import { fingerprintOf, isBuildable } from '../store/reducer.js';
import type { FileHashes, FileSignature } from './file-hashes.js';
import { INDEX, realRoot, removeCachesOfRemovedWorkspaces } from './cache-location.js';
import {
  arePlainPaths,
  CACHE_FORMAT,
  indexText,
  isCacheEntry,
  isFileSignature,
  isOutputPack,
  isWorkspaceSnapshot,
  PACK_NAME,
  parseIndex,
  type CacheEntry,
  type CacheIdentity,
  type CacheIndex,
  type OutputPack,
  type WorkspaceSnapshot,
} from './cache-index.js';

export { CACHE_FORMAT, type CacheIdentity } from './cache-index.js';
export { cacheLocation } from './cache-location.js';

const OUTPUTS = 'outputs';

/** More packs than this, or packs more than half of no use, and one pack of what is used replaces them. */
const MAX_PACKS = 8;

export interface BuildCache {
  readonly dir: string;
  /**
   * The workspace model of the last run when no manifest or listing it was read from changed
   * since (each proved by its stat, as inputs are), so the first read reads nothing; else null.
   */
  restoreWorkspace(): WorkspaceModel | null;
  /** The builds still valid for `workspace`, their outputs put in `outputs`; or why none is. */
  restore(workspace: WorkspaceModel): Extract<Fact, { type: 'cache.restored' }>;
  /**
   * Judges entries kept elsewhere (the team's remote cache, README "A team's remote cache") as
   * this cache's own are judged on restore, outputs aside: `damaged` when not of an entry's shape,
   * `stale` when the workspace or an input is not what the build saw.
   */
  entryChecker(workspace: WorkspaceModel): (entry: unknown) => 'valid' | 'stale' | 'damaged';
  /**
   * Writes every successful build of `builds` (and its outputs, from `outputs`) as the cache,
   * without blocking the service: a pack of the outputs no pack holds first, the index last,
   * each renamed into place.
   */
  save(builds: readonly SavedBuild[], workspace: WorkspaceModel): Promise<void>;
  /** Resolves once no write is in progress: a stopping service waits for its last one. */
  idle(): Promise<void>;
}

export interface SavedBuild {
  module: string;
  variant: string;
  record: BuildRecord;
}

/** Only the built-in bundlers' results are kept: their version is the service's and esbuild's. */
const BUILTIN = new Set(Object.values(BUILTIN_BUNDLERS));

export interface BuildCacheDeps {
  /** The reader of the service's inputs: hashes taken at restore are its own, not read twice. */
  hashes: FileHashes;
  outputs: OutputCache;
  /** The hash of the code that reads manifests (`workspaceReaderCodeHash`). */
  reader: string;
  /** Where a bad cache is told, once per start. */
  logger?(message: string): void;
}

export function createBuildCache(dir: string, root: string, identity: CacheIdentity, deps: BuildCacheDeps): BuildCache {
  const { hashes, outputs, reader } = deps;
  const indexFile = path.join(dir, INDEX);
  let prunedSiblings = false;
  const outputsDir = path.join(dir, OUTPUTS);
  /** The size of each pack this service wrote or read: none is about to be named by another's index. */
  const knownPacks = new Map<string, number>();
  /** Where the outputs of the packs this service read, or wrote, lie. */
  const packed = new Map<string, { file: string; start: number }>();
  const workspaceRoot = realRoot(root);

  // The index on disk as this service last read or wrote it, so that a write that would change
  // nothing (a restart that built nothing) writes nothing: its text as read at start, then the
  // hash of what was written.
  let indexOnDisk: { text: string } | { hash: string } | null = null;

  // Read once on start, for the workspace's restoration and then the builds'.
  let startIndex: CacheIndex | { ignored: string; damaged: boolean } | null = null;
  const indexAtStart = () => (startIndex ??= readIndex());

  // A bad cache is said once per start, in one line: what was wrong and that it is rebuilt.
  let toldDamage = false;
  const tellDamage = (what: string) => {
    if (!toldDamage) deps.logger?.(`core: the build cache in ${dir} is damaged (${what}); what it cannot vouch for is built again and the cache written anew`);
    toldDamage = true;
  };

  function readIndex(): CacheIndex | { ignored: string; damaged: boolean } {
    let text: string;
    try {
      text = fs.readFileSync(indexFile, 'utf8');
    } catch {
      return { ignored: 'no cache yet', damaged: false };
    }
    const parsed = parseIndex(text, { identity, root: workspaceRoot, file: indexFile });
    if (!('index' in parsed)) return parsed;
    indexOnDisk = { text };
    return parsed.index;
  }

  // The packs the index names, each read whole once: where each output lies. A pack cut short
  // or missing leaves the outputs past its end, or all of its own, to be built again.
  function readPacks(packs: readonly unknown[]): Map<string, { file: string; bytes: Buffer; start: number }> {
    const found = new Map<string, { file: string; bytes: Buffer; start: number }>();
    for (const pack of packs) {
      if (!isOutputPack(pack)) continue;
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(path.join(outputsDir, pack.file));
      } catch {
        continue;
      }
      knownPacks.set(pack.file, bytes.length);
      for (const [hash, start] of Object.entries(pack.at)) {
        found.set(hash, { file: pack.file, bytes, start });
        // Named again by a later write without being read: its bytes are checked when restored.
        if (isContentHash(hash) && start < bytes.length) packed.set(hash, { file: pack.file, start });
      }
    }
    return found;
  }

  // An output is trusted only if its bytes hash to its name. Kept as a view of its pack: the
  // outputs restored together share the packs' reads.
  function loadOutput({ hash, size }: OutputRef, packs: ReturnType<typeof readPacks>): boolean {
    if (outputs.get(hash)) return true;
    const place = packs.get(hash);
    if (!place || !isContentHash(hash) || !Number.isSafeInteger(size) || size < 0) return false;
    const { bytes, start } = place;
    // Kept by the hash of its bytes, whatever its name: bytes that are not the named output are
    // never asked for, and go with the next collection of unreferenced outputs. A pack's copy
    // found wrong is never named again: a build of the same output goes to a new pack.
    if (Number.isSafeInteger(start) && start >= 0 && start + size <= bytes.length && outputs.adopt(bytes.subarray(start, start + size)).hash === hash) return true;
    packed.delete(hash);
    return false;
  }

  // Each input as it is now: unchanged since its hash was taken (the same stat), else read and
  // hashed again. One answer per path for the whole restoration: modules share tsconfig files.
  function inputMatcher() {
    const now = new Map<string, string | null>();
    return (input: string, hash: string | null, signature: FileSignature | undefined): boolean => {
      if (hash === UNVERIFIED) return false;
      let current = now.get(input);
      if (current === undefined) {
        current = signature && signature[0] === hash && hashes.adopt(input, signature) ? hash : hashes.stamp(input).hash;
        now.set(input, current);
      }
      return current === hash;
    };
  }

  // `damaged`: what the index or a pack says is not what was written (an entry not of its shape,
  // an output no pack holds whole); `stale`: the workspace changed since.
  function stillValid(entry: unknown, modules: ReadonlyMap<string, ModuleModel>, boundaries: string, matches: ReturnType<typeof inputMatcher>, packs: ReturnType<typeof readPacks>): entry is CacheEntry {
    if (!isCacheEntry(entry)) throw new DamagedEntry('an entry is not of its shape');
    if (!factsHold(entry, modules, boundaries, matches)) return false;
    const { record } = entry;
    const chunks = Object.values(record.outputs.chunks ?? {});
    if (!loadOutput(record.outputs.code, packs) || (record.outputs.styles !== null && !loadOutput(record.outputs.styles, packs)) || !chunks.every((chunk) => loadOutput(chunk, packs))) {
      throw new DamagedEntry('an output is missing from its pack or its bytes do not hash to its name');
    }
    return true;
  }

  // The entry's module, declaration, bundler and boundaries are the workspace's, and every input
  // still hashes as the build read it: what makes a build's outputs valid, wherever they are kept.
  function factsHold(entry: CacheEntry, modules: ReadonlyMap<string, ModuleModel>, boundaries: string, matches: ReturnType<typeof inputMatcher>): boolean {
    const module = modules.get(entry.module);
    if (!module || !isBuildable(module) || fingerprintOf(module) !== entry.fingerprint) return false;
    if (bundlerKey(module.bundler) !== entry.bundler || !BUILTIN.has(module.bundler.specifier) || entry.boundaries !== boundaries) return false;
    if (!arePlainPaths(entry.record.inputs)) return false;
    for (const [input, hash] of Object.entries(entry.record.inputs)) {
      if (!matches(input, hash, entry.signatures?.[input])) return false;
    }
    return true;
  }

  async function writeAtomically(file: string, content: string | Uint8Array) {
    const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.promises.writeFile(temporary, content);
      await fs.promises.rename(temporary, file);
    } catch (error) {
      // A disk that filled up keeps what was written of it: nobody else would remove it for ten minutes.
      await fs.promises.rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  }

  const writing = new Set<Promise<void>>();

  return {
    dir,
    restoreWorkspace() {
      try {
        return restoreWorkspaceModel();
      } catch (error) {
        // Past the index's checks, a throw is a fault of this code or of the disk: a miss all the
        // same, never a service that does not start.
        tellDamage(`the saved workspace model could not be used: ${(error as Error).message}`);
        return null;
      }
    },
    restore(workspace) {
      try {
        return restoreBuilds(workspace);
      } catch (error) {
        const ignored = `the cache could not be used: ${(error as Error).message}`;
        tellDamage(ignored);
        return { type: 'cache.restored', dir, builds: [], ignored };
      } finally {
        startIndex = null; // read for the start only: 1.7 MB of a 1,000-module workspace is not kept
      }
    },
    entryChecker(workspace) {
      const boundaries = workspaceBoundaries(workspace).key;
      const modules = new Map(workspace.modules.map((module) => [module.specifier, module]));
      const matches = inputMatcher();
      // An entry from elsewhere carries no stats of this disk: its inputs are read and hashed
      // here, never adopted from a stat it names (README "A team's remote cache").
      return (entry) => (!isCacheEntry(entry) ? 'damaged' : factsHold({ ...entry, signatures: undefined }, modules, boundaries, matches) ? 'valid' : 'stale');
    },
    save(builds, workspace) {
      const done = write(builds, workspace).finally(() => writing.delete(done));
      writing.add(done);
      return done;
    },
    async idle() {
      while (writing.size > 0) await Promise.allSettled([...writing]);
    },
  };

  function restoreWorkspaceModel(): WorkspaceModel | null {
    const index = indexAtStart();
    if ('ignored' in index || index.workspace === undefined) return null;
    const snapshot = index.workspace;
    if (!isWorkspaceSnapshot(snapshot)) {
      tellDamage('the saved workspace model is not of its shape');
      return null;
    }
    if (snapshot.reader !== reader || !arePlainPaths(snapshot.model.sources)) return null;
    for (const [source, hash] of Object.entries(snapshot.model.sources)) {
      if (hash === null) {
        if (hashes.stamp(source).hash !== null) return null;
        continue;
      }
      const signature = snapshot.signatures[source];
      if (!isFileSignature(signature) || signature[0] !== hash || !hashes.adopt(source, signature)) return null;
    }
    return snapshot.model;
  }

  function restoreBuilds(workspace: WorkspaceModel): Extract<Fact, { type: 'cache.restored' }> {
    const index = indexAtStart();
    if ('ignored' in index) {
      if (index.damaged) tellDamage(index.ignored);
      return { type: 'cache.restored', dir, builds: [], ignored: index.ignored };
    }
    const boundaries = workspaceBoundaries(workspace).key;
    const matches = inputMatcher();
    const modules = new Map(workspace.modules.map((module) => [module.specifier, module]));
    const packs = readPacks(index.packs);
    const builds: RestoredBuild[] = [];
    let stale = 0;
    for (const entry of index.entries) {
      try {
        if (stillValid(entry, modules, boundaries, matches, packs)) {
          const { outputs, imports, inputs, warnings, shared } = entry.record;
          builds.push({ module: entry.module, variant: entry.variant, outputs, imports, inputs, ...(warnings ? { warnings } : {}), ...(shared ? { shared } : {}) });
          continue;
        }
      } catch (error) {
        if (!(error instanceof DamagedEntry)) throw error;
        tellDamage(error.message);
      }
      stale += 1;
    }
    return { type: 'cache.restored', dir, builds, ...(stale > 0 ? { stale } : {}) };
  }

  // Only a model whose every source this reader last saw with the recorded hash: a manifest
  // changed since the model was read (the state is about to read it again) leaves no snapshot.
  function snapshotOf(workspace: WorkspaceModel): { workspace?: WorkspaceSnapshot } {
    const signatures: Record<string, FileSignature> = {};
    for (const [source, hash] of Object.entries(workspace.sources)) {
      if (hash === null) continue;
      const signature = hashes.signature(source);
      if (!signature || signature[0] !== hash) return {};
      signatures[source] = signature;
    }
    return { workspace: { reader, model: workspace, signatures } };
  }

  // The packs that hold `needed`: those already on disk that hold some, and a new one of the
  // rest; or one new pack of them all when the packs named would be mostly of no use, or too many.
  async function packOutputs(needed: ReadonlyMap<string, Buffer>): Promise<OutputPack[]> {
    const inPacks = new Map<string, Record<string, number>>();
    let used = 0;
    const missing = new Map<string, Buffer>();
    for (const [hash, bytes] of needed) {
      const place = packed.get(hash);
      if (place && knownPacks.has(place.file)) {
        let at = inPacks.get(place.file);
        if (!at) inPacks.set(place.file, (at = {}));
        at[hash] = place.start;
        used += bytes.length;
      } else missing.set(hash, bytes);
    }
    // A pack another service removed since (it was no longer named) holds nothing any more.
    for (const file of inPacks.keys()) {
      if (await exists(path.join(outputsDir, file))) continue;
      knownPacks.delete(file);
      for (const hash of Object.keys(inPacks.get(file)!)) missing.set(hash, needed.get(hash)!);
      inPacks.delete(file);
    }
    const size = [...inPacks.keys()].reduce((sum, file) => sum + knownPacks.get(file)!, 0);
    const repack = inPacks.size + (missing.size > 0 ? 1 : 0) > MAX_PACKS || size - used > used;
    const fresh = repack ? needed : missing;
    const packs = repack ? [] : [...inPacks].map(([file, at]) => ({ file, at }));
    if (fresh.size > 0) {
      const file = `${crypto.randomBytes(8).toString('hex')}.pack`;
      const at: Record<string, number> = {};
      let offset = 0;
      for (const [hash, bytes] of fresh) {
        at[hash] = offset;
        offset += bytes.length;
      }
      await writeAtomically(path.join(outputsDir, file), Buffer.concat([...fresh.values()], offset));
      knownPacks.set(file, offset);
      for (const [hash, start] of Object.entries(at)) packed.set(hash, { file, start });
      packs.push({ file, at });
    }
    return packs;
  }

  async function write(builds: readonly SavedBuild[], workspace: WorkspaceModel): Promise<void> {
    const boundaries = workspaceBoundaries(workspace).key;
    const modules = new Map(workspace.modules.map((module) => [module.specifier, module]));
    const entries: CacheEntry[] = [];
    const needed = new Map<string, Buffer>();
    for (const { module: specifier, variant, record } of builds) {
      const module = modules.get(specifier);
      if (!module || !record.outputs || !BUILTIN.has(module.bundler.specifier)) continue;
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
    const packsBefore = new Set(knownPacks.keys());
    let packs: OutputPack[] = [];
    try {
      await fs.promises.mkdir(outputsDir, { recursive: true });
      packs = await packOutputs(needed);
      const index: CacheIndex = { format: CACHE_FORMAT, identity, root: workspaceRoot, entries, packs, ...snapshotOf(workspace) };
      const text = indexText(index);
      const hash = contentHash(text);
      const unchanged = indexOnDisk !== null && ('text' in indexOnDisk ? indexOnDisk.text === text : indexOnDisk.hash === hash);
      if (!unchanged || !(await exists(indexFile))) await writeAtomically(indexFile, text);
      indexOnDisk = { hash };
    } catch (error) {
      // The index on disk is the one before: a pack only this write named would stay for ever,
      // and nothing here remembers the failure, so the next write starts as this one did.
      for (const { file } of packs) {
        if (packsBefore.has(file)) continue;
        await fs.promises.rm(path.join(outputsDir, file), { force: true }).catch(() => {});
        forgetPack(file);
      }
      throw new CacheNotWritten(error as Error, await exists(indexFile));
    }
    // The index is written: what follows only tidies, and a failure of it costs nothing the next start needs.
    await removeUnreferenced(outputsDir, new Set(packs.map((pack) => pack.file)), knownPacks).catch(() => {});
    for (const [hash, place] of packed) if (!knownPacks.has(place.file)) packed.delete(hash);
    if (!prunedSiblings) {
      prunedSiblings = true;
      await removeCachesOfRemovedWorkspaces(dir).catch(() => {});
    }
  }

  function forgetPack(file: string) {
    knownPacks.delete(file);
    for (const [hash, place] of packed) if (place.file === file) packed.delete(hash);
  }
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

/** An entry of the index that is not what its writer wrote: a miss, and said once. */
class DamagedEntry extends Error {}

const exists = (file: string): Promise<boolean> => fs.promises.stat(file).then(() => true, () => false);

// The packs the index no longer names go, so the cache holds about one build of the workspace
// (and at most as much again that no entry needs). Those this service knows (it wrote them, or
// read them at start) go at once; another's is named by that one's index right after it is
// written, so it goes only once older than that could take. A `.tmp` file is another's write in
// progress, unless it is old: then a killed one's. Anything else (an older format's outputs) goes.
const PACK_NAMED_MS = 10_000;
const ABANDONED_MS = 10 * 60_000;

async function removeUnreferenced(outputsDir: string, kept: ReadonlySet<string>, known: Map<string, number>) {
  const found = await fs.promises.readdir(outputsDir, { withFileTypes: true }).catch(() => []);
  for (const entry of found) {
    const { name } = entry;
    // A directory was never written by a service: someone else's, left alone.
    if (kept.has(name) || !entry.isFile()) continue;
    const file = path.join(outputsDir, name);
    const spared = name.endsWith('.tmp') ? ABANDONED_MS : PACK_NAME.test(name) && !known.has(name) ? PACK_NAMED_MS : 0;
    if (spared > 0) {
      const stats = await fs.promises.stat(file).catch(() => null);
      if (!stats || Date.now() - stats.mtimeMs < spared) continue;
    }
    // One that cannot be removed stays: it is named by no index, so it is never read.
    if (await fs.promises.rm(file, { force: true }).then(() => true, () => false)) known.delete(name);
  }
}
