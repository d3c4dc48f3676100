// The one read of a workspace file that cannot hang (README "Files that are not files"): a FIFO
// blocks whoever opens it until a writer comes, and a stat taken before the open proves nothing
// about what the open meets (the path may be replaced in between). So the file is opened without
// blocking (O_NONBLOCK, which changes nothing for a regular file), asked what it is through the
// descriptor, and read only if it is a regular file. It imports nothing of the project, so every
// layer that reads a workspace file may use it.
import fs from 'node:fs';
import path from 'node:path';

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
 * The bytes of `file` and the stats of what was read, never waiting on a FIFO; throws
 * NotRegularFileError for anything but a regular file (a socket, whose open fails, included), and
 * the open's or the read's own error otherwise (ENOENT, EACCES).
 */
export function readRegularFile(file: string): { bytes: Buffer; stats: fs.Stats } {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, OPEN_WITHOUT_BLOCKING);
  } catch (error) {
    // A socket cannot be opened (ENXIO): said as what it is, not as an I/O error.
    const stats = (error as NodeJS.ErrnoException).code === 'ENXIO' ? fs.statSync(file, { throwIfNoEntry: false }) : undefined;
    const kind = stats && nonRegularKind(stats);
    if (kind) throw new NotRegularFileError(file, kind);
    throw error;
  }
  try {
    const stats = fs.fstatSync(descriptor);
    const kind = nonRegularKind(stats);
    if (kind) throw new NotRegularFileError(file, kind);
    return { bytes: fs.readFileSync(descriptor), stats };
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Whether `error` is a refusal of `readRegularFile`. */
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
