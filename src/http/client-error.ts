// Requests Node's parser refuses (a NUL or a space in the target, headers too large, a
// client too slow) never reach Koa, nor does CONNECT; they still get the JSON answer of README
// "Error codes".
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, errorBody } from '../codes.js';
import { firstRefusal, type RequestGuard } from './guards/request-guards.js';
import { refuseUnsafeMethod } from './guards/refuse-unsafe-target.js';
import { errorHeaders } from './errors.js';

export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || (error.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT';
  const code = timedOut ? 'REQUEST_TIMEOUT' : 'REQUEST_INVALID';
  const status = ERROR_CODES[code].status;
  const reason = timedOut ? 'Request Timeout' : 'Bad Request';
  const body = JSON.stringify(errorBody(code, timedOut ? 'the request was not received in time' : `the request cannot be parsed safely (${error.code ?? error.message})`));
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * `CONNECT` asks for a tunnel, so Node hands it to the server's 'connect' listener instead of
 * the request listener, and without one closes the socket unanswered. The guards of every
 * request refuse it as any other method the service does not answer (METHOD_NOT_ALLOWED).
 */
export function refuseTunnel(guards: readonly RequestGuard[]): (request: IncomingMessage, socket: Duplex) => void {
  return function refuseTunnel(request, socket) {
    const refusal = firstRefusal(guards, request) ?? refuseUnsafeMethod(request)!;
    const headers = errorHeaders(refusal);
    const body = JSON.stringify(refusal.toJSON());
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.on('error', () => socket.destroy());
    socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n${lines}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  };
}
