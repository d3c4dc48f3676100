// Content hashes of workspace files and directory listings, remembered by stat.
//
// A file's stat can look unchanged after a write: timestamps come from a coarse kernel clock,
// so two writes within one tick, of the same size, share an mtime. As git does for its index
// ("racy git"), a hash is trusted from the stat alone only when the file's mtime is older
// than the moment it was hashed by more than a tick; otherwise the file is read again. Some file
// systems keep whole seconds only (ext2, ext4 with 128-byte inodes, some network and container
// ones): there the tick is a second (`createGranularity`, README "Addresses").
import fs from 'node:fs';
import path from 'node:path';
import { toWorkspacePath } from '../workspace/paths.js';
import { contentHash } from '../outputs/content-hash.js';

/** Longer than any file-system timestamp tick (1 to 10 ms on Linux). */
export const RACY_MS = 50;

/**
 * How far a write's mtime may lag the clock: at most a kernel tick (10 ms at HZ=100; Linux
 * 6.13+ stamps finer). A file whose mtime is older than a build's start by more than this
 * was written before the build began, so the build read what is on disk now.
 */
export const MTIME_LAG_MS = 20;

/** The tick of a file system that keeps whole seconds. */
export const COARSE_TIMESTAMP_MS = 1000;

/**
 * The timestamp granularity of the file system holding a file, from what its stats show: a
 * ctime or an mtime with a part below the second, which a file system of whole seconds cannot
 * hold, shows a fine clock on that device (the ctime is the telling one: the kernel sets it,
 * where a tar or a copy may give an mtime of whole seconds); until one does, a second is
 * assumed. `fixedMs` overrides what is observed.
 */
export function createGranularity(fixedMs?: number): (stats: fs.Stats) => number {
  const fine = new Set<number>();
  return (stats) => {
    if (fixedMs !== undefined) return fixedMs;
    if (fine.has(stats.dev)) return 0;
    if (stats.ctimeMs % 1000 === 0 && stats.mtimeMs % 1000 === 0) return COARSE_TIMESTAMP_MS;
    fine.add(stats.dev);
    return 0;
  };
}

export interface FileHashesOptions {
  /** The timestamp granularity of every file (ms), instead of the one observed (`createGranularity`). */
  granularityMs?: number;
  /** How a path is stat'ed: `fs.statSync` by default (tests give a file system of coarser timestamps). */
  stat?: (absolute: string) => fs.Stats | undefined;
}

export interface Stamp {
  /** null: the path does not exist. */
  hash: string | null;
  /** Modification time of the file or directory, 0 when absent. */
  mtimeMs: number;
}

export interface FileHashes {
  /** A workspace-relative path; a trailing `/` names a directory (its listing is hashed). */
  stamp(relative: string): Stamp;
  hash(relative: string): string | null;
  readText(relative: string): { text: string; hash: string } | null;
  listDir(relative: string): { entries: { name: string; directory: boolean }[]; hash: string; id: string } | null;
  /** Does the path, through a symbolic link, lead out of the workspace? */
  leaves(relative: string): boolean;
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
}

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

interface Remembered {
  ino: number;
  size: number;
  mtimeMs: number;
  /** A change of mode (chmod 000: now unreadable) moves ctime, not mtime. */
  ctimeMs: number;
  hash: string;
  at: number;
  /** The watch count of the last stamp that confirmed it; -1 when no stamp did (a read for a build, a signature adopted, other hard links). */
  seq: number;
}

/** What a read remembers of the file's stat, and when it read it. */
export type ReadStamp = Pick<Remembered, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs' | 'at'>;

/**
 * Whether what a read remembered still holds for the file's current stat: the same file, size and
 * times, and read long enough after its last modification that a write in the same clock tick
 * cannot hide behind an unchanged mtime.
 */
export function isStillValid(known: ReadStamp, stats: fs.Stats, granularityMs = 0): boolean {
  if (known.ino !== stats.ino || known.size !== stats.size || known.mtimeMs !== stats.mtimeMs || known.ctimeMs !== stats.ctimeMs) return false;
  // A timestamp of whole seconds is the start of the second the write happened in.
  return known.at - Math.max(stats.mtimeMs, stats.ctimeMs) > RACY_MS + granularityMs;
}

// Every file read asks where it really is (a link must not lead out of the workspace): the C
// library's realpath gives the same answer in about half the time of Node's own walk, which
// is most of the cost of reading 1,000 modules' sources on a first start.
const realpath = (file: string): string => fs.realpathSync.native(file);

/** A workspace-relative path joined by concatenation as it is: no leading `/`, `..`, `//` or `\\`. */
export const isPlainRelative = (relative: string): boolean => !(relative.startsWith('/') || relative.includes('..') || relative.includes('//') || relative.includes('\\'));

/** What a path leads to, whatever the path: its device and inode. */
export const entryIdentity = (stats: fs.Stats): string => `${stats.dev}:${stats.ino}`;

