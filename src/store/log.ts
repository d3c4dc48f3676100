// The event log: the last events kept in memory for `GET /log`, and NDJSON lines for
// `--record` files and replay (README "The event log, replay and state subscription").
import type { Observable, Subscription } from 'rxjs';
import type { CoreEvent } from './events.js';

/** How many events `GET /log` keeps (documented in the README). */
export const LOG_WINDOW = 10_000;
/**
 * How much of them, as JSON text (README): a workspace.read carries the whole model, so 10,000
 * events of a manifest broken and fixed could be a gigabyte.
 */
export const LOG_BYTES = 16 * 1024 * 1024;

export interface EventLog {
  /** The events kept, oldest first; those after `since` when given. */
  events(since?: number): CoreEvent[];
  /** Every event from now on (for `GET /log` as an event stream). */
  readonly live$: Observable<CoreEvent>;
  close(): void;
}

export function createEventLog(events$: Observable<CoreEvent>, limit = LOG_WINDOW, byteLimit = LOG_BYTES): EventLog {
  const kept: CoreEvent[] = [];
  /** The JSON length of each kept event from `measured` on is not known yet. */
  const sizes: number[] = [];
  let measured = 0;
  let first = 0;
  let bytes = 0;
  let measuring: NodeJS.Immediate | null = null;

  const trim = () => {
    while (kept.length - first > limit || (bytes > byteLimit && measured - first > 1)) {
      if (first < measured) bytes -= sizes[first]!;
      first += 1;
    }
    measured = Math.max(measured, first);
    // Trim in chunks: one splice per limit/10 events instead of a shift per event.
    if (first > Math.ceil(limit / 10) || first > kept.length / 2) {
      kept.splice(0, first);
      sizes.splice(0, first);
      measured -= first;
      first = 0;
    }
  };
  // Measured after the turn that dispatched them: serializing a large event is not the work of
  // the answer it belongs to.
  const measure = () => {
    measuring = null;
    for (; measured < kept.length; measured += 1) {
      sizes[measured] = JSON.stringify(kept[measured]).length;
      bytes += sizes[measured]!;
    }
    trim();
  };
  const subscription: Subscription = events$.subscribe((event) => {
    kept.push(event);
    sizes.push(0);
    trim();
    measuring ??= setImmediate(measure);
  });
  return {
    events(since) {
      const window = kept.slice(first);
      return since === undefined ? window : window.filter((event) => event.seq > since);
    },
    live$: events$,
    close: () => {
      subscription.unsubscribe();
      if (measuring) clearImmediate(measuring);
    },
  };
}

export const toNdjsonLine = (event: CoreEvent): string => `${JSON.stringify(event)}\n`;
