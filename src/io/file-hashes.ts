// Content hashes of workspace files and directory listings, remembered by stat.
//
// A file's stat can look unchanged after a write: timestamps come from a coarse kernel clock,
// so two writes within one tick, of the same size, share an mtime. As git does for its index
// ("racy git"), a hash is trusted from the stat alone only when the file's mtime is older
// than the moment it was hashed by more than a tick; otherwise the file is read again. Some file
// systems keep whole seconds only (ext2, ext4 with 128-byte inodes, some network and container
// ones): there the tick is a second. The rules are `src/unchanged-stats.ts`'s (README "Addresses").
import fs from 'node:fs';
import path from 'node:path';
import { LINK_TARGET } from '../bundlers/types.js';
import { contentHash } from '../outputs/content-hash.js';
import { createConfinedPaths, isPlainRelative, type ConfinedPaths } from './confined-paths.js';
import { createFileMemory, type FileMemory } from './file-memory.js';
import { createFileReads, type FileReads, type Listing } from './file-reads.js';
import { createReadAhead, type AheadRead, type Hashed } from './read-ahead.js';
import { bufferView } from '../outputs/buffer-view.js';
import { createGranularity, isStillValid, sameStat, type StatTimes } from '../unchanged-stats.js';

export { COARSE_TIMESTAMP_MS, createGranularity, isStillValid, RACY_MS, sameStat, type ReadStamp, type StatTimes } from '../unchanged-stats.js';

/**
 * How far a write's mtime may lag the clock: at most a kernel tick (10 ms at HZ=100; Linux
 * 6.13+ stamps finer). A file whose mtime is older than a build's start by more than this
 * was written before the build began, so the build read what is on disk now.
 */
export const MTIME_LAG_MS = 20;

/**
 * The source key of the listing that proves a file absent (`absentFromListing`): its directory's
 * listing, `./` for the workspace's root, as the workspace read records listings.
 */
export const listingPathOf = (file: string): string => {
  const slash = file.lastIndexOf('/');
  return slash === -1 ? './' : file.slice(0, slash + 1);
};

/**
 * `file` is absent from its directory's listing whose hash `listingOf` gives (as a read recorded
 * it, or as a stamp gives it now), as `hashes` read that listing: the one proof of absence
 * without a stat of its own, for the build cache's restoration, the local CDN's kept bundles and
 * the workspace's model. Never of a directory's own listing (`dir/`) nor of where a link leads
 * (`LINK_TARGET`): no listing names either, so none proves them absent.
 */
export function absentFromListingOf(file: string, listingOf: (listingPath: string) => string | null | undefined, hashes: Pick<FileHashes, 'absentFromListing'>): boolean {
  if (!hashes.absentFromListing || file.endsWith('/') || file.endsWith(LINK_TARGET)) return false;
  const listing = listingOf(listingPathOf(file));
  return typeof listing === 'string' && hashes.absentFromListing(file, listing);
}

/** `file` is absent from the listing of its directory that `sources` (a read's record) holds, as `hashes` read that listing (`absentFromListingOf`). */
export const absentFromRecordedListing = (sources: Readonly<Record<string, string | null>>, file: string, hashes: Pick<FileHashes, 'absentFromListing'>): boolean =>
  absentFromListingOf(file, (listingPath) => sources[listingPath], hashes);

export interface FileHashesOptions {
  /** The timestamp granularity of every file (ms), instead of the one observed (`createGranularity`). */
  granularityMs?: number;
  /** How a path is stat'ed: `fs.statSync` by default (tests give a file system of coarser timestamps). */
  stat?: (absolute: string) => fs.Stats | undefined;
  /**
   * Files may be read and hashed ahead on a worker thread (`readAhead`; ARCHITECTURE.md "Hashing
   * on the second core"). Off by default: its reads are stamped by the real clock, not by `now`.
   */
  readAhead?: boolean;
  /** How many files' last read bytes are kept for `recall` (`KEPT_CONTENTS` by default): none where no build recalls them (the local CDN's readers of installed packages). */
  keptContents?: number;
}

export interface Stamp {
  /** null: the path does not exist. */
  hash: string | null;
  /** Modification time of the file or directory, 0 when absent. */
  mtimeMs: number;
  /** Its change time (ctime), 0 when absent: every write moves it, and nothing sets it back, as `touch -r` or `cp -p` set the mtime back. */
  ctimeMs: number;
}

