// A Server-Sent Events client for `/state` (Accept: text/event-stream): every event parsed as
// it arrives, and `next()` to wait for the next one that matches.
import http from 'node:http';
import { waitFor } from './wait-for.js';

export interface ServerSentEvent {
  event: string;
  data: string;
}

export interface EventStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: ServerSentEvent[];
  /** The first event after those already taken by `next` that matches. */
  next(match?: (event: ServerSentEvent) => boolean, timeout?: number): Promise<ServerSentEvent>;
  close(): void;
}

export function openEventStream(base: string, path: string): Promise<EventStream> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream' }, agent: false }, (response) => {
      const events: ServerSentEvent[] = [];
      let taken = 0;
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue; // a comment (keep-alive)
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length > 0) events.push({ event, data: data.join('\n') });
        }
      });
      response.on('error', () => {});
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        events,
        async next(match = () => true, timeout = 15_000) {
          return waitFor(
            () => {
              for (let index = taken; index < events.length; index += 1) {
                if (match(events[index]!)) {
                  taken = index + 1;
                  return events[index]!;
                }
              }
              return undefined;
            },
            { timeout, what: 'a matching server-sent event' },
          );
        },
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}
