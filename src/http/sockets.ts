// WebSocket routes (koa-websocket). An upgrade passes the guards of every request
// (guards/request-guards.ts), then is accepted only for a registered path and with no Origin (a
// tool) or the service's own origin (a page of the service): another site's page cannot listen
// in (README "Preview and stylesheet push", SECURITY.md). A refusal is the JSON error body of
// README "Error codes", as every other.
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { ServiceError } from './errors.js';
import { firstRefusal, type RequestGuard } from './guards/request-guards.js';

export type SocketHandler = (socket: WebSocket, request: IncomingMessage) => void;

export interface SocketRoutes {
  add(path: string, handler: SocketHandler): void;
  get(path: string): SocketHandler | undefined;
}

export function createSocketRoutes(): SocketRoutes {
  const routes = new Map<string, SocketHandler>();
  return {
    add: (path, handler) => void routes.set(path, handler),
    get: (path) => routes.get(path),
  };
}

export function isOriginAllowed(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (!host) return false;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

type VerifyClient = (
  info: { origin: string; req: IncomingMessage },
  callback: (accept: boolean, status?: number, body?: string, headers?: Record<string, string>) => void,
) => void;

export function verifyUpgrade(routes: SocketRoutes, guards: readonly RequestGuard[]): VerifyClient {
  return function verifyUpgrade(info, callback) {
    const { req } = info;
    const path = (req.url ?? '').split('?')[0]!;
    const refusal =
      firstRefusal(guards, req) ??
      (!routes.get(path) ? new ServiceError('OUTPUT_NOT_AVAILABLE', `no WebSocket channel is served at ${path.slice(0, 200)}`) : null) ??
      (!isOriginAllowed(req.headers.origin, req.headers.host)
        ? new ServiceError('CROSS_SITE_REFUSED', `a page of ${String(req.headers.origin).slice(0, 100)} cannot open ${path}: only pages of this service can`)
        : null);
    if (!refusal) return callback(true);
    const headers = { ...refusal.headers, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
    callback(false, refusal.status, JSON.stringify(refusal.toJSON()), headers);
  };
}