export interface FileHashes {
  /** A workspace-relative path; a trailing `/` names a directory (its listing is hashed). */
  stamp(relative: string): Stamp;
  hash(relative: string): string | null;
  readText(relative: string): { text: string; hash: string } | null;
  listDir(relative: string): Listing | null;
  /** The hash of where `relative` leads, as a stamp of `<relative> ->` (`LINK_TARGET`) takes it (a reader without it records no such input). */
  linkHash?(relative: string): string | null;
  /** Does the path, through a symbolic link, lead out of the workspace? */
  leaves(relative: string): boolean;
  /** Runs `run` (synchronous) as one pass of reads: each directory's real path asked once (`ConfinedPaths.inPass`). */
  inPass?<T>(run: () => T): T;
  /** The workspace-relative path with links resolved; null when absent or outside. */
  realPath(relative: string): string | null;
  /**
   * The hash the last `stamp` of a path gave (null: absent), and the watch sequence when that
   * stamp began (`watchSequence`): what the watcher's silence since then proves still holds (README
   * "Addresses"). Undefined when it was never stamped, or is a file with other hard links
   * (a write through another name is noticed in that name's directory).
   */
  confirmed(relative: string): Readonly<Confirmed> | undefined;
  /** The stat and hash this reader last took of a path: how the build cache proves a file unchanged without reading it. */
  signature(relative: string): FileSignature | null;
  /**
   * Takes `hash` as the path's content if its stat now is the one `signature` recorded (and
   * was recorded long enough after its last change); false when it is not, and nothing is taken.
   */
  adopt(relative: string, signature: FileSignature): boolean;
  /** The coarsest timestamp granularity seen so far (ms): 0 on a file system of fine timestamps, a second on one of whole seconds. */
  granularityMs(): number;
  /**
   * A file's hash for a build, with the bytes it was taken from when this reader still keeps
   * them: what the last read found while the file's stat is still the one it was read under,
   * even within a tick of its write; else a `stamp`. What it takes without reading confirms
   * nothing: a later `stamp` still reads a racy file again (ARCHITECTURE.md "One stylesheet edit, from the disk to the page").
   */
  recall(relative: string): Recalled;
  /** A file's text as `recall` takes it: from the bytes still kept, else read (null: absent). */
  recallText(relative: string): { text: string; hash: string } | null;
  /**
   * The text whose hash is `hash`, when the last read of the path was of it and its bytes are
   * still kept; no stat: the text of a recorded hash, whatever the disk holds now (a stamp that
   * just read a build's input leaves it at hand for the places of its imports).
   */
  keptText?(relative: string, hash: string): string | undefined;
  /** The file's modification and change times now, 0 when absent: a stat, never a read. */
  timesOf(relative: string): { mtimeMs: number; ctimeMs: number };
  /**
   * Whether the file `relative` is absent from its directory's listing whose hash is
   * `listingHash`, as this reader read a listing of that hash: when a stamp of the directory has
   * just given that hash, the file is absent now, without a stat of its own. False when it cannot
   * tell (no such listing read, or not by `foldedListing`'s rule).
   */
  absentFromListing?(relative: string, listingHash: string): boolean;
  /**
   * Reads and hashes these files on the second core (resolved once all are read, never
   * rejected); a later `stamp` takes a file's read instead of reading it when the file's stat
   * then is the one it was read under, and the read was not racy (`isStillValid`). An empty list
   * starts the worker for what comes. Does nothing unless `readAhead` was asked for. A
   * directory (`dir/`) is listed there by `listDir`'s rule, taken by a `stamp` alike.
   */
  readAhead?(relatives: readonly string[]): Promise<void>;
  /**
   * A file's hash as the `readAhead` worker read it, taken with no stat here: remembered under
   * the stat it was read under, as a `stamp` taken at that read (confirmed from the watch count
   * when it was asked); undefined when there is no such read, or it began within the file's
   * write's tick. It holds as of that read only: the next `stamp` stats the file, and reads it
   * again if it changed since (the first check before any answer, README "Addresses").
   */
  takeAhead?(relative: string): string | undefined;
  /** The SHA-256 (hex) of each range of `bytes`, on the worker of `readAhead`, with the bytes (moved there and back when they own their memory: `ReadAhead.sha256`); null: no worker, or gone. */
  sha256Ahead?(bytes: Uint8Array, ranges: readonly (readonly [start: number, end: number])[]): Promise<Hashed | null>;
  /** Stops the worker of `readAhead`. */
  close?(): Promise<void>;
}

