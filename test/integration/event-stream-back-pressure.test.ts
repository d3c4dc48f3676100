// Readers of the /state and /log event streams that stop reading (README "The event log, replay
// and state subscription"): past a bounded buffer the service sends them a last `dropped` event
// and ends their stream, instead of holding every event written since; a reader that leaves
// takes its connection with it.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

type Served = Awaited<ReturnType<typeof serve>>;

const BUFFER_BYTES = 64 * 1024;
/** A package name this long makes each break a workspace.read event, and a /state report, of about this size. */
const BREAK_BYTES = 200 * 1024;
/** More than the kernel's socket buffers hold on loopback (4 MiB to send, far less to receive from a reader that never reads). */
const CYCLES = 30;

/** A reader of `address` as an event stream that takes the answer's head, then stops reading. */
function pausedReader(port: number, address: string) {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let ended = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('end', () => (ended = true));
  socket.on('close', () => (ended = true));
  socket.on('error', () => {});
  socket.write(`GET ${address} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`);
  return {
    socket,
    text: () => Buffer.concat(chunks).toString('utf8'),
    ended: () => ended,
    async pauseOnceAnswered() {
      await waitFor(() => Buffer.concat(chunks).includes('\r\n\r\n'), { what: `the head of ${address}` });
      socket.pause();
    },
  };
}

/** The events of an SSE text, as `event` and `data`. */
function eventsOf(text: string): { event: string; data: string }[] {
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  return [...body.matchAll(/event: ([^\n]+)\n(?:id: [^\n]+\n)?data: ([^\n]*)\n\n/g)].map((match) => ({ event: match[1]!, data: match[2]! }));
}

describe('event streams with back-pressure: a reader that stops reading is dropped', function () {
  this.timeout(120_000);
  let root: string;
  let service: Served;
  let manifest: string;
  let original: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root, { eventStreamBufferBytes: BUFFER_BYTES });
    expect((await service.get('/state')).status).to.equal(200);
    manifest = path.join(root, 'packages/lib/package.json');
    original = fs.readFileSync(manifest, 'utf8');
  });
  after(async function () {
    await service?.close();
  });

  /** Breaks the library's manifest with a long name, then fixes it, `cycles` times, each awaited through /state. */
  async function breakAndFix(cycles: number) {
    const broken = JSON.stringify({ ...JSON.parse(original), name: 'x'.repeat(BREAK_BYTES) });
    for (let cycle = 0; cycle < cycles; cycle++) {
      fs.writeFileSync(manifest, broken);
      expect((await service.get('/state')).json<{ diagnostics: unknown[] }>().diagnostics).to.have.length.greaterThan(0);
      fs.writeFileSync(manifest, original);
      expect((await service.get('/state')).json<{ diagnostics: unknown[] }>().diagnostics).to.deep.equal([]);
    }
  }

  it('ends the stream of a paused /state and /log reader with a `dropped` event once its buffer is past the bound', async function () {
    const readers = [pausedReader(service.port, '/state'), pausedReader(service.port, '/log')];
    for (const reader of readers) await reader.pauseOnceAnswered();
    await breakAndFix(CYCLES);
    const produced = service.internals.log.events().length;
    for (const reader of readers) {
      reader.socket.resume();
      await waitFor(() => reader.ended(), { what: 'the dropped reader’s stream ended' });
      const events = eventsOf(reader.text());
      const last = events[events.length - 1]!;
      expect(last.event, reader.text().slice(-300)).to.equal('dropped');
      const dropped = JSON.parse(last.data) as { reason: string; queuedBytes: number; limitBytes: number };
      expect(dropped.limitBytes).to.equal(BUFFER_BYTES);
      expect(dropped.reason).to.include(String(BUFFER_BYTES));
      // Bounded: the service held at most the bound and the one event that went past it.
      expect(dropped.queuedBytes).to.be.greaterThan(BUFFER_BYTES);
      expect(dropped.queuedBytes).to.be.at.most(BUFFER_BYTES + 2 * BREAK_BYTES);
      // Not every event reached it: the later ones were never queued.
      expect(events.length - 1).to.be.lessThan(reader === readers[1] ? produced : 2 * CYCLES + 1);
    }
    expect((await service.get('/state')).status).to.equal(200);
  });

  it('lets a paused reader that leaves go, connection and all', async function () {
    const count = () => new Promise<number>((resolve, reject) => service.internals.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    // Only the newer events: the kept ones, from the test before, are more than the bound.
    const since = service.internals.log.events().at(-1)!.seq;
    const readers = [pausedReader(service.port, '/state'), pausedReader(service.port, `/log?since=${since}`)];
    // An edit, so the /log stream has an event to write (its head goes with the first).
    fs.appendFileSync(path.join(root, 'packages/lib/format/index.ts'), '\n');
    expect((await service.get('/state')).status).to.equal(200);
    for (const reader of readers) await reader.pauseOnceAnswered();
    // Every other request of the test closes its connection once answered.
    await waitFor(async () => (await count()) === 2, { what: 'the two readers’ connections alone open' });
    for (const reader of readers) reader.socket.destroy();
    await waitFor(async () => (await count()) === 0, { what: 'the readers’ connections closed on the service’s side' });
    expect((await service.get('/state')).status).to.equal(200);
  });
});
