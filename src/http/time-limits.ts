// How long a client may take (SECURITY.md, "Staying up"). Node checks the header and request
// limits only every `connectionsCheckingInterval` (30 s by default): checked every second, a
// client that stops mid-request is closed within a second of its limit.
import type { ServerOptions } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';

export const TIME_LIMITS = {
  /** The request line and headers must arrive within this. */
  headersMs: 10_000,
  /** The whole request. */
  requestMs: 60_000,
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: 5_000,
  /** How often Node checks the two limits above. */
  checkEveryMs: 1_000,
  /** A WebSocket is pinged this often; one that has not answered the previous ping is closed. */
  pingEveryMs: 15_000,
} as const;

/** The options of `http.createServer` that enforce the limits. */
export const serverTimeLimits = {
  headersTimeout: TIME_LIMITS.headersMs,
  requestTimeout: TIME_LIMITS.requestMs,
  keepAliveTimeout: TIME_LIMITS.keepAliveMs,
  connectionsCheckingInterval: TIME_LIMITS.checkEveryMs,
} satisfies ServerOptions;

/**
 * Pings every client of `sockets` each `intervalMs`; a client that did not answer the
 * previous ping (a page whose machine slept, a half-open connection) is closed, so it holds
 * no memory and no push is written to it in vain. Stops when the server closes.
 */
export function pingSockets(sockets: WebSocketServer, intervalMs: number = TIME_LIMITS.pingEveryMs): void {
  const answered = new WeakSet<WebSocket>();
  const track = (socket: WebSocket) => {
    answered.add(socket);
    socket.on('pong', () => answered.add(socket));
  };
  for (const socket of sockets.clients) track(socket);
  sockets.on('connection', track);
  const timer = setInterval(() => {
    for (const socket of sockets.clients) {
      if (!answered.has(socket)) {
        socket.terminate();
        continue;
      }
      answered.delete(socket);
      socket.ping();
    }
  }, intervalMs);
  timer.unref();
  sockets.once('close', () => clearInterval(timer));
}