export interface Recalled extends Stamp {
  /** The bytes `hash` was taken from, when still kept. */
  bytes?: Uint8Array;
}

/** Bytes as a Buffer over the same memory: no copy of them. */
/** Bytes kept of a read, as text (no copy of them). */
const textOf = (bytes: Uint8Array): string => bufferView(bytes).toString('utf8');

/** The text of a recalled file: its kept bytes, else what `read` reads; null when absent. */
function recalledText(recalled: Recalled, read: () => { text: string; hash: string } | null): { text: string; hash: string } | null {
  if (recalled.hash === null) return null;
  if (!recalled.bytes) {
    const file = read();
    return file ? { text: file.text, hash: file.hash } : null;
  }
  return { text: textOf(recalled.bytes), hash: recalled.hash };
}

/** How many files' last read bytes a reader keeps for `recall`: the files just edited. */
export const KEPT_CONTENTS = 32;

// The order of the watcher's notices and the confirmations of the file hashes, in one count: the
// tree watcher advances it at every notice, walk and possible overflow; a stamp records it. Only
// the tree watcher's notices (delivered between turns of the event loop) move it, so reading it
// costs nothing, and a notice after a stamp always counts higher than the stamp (README "Addresses").
let watchCount = 0;
/** The count now: what a stamp records. */
export const watchSequence = (): number => watchCount;
/** A new count, for a notice, a walk or a possible overflow of the tree watcher. */
export const nextWatchSequence = (): number => ++watchCount;

export interface Confirmed {
  hash: string | null;
  /** The watch count when the stamp that confirmed it began. */
  seq: number;
}

/** A path's hash with the stat it was taken with: [hash, ino, size, mtimeMs, ctimeMs, when it was read]. */
export type FileSignature = readonly [hash: string, ino: number, size: number, mtimeMs: number, ctimeMs: number, at: number];

export { isPlainRelative } from './confined-paths.js';
export { entryIdentity } from './file-reads.js';

/** The granularity of each stat, and the coarsest seen so far. */
function trackGranularity(granularity: (stats: StatTimes) => number) {
  let coarsest = 0;
  return {
    granularityOf(stats: StatTimes): number {
      const ms = granularity(stats);
      if (ms > coarsest) coarsest = ms;
      return ms;
    },
    coarsest: () => coarsest,
  };
}

/** Reads ahead not taken are forgotten past this many: a path read ahead and never stamped. */
const MAX_READS_AHEAD = 100_000;

/** The stat of a file (`name`) or a directory (`name/`), when it is one. */
function statAsNamed(paths: ConfinedPaths, relative: string): fs.Stats | undefined {
  const isDir = relative.endsWith('/');
  const stats = paths.statOf(isDir ? relative.slice(0, -1) || '.' : relative);
  return stats && (isDir ? stats.isDirectory() : stats.isFile()) ? stats : undefined;
}

