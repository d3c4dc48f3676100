// Slow and silent clients: closed on time, and many of them cost little.
import { expect } from 'chai';
import crypto from 'node:crypto';
import net from 'node:net';
import { WebSocketServer } from 'ws';
import { pingSockets, TIME_LIMITS } from '../../src/http/time-limits.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

/** A socket that sends `text` and then nothing; resolves when the server closes it, to the ms it stayed open. */
function silentAfter(port: number, text: string): { closed: Promise<number>; socket: net.Socket } {
  const opened = Date.now();
  const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
  socket.on('error', () => {});
  socket.resume();
  return { socket, closed: new Promise((resolve) => socket.on('close', () => resolve(Date.now() - opened))) };
}

describe('time limits', function () {
  this.timeout(60_000);

  it('closes a connection that sends half a request line and stops, within a few seconds of the header limit', async () => {
    const service = await serve(fixtureWorkspace('basic'));
    const { closed } = silentAfter(service.port, 'GET /st');
    const open = await closed;
    // Generous bounds: the limit is 10 s, checked every second, on a busy machine.
    expect(open).to.be.within(TIME_LIMITS.headersMs - 500, TIME_LIMITS.headersMs + 5000);
  });

  it('closes an idle keep-alive connection after its limit', async () => {
    const service = await serve(fixtureWorkspace('basic'));
    await service.report();
    const { closed, socket } = silentAfter(service.port, `GET /state HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nConnection: keep-alive\r\n\r\n`);
    let answered = '';
    socket.on('data', (chunk: Buffer) => (answered += chunk.toString('utf8')));
    const open = await closed;
    expect(answered).to.match(/^HTTP\/1\.1 200/);
    expect(open).to.be.within(TIME_LIMITS.keepAliveMs - 500, TIME_LIMITS.keepAliveMs + 5000);
  });

  it('holds 1,000 idle connections with little memory, serves meanwhile, and closes them all', async () => {
    const service = await serve(fixtureWorkspace('basic'));
    await service.report();
    global.gc?.();
    const before = process.memoryUsage().rss;
    const idle: ReturnType<typeof silentAfter>[] = [];
    for (let index = 0; index < 1000; index += 1) idle.push(silentAfter(service.port, index % 2 ? '' : 'GET /state HTTP/1.1\r\n'));
    await waitFor(() => idle.every(({ socket }) => socket.readyState === 'open'), { what: '1,000 open connections' });
    expect((await service.get('/state')).status).to.equal(200);
    // Both ends of every connection live in this process: still, a few MB, not hundreds.
    expect((process.memoryUsage().rss - before) / 2 ** 20, 'MiB more resident').to.be.below(150);
    const open = await Promise.all(idle.map(({ closed }) => closed));
    expect(Math.max(...open)).to.be.below(TIME_LIMITS.headersMs + 10_000);
  });

  it('closes a WebSocket that stops answering pings', async () => {
    const sockets = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => sockets.once('listening', resolve));
    pingSockets(sockets, 100);
    const { port } = sockets.address() as net.AddressInfo;
    // A raw client: it completes the handshake, then answers nothing (no pong).
    const key = crypto.randomBytes(16).toString('base64');
    const { closed, socket } = silentAfter(port, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    await closed;
    expect(received).to.match(/^HTTP\/1\.1 101/);
    // 0x89: a ping frame was sent before the close.
    expect(received.includes('\x89')).to.equal(true);
    await new Promise((resolve) => sockets.close(resolve));
  });

  it('keeps a WebSocket that answers pings', async () => {
    const { WebSocket } = await import('ws');
    const sockets = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => sockets.once('listening', resolve));
    pingSockets(sockets, 50);
    const client = new WebSocket(`ws://127.0.0.1:${(sockets.address() as net.AddressInfo).port}/`);
    let pings = 0;
    client.on('ping', () => (pings += 1));
    await waitFor(() => pings >= 5, { what: 'five pings answered' });
    expect(client.readyState).to.equal(WebSocket.OPEN);
    client.close();
    await new Promise((resolve) => sockets.close(resolve));
  });
});
