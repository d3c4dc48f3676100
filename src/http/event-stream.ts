// Server-Sent Events, for `/state` and `/log` alike: the answer's headers, a comment line
// every `heartbeatMs` keeping an idle stream open through proxies, and one cleanup however the
// stream ends (the client leaves, or the stream closes).
import { PassThrough } from 'node:stream';
import type { Observable } from 'rxjs';
import type { HttpContext } from './context.js';

export interface ServerSentEvent {
  event: string;
  data: string;
  id?: number;
}

/** Answers `ctx` with an event stream of what `events$` emits, until either side ends it. */
export function streamEvents(ctx: HttpContext, events$: Observable<ServerSentEvent>, heartbeatMs: number): void {
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.status = 200;
  ctx.body = stream;
  const subscription = events$.subscribe(({ event, data, id }) => stream.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`));
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), heartbeatMs);
  const close = () => {
    clearInterval(heartbeat);
    subscription.unsubscribe();
    stream.end();
  };
  ctx.req.once('close', close);
  stream.once('close', close);
}
