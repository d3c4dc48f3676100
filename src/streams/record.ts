// `core run --record <file>`: every event appended to an NDJSON file as it happens. Each
// line goes out in one write, so a killed server leaves a log whose every line is whole,
// but for at most the one being written.
import fs from 'node:fs';
import path from 'node:path';
import { Observable } from 'rxjs';
import type { CoreEvent } from '../store/events.js';
import { toNdjsonLine } from '../store/log.js';
import type { ServiceState } from '../store/state.js';

export interface RecordDeps {
  /** The NDJSON file events are appended to. */
  recordFile: string;
}

export function record$(events$: Observable<CoreEvent>, _state$: Observable<ServiceState>, deps: RecordDeps): Observable<never> {
  const file = deps.recordFile;
  return new Observable<never>((subscriber) => {
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
    const subscription = events$.subscribe({
      next: (event) => {
        try {
          fs.writeSync(fd, toNdjsonLine(event));
        } catch (error) {
          subscriber.error(error);
        }
      },
      complete: () => subscriber.complete(),
    });
    return () => {
      subscription.unsubscribe();
      try {
        fs.closeSync(fd);
      } catch {
        // Closed already or gone: nothing left to release.
      }
    };
  });
}