// Files read and hashed on the worker (`read-ahead.ts`), kept until a stamp takes them.
// A directory's (`dir/`) is its listing, read by `listDir`'s rule; `listed` is told its names when taken.
function readsAhead(root: string, memory: FileMemory, granularityOf: (stats: StatTimes) => number, listed: (relative: string, hash: string, names: string) => void) {
  const worker = createReadAhead(root);
  // Each read with the watch count when it was asked: before the worker's stat.
  const reads = new Map<string, { read: AheadRead; seq: number }>();
  // Plain relative paths (`isPlainRelative`) are joined by concatenation, as `createConfinedPaths` joins them.
  const rootPrefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  return {
    async readAhead(relatives: readonly string[]): Promise<void> {
      if (relatives.length === 0) return worker.start();
      // What a stamp reads; a path remembered already is most likely still what was read (its stat tells).
      const wanted = [...new Set(relatives)].filter((relative) => isPlainRelative(relative) && !memory.get(relative) && !reads.has(relative));
      if (wanted.length === 0) return;
      const seq = watchSequence();
      const answers = await worker.read(wanted.map((relative) => `${rootPrefix}${relative}`));
      if (reads.size + wanted.length > MAX_READS_AHEAD) reads.clear();
      for (const [index, read] of answers.entries()) if (read) reads.set(wanted[index]!, { read, seq });
    },
    /**
     * The worker's hash of a file, remembered as a stamp's own read (confirmed from `seq`), when the
     * stat just taken is the one it read under, on the same device, and the read began long enough
     * after the file's last change: a write since would have moved the stat (the rule of a
     * remembered hash, `isStillValid`). A file of several names never.
     */
    take(relative: string, stats: fs.Stats, seq: number): string | undefined {
      const read = reads.get(relative)?.read;
      if (!read) return undefined;
      reads.delete(relative);
      const [hash, dev, ino, size, mtimeMs, ctimeMs, at, names] = read;
      const isDir = relative.endsWith('/');
      if ((!isDir && stats.nlink > 1) || isDir !== (names !== undefined) || stats.dev !== dev || !isStillValid({ ino, size, mtimeMs, ctimeMs, at }, stats, granularityOf(stats))) return undefined;
      memory.remember(relative, stats, hash, at);
      memory.get(relative)!.seq = seq;
      if (names !== undefined) listed(relative, hash, names);
      return hash;
    },
    /**
     * A file's read as a stamp taken when the worker read it: remembered under the stat the
     * worker read it under, confirmed from the count when it was asked, when that read began
     * out of the file's last write's tick (`isStillValid` on its own stat). No stat here. A path
     * remembered since it was asked (stamped here meanwhile) is the stamp's: that read may be newer;
     * so is a path a stamp found absent since (the absence holds, not the worker's older read).
     */
    takeAsRead(relative: string): string | undefined {
      const ahead = reads.get(relative);
      if (!ahead || ahead.read[7] !== undefined || memory.get(relative) || (memory.confirmed(relative)?.seq ?? -1) >= ahead.seq) return undefined;
      const [hash, dev, ino, size, mtimeMs, ctimeMs, at] = ahead.read;
      const stats = { dev, ino, size, mtimeMs, ctimeMs };
      if (!isStillValid({ ino, size, mtimeMs, ctimeMs, at }, stats, granularityOf(stats))) return undefined;
      reads.delete(relative);
      memory.remember(relative, stats, hash, at);
      memory.get(relative)!.seq = ahead.seq;
      return hash;
    },
    sha256: worker.sha256,
    close: () => worker.close(),
  };
}

/**
 * A file's hash as the read-ahead worker read it (`takeAhead`), else as a stamp reads it now: a team
 * start's check of what it downloaded. A function of the reader's own calls, not a method of it, so
 * a reader made of another's (`stampingOnce`) takes its own `stamp` here.
 */
export const stampAsRead = (hashes: FileHashes, relative: string): string | null => hashes.takeAhead?.(relative) ?? hashes.stamp(relative).hash;

/**
 * A reader whose `stamp` and `hash` are taken once per path within `once` (`recall` and the
 * other calls go to `hashes` as they are, and may stamp again): the results of one build job,
 * made in one synchronous run, name the same files many times (the tsconfig places above every
 * module, a package's shared sources), and each was stamped, stat and all, for every module
 * naming it. Inside one run nothing else can take a stamp, so the first one stands for all: what
 * the disk held at that moment, as a second stamp a few microseconds later would say.
 * Outside `once` every call goes to `hashes` as it is.
 */
export function stampingOnce(hashes: FileHashes): { hashes: FileHashes; once<T>(run: () => T): T } {
  let stamps: Map<string, Stamp> | null = null;
  const stamp = (relative: string): Stamp => {
    if (!stamps) return hashes.stamp(relative);
    let known = stamps.get(relative);
    if (!known) stamps.set(relative, (known = hashes.stamp(relative)));
    return known;
  };
  return {
    hashes: { ...hashes, stamp, hash: (relative) => stamp(relative).hash },
    once(run) {
      stamps = new Map();
      try {
        return run();
      } finally {
        stamps = null;
      }
    },
  };
}

/** The text of the bytes last read of `relative`, when they are kept and had `hash`. */
function keptTextOf(memory: FileMemory, relative: string, hash: string): string | undefined {
  const bytes = memory.get(relative)?.hash === hash ? memory.bytes(relative) : undefined;
  return bytes && textOf(bytes);
}

