// `core run --record <file>`: every event appended to an NDJSON file as it happens. Each
// line goes out in one write, so a killed server leaves a log whose every line is whole,
// but for at most the one being written.
import fs from 'node:fs';
import path from 'node:path';
import { Observable } from 'rxjs';
import type { CoreEvent } from '../store/events.js';
import { toNdjsonLine } from '../store/log.js';

export function record$(events$: Observable<CoreEvent>, file: string): Observable<never> {
  return new Observable<never>((subscriber) => {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const fd = fs.openSync(file, 'a');
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
      fs.closeSync(fd);
    };
  });
}
