// The persistent build cache (README "The build cache"): what a build produced, and the facts
// that produced it, kept on disk so that a restart builds only what changed. Every entry is
// keyed by content hashes (of each input, tsconfig files included), the module's declaration,
// the workspace's module boundaries, the variant, and the versions of the service and of
// esbuild; on load, each is checked against the disk and kept only if all still hold. A file
// that cannot be parsed, a format, version or workspace that is not this one, an output whose
// bytes do not hash to their name: ignored, and those modules are built as on a first start.
//
// Writes are atomic (a temporary file renamed over the old one), so services sharing a cache
// never read a half-written file. The outputs are in a few pack files that the index names,
// written before it: a restart reads those instead of one file per output (2,000 opens, reads
// and closes for 1,000 modules). A write adds a pack of the outputs no pack holds yet; once the
// packs named are mostly outputs no entry needs, or too many, one pack of the rest replaces them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
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

/** Bumped whenever what an entry means changes: an older cache is then ignored whole. */
export const CACHE_FORMAT = 3;
const INDEX = 'builds.json';
const OUTPUTS = 'outputs';
const PACK_NAME = /^[0-9a-f]{16}\.pack$/;

/** What keys the whole cache besides each entry's own facts: a service or esbuild of another version never trusts it. */
export interface CacheIdentity {
  /** The version of @core-js/packages. */
  service: string;
  /** esbuild's version: the built-in bundlers' compiler. */
  esbuild: string;
  /** A hash of the built-in bundlers' own code (`src/bundlers/`): how they call esbuild. */
  bundlers: string;
}

interface CacheEntry {
  module: string;
  variant: string;
  /** The module's declaration as the reducer fingerprints it (entry, assets, bundler, define...). */
  fingerprint: string;
  bundler: string;
  /** The workspace's public modules and packages: what decides which imports stay external. */
  boundaries: string;
  record: Omit<BuildRecord, 'build' | 'errors'>;
  /** The stat each input's hash was taken with: an input whose stat is unchanged is not read again. */
  signatures?: Record<string, FileSignature>;
}

/**
 * The workspace model as last saved, and the stat each of its sources (manifests and listings)
 * was read with: when every one is unchanged, reading them again would give this very model.
 */
interface WorkspaceSnapshot {
  /** A hash of the code that reads manifests (src/workspace/): a model read otherwise is not taken. */
  reader: string;
  model: WorkspaceModel;
  /** Of each source that exists; one the model records absent (null) is checked absent. */
  signatures: Record<string, FileSignature>;
}

/** Outputs one after the other in one file of `outputs/`. */
interface OutputPack {
  file: string;
  /** Where each output the entries name starts, by hash; its size is in the entries. */
  at: Record<string, number>;
}

/** More packs than this, or packs more than half of no use, and one pack of what is used replaces them. */
const MAX_PACKS = 8;

interface CacheIndex {
  format: typeof CACHE_FORMAT;
  identity: CacheIdentity;
  /** The workspace's real path: a cache of another workspace is foreign. */
  root: string;
  entries: CacheEntry[];
  packs: OutputPack[];
  workspace?: WorkspaceSnapshot;
}

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
  return path.join(base, 'core-js-packages', crypto.createHash('sha256').update(realRoot(root)).digest('hex').slice(0, 16));
}

const realRoot = (root: string): string => {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
};

/** Only the built-in bundlers' results are kept: their version is the service's and esbuild's. */
const BUILTIN = new Set(Object.values(BUILTIN_BUNDLERS));

export interface BuildCacheDeps {
  /** The reader of the service's inputs: hashes taken at restore are its own, not read twice. */
  hashes: FileHashes;
  outputs: OutputCache;
  /** The hash of the code that reads manifests (`workspaceReaderCodeHash`). */
  reader: string;
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
  let startIndex: CacheIndex | string | null = null;
  const indexAtStart = () => (startIndex ??= readIndex());

