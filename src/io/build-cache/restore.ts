// The build cache's restoration (README "The build cache"): each entry kept only if every fact
// that produced it still holds on this disk, its outputs only if their bytes hash to their names;
// and the saved workspace model only if no source it was read from changed since, and every link
// its read asked about leads where it led.
import type { OutputCache } from '../../outputs/output-cache.js';
import { isContentHash } from '../../outputs/content-hash.js';
import { findingsOf, type Fact, type OutputRef, type RestoredBuild } from '../../store/events.js';
import { fingerprintOf, isBuildable } from '../../store/reducer.js';
import { workspaceBoundaries } from '../../workspace/boundaries.js';
import { bundlerKey, type WorkspaceModel } from '../../workspace/model.js';
import { BUILTIN_BUNDLERS } from '../../workspace/read-workspace.js';
import { absentFromRecordedListing, stampAsRead, type FileHashes, type FileSignature } from '../file-hashes.js';
import { everyInputHolds } from '../build-inputs.js';
import { arePlainPaths, isCacheEntry, isFileSignature, isWorkspaceSnapshot, type CacheEntry, type CacheIndex } from '../cache-index.js';
import type { OutputPacks, ReadPacks } from './output-packs.js';
import { linksHold, type LinksOfReads } from '../read-links.js';
import { LINK_TARGET } from '../../workspace/paths.js';

/** Only the built-in bundlers' results are kept: their version is the service's and esbuild's. */
const BUILTIN = new Set(Object.values(BUILTIN_BUNDLERS));
export const isKeptBundler = (specifier: string): boolean => BUILTIN.has(specifier);

type InputMatcher = (input: string, hash: string | null, signature: FileSignature | undefined) => boolean;

/** What an entry is judged against: the workspace now, and each input as it is now. */
export interface WorkspaceFacts {
  /** By specifier, each module whose builds are kept: what its entries must name. */
  modules: ReadonlyMap<string, KeptModule>;
  boundaries: string;
  matches: InputMatcher;
}

/** A module whose builds are kept (buildable, by a built-in bundler): its declaration and bundler as an entry names them. */
export interface KeptModule {
  fingerprint: string;
  bundler: string;
}

// Each module's once, not once per entry: a start judges 1,000 entries or more.
export function workspaceFacts(workspace: WorkspaceModel, hashes: FileHashes): WorkspaceFacts {
  const modules = new Map<string, KeptModule>();
  for (const module of workspace.modules) {
    if (isBuildable(module) && isKeptBundler(module.bundler.specifier)) modules.set(module.specifier, { fingerprint: fingerprintOf(module), bundler: bundlerKey(module.bundler) });
  }
  return { modules, boundaries: workspaceBoundaries(workspace).key, matches: inputMatcher(hashes, workspace.sources) };
}

// Each input as it is now: unchanged since its hash was taken (the same stat), else read and
// hashed again, or as the read-ahead worker read it a moment ago (`takeAhead`: its stat then,
// not stat'ed again here; the first check before any answer stats it). One answer per path for
// the whole restoration: modules share tsconfig files.
// A path the workspace's read, in this run, recorded absent (the tsconfig places above each
// package), or absent from a listing it recorded (a module's own directory), is taken as
// absent without a stat, as that read takes it (README "Workspaces"): what is judged here is
// judged against that read, and a file made since is seen by the check before answering
// (README "Addresses").
function inputMatcher(hashes: FileHashes, read: Readonly<Record<string, string | null>>): InputMatcher {
  const now = new Map<string, string | null>();
  const readAbsent = (input: string): boolean => (Object.hasOwn(read, input) ? read[input] === null : absentFromRecordedListing(read, input, hashes));
  return (input, hash, signature) => {
    let current = now.get(input);
    if (current === undefined) {
      if (hash === null && readAbsent(input)) current = null;
      else current = signature && signature[0] === hash && hashes.adopt(input, signature) ? hash : stampAsRead(hashes, input);
      now.set(input, current);
    }
    return current === hash;
  };
}

// The entry's module, declaration, bundler and boundaries are the workspace's, and every input
// still hashes as the build read it: what makes a build's outputs valid, wherever they are kept.
// `signatures`: the stats this disk's own entry names, adopted instead of a read where they hold;
// none for an entry from elsewhere (given apart, not by a copy of each entry without them).
export function factsHold(entry: Omit<CacheEntry, 'signatures'>, { modules, boundaries, matches }: WorkspaceFacts, signatures: CacheEntry['signatures']): boolean {
  const module = modules.get(entry.module);
  if (!module || module.fingerprint !== entry.fingerprint || module.bundler !== entry.bundler || entry.boundaries !== boundaries) return false;
  // Each input's name checked before it is looked at: nothing outside the workspace is ever stat'ed.
  return everyInputHolds(entry.record.inputs, (input, hash) => matches(input, hash, signatures?.[input]));
}

/** An entry of the index that is not what its writer wrote: a miss, and said once. */
class DamagedEntry extends Error {}

export interface RestoreDeps {
  dir: string;
  hashes: FileHashes;
  outputs: OutputCache;
  packs: OutputPacks;
  tellDamage(what: string): void;
  /**
   * Whether the index restored from may not be the last word of its packs: another is on disk now
   * (another service wrote one since), or it was written so lately that its writer may be about to
   * find a pack it names removed and write it again.
   */
  indexNotFinal(): boolean;
}

