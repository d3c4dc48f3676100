// Files read and hashed on a worker thread, ahead of their use (ARCHITECTURE.md "Hashing on the
// second core"): a team start checks some 3,000 inputs of the entries it downloaded, a cold start
// hashes every build's inputs, and on the main thread that is a stat, a real path, a read and a
// SHA-256 per file. The worker takes paths in batches (a message per batch: a trip through
// libuv's pool per file costs more than the read itself) and answers with what it read and the
// stat it read under. Nothing here is believed by itself: `file-hashes.ts`'s `stamp` takes a read
// only when the file's stat, taken at its use, is the very one the worker read under and the read
// was not racy (`isStillValid`); else it reads the file again itself. A team start's check takes a
// read with the worker's own stat instead (`takeAhead`, no stat on the main thread): when the read
// was not racy on that stat, confirmed from the watch count when the worker was asked, and no stamp
// since read or found absent the path (ARCHITECTURE.md "Hashing on the second core").
import { Worker } from 'node:worker_threads';

/**
 * What the worker read of a file: [hash, dev, ino, size, mtimeMs, ctimeMs, when it began the read];
 * of a directory (a path ending in `/`), the same of its listing and the listing's names, a
 * directory's ending in `/`, in the listing's order, joined by newlines (the text hashed; one
 * string crosses to the main thread cheaper than an array of them).
 */
export type AheadRead = readonly [hash: string, dev: number, ino: number, size: number, mtimeMs: number, ctimeMs: number, at: number, names?: string];

/** Ranges hashed on the worker: each one's SHA-256 (hex), and the bytes they were taken from. */
export interface Hashed {
  digests: string[];
  bytes: Uint8Array;
}

export interface ReadAhead {
  /** Starts the worker, if not yet: a start that will want it boots it while doing other work. */
  start(): void;
  /**
   * Each absolute path's read, or null: absent, not a plain file of one name, leading out of
   * `root`, unreadable, or the worker gone. A path ending in `/` is a directory's: its listing.
   */
  read(files: readonly string[]): Promise<(AheadRead | null)[]>;
  /**
   * The SHA-256 (hex) of each `[start, end)` range of `bytes`, with the bytes: a pack downloaded
   * from the team cache checked against its digests on the second core. Bytes that own their
   * memory whole are moved to the worker, not copied, and come back with the digests (`bytes`
   * here is then empty: the answer's are the ones to use); null when the worker is gone, and those
   * bytes with it.
   */
  sha256(bytes: Uint8Array, ranges: readonly (readonly [start: number, end: number])[]): Promise<Hashed | null>;
  /** Stops the worker; later reads answer null. */
  close(): Promise<void>;
}

// The worker's code, evaluated as a script of its own: no module of the bundle to load (the
// command is one file, ARCHITECTURE.md "The command in one file"). Its hash is `contentHash`'s
// (src/outputs/content-hash.ts; test/io/read-ahead.test.ts holds them equal), its confinement
// `leaves`'s (src/io/confined-paths.ts): the real path must be inside the root. A link is not
// followed at all (`lstat`: the main thread reads such a file itself), so the file's real path is
// its directory's, found once per directory and batch as a listing's is (`realDirOf`: its
// parent's and its name when an lstat shows it is no link, a system call where the C library's
// real path is one per component of the path). The stat is taken before the read and `at`
// before the read begins, as `readFile` does (src/io/file-reads.ts). A listing follows
// `listDir`'s rule (src/io/file-reads.ts; test/io/read-ahead.test.ts holds their hashes equal):
// the directory stat'ed through links and confined by its real path, each entry's name, a
// directory's (or a link's to a directory inside the root) followed by `/`, a special file's by a
// NUL, any other link's by a NUL and `>`, sorted by name. The
// file is opened as `readRegularFile` does (src/regular-files.ts): without waiting on a FIFO put
// there since the stat, and read only if what was opened is the regular file stat'ed (README
// "Files that are not files").
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { hash } = require('node:crypto');
let realRoot = null;
function readRegular(file, stats) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const opened = fs.fstatSync(fd);
    if (!opened.isFile() || opened.dev !== stats.dev || opened.ino !== stats.ino) return null;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
