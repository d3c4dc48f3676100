// The file `core run --record` appends to (README "The event log, replay and state
// subscription"). Each line goes out in one write, so a killed server leaves a log whose every
// line is whole, but for at most the one being written.
import fs from 'node:fs';
import path from 'node:path';

export interface EventFile {
  append(line: string): void;
  close(): void;
}

export function openEventFile(file: string): EventFile {
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
    close() {
      try {
        fs.closeSync(fd);
      } catch {
        // Closed already or gone: nothing left to release.
      }
    },
  };
}
