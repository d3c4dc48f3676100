// The HTTP server of the service: the hosts it accepts, listening with its errors
// (README "Error codes": PORT_IN_USE, HOST_UNAVAILABLE), and the address it tells.
import { createServer, type Server } from 'node:http';
import type { App } from '../http/app.js';
import { handleClientError } from '../http/client-error.js';
import { serverTimeLimits } from '../http/time-limits.js';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** The Host names accepted: localhost and the loopback addresses, `allowedHosts`, and `host` unless it is every address. */
export function acceptedHosts(host: string, allowedHosts: readonly string[] = []): { allowedHosts: string[]; anyAddress: boolean } {
  return { allowedHosts: [...allowedHosts, ...(WILDCARD_HOSTS.has(host) ? [] : [host])], anyAddress: WILDCARD_HOSTS.has(host) };
}

/** `http://HOST:PORT/`: localhost for every address, brackets around an IPv6 one. */
export function serviceUrl(host: string, port: number): string {
  const urlHost = WILDCARD_HOSTS.has(host) ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${urlHost}:${port}/`;
}

/** The service could not start listening: `PORT_IN_USE` or `HOST_UNAVAILABLE`, a condition, not a defect. */
export class ListenError extends Error {
  constructor(
    readonly code: 'PORT_IN_USE' | 'HOST_UNAVAILABLE',
    readonly port: number,
    readonly host: string,
    message: string,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

/** Ports tried after a busy one when `strictPort` is false (as Vite does). */
export const PORT_ATTEMPTS = 20;

export async function listen(app: App, port: number, host: string, strictPort: boolean): Promise<Server> {
  const attempts = strictPort || port === 0 ? 1 : PORT_ATTEMPTS;
  for (let attempt = 0; ; attempt += 1) {
    const candidate = port + attempt;
    try {
      return await listenOnce(app, candidate, host);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE' && attempt + 1 < attempts && candidate < 65535) continue;
      if (code === 'EADDRINUSE') {
        const tried = attempts > 1 ? `ports ${port} to ${candidate} are` : `port ${port} is`;
        throw new ListenError('PORT_IN_USE', port, host, `${tried} in use on ${host}`);
      }
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new ListenError('HOST_UNAVAILABLE', port, host, `${host} is not an address of this machine`);
      throw error;
    }
  }
}

function listenOnce(app: App, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Slow clients may not hold sockets open forever (src/http/time-limits.ts).
    const server = createServer(serverTimeLimits, app.listener);
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; the Host
    // guard answers it instead, with the JSON body of the README's error table (HOST_NOT_ALLOWED).
    (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
    // Two Host headers (a request HTTP/1.1 says must be refused) would reach the guard as the
    // first alone; joined, they make one malformed value that the guard, the WebSocket check
    // and every other reader of Host refuse. Other duplicate headers are lists anyway.
    (server as Server & { joinDuplicateHeaders: boolean }).joinDuplicateHeaders = true;
    server.on('clientError', handleClientError);
    server.on('connect', app.refuseTunnel);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      // Only once listening: the WebSocket server re-emits the HTTP server's errors, and a
      // busy port would reach it as an unhandled 'error' event, a crash instead of an answer.
      app.attachSockets(server);
      resolve(server);
    });
    server.listen({ port, host: host.replace(/^\[|\]$/g, '') });
  });
}