export function createFileHashes(root: string, now: () => number = Date.now, options: FileHashesOptions = {}): FileHashes {
  const granularity = createGranularity(options.granularityMs);
  let coarsest = 0;
  const granularityOf = (stats: fs.Stats): number => {
    const ms = granularity(stats);
    if (ms > coarsest) coarsest = ms;
    return ms;
  };
  const statFile = options.stat ?? ((file: string) => fs.statSync(file, { throwIfNoEntry: false }));
  const remembered = new Map<string, Remembered>();
  /** Paths a stamp found absent, with its watch count. */
  const absentSince = new Map<string, number>();
  // The check before each answer stats every path the answer depends on: the hottest call of
  // the service. Workspace paths are normal, so they are joined by concatenation (path.join's
  // normalization costs a third of a stat), and not at all while the process runs in the
  // workspace (`core run`), so the kernel walks fewer components. Anything else: path.join.
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  const absolute = (relative: string): string => {
    if (!isPlainRelative(relative)) return path.join(root, relative);
    return process.cwd() === root ? relative : `${prefix}${relative}`;
  };
  let realRoot: string | null = null;

  // Links are followed inside the workspace only: a link to `/` or to another project is
  // as good as absent (a link to `/` would otherwise make the module.json search walk the
  // whole file system).
  function leaves(relative: string): boolean {
    let real: string;
    try {
      realRoot ??= realpath(root);
      real = realpath(absolute(relative));
    } catch {
      return false; // absent: not a link that leaves
    }
    return real !== realRoot && !real.startsWith(realRoot + path.sep);
  }

  function statOf(relative: string): fs.Stats | undefined {
    try {
      return statFile(absolute(relative));
    } catch {
      return undefined; // ENOTDIR, EACCES: as good as absent for the service
    }
  }

  function remember(relative: string, stats: fs.Stats, hash: string, at: number) {
    granularityOf(stats);
    remembered.set(relative, { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, hash, at, seq: -1 });
    absentSince.delete(relative);
  }

  /** `stats`: taken by the caller just before, not asked again. */
  function readFile(relative: string, stats = statOf(relative)): { text: string; hash: string; stats: fs.Stats } | null {
    if (!stats || !stats.isFile() || leaves(relative)) {
      remembered.delete(relative);
      return null;
    }
    const at = now();
    let content: Buffer;
    try {
      content = fs.readFileSync(absolute(relative));
    } catch {
      return null;
    }
    const hash = contentHash(content);
    remember(relative, stats, hash, at);
    return { text: content.toString('utf8'), hash, stats };
  }

  function listDir(relative: string, stats?: fs.Stats) {
    const dir = relative.replace(/\/+$/, '') || '.';
    stats ??= statOf(dir);
    if (!stats || !stats.isDirectory() || leaves(dir)) {
      remembered.delete(`${dir}/`);
      return null;
    }
    const at = now();
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(absolute(dir), { withFileTypes: true });
    } catch {
      return null;
    }
    const entries = dirents
      .map((entry) => ({ name: entry.name, directory: entry.isDirectory() || (entry.isSymbolicLink() && isDirectoryInside(dir === '.' ? entry.name : `${dir}/${entry.name}`)) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const hash = contentHash(entries.map((entry) => `${entry.name}${entry.directory ? '/' : ''}`).join('\n'));
    remember(`${dir}/`, stats, hash, at);
    // The directory itself, whatever path leads to it: a search visits it once (a link loop ends).
    return { entries, hash, id: entryIdentity(stats) };
  }

  function isDirectoryInside(relative: string): boolean {
    return statOf(relative)?.isDirectory() === true && !leaves(relative);
  }

  function stamp(relative: string): Stamp {
    const seq = watchCount;
    const isDir = relative.endsWith('/');
    const stats = statOf(isDir ? relative.slice(0, -1) || '.' : relative);
    if (!stats || (isDir ? !stats.isDirectory() : !stats.isFile())) return absent(relative, seq, 0);
    let known = remembered.get(relative);
    // A file of several names is read at every stamp: a write through another name may leave
    // nothing this path's watch or stat can be trusted to show.
    if (!known || !isStillValid(known, stats, granularityOf(stats)) || (!isDir && stats.nlink > 1)) {
      const fresh = isDir ? listDir(relative, stats) : readFile(relative, stats);
      if (!fresh) return absent(relative, seq, stats.mtimeMs);
      known = remembered.get(relative);
      if (!known) return { hash: fresh.hash, mtimeMs: stats.mtimeMs };
    }
    known.seq = isDir || stats.nlink <= 1 ? seq : -1;
    return { hash: known.hash, mtimeMs: stats.mtimeMs };
  }

  function absent(relative: string, seq: number, mtimeMs: number): Stamp {
    remembered.delete(relative);
    absentSince.set(relative, seq);
    return { hash: null, mtimeMs };
  }

  return {
    stamp,
    hash: (relative) => stamp(relative).hash,
    confirmed(relative) {
      const known = remembered.get(relative);
      if (known) return known.seq >= 0 ? known : undefined;
      const seq = absentSince.get(relative);
      return seq === undefined ? undefined : { hash: null, seq };
    },
    readText(relative) {
      const file = readFile(relative);
      return file ? { text: file.text, hash: file.hash } : null;
    },
    listDir: (relative) => listDir(relative),
    leaves,
    signature(relative) {
      const known = remembered.get(relative);
      return known ? [known.hash, known.ino, known.size, known.mtimeMs, known.ctimeMs, known.at] : null;
    },
    adopt(relative, [hash, ino, size, mtimeMs, ctimeMs, at]) {
      const isDir = relative.endsWith('/');
      const stats = statOf(isDir ? relative.slice(0, -1) || '.' : relative);
      if (!stats || (isDir ? !stats.isDirectory() : !stats.isFile() || stats.nlink > 1)) return false;
      const known = { hash, ino, size, mtimeMs, ctimeMs, at, seq: -1 };
      if (!isStillValid(known, stats, granularityOf(stats))) return false;
      remembered.set(relative, known);
      return true;
    },
    granularityMs: () => coarsest,
    realPath(relative) {
      try {
        realRoot ??= realpath(root);
        return toWorkspacePath(realRoot, realpath(absolute(relative)));
      } catch {
        return null;
      }
    },
  };
}
