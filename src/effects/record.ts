// `core run --record <file>`: every event appended to an NDJSON file as it happens
// (the file itself: src/io/event-file.ts).
import { EMPTY, Observable } from 'rxjs';
import type { CoreEvent } from '../store/events.js';
import { toNdjsonLine } from '../store/log.js';
import type { ServiceState } from '../store/state.js';
import type { EventFile } from '../io/event-file.js';

export interface RecordDeps {
  /** The NDJSON file events are appended to; none: nothing is recorded. */
  recordFile?: string;
  openEventFile(file: string): EventFile;
}

export function record$(events$: Observable<CoreEvent>, _state$: Observable<ServiceState>, deps: RecordDeps): Observable<never> {
  const { recordFile } = deps;
  if (recordFile === undefined) return EMPTY;
  return new Observable<never>((subscriber) => {
    const file = deps.openEventFile(recordFile);
    const subscription = events$.subscribe({
      next: (event) => {
        try {
          file.append(toNdjsonLine(event));
        } catch (error) {
          subscriber.error(error);
        }
      },
      complete: () => subscriber.complete(),
    });
    return () => {
      subscription.unsubscribe();
      file.close();
    };
  });
}
