// Requests Node's parser refuses (a NUL or a space in the target, headers too large, a
// client too slow) never reach Koa; they still get the JSON answer of README "Error codes".
import type { Socket } from 'node:net';
import { ERROR_CODES, errorBody } from '../codes.js';

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
