// The one read of a file of the build cache (README "The build cache", "Damage"): the index, a
// pack. The cache is the service's own, written by rename, so anything at one of its names that
// is not a regular file it could have written is damage, said as what it is and never waited on
// (README "Files that are not files"): a FIFO is opened without blocking, a device is refused by
// the stat of the open file before a byte is read, a link (to /dev/zero, which never ends) is
// never followed, and no more is read than that stat says, up to MAX_CACHE_FILE_BYTES.
import fs from 'node:fs';
import { FileTooLargeError, isNotRegularFile, readRegularFile, readRegularFileAsync, type ReadBounds } from '../../regular-files.js';

/** No file of the cache is larger (a 1,000-module workspace's index is 1.7 MB): a larger one is damage, never read. */
export const MAX_CACHE_FILE_BYTES = 1 << 30;

const BOUNDS: ReadBounds = { maxBytes: MAX_CACHE_FILE_BYTES, noFollow: true };

/** A file of the cache read, absent, or there and of no use: `damage` says why, for the damage line. */
export type CacheFileRead = { bytes: Buffer; stats: fs.Stats } | 'missing' | { damage: string };

export function readCacheFile(file: string): CacheFileRead {
  try {
    return readRegularFile(file, BOUNDS);
  } catch (error) {
    return refusal(file, error);
  }
}

/**
 * Whether `file` is one `readCacheFile` would read: a regular file, no link, within the bound, that
 * this process may read. An lstat and an access check, never an open, so nothing waits on a FIFO;
 * anything else (a FIFO, a directory, a device, a link) is damage, no file of the cache.
 */
export function isReadableCacheFile(file: string): boolean {
  try {
    const stats = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stats?.isFile() || stats.size > MAX_CACHE_FILE_BYTES) return false;
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** `readCacheFile` off the main thread. */
export function readCacheFileAsync(file: string): Promise<CacheFileRead> {
  return readRegularFileAsync(file, BOUNDS).catch((error: unknown) => refusal(file, error));
}

function refusal(file: string, error: unknown): CacheFileRead {
  if (isNotRegularFile(error)) return { damage: `${file} is ${error.kind}, not a regular file` };
  if (error instanceof FileTooLargeError) return { damage: `${file} is larger than a file of the cache may be (${error.size} bytes)` };
  const { code, message } = error as NodeJS.ErrnoException;
  return code === 'ENOENT' ? 'missing' : { damage: `${file} cannot be read (${code ?? message})` };
}

/** The index's name in the cache's directory. */
export const INDEX = 'builds.json';

/** The folder of the cache's packs. */
export const OUTPUTS = 'outputs';

/** The folder of the bundled preview's joined pages (src/io/joined-pages.ts), beside the builds. */
export const PAGES = 'pages';
