// Every file of the build cache is written beside its place and renamed over it (README "The
// build cache"), so services sharing a cache never read a half-written file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A temporary file this old is no write under way: its service stopped or died before renaming it. */
export const ABANDONED_MS = 10 * 60_000;

/** The name `writeAtomically` gives a temporary file of `file`'s name: `<name>.<pid>.<8 hex>.tmp`. */
export const TEMPORARY_SUFFIX = /\.\d+\.[0-9a-f]{8}\.tmp$/;

export async function writeAtomically(file: string, content: string | Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.promises.writeFile(temporary, content);
    await fs.promises.rename(temporary, file);
  } catch (error) {
    // A disk that filled up keeps what was written of it: nobody else would remove it for ABANDONED_MS.
    await fs.promises.rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

export const exists = (file: string): Promise<boolean> => fs.promises.stat(file).then(() => true, () => false);

/**
 * Removes the temporary files of `file` (`writeAtomically`'s names for it) that a write killed
 * or stopped before its rename left (see `removeAbandonedTemporaries`). Any other file is left alone.
 */
export async function removeAbandonedWrites(file: string, now: () => number): Promise<void> {
  const base = path.basename(file);
  await removeAbandonedTemporaries(path.dirname(file), (name) => name !== base && name.replace(TEMPORARY_SUFFIX, '') === base, now);
}

/**
 * Removes the files of `dir` whose base name `isTemporary` accepts and that are ABANDONED_MS old
 * by `now`, counted from their last write (a write under way is younger): the one sweep of what
 * a killed write left, for every file of the cache written by `writeAtomically`.
 */
export async function removeAbandonedTemporaries(dir: string, isTemporary: (name: string) => boolean, now: () => number): Promise<void> {
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    if (!isTemporary(name)) continue;
    const temporary = path.join(dir, name);
    const stats = await fs.promises.stat(temporary).catch(() => null);
    if (stats?.isFile() && now() - stats.mtimeMs >= ABANDONED_MS) await fs.promises.rm(temporary, { force: true }).catch(() => {});
  }
}
