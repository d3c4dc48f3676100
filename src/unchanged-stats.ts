// When a file's stat proves it unchanged since a read (README "Addresses"): the same file, size
// and times, and the read taken well after the file's last change. A timestamp comes from a
// coarse clock, so two writes of the same size within one tick leave the same stat; as git does
// for its index ("racy git"), a read within a tick of the change proves nothing. Some file
// systems keep whole seconds only (ext2, ext4 with 128-byte inodes, some network and container
// ones): there the tick is a second (`createGranularity`). The service's file hashes and the
// bundlers' own kept reads (`unchangedReads` of regular-files.ts) judge by these rules alike. It
// imports nothing of the project, so every layer may use it.

/** Longer than any file-system timestamp tick (1 to 10 ms on Linux). */
export const RACY_MS = 50;

/** The tick of a file system that keeps whole seconds. */
export const COARSE_TIMESTAMP_MS = 1000;

/** What a stat says of a file that a remembered read is judged by (a worker's read carries it too). */
export interface StatTimes {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** What a read remembers of the file's stat, and when it read it. */
export interface ReadStamp {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  at: number;
}

/**
 * The timestamp granularity of the file system holding a file, from what its stats show: a
 * ctime or an mtime with a part below the second, which a file system of whole seconds cannot
 * hold, shows a fine clock on that device (the ctime is the telling one: the kernel sets it,
 * where a tar or a copy may give an mtime of whole seconds); until one does, a second is
 * assumed. `fixedMs` overrides what is observed.
 */
export function createGranularity(fixedMs?: number): (stats: StatTimes) => number {
  const fine = new Set<number>();
  return (stats) => {
    if (fixedMs !== undefined) return fixedMs;
    if (fine.has(stats.dev)) return 0;
    if (stats.ctimeMs % 1000 === 0 && stats.mtimeMs % 1000 === 0) return COARSE_TIMESTAMP_MS;
    fine.add(stats.dev);
    return 0;
  };
}

/** The same file, size and times as when it was read. */
export const sameStat = (known: Omit<ReadStamp, 'at'>, stats: StatTimes): boolean => known.ino === stats.ino && known.size === stats.size && known.mtimeMs === stats.mtimeMs && known.ctimeMs === stats.ctimeMs;

/**
 * Whether what a read remembered still holds for the file's current stat: the same file, size and
 * times, and read long enough after its last modification that a write in the same clock tick
 * cannot hide behind an unchanged mtime.
 */
export function isStillValid(known: ReadStamp, stats: StatTimes, granularityMs = 0): boolean {
  if (!sameStat(known, stats)) return false;
  // A timestamp of whole seconds is the start of the second the write happened in.
  return known.at - Math.max(stats.mtimeMs, stats.ctimeMs) > RACY_MS + granularityMs;
}
