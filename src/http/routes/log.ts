// `/log` (README "The event log, replay and state subscription"): the events kept in memory, as NDJSON; `?since=SEQ` for the newer ones.
// With `Accept: text/event-stream`: the same events as Server-Sent Events (`event: log`, one
// event each, its seq as the SSE id), then every new one as it happens.
import { concat, defer, filter, from, map, tap } from 'rxjs';
import type { HttpContext } from '../context.js';
import type { EventLog } from '../../store/log.js';
import { toNdjsonLine } from '../../store/log.js';
import { ServiceError } from '../errors.js';
import { streamEvents } from '../event-stream.js';

export function logRoute(log: EventLog, heartbeatMs = 15_000, bufferBytes?: number) {
  return function eventLog(ctx: HttpContext): void {
    const since = ctx.query.since;
    if (since !== undefined && (typeof since !== 'string' || !/^\d+$/.test(since))) {
      throw new ServiceError('OPTION_UNSUPPORTED', '/log: since must be an event seq (a whole number)');
    }
    const after = since === undefined ? undefined : Number(since);
    ctx.set('Cache-Control', 'no-store');
    if (ctx.get('accept').includes('text/event-stream')) return streamLog(ctx, log, after, heartbeatMs, bufferBytes);
    ctx.type = 'application/x-ndjson; charset=utf-8';
    ctx.body = log.events(after).map(toNdjsonLine).join('');
  };
}

function streamLog(ctx: HttpContext, log: EventLog, since: number | undefined, heartbeatMs: number, bufferBytes: number | undefined): void {
  // The kept events, then the live ones; the seq check sends an event once, should it be both.
  const events$ = defer(() => {
    let sent = since ?? 0;
    return concat(from(log.events(since)), log.live$).pipe(
      filter((event) => event.seq > sent),
      tap((event) => (sent = event.seq)),
      map((event) => ({ event: 'log', id: event.seq, data: JSON.stringify(event) })),
    );
  });
  streamEvents(ctx, events$, heartbeatMs, bufferBytes);
}
