import fs from 'node:fs';

/**
 * A file system that keeps whole seconds (ext2, ext4 with 128-byte inodes): the stat of a file
 * with its mtime cut to the second, and its ctime the same (a write sets both to its own second).
 */
export function coarseStat(file: string): fs.Stats | undefined {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  if (!stats) return undefined;
  const second = Math.floor(stats.mtimeMs / 1000) * 1000;
  return Object.assign(Object.create(Object.getPrototypeOf(stats) as object) as fs.Stats, stats, { mtimeMs: second, ctimeMs: second });
}
