// The file `core run --record` appends to (README "The event log, replay and state
// subscription"). Each line goes out in one write, so a killed server leaves a log whose every
// line is whole, but for at most the one being written.
import fs from 'node:fs';
import path from 'node:path';

export interface EventFile {
  append(line: string): void;
  close(): void;
  /**
   * Whether `file` is this log under another name: a hard link to it (the same device and inode,
   * as README "Links and large trees" tells files apart). False at once while the log has one name.
   */
  isNamed(file: string): boolean;
}

/** A first line this long at most is read to tell an event log (its `service.started` line is ~150 bytes). */
const FIRST_LINE_BYTES = 64 * 1024;

/** Inside the workspace, a log not written yet has one of these names: any other may be a file a build reads once it exists. */
const LOG_NAME = /\.(?:ndjson|jsonl|log)$/i;

/**
 * Why `file` must not be appended to, or null (README "The event log, replay and state
 * subscription"). A file the workspace reads (a source, core.json, an empty module or sheet) would
 * see each append as an edit, which builds and records more: a regular file that holds something
 * is taken only when it is an event log (its first line a `service.started` event); a new or empty
 * one inside the workspace `root` only when its name ends in .ndjson, .jsonl or .log (anywhere
 * outside it, any); no regular file (a FIFO, /dev/stdout) is taken.
 */
export function recordFileProblem(file: string, root?: string): string | null {
  const inside = root !== undefined && isInsideDir(path.resolve(root), path.resolve(file));
  const unnamed = inside && !LOG_NAME.test(file) ? `${file} is inside the workspace and not named as a log (.ndjson, .jsonl or .log): a module may read it (an empty module or sheet, or one imported once it exists)` : null;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return unnamed; // none yet (or not to be opened for reading): the append says what fails
  }
  try {
    const stats = fs.fstatSync(fd);
    if (stats.isDirectory()) return `${file} is a directory`;
    if (!stats.isFile()) return null;
    if (stats.size === 0) return unnamed;
    const head = Buffer.alloc(Math.min(stats.size, FIRST_LINE_BYTES));
    const read = fs.readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, read).toString('utf8');
    const end = text.indexOf('\n');
    try {
      if ((JSON.parse(end === -1 ? text : text.slice(0, end)) as { type?: unknown }).type === 'service.started') return null;
    } catch {
      // not JSON: someone's file
    }
    return `${file} holds something else than an event log (its first line is no service.started event): events are appended only to a new file or an event log`;
  } finally {
    fs.closeSync(fd);
  }
}

const isInsideDir = (dir: string, file: string): boolean => {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

export function openEventFile(file: string, root?: string): EventFile {
  const problem = recordFileProblem(file, root);
  if (problem) throw new Error(`the event log is not written: ${problem}`);
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const fd = fs.openSync(file, 'a+');
  // A server killed mid-line left its last line unfinished: the new session starts on a
  // line of its own, so replay can skip the cut one (src/store/replay.ts).
  const size = fs.fstatSync(fd).size;
  if (size > 0) {
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) fs.writeSync(fd, '\n');
  }
  return {
    append: (line) => void fs.writeSync(fd, line),
    isNamed(other) {
      try {
        const log = fs.fstatSync(fd);
        if (log.nlink < 2) return false;
        const stats = fs.statSync(other, { throwIfNoEntry: false });
        return stats !== undefined && stats.dev === log.dev && stats.ino === log.ino;
      } catch {
        // The log closed or gone: it is no other file's name.
        return false;
      }
    },
    close() {
      try {
        fs.closeSync(fd);
      } catch {
        // Closed already or gone: nothing left to release.
      }
    },
  };
}
