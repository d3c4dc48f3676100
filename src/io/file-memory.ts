// What a file-hashes reader remembers of each path: the stat and hash of its last read, the
// watch count of the stamp that last confirmed it, the paths found absent, and the bytes of the
// few files read last (those just edited), which a build takes instead of reading them again
// (ARCHITECTURE.md "One stylesheet edit, from the disk to the page").
import type fs from 'node:fs';

export interface Remembered {
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

export interface FileMemory {
  get(relative: string): Remembered | undefined;
  set(relative: string, known: Remembered): void;
  /** The read of `stats` at `at`, with its bytes when it was a file's. */
  remember(relative: string, stats: Pick<fs.Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>, hash: string, at: number, bytes?: Uint8Array): void;
  forget(relative: string): void;
  /** Found absent by a stamp that began at watch count `seq`. */
  absent(relative: string, seq: number): void;
  /** The bytes of the last read, while it is still what is remembered of the path. */
  bytes(relative: string): Uint8Array | undefined;
  /** What a stamp confirmed of the path (its hash, or null: absent) with the watch count it began at. */
  confirmed(relative: string): Readonly<{ hash: string | null; seq: number }> | undefined;
  /** [hash, ino, size, mtimeMs, ctimeMs, when it was read], or null when nothing is remembered. */
  signature(relative: string): readonly [string, number, number, number, number, number] | null;
}

/** A file larger than this is read again when a build wants its bytes: the kept ones stay small. */
const KEPT_FILE_BYTES = 1 << 20;

export function createFileMemory(keptContents: number): FileMemory {
  const remembered = new Map<string, Remembered>();
  const absentSince = new Map<string, number>();
  // Insertion order is the order of reads: the first entry is the oldest.
  const kept = new Map<string, { known: Remembered; bytes: Uint8Array }>();
  return {
    get: (relative) => remembered.get(relative),
    set: (relative, known) => void remembered.set(relative, known),
    remember(relative, stats, hash, at, bytes) {
      const known = { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, hash, at, seq: -1 };
      remembered.set(relative, known);
      absentSince.delete(relative);
      kept.delete(relative);
      if (!bytes || bytes.length > KEPT_FILE_BYTES) return;
      kept.set(relative, { known, bytes });
      if (kept.size > keptContents) kept.delete(kept.keys().next().value!);
    },
    forget: (relative) => void remembered.delete(relative),
    absent(relative, seq) {
      remembered.delete(relative);
      absentSince.set(relative, seq);
    },
    bytes(relative) {
      const entry = kept.get(relative);
      return entry && remembered.get(relative) === entry.known ? entry.bytes : undefined;
    },
    confirmed(relative) {
      const known = remembered.get(relative);
      if (known) return known.seq >= 0 ? known : undefined;
      const seq = absentSince.get(relative);
      return seq === undefined ? undefined : { hash: null, seq };
    },
    signature(relative) {
      const known = remembered.get(relative);
      return known ? [known.hash, known.ino, known.size, known.mtimeMs, known.ctimeMs, known.at] : null;
    },
  };
}
