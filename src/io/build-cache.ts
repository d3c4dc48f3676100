// The persistent build cache (README "The build cache"): what a build produced, and the facts
// that produced it, kept on disk so that a restart builds only what changed. Every entry is
// keyed by content hashes (of each input, tsconfig files included), the module's declaration,
// the workspace's module boundaries, the variant, and the versions of the service and of
// esbuild; on load, each is checked against the disk and kept only if all still hold. A file
// that cannot be parsed or was changed since written (`cache-index.ts`), a format, version or
// workspace that is not this one, an output whose bytes do not hash to their name: ignored, and
// those modules are built as on a first start.
//
// This file puts the jobs together (ARCHITECTURE.md "The build cache across restarts"): where
// the cache lives (`cache-location.ts`), the index's format (`cache-index.ts`), the pack files
// (`build-cache/output-packs.ts`), the restoration (`build-cache/restore.ts`) and the write
// (`build-cache/write.ts`), each file written atomically (`build-cache/write-atomically.ts`).
import fs from 'node:fs';
import path from 'node:path';
import type { OutputCache } from '../outputs/output-cache.js';
import type { Fact } from '../store/events.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { sameStat, type FileHashes } from './file-hashes.js';
import type { LinksOfReads } from './read-links.js';
import { realDirectory } from './confined-paths.js';
import { isCacheEntry, isWorkspaceSnapshot, parseIndex, type CacheIdentity, type CacheIndex } from './cache-index.js';
import { INDEX, isReadableCacheFile, OUTPUTS, PAGES, readCacheFile } from './build-cache/cache-files.js';
import { createOutputPacks } from './build-cache/output-packs.js';
import { factsHold, restoreBuilds, restoreWorkspaceModel, workspaceFacts } from './build-cache/restore.js';
import { createCacheWriter, type SavedBuild } from './build-cache/write.js';

export { CACHE_FORMAT, type CacheIdentity } from './cache-index.js';
export { cacheLocation } from './cache-location.js';
export { damagedCacheFiles } from './build-cache/damaged-files.js';
export { clearCacheDirectory, listCacheDirectory } from './build-cache/own-files.js';
export { CacheNotWritten, type SavedBuild } from './build-cache/write.js';