// A file name as a file system that ignores case finds it: printable ASCII, lowercased; null beyond ASCII.
const foldedAsciiName = (name: string): string | null => (/^[\x20-\x7e]*$/.test(name) ? name.toLowerCase() : null);

/**
 * The one rule by which a listing proves a file absent (the workspace read's listings and the
 * stamps' alike): the listing's names as a file system that ignores case finds them, or null
 * when a name is beyond ASCII. Such a listing proves nothing absent: Unicode case folding and
 * normalization differ from one file system to another, and some names beyond ASCII are found
 * by an ASCII one there (the Kelvin sign is K once normalized, NFC and NFD spell é alike).
 */
export function foldedListing(names: Iterable<string>): ReadonlySet<string> | null {
  const folded = new Set<string>();
  for (const name of names) {
    const lower = foldedAsciiName(name);
    if (lower === null) return null;
    folded.add(lower);
  }
  return folded;
}

/** `name` is absent from a listing of these names (`foldedListing`); never told of a name beyond ASCII, nor by a listing that proves nothing. */
export function absentFromFoldedListing(folded: ReadonlySet<string> | null, name: string): boolean {
  const lower = foldedAsciiName(name);
  return folded !== null && lower !== null && !folded.has(lower);
}

/** A name as `listedName` wrote it, without what it says of the entry's type. */
function listedNameOnly(name: string): string {
  if (name.endsWith('\0>')) return name.slice(0, -2);
  return name.endsWith('/') || name.endsWith('\0') ? name.slice(0, -1) : name;
}

// The names of each directory's last listing, lowercased, under that listing's hash: a hash of
// the names names them, so whichever stamp gave the hash, these are the directory's names.
function listedNames(list: FileReads['listDir']) {
  const names = new Map<string, { hash: string; folded: ReadonlySet<string> | null }>();
  const record = (relative: string, hash: string, entryNames: readonly string[]) => {
    names.set(relative.replace(/\/+$/, '') || '.', { hash, folded: foldedListing(entryNames) });
  };
  const listDir: FileReads['listDir'] = (relative, stats) => {
    const listing = list(relative, stats);
    if (listing) record(relative, listing.hash, listing.entries.map((entry) => entry.name));
    return listing;
  };
  /** `relative` is not in its directory's listing of `listingHash`, by `foldedListing`'s rule. */
  function absentFromListing(relative: string, listingHash: string): boolean {
    const slash = relative.lastIndexOf('/');
    const listed = names.get(slash === -1 ? '.' : relative.slice(0, slash));
    return listed?.hash === listingHash && absentFromFoldedListing(listed.folded, relative.slice(slash + 1));
  }
  /** A listing read elsewhere (the worker, `readsAhead`): its names joined by newlines, a directory's ending in `/`, a special file's in a NUL, a link's in a NUL and `>` (`listedName`). */
  function note(relative: string, hash: string, joinedNames: string): void {
    record(relative, hash, (joinedNames === '' ? [] : joinedNames.split('\n')).map(listedNameOnly));
  }
  return { listDir, absentFromListing, note };
}

// A signature the build cache kept, taken when the file's stat now is the one it recorded (`adopt`).
function adoptRead(memory: FileMemory, stats: fs.Stats | undefined, granularityOf: (stats: fs.Stats) => number, relative: string, [hash, ino, size, mtimeMs, ctimeMs, at]: FileSignature): boolean {
  if (!stats || (!relative.endsWith('/') && stats.nlink > 1)) return false;
  const known = { hash, ino, size, mtimeMs, ctimeMs, at, seq: -1 };
  if (!isStillValid(known, stats, granularityOf(stats))) return false;
  memory.set(relative, known);
  return true;
}

// Where a path leads, looked at every time (never remembered, so never vouched for by the
// watcher): a link is retargeted without a notice in the directories of what it led to.
function linkTargetStamp(paths: ConfinedPaths, relative: string): Stamp {
  const real = paths.realPath(relative.slice(0, -LINK_TARGET.length));
  return { hash: real === null ? null : contentHash(`${LINK_TARGET}${real}`), mtimeMs: 0, ctimeMs: 0 };
}

