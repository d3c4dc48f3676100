// Server-Sent Events, for `/state` and `/log` alike: the answer's headers, a comment line
// every `heartbeatMs` keeping an idle stream open through proxies, and one cleanup however the
// stream ends (the client leaves, the stream closes, or the reader falls behind).
//
// A reader that stops reading would otherwise make the service hold every event written since
// (README "The event log, replay and state subscription"): once more than `bufferBytes` of them
// wait to be taken, it is sent a last `dropped` event saying so and its stream ends; a reader
// that does not take even that within DROPPED_GRACE_MS has its connection closed.
import { PassThrough } from 'node:stream';
import type { Observable, Subscription } from 'rxjs';
import type { HttpContext } from './context.js';

export interface ServerSentEvent {
  event: string;
  data: string;
  id?: number;
}

/** Bytes of events a reader may leave untaken before it is dropped. */
export const EVENT_STREAM_BUFFER_BYTES = 1024 * 1024;
/** How long a dropped reader has to take its last event before its connection is closed. */
export const DROPPED_GRACE_MS = 10_000;

/** Answers `ctx` with an event stream of what `events$` emits, until either side ends it. */
export function streamEvents(ctx: HttpContext, events$: Observable<ServerSentEvent>, heartbeatMs: number, bufferBytes = EVENT_STREAM_BUFFER_BYTES): void {
  const stream = new PassThrough();
  const response = ctx.res;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.status = 200;
  ctx.body = stream;
  let subscription: Subscription | null = null;
  let ended = false;
  let grace: NodeJS.Timeout | null = null;

  // What the reader has not taken yet: in this stream, in the response, in its socket.
  const queued = () => stream.writableLength + stream.readableLength + response.writableLength;
  const send = (text: string) => {
    if (ended) return;
    const waiting = queued();
    if (waiting > bufferBytes) return drop(waiting);
    stream.write(text);
  };
  const drop = (waiting: number) => {
    stop();
    const data = { reason: `the reader left more than ${bufferBytes} bytes of events untaken`, queuedBytes: waiting, limitBytes: bufferBytes };
    stream.end(`event: dropped\ndata: ${JSON.stringify(data)}\n\n`);
    grace = setTimeout(release, DROPPED_GRACE_MS);
    grace.unref();
  };
  const stop = () => {
    ended = true;
    clearInterval(heartbeat);
    subscription?.unsubscribe();
  };
  // The reader left: what it did not take is let go at once.
  const release = () => {
    stop();
    socket.off('end', release); // a kept-alive connection may carry other answers after this one
    if (grace) clearTimeout(grace);
    stream.destroy();
    if (!response.writableFinished) response.destroy();
  };

  const heartbeat = setInterval(() => send(': keep-alive\n\n'), heartbeatMs);
  subscription = events$.subscribe(({ event, data, id }) => send(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`));
  if (ended) subscription.unsubscribe(); // dropped while the first events came, within subscribe
  // A reader never sends after its request: the end of its side of the connection is its leaving,
  // seen now rather than at the next write.
  const socket = ctx.req.socket;
  socket.once('end', release);
  ctx.req.once('close', release);
  response.once('close', release);
  stream.once('close', stop);
}