export function restoreBuilds(index: CacheIndex, workspace: WorkspaceModel, deps: RestoreDeps): Extract<Fact, { type: 'cache.restored' }> {
  const facts = workspaceFacts(workspace, deps.hashes);
  const read = deps.packs.read(index.packs);
  // A pack there but of no use (a FIFO, a link to a device) is said as what it is, before the
  // entries it fails are judged (README "The build cache", "Damage").
  if (read.unreadable !== undefined) deps.tellDamage(read.unreadable);
  const load = (ref: OutputRef) => loadOutput(ref, read.found, deps);
  // A pack gone since its index was read, when another index has replaced it: the service that
  // wrote that one removed what it no longer names (README "The build cache", "Damage",
  // "Writing"), so those entries are replaced, not damaged; so is one whose index was written
  // moments ago, whose writer writes it again if another's tidy removed a pack it names. So is
  // one whose pack a tidy had in hand when read (it is put back if the index on disk names it):
  // stale for this start.
  let notFinal: boolean | undefined;
  const replacedSince = (ref: OutputRef) => read.gone.has(ref.hash) && (read.claimed.has(ref.hash) || (notFinal ??= deps.indexNotFinal()));
  const builds: RestoredBuild[] = [];
  let stale = 0;
  for (const entry of index.entries) {
    try {
      if (stillValid(entry, facts, load, replacedSince)) {
        builds.push({ module: entry.module, variant: entry.variant, outputs: entry.record.outputs, ...findingsOf(entry.record) });
        continue;
      }
    } catch (error) {
      if (!(error instanceof DamagedEntry)) throw error;
      deps.tellDamage(error.message);
    }
    stale += 1;
  }
  return { type: 'cache.restored', dir: deps.dir, builds, ...(stale > 0 ? { stale } : {}) };
}

// `damaged`: what the index or a pack says is not what was written (an entry not of its shape,
// an output no pack holds whole); `stale`: the workspace changed since.
// `replacedSince`: an output whose pack went with an index another service replaced, or was
// taken out of reach by a tidy when read: stale.
function stillValid(entry: unknown, facts: WorkspaceFacts, load: (ref: OutputRef) => boolean, replacedSince: (ref: OutputRef) => boolean): entry is CacheEntry {
  if (!isCacheEntry(entry)) throw new DamagedEntry('an entry is not of its shape');
  if (!factsHold(entry, facts, entry.signatures)) return false;
  const { outputs } = entry.record;
  const refs = [outputs.code, ...(outputs.styles !== null ? [outputs.styles] : []), ...Object.values(outputs.chunks ?? {})];
  const unloaded = refs.find((ref) => !load(ref));
  if (unloaded === undefined) return true;
  if (replacedSince(unloaded)) return false;
  throw new DamagedEntry('an output is missing from its pack or its bytes do not hash to its name');
}

// An output is trusted only if its bytes hash to its name. Kept as a view of its pack: the
// outputs restored together share the packs' reads.
function loadOutput({ hash, size }: OutputRef, read: ReadPacks['found'], { outputs, packs }: RestoreDeps): boolean {
  if (outputs.get(hash)) return true;
  const place = read.get(hash);
  if (!place || !isContentHash(hash) || !Number.isSafeInteger(size) || size < 0) return false;
  const { bytes, start } = place;
  // Kept by the hash of its bytes, whatever its name: bytes that are not the named output are
  // never asked for, and go with the next collection of unreferenced outputs. A pack's copy
  // found wrong is never named again: a build of the same output goes to a new pack.
  if (Number.isSafeInteger(start) && start >= 0 && start + size <= bytes.length && outputs.adopt(bytes.subarray(start, start + size)).hash === hash) return true;
  packs.disown(hash);
  return false;
}

/**
 * The saved model when every source it was read from is proved unchanged by its stat and each
 * link its read asked about answers as it did (a link replaced changes no source); else null.
 * Its links are noted in `links`, so the model is saved again with them.
 */
export function restoreWorkspaceModel(index: CacheIndex, reader: string, hashes: FileHashes, links: LinksOfReads, tellDamage: (what: string) => void): WorkspaceModel | null {
  if (index.workspace === undefined) return null;
  const snapshot = index.workspace;
  if (!isWorkspaceSnapshot(snapshot)) {
    tellDamage('the saved workspace model is not of its shape');
    return null;
  }
  if (snapshot.reader !== reader || !arePlainPaths(snapshot.model.sources)) return null;
  for (const [source, hash] of Object.entries(snapshot.model.sources)) {
    // Where a link leads is asked again (no stat shows it), as the check before an answer asks it.
    if (hash === null || source.endsWith(LINK_TARGET)) {
      if (hashes.stamp(source).hash !== hash) return null;
      continue;
    }
    const signature = snapshot.signatures[source];
    if (!isFileSignature(signature) || signature[0] !== hash || !hashes.adopt(source, signature)) return null;
  }
  if (!linksHold(snapshot.links, hashes)) return null;
  links.set(snapshot.model.sources, snapshot.links);
  return snapshot.model;
}