/** A stat's modification and change times, 0 when absent. */
const timesOf = (stats: StatTimes | undefined): { mtimeMs: number; ctimeMs: number } => ({ mtimeMs: stats?.mtimeMs ?? 0, ctimeMs: stats?.ctimeMs ?? 0 });

export function createFileHashes(root: string, now: () => number = Date.now, options: FileHashesOptions = {}): FileHashes {
  const { granularityOf, coarsest } = trackGranularity(createGranularity(options.granularityMs));
  const paths = createConfinedPaths(root, { ...(options.stat ? { stat: options.stat } : {}) });
  const memory = createFileMemory(options.keptContents ?? KEPT_CONTENTS);
  const reads = createFileReads(paths, memory, now, granularityOf);
  const { readFile } = reads;
  const { listDir, absentFromListing, note } = listedNames(reads.listDir);
  const statAs = (relative: string) => statAsNamed(paths, relative);
  const ahead = options.readAhead ? readsAhead(root, memory, granularityOf, note) : null;

  function stamp(relative: string): Stamp {
    if (relative.endsWith(LINK_TARGET)) return linkTargetStamp(paths, relative);
    const seq = watchSequence();
    const isDir = relative.endsWith('/');
    const stats = statAs(relative);
    if (!stats) return absent(relative, seq, 0, 0);
    let known = memory.get(relative);
    // A file of several names is read at every stamp: a write through another name may leave
    // nothing this path's watch or stat can be trusted to show.
    if (!known || !isStillValid(known, stats, granularityOf(stats)) || (!isDir && stats.nlink > 1)) {
      const readBefore = ahead?.take(relative, stats, seq);
      if (readBefore) return { hash: readBefore, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
      const fresh = isDir ? listDir(relative, stats) : readFile(relative, stats);
      if (!fresh) return absent(relative, seq, stats.mtimeMs, stats.ctimeMs);
      known = memory.get(relative);
      if (!known) return { hash: fresh.hash, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
    }
    known.seq = isDir || stats.nlink <= 1 ? seq : -1;
    return { hash: known.hash, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
  }

  function absent(relative: string, seq: number, mtimeMs: number, ctimeMs: number): Stamp {
    memory.absent(relative, seq);
    return { hash: null, mtimeMs, ctimeMs };
  }

  // The bytes a build is given are the ones their hash was taken from, so the build and its
  // record agree whatever the disk holds by then; a later write moves the stat, or, within the
  // same tick, is read by the next stamp (the read taken here stays racy) after its watcher's notice.
  function recall(relative: string): Recalled {
    const known = memory.get(relative);
    const stats = known && !relative.endsWith('/') ? paths.statOf(relative) : undefined;
    if (known && stats?.isFile() && stats.nlink <= 1 && sameStat(known, stats)) {
      const bytes = memory.bytes(relative);
      // Not racy: what a stamp would confirm.
      if (isStillValid(known, stats, granularityOf(stats))) known.seq = watchSequence();
      return { hash: known.hash, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ...(bytes ? { bytes } : {}) };
    }
    const stamped = stamp(relative);
    const bytes = stamped.hash === null ? undefined : memory.bytes(relative);
    return bytes ? { ...stamped, bytes } : stamped;
  }

  return {
    stamp,
    hash: (relative) => stamp(relative).hash,
    recall,
    timesOf: (relative) => timesOf(paths.statOf(relative)),
    absentFromListing,
    confirmed: memory.confirmed,
    readText(relative) {
      const file = readFile(relative);
      return file ? { text: file.text, hash: file.hash } : null;
    },
    recallText: (relative) => recalledText(recall(relative), () => readFile(relative)),
    keptText: (relative, hash) => keptTextOf(memory, relative, hash),
    listDir: (relative) => listDir(relative),
    leaves: paths.leaves,
    inPass: paths.inPass,
    signature: memory.signature,
    adopt: (relative, read) => adoptRead(memory, statAs(relative), granularityOf, relative, read),
    granularityMs: coarsest,
    realPath: paths.realPath,
    linkHash: (relative) => linkTargetStamp(paths, `${relative}${LINK_TARGET}`).hash,
    readAhead: async (relatives) => ahead?.readAhead(relatives),
    takeAhead: (relative) => ahead?.takeAsRead(relative),
    sha256Ahead: async (bytes, ranges) => (ahead ? ahead.sha256(bytes, ranges) : null),
    close: async () => ahead?.close(),
  };
}