function readOne(file, realDirs) {
  try {
    const stats = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stats || !stats.isFile() || stats.nlink > 1) return null;
    realRoot ??= fs.realpathSync.native(workerData.root);
    const dir = path.dirname(file);
    const realDir = realDirs.get(dir) ?? realDirOf(dir, fs.lstatSync(dir), realDirs);
    if (realDir !== realRoot && !realDir.startsWith(realRoot + path.sep)) return null;
    const at = Date.now();
    const bytes = readRegular(file, stats);
    if (bytes === null) return null;
    return [hash('sha256', bytes, 'base64url').slice(0, 22), stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs, at];
  } catch {
    return null;
  }
}
function inside(absolute) {
  try {
    realRoot ??= fs.realpathSync.native(workerData.root);
    const real = fs.realpathSync.native(absolute);
    return real === realRoot || real.startsWith(realRoot + path.sep);
  } catch {
    return true;
  }
}
function isDirectoryInside(absolute) {
  let stats;
  try {
    stats = fs.statSync(absolute, { throwIfNoEntry: false });
  } catch {
    return false;
  }
  return stats !== undefined && stats.isDirectory() && inside(absolute);
}
// A directory's real path is its parent's and its name when the directory itself is no link,
// up to the root (each asked once per batch, as for files); a link's is asked.
const rootDir = path.resolve(workerData.root);
function realDirOf(dir, stats, realDirs) {
  let real = realDirs.get(dir);
  if (real !== undefined) return real;
  const name = path.basename(dir);
  if (dir === rootDir) real = fs.realpathSync.native(dir);
  else if (stats.isSymbolicLink() || name === '.' || name === '..' || !dir.startsWith(rootDir + path.sep)) real = fs.realpathSync.native(dir);
  else {
    const parent = path.dirname(dir);
    real = realDirOf(parent, realDirs.has(parent) ? stats : fs.lstatSync(parent), realDirs) + path.sep + name;
  }
  realDirs.set(dir, real);
  return real;
}
function listOne(file, realDirs) {
  try {
    const dir = file.slice(0, -1);
    const linkStats = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (!linkStats) return null;
    const stats = linkStats.isSymbolicLink() ? fs.statSync(dir, { throwIfNoEntry: false }) : linkStats;
    if (!stats || !stats.isDirectory()) return null;
    realRoot ??= fs.realpathSync.native(workerData.root);
    const real = realDirOf(dir, linkStats, realDirs);
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) return null;
    const at = Date.now();
    const entries = fs
      .readdirSync(dir, { withFileTypes: true })
      .map((entry) => {
        // As listedName (src/io/file-reads.ts) hashes it: a special file's name ends in a NUL, a link's to no directory in a NUL and '>'.
        if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) return { name: entry.name, directory: false, special: true };
        if (!entry.isSymbolicLink()) return { name: entry.name, directory: entry.isDirectory() };
        return { name: entry.name, directory: isDirectoryInside(dir + path.sep + entry.name), link: true };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const names = entries.map((entry) => entry.directory ? entry.name + '/' : entry.special ? entry.name + '\\0' : entry.link ? entry.name + '\\0>' : entry.name).join('\\n');
    return [hash('sha256', names, 'base64url').slice(0, 22), stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs, at, names];
  } catch {
    return null;
  }
}
parentPort.on('message', ({ id, files, bytes, ranges }) => {
  if (bytes) return parentPort.postMessage({ id, reads: ranges.map(([start, end]) => hash('sha256', bytes.subarray(start, end), 'hex')), bytes }, [bytes.buffer]);
  const realDirs = new Map();
  parentPort.postMessage({ id, reads: files.map((file) => (file.endsWith('/') ? listOne(file, realDirs) : readOne(file, realDirs))) });
});
`;

/** The worker's answer: the reads, or the digests with the bytes they were taken from. */
interface Answer {
  reads: unknown[];
  bytes?: Uint8Array;
}

export function createReadAhead(root: string): ReadAhead {
  let worker: Worker | null = null;
  let gone = false;
  let nextId = 0;
  const waiting = new Map<number, (answer: Answer | null) => void>();

  // The worker keeps the process alive only while a read is asked of it.
  function settle(id: number, answer: Answer | null) {
    const resolve = waiting.get(id);
    if (!resolve) return;
    waiting.delete(id);
    if (waiting.size === 0) worker?.unref();
    resolve(answer);
  }

  // A worker that fails or stops answers nothing more: every read is then taken on the main thread.
  function end() {
    gone = true;
    worker = null;
    for (const id of [...waiting.keys()]) settle(id, null);
  }

  function started(): Worker | null {
    if (gone) return null;
    if (worker) return worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { root } });
    } catch {
      gone = true;
      return null;
    }
    worker.unref();
    worker.on('message', (answer: Answer & { id: number }) => settle(answer.id, answer));
    worker.on('error', end);
    worker.on('exit', end);
    return worker;
  }

  // One question to the worker: its answer, or null when it is gone (or goes before answering).
  function ask(thread: Worker, message: object, moved: ArrayBuffer[] = []): Promise<Answer | null> {
    const id = nextId++;
    if (waiting.size === 0) thread.ref();
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      thread.postMessage({ id, ...message }, moved);
    });
  }

  return {
    start: () => void started(),
    async read(files) {
      const thread = files.length > 0 ? started() : null;
      const answer = thread ? await ask(thread, { files }) : null;
      return (answer?.reads as (AheadRead | null)[] | undefined) ?? files.map(() => null);
    },
    async sha256(bytes, ranges) {
      const thread = started();
      if (!thread) return null;
      // Moved only when they are all their memory holds: a view of a larger (or pooled) buffer is copied.
      const { buffer } = bytes;
      const owned = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
      const answer = await ask(thread, { bytes, ranges }, owned ? [buffer] : []);
      return answer?.bytes ? { digests: answer.reads as string[], bytes: answer.bytes } : null;
    },
    async close() {
      const thread = worker;
      gone = true;
      if (thread) await thread.terminate();
      end();
    },
  };
}
