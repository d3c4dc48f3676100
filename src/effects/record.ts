// `core run --record <file>`: every event appended to an NDJSON file as it happens
// (the file itself: src/io/event-file.ts). A log a build reads is an input of that build: each
// line appended would be an edit that builds and records more, without end, so recording stops
// there (README "The event log, replay and state subscription").
import { EMPTY, Observable } from 'rxjs';
import type { CoreEvent } from '../store/events.js';
import { toNdjsonLine } from '../store/log.js';
import type { ServiceState } from '../store/state.js';
import type { EventFile } from '../io/event-file.js';
import { toWorkspacePath } from '../workspace/paths.js';
import path from 'node:path';

export interface RecordDeps {
  /** The NDJSON file events are appended to; none: nothing is recorded. */
  recordFile?: string;
  openEventFile(file: string): EventFile;
  /** Says, in one line, why recording stopped (the service's logger). */
  warn?: (message: string) => void;
}

export function record$(events$: Observable<CoreEvent>, _state$: Observable<ServiceState>, deps: RecordDeps): Observable<never> {
  const { recordFile } = deps;
  if (recordFile === undefined) return EMPTY;
  return new Observable<never>((subscriber) => {
    const file = deps.openEventFile(recordFile);
    // The log's workspace-relative path, as builds name their inputs; null when outside the workspace.
    let logPath: string | null = null;
    let root: string | null = null;
    let stopped = false;
    // An input that is the log under another name (a hard link, inside the workspace or not) is read as the log is.
    const isLog = (input: string) => input === logPath || (root !== null && file.isNamed(path.join(root, input)));
    const subscription = events$.subscribe({
      next: (event) => {
        if (stopped) return;
        if (event.type === 'service.started') {
          root = event.root;
          logPath = toWorkspacePath(event.root, recordFile);
        }
        const reader = moduleReading(event, isLog);
        if (reader !== null) {
          // Not even this event: appended, it would change the file that build just read.
          stopped = true;
          file.close();
          deps.warn?.(`core: recording into ${recordFile} stopped: ${reader} reads it (an input of its build), so each event appended would build it again and record more; record into a file no module reads (outside the workspace, say)`);
          return;
        }
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
      if (!stopped) file.close();
    };
  });
}

/** The module whose build (finished, or restored from a cache) has the log among its inputs (`isLog`), or null. */
function moduleReading(event: CoreEvent, isLog: (input: string) => boolean): string | null {
  const builds =
    event.type === 'build.succeeded' || event.type === 'build.failed'
      ? [event]
      : event.type === 'cache.restored' || event.type === 'cache.remote.restored'
        ? event.builds
        : [];
  for (const build of builds) {
    if (Object.keys(build.inputs).some(isLog) || ('resolution' in build && build.resolution?.some(isLog))) return build.module;
  }
  return null;
}