export interface BuildCache {
  readonly dir: string;
  /** Where the joined pages of the bundled preview are kept. */
  readonly pagesDir: string;
  /**
   * Whether an index the start would read is here (`readCacheFile`'s regular file, README "Files
   * that are not files"): without one (a FIFO, a directory, a link there is damage, no index), a
   * start builds every module, asks the team cache and starts esbuild early, as a first one.
   */
  hasIndex(): boolean;
  /**
   * What each workspace read of this run asked of links (`recordingLinks`), noted by the reader:
   * a model is saved with its read's links, and one whose read is not noted here is not saved.
   */
  readonly links: LinksOfReads;
  /**
   * The workspace model of the last run when no manifest or listing it was read from changed
   * since (each proved by its stat, as inputs are) and every link its read asked about leads
   * where it led, so the first read reads nothing; else null.
   */
  restoreWorkspace(): WorkspaceModel | null;
  /**
   * The workspace model of the last run as saved, whether or not it still holds (null without
   * one of its shape): only the names of its packages are taken from it (README "Workspaces").
   */
  savedWorkspace(): WorkspaceModel | null;
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

export interface BuildCacheDeps {
  /** The reader of the service's inputs: hashes taken at restore are its own, not read twice. */
  hashes: FileHashes;
  outputs: OutputCache;
  /** The hash of the code that reads manifests (`workspaceReaderCodeHash`). */
  reader: string;
  /** Where a bad cache is told, once per start. */
  logger?(message: string): void;
  /** The clock the age of the cache's files is judged by (Date.now unless a test moves it). */
  now?(): number;
}

/**
 * How long after its write an index may still be written again by its writer, which checks
 * right after renaming it into place that every pack it names is there (README "The build
 * cache", "Writing"): until then a pack it names found gone is no damage.
 */
export const INDEX_SETTLING_MS = 10_000;

export function createBuildCache(dir: string, root: string, identity: CacheIdentity, deps: BuildCacheDeps): BuildCache {
  const { hashes, outputs, reader, now = Date.now } = deps;
  const indexFile = path.join(dir, INDEX);
  const workspaceRoot = realDirectory(root);
  const packs = createOutputPacks(path.join(dir, OUTPUTS), now);
  const links: LinksOfReads = new WeakMap();
  const writer = createCacheWriter({ dir, indexFile, identity, workspaceRoot, reader, hashes, outputs, packs, links, now });

  // A bad cache is said once per start, in one line: what was wrong and that it is rebuilt.
  let toldDamage = false;
  const tellDamage = (what: string) => {
    if (!toldDamage) deps.logger?.(`core: the build cache in ${dir} is damaged (${what}); what it cannot vouch for is built again and the cache written anew`);
    toldDamage = true;
  };

  // Read once on start, for the workspace's restoration and then the builds'.
  let startIndex: CacheIndex | { ignored: string; damaged: boolean } | null = null;
  const indexAtStart = () => (startIndex ??= readIndex());
  // The index read at start, as a file: every write renames a new one into place.
  let readFrom: fs.Stats | null = null;
  const indexNotFinal = () => !readFrom || isUnsettled(readFrom, now()) || isReplaced(indexFile, readFrom);
  function readIndex(): CacheIndex | { ignored: string; damaged: boolean } {
    const read = readWithStat(indexFile);
    if ('ignored' in read) return read;
    readFrom = read.stats;
    const parsed = parseIndex(read.text, { identity, root: workspaceRoot, file: indexFile });
    if (!('index' in parsed)) return parsed;
    writer.readAtStart(parsed.index, parsed.checksum);
    return parsed.index;
  }

  const writing = new Set<Promise<void>>();
  return {
    hasIndex: () => isReadableCacheFile(indexFile),
    links,
    dir,
    pagesDir: path.join(dir, PAGES),
    restoreWorkspace() {
      try {
        const index = indexAtStart();
        return 'ignored' in index ? null : restoreWorkspaceModel(index, reader, hashes, links, tellDamage);
      } catch (error) {
        // Past the index's checks, a throw is a fault of this code or of the disk: a miss all the
        // same, never a service that does not start.
        tellDamage(`the saved workspace model could not be used: ${(error as Error).message}`);
        return null;
      }
    },
    savedWorkspace: () => savedModel(indexAtStart),
    restore(workspace) {
      try {
        const index = indexAtStart();
        if (!('ignored' in index)) return restoreBuilds(index, workspace, { dir, hashes, outputs, packs, tellDamage, indexNotFinal });
        if (index.damaged) tellDamage(index.ignored);
        return { type: 'cache.restored', dir, builds: [], ignored: index.ignored };
      } catch (error) {
        const ignored = `the cache could not be used: ${(error as Error).message}`;
        tellDamage(ignored);
        return { type: 'cache.restored', dir, builds: [], ignored };
      } finally {
        startIndex = null; // read for the start only: 1.7 MB of a 1,000-module workspace is not kept
      }
    },
    entryChecker(workspace) {
      const facts = workspaceFacts(workspace, hashes);
      // An entry from elsewhere carries no stats of this disk: its inputs are read and hashed
      // here, never adopted from a stat it names (README "A team's remote cache").
      const judge = (entry: unknown) => (!isCacheEntry(entry) ? 'damaged' : factsHold(entry, facts, undefined) ? 'valid' : 'stale');
      // One entry's inputs read in one pass: a module's files share their directories' real paths.
      return (entry) => (hashes.inPass ? hashes.inPass(() => judge(entry)) : judge(entry));
    },
    save(builds, workspace) {
      const done = writer.write(builds, workspace).finally(() => writing.delete(done));
      writing.add(done);
      return done;
    },
    idle: () => allWritten(writing),
  };
}

/** Settles once no write is under way, the writes started meanwhile included (`BuildCache.idle`). */
async function allWritten(writing: ReadonlySet<Promise<void>>): Promise<void> {
  while (writing.size > 0) await Promise.allSettled([...writing]);
}

/** The model of the index read at start as saved, if of its shape (`BuildCache.savedWorkspace`). */
function savedModel(indexAtStart: () => CacheIndex | { ignored: string }): WorkspaceModel | null {
  try {
    const index = indexAtStart();
    return 'ignored' in index || !isWorkspaceSnapshot(index.workspace) ? null : index.workspace.model;
  } catch {
    // A miss, as for `restoreWorkspace`: without the names, a read knows fewer of them.
    return null;
  }
}

// The stat of the very file read: a rename between a stat and a read could pair another's. One
// that is there but no regular file (a FIFO, a link to a device) is damage, never waited on.
function readWithStat(file: string): { text: string; stats: fs.Stats } | { ignored: string; damaged: boolean } {
  const read = readCacheFile(file);
  if (read === 'missing') return { ignored: 'no cache yet', damaged: false };
  return 'damage' in read ? { ignored: read.damage, damaged: true } : { stats: read.stats, text: read.bytes.toString('utf8') };
}

/**
 * Whether the index read with `then` may still be written again by its writer: its mtime is its
 * write's, a moment before its rename. Bounded on both sides: an mtime further ahead of this
 * clock (a clock stepped back, another machine's ahead) says nothing of a write just done, and
 * would excuse a damaged cache until this clock caught up (README "The build cache", "Damage").
 */
const isUnsettled = (then: fs.Stats, now: number): boolean => Math.abs(now - then.mtimeMs) < INDEX_SETTLING_MS;

/** Whether the file at `file` is no longer the one read with `then` (gone, or another renamed there). */
function isReplaced(file: string, then: fs.Stats): boolean {
  const now = fs.statSync(file, { throwIfNoEntry: false });
  return !now || !sameStat(then, now);
}
