// WebSocket routes (koa-websocket). An upgrade is accepted only for a registered path, from
// an allowed Host, and with no Origin (a tool) or the service's own origin (a page of the
// service): another site's page cannot listen in (README "Preview and stylesheet push", SECURITY.md).
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { isHostAllowed, type HostPolicy } from './middleware/guard-host.js';

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

type VerifyClient = (info: { origin: string; req: IncomingMessage }, callback: (accept: boolean, code?: number, message?: string) => void) => void;

export function verifyUpgrade(routes: SocketRoutes, policy: HostPolicy): VerifyClient {
  return function verifyUpgrade(info, callback) {
    const { req } = info;
    const path = (req.url ?? '').split('?')[0]!;
    if (!routes.get(path)) return callback(false, 404, 'Not Found');
    if (!isHostAllowed(req.headers.host, policy)) return callback(false, 403, 'Host not allowed');
    if (!isOriginAllowed(req.headers.origin, req.headers.host)) return callback(false, 403, 'Origin not allowed');
    callback(true);
  };
}
