// The event log: the last events kept in memory for `GET /log`, and NDJSON lines for
// `--record` files and replay (README "The event log, replay and state subscription").
import type { Observable, Subscription } from 'rxjs';
import type { CoreEvent } from './events.js';

/** How many events `GET /log` keeps (documented in the README). */
export const LOG_WINDOW = 10_000;

export interface EventLog {
  /** The events kept, oldest first; those after `since` when given. */
  events(since?: number): CoreEvent[];
  /** Every event from now on (for `GET /log` as an event stream). */
  readonly live$: Observable<CoreEvent>;
  close(): void;
}

export function createEventLog(events$: Observable<CoreEvent>, limit = LOG_WINDOW): EventLog {
  const kept: CoreEvent[] = [];
  const subscription: Subscription = events$.subscribe((event) => {
    kept.push(event);
    // Trim in chunks: one splice per limit/10 events instead of a shift per event.
    if (kept.length > limit + Math.ceil(limit / 10)) kept.splice(0, kept.length - limit);
  });
  return {
    events(since) {
      const window = kept.length > limit ? kept.slice(kept.length - limit) : kept.slice();
      return since === undefined ? window : window.filter((event) => event.seq > since);
    },
    live$: events$,
    close: () => subscription.unsubscribe(),
  };
}

export const toNdjsonLine = (event: CoreEvent): string => `${JSON.stringify(event)}\n`;
