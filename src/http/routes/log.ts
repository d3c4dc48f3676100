// `/log` (README "The event log, replay and state subscription"): the events kept in memory, as NDJSON; `?since=SEQ` for the newer ones.
// With `Accept: text/event-stream`: the same events as Server-Sent Events (`event: log`, one
// event each, its seq as the SSE id), then every new one as it happens.
import { PassThrough } from 'node:stream';
import type { HttpContext } from '../context.js';
import type { EventLog } from '../../store/log.js';
import { toNdjsonLine } from '../../store/log.js';
import { ServiceError } from '../errors.js';

export function logRoute(log: EventLog, heartbeatMs = 15_000) {
  return function eventLog(ctx: HttpContext): void {
    const since = ctx.query.since;
    if (since !== undefined && (typeof since !== 'string' || !/^\d+$/.test(since))) {
      throw new ServiceError('OPTION_UNSUPPORTED', '/log: since must be an event seq (a whole number)');
    }
    const after = since === undefined ? undefined : Number(since);
    ctx.set('Cache-Control', 'no-store');
    if (ctx.get('accept').includes('text/event-stream')) return streamLog(ctx, log, after, heartbeatMs);
    ctx.type = 'application/x-ndjson; charset=utf-8';
    ctx.body = log.events(after).map(toNdjsonLine).join('');
  };
}

function streamLog(ctx: HttpContext, log: EventLog, since: number | undefined, heartbeatMs: number): void {
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.status = 200;
  ctx.body = stream;
  // The seq check sends an event once, should it be both kept and live.
  let sent = since ?? 0;
  const send = (event: { seq: number }) => {
    if (event.seq <= sent) return;
    sent = event.seq;
    stream.write(`event: log\nid: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  const subscription = log.live$.subscribe(send);
  const kept = log.events(since);
  for (const event of kept) send(event);
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), heartbeatMs);
  const close = () => {
    clearInterval(heartbeat);
    subscription.unsubscribe();
    stream.end();
  };
  ctx.req.once('close', close);
  stream.once('close', close);
}
