// The one read of a workspace file that cannot hang (README "Files that are not files"): a FIFO
// blocks whoever opens it until a writer comes, and a stat taken before the open proves nothing
// about what the open meets (the path may be replaced in between). So the file is opened without
// blocking (O_NONBLOCK, which changes nothing for a regular file), asked what it is through the
// descriptor, and read only if it is a regular file. It imports nothing of the project but the
// stat rules of unchanged-stats.ts (a leaf), so every layer that reads a workspace file may use it.
import fs from 'node:fs';
import path from 'node:path';
import { createGranularity, isStillValid, type ReadStamp } from './unchanged-stats.js';

/** Opening never waits for a FIFO's writer (0 where the platform has no such flag). */
const OPEN_WITHOUT_BLOCKING = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/** What a path is, in words for a diagnostic, when it is no regular file. */
export function nonRegularKind(stats: fs.Stats): string | null {
  if (stats.isFile()) return null;
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * What a directory entry is, in words as `nonRegularKind` says them, when its listing (the
 * entry's type, no stat) already tells it is no regular file; null for a file, a directory, and a
 * symbolic link or an unknown type (what those lead to takes a stat to know).
 */
export function listedNonRegularKind(entry: fs.Dirent): string | null {
  if (entry.isFIFO()) return 'a FIFO (named pipe)';
  if (entry.isSocket()) return 'a socket';
  if (entry.isCharacterDevice()) return 'a character device';
  if (entry.isBlockDevice()) return 'a block device';
  return null;
}

/** The text every refusal says, naming the file (as the caller names it) and what it is. */
export const nonRegularText = (file: string, kind: string): string =>
  `"${file}" is ${kind}, not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there`;

/** A read refused because the path is no regular file; `code` tells it from an I/O error. */
export class NotRegularFileError extends Error {
  readonly code = 'NOT_REGULAR_FILE';
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(nonRegularText(file, kind));
    this.name = 'NotRegularFileError';
  }
}

/**
 * What a read of a file only the service writes (the build cache's, README "The build cache")
 * allows: a larger file is refused unread (`FileTooLargeError`), and what is read is bounded by
 * the stat of the open file (a file of size 0 that is not, as /proc's, reads as empty); a
 * symbolic link is refused as what it is, never followed (the service writes none there).
 */
export interface ReadBounds {
  maxBytes: number;
  noFollow?: boolean;
}

/** A read refused because the regular file is larger than its reader allows. */
export class FileTooLargeError extends Error {
  readonly code = 'FILE_TOO_LARGE';
  constructor(
    readonly file: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`"${file}" is ${size} bytes, more than the ${maxBytes} it may be`);
    this.name = 'FileTooLargeError';
  }
}

const openFlags = (bounds: ReadBounds | undefined): number => OPEN_WITHOUT_BLOCKING | (bounds?.noFollow ? (fs.constants.O_NOFOLLOW ?? 0) : 0);

// A socket cannot be opened (ENXIO), nor a link with O_NOFOLLOW (ELOOP): said as what they are,
// not as an I/O error. `stats` is the path's own (lstat) for a link, what it leads to otherwise.
function refusalOfOpen(file: string, error: unknown, stats: (follow: boolean) => fs.Stats | undefined): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' && stats(false)?.isSymbolicLink()) return new NotRegularFileError(file, 'a symbolic link');
  const followed = code === 'ENXIO' ? stats(true) : undefined;
  const kind = followed && nonRegularKind(followed);
  return kind ? new NotRegularFileError(file, kind) : error;
}

function refusalOfOpened(file: string, stats: fs.Stats, bounds: ReadBounds | undefined): Error | null {
  const kind = nonRegularKind(stats);
  if (kind) return new NotRegularFileError(file, kind);
  if (bounds && stats.size > bounds.maxBytes) return new FileTooLargeError(file, stats.size, bounds.maxBytes);
  return null;
}

/**
 * The bytes of `file` and the stats of what was read, never waiting on a FIFO; throws
 * NotRegularFileError for anything but a regular file (a socket, whose open fails, included), and
 * the open's or the read's own error otherwise (ENOENT, EACCES). `bounds`: see ReadBounds.
 */
export function readRegularFile(file: string, bounds?: ReadBounds): { bytes: Buffer; stats: fs.Stats } {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, openFlags(bounds));
  } catch (error) {
    throw refusalOfOpen(file, error, (follow) => (follow ? fs.statSync : fs.lstatSync)(file, { throwIfNoEntry: false }));
  }
  try {
    const stats = fs.fstatSync(descriptor);
    const refusal = refusalOfOpened(file, stats, bounds);
    if (refusal) throw refusal;
    if (!bounds) return { bytes: fs.readFileSync(descriptor), stats };
    const bytes = Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const got = fs.readSync(descriptor, bytes, read, bytes.length - read, read);
      if (got === 0) break; // cut short since its stat
      read += got;
    }
    return { bytes: bytes.subarray(0, read), stats };
  } finally {
    fs.closeSync(descriptor);
  }
}