  function readIndex(): CacheIndex | string {
    let text: string;
    try {
      text = fs.readFileSync(indexFile, 'utf8');
    } catch {
      return 'no cache yet';
    }
    let index: CacheIndex;
    try {
      index = JSON.parse(text) as CacheIndex;
    } catch {
      return `${indexFile} is not JSON (cut off or corrupt)`;
    }
    if (typeof index !== 'object' || index === null || index.format !== CACHE_FORMAT || !Array.isArray(index.entries)) return `${indexFile} is of another format`;
    if (index.identity?.service !== identity.service || index.identity?.esbuild !== identity.esbuild) {
      return `the cache was written by @core-js/packages ${String(index.identity?.service)} with esbuild ${String(index.identity?.esbuild)}`;
    }
    if (index.identity?.bundlers !== identity.bundlers) return 'the cache was written by other code of the built-in bundlers';
    if (index.root !== workspaceRoot) return `the cache belongs to another workspace (${String(index.root)})`;
    indexOnDisk = { text };
    return index;
  }

  // The packs the index names, each read whole once: where each output lies. A pack cut short
  // or missing leaves the outputs past its end, or all of its own, to be built again.
  function readPacks(packs: unknown): Map<string, { file: string; bytes: Buffer; start: number }> {
    const found = new Map<string, { file: string; bytes: Buffer; start: number }>();
    for (const pack of Array.isArray(packs) ? (packs as Partial<OutputPack>[]) : []) {
      if (typeof pack !== 'object' || pack === null || typeof pack.file !== 'string' || !PACK_NAME.test(pack.file) || typeof pack.at !== 'object' || pack.at === null) continue;
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
        if (isContentHash(hash) && Number.isSafeInteger(start) && start >= 0 && start < bytes.length) packed.set(hash, { file: pack.file, start });
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

  function stillValid(entry: CacheEntry, modules: ReadonlyMap<string, ModuleModel>, boundaries: string, matches: ReturnType<typeof inputMatcher>, packs: ReturnType<typeof readPacks>): boolean {
    const module = modules.get(entry.module);
    if (!module || !isBuildable(module) || fingerprintOf(module) !== entry.fingerprint) return false;
    if (bundlerKey(module.bundler) !== entry.bundler || !BUILTIN.has(module.bundler.specifier) || entry.boundaries !== boundaries) return false;
    const { record } = entry;
    if (!record || typeof record.inputs !== 'object' || !record.outputs?.code) return false;
    for (const [input, hash] of Object.entries(record.inputs)) {
      if (!matches(input, hash, entry.signatures?.[input])) return false;
    }
    return loadOutput(record.outputs.code, packs) && (record.outputs.styles === null || loadOutput(record.outputs.styles, packs)) && Object.values(record.outputs.chunks ?? {}).every((chunk) => loadOutput(chunk, packs));
  }

  async function writeAtomically(file: string, content: string | Uint8Array) {
    const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    await fs.promises.writeFile(temporary, content);
    await fs.promises.rename(temporary, file);
  }

  const writing = new Set<Promise<void>>();

  return {
    dir,
    restoreWorkspace() {
      const index = indexAtStart();
      const snapshot = typeof index === 'string' ? undefined : index.workspace;
      if (!snapshot || snapshot.reader !== reader || !isModelShaped(snapshot.model) || typeof snapshot.signatures !== 'object' || snapshot.signatures === null) return null;
      for (const [source, hash] of Object.entries(snapshot.model.sources)) {
        if (hash === null) {
          if (hashes.stamp(source).hash !== null) return null;
          continue;
        }
        const signature = snapshot.signatures[source];
        if (!Array.isArray(signature) || signature[0] !== hash || !hashes.adopt(source, signature)) return null;
      }
      return snapshot.model;
    },
    restore(workspace) {
      const index = indexAtStart();
      startIndex = null; // read for the start only: 1.7 MB of a 1,000-module workspace is not kept
      if (typeof index === 'string') return { type: 'cache.restored', dir, builds: [], ignored: index };
      const boundaries = workspaceBoundaries(workspace).key;
      const matches = inputMatcher();
      const modules = new Map(workspace.modules.map((module) => [module.specifier, module]));
      const packs = readPacks(index.packs);
      const builds: RestoredBuild[] = [];
      let stale = 0;
      for (const entry of index.entries) {
        if (stillValid(entry, modules, boundaries, matches, packs)) builds.push({ module: entry.module, variant: entry.variant, ...entry.record, outputs: entry.record.outputs! });
        else stale += 1;
      }
      return { type: 'cache.restored', dir, builds, ...(stale > 0 ? { stale } : {}) };
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
      const { build: _build, errors: _errors, ...kept } = record;
      const signatures: Record<string, FileSignature> = {};
      for (const [input, hash] of Object.entries(record.inputs)) {
        const signature = hash === null ? null : hashes.signature(input);
        if (signature && signature[0] === hash) signatures[input] = signature;
      }
      entries.push({ module: specifier, variant, fingerprint: fingerprintOf(module), bundler: bundlerKey(module.bundler), boundaries, record: kept, signatures });
    }
    await fs.promises.mkdir(outputsDir, { recursive: true });
    const packs = await packOutputs(needed);
    const index: CacheIndex = { format: CACHE_FORMAT, identity, root: workspaceRoot, entries, packs, ...snapshotOf(workspace) };
    const text = JSON.stringify(index);
    const hash = contentHash(text);
    const unchanged = indexOnDisk !== null && ('text' in indexOnDisk ? indexOnDisk.text === text : indexOnDisk.hash === hash);
    if (!unchanged || !(await exists(indexFile))) await writeAtomically(indexFile, text);
    indexOnDisk = { hash };
    await removeUnreferenced(outputsDir, new Set(packs.map((pack) => pack.file)), knownPacks);
    for (const [hash, place] of packed) if (!knownPacks.has(place.file)) packed.delete(hash);
    if (!prunedSiblings) {
      prunedSiblings = true;
      await removeCachesOfRemovedWorkspaces(dir);
    }
  }
}

const exists = (file: string): Promise<boolean> => fs.promises.stat(file).then(() => true, () => false);

// A snapshot of this format and reader is the service's own writing; this only keeps a hand-edited
// file from reaching the reducer as a model.
function isModelShaped(model: unknown): model is WorkspaceModel {
  if (typeof model !== 'object' || model === null) return false;
  const { packages, modules, diagnostics, sources } = model as Partial<WorkspaceModel>;
  return Array.isArray(packages) && Array.isArray(modules) && Array.isArray(diagnostics) && typeof sources === 'object' && sources !== null;
}

// The packs the index no longer names go, so the cache holds about one build of the workspace
// (and at most as much again that no entry needs). Those this service knows (it wrote them, or
// read them at start) go at once; another's is named by that one's index right after it is
// written, so it goes only once older than that could take. A `.tmp` file is another's write in
// progress, unless it is old: then a killed one's. Anything else (an older format's outputs) goes.
const PACK_NAMED_MS = 10_000;
const ABANDONED_MS = 10 * 60_000;

async function removeUnreferenced(outputsDir: string, kept: ReadonlySet<string>, known: Map<string, number>) {
  const names = await fs.promises.readdir(outputsDir).catch(() => [] as string[]);
  for (const name of names) {
    if (kept.has(name)) continue;
    const file = path.join(outputsDir, name);
    const spared = name.endsWith('.tmp') ? ABANDONED_MS : PACK_NAME.test(name) && !known.has(name) ? PACK_NAMED_MS : 0;
    if (spared > 0) {
      const stats = await fs.promises.stat(file).catch(() => null);
      if (!stats || Date.now() - stats.mtimeMs < spared) continue;
    }
    await fs.promises.rm(file, { force: true });
    known.delete(name);
  }
}

// In the shared place (`~/.cache/core-js-packages/<id>/`), the caches of workspaces that no
// longer exist (a temporary directory, a removed clone) would stay for ever: each service, once,
// removes those whose recorded workspace is gone.
async function removeCachesOfRemovedWorkspaces(dir: string) {
  const shared = path.dirname(dir);
  if (path.basename(shared) !== 'core-js-packages' || !/^[0-9a-f]{16}$/.test(path.basename(dir))) return;
  const ids = await fs.promises.readdir(shared).catch(() => [] as string[]);
  for (const id of ids) {
    if (!/^[0-9a-f]{16}$/.test(id) || id === path.basename(dir)) continue;
    const text = await fs.promises.readFile(path.join(shared, id, INDEX), 'utf8').catch(() => null);
    let root: unknown = null;
    try {
      root = text === null ? null : (JSON.parse(text) as { root?: unknown }).root;
    } catch {
      continue; // being written, or not ours to judge
    }
    if (typeof root !== 'string' || fs.existsSync(root)) continue;
    await fs.promises.rm(path.join(shared, id), { recursive: true, force: true });
  }
}