/** How `unchangedReads` stats a path and tells the time: the real ones by default (tests give a file system of coarser timestamps, as the file hashes' do). */
export interface UnchangedReadsOptions {
  stat?: (absolute: string) => fs.Stats | undefined;
  now?: () => number;
  /** At most this many paths are kept, the oldest forgotten first. */
  limit?: number;
}

/** The stat of a path, undefined where there is none to take: absent, or a part of the path no directory (ENOTDIR, which `throwIfNoEntry` lets through), or unreadable. */
const statOrUndefined = (absolute: string): fs.Stats | undefined => {
  try {
    return fs.statSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * `derive` of a file's bytes (read by `readRegularFile`), kept per absolute path while the file's
 * stat proves it unchanged by the service's file hashes' own rules (`isStillValid` of
 * unchanged-stats.ts, README "Addresses"): the same device, inode, size and times as the stat
 * taken before the read, which began well after the file's last change, by more than the
 * timestamp granularity observed on its device (a second until a finer time is seen there), so a
 * rewrite of the same size within one tick is read again. A file with other hard links is read
 * every time: a write through another name may leave nothing its stat can be trusted to show. What
 * the bundlers derive from a source or config they read beside esbuild is thus read again only
 * when it changed: a stylesheet's edit, which rebuilds its module, reads neither its code nor its
 * configs (ARCHITECTURE.md "One stylesheet edit"). Null when the file is absent, no regular file or
 * unreadable; the caller confines the path.
 */
export function unchangedReads<T>(derive: (bytes: Buffer) => T, options: UnchangedReadsOptions = {}): (absolute: string) => T | null {
  const { stat = statOrUndefined, now = Date.now, limit = 50_000 } = options;
  const granularityOf = createGranularity();
  const kept = new Map<string, { dev: number; read: ReadStamp; derived: T }>();
  return (absolute) => {
    const stats = stat(absolute);
    const known = kept.get(absolute);
    if (known && stats && stats.nlink <= 1 && stats.dev === known.dev && isStillValid(known.read, stats, granularityOf(stats))) return known.derived;
    kept.delete(absolute);
    // Stamped before the read: a write after the stat moves it, or falls within the racy window.
    const at = now();
    let bytes: Buffer;
    try {
      bytes = readRegularFile(absolute).bytes;
    } catch {
      return null;
    }
    const derived = derive(bytes);
    if (stats) {
      if (kept.size >= limit) kept.delete(kept.keys().next().value!);
      const { dev, ino, size, mtimeMs, ctimeMs } = stats;
      kept.set(absolute, { dev, read: { ino, size, mtimeMs, ctimeMs, at }, derived });
    }
    return derived;
  };
}

/** `readRegularFile` with bounds, off the main thread: for reads that must not hold the service. */
export async function readRegularFileAsync(file: string, bounds: ReadBounds): Promise<{ bytes: Buffer; stats: fs.Stats }> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, openFlags(bounds));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const followed = code === 'ENXIO' ? await fs.promises.stat(file).catch(() => undefined) : undefined;
    const own = code === 'ELOOP' ? await fs.promises.lstat(file).catch(() => undefined) : undefined;
    throw refusalOfOpen(file, error, (follow) => (follow ? followed : own));
  }
  try {
    const stats = await handle.stat();
    const refusal = refusalOfOpened(file, stats, bounds);
    if (refusal) throw refusal;
    const bytes = Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await handle.read(bytes, read, bytes.length - read, read);
      if (bytesRead === 0) break; // cut short since its stat
      read += bytesRead;
    }
    return { bytes: bytes.subarray(0, read), stats };
  } finally {
    await handle.close();
  }
}

/** Whether `error` is a refusal of `readRegularFile` for what the path is. */
export const isNotRegularFile = (error: unknown): error is NotRegularFileError => error instanceof NotRegularFileError;

/**
 * Whether `file`'s real path (every link on its way followed) is inside the real path of `root`:
 * a file read for a judgement of its own, never where a link leading out points (README
 * "Bundling real code"). False when either cannot be resolved.
 */
export function isReallyInside(root: string, file: string): boolean {
  try {
    const realRoot = fs.realpathSync.native(root);
    const real = fs.realpathSync.native(file);
    return real === realRoot || real.startsWith(realRoot + path.sep);
  } catch {
    return false;
  }
}
