// When a new client of `/events` is greeted (src/development/channel.ts): from a state checked
// against the disk, once the requests being answered are, in virtual time.
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { BehaviorSubject, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { WebSocket } from 'ws';
import { createGreetings, registerEventsChannel } from '../../src/development/channel.js';
import { REQUESTS_AT_MOST_MS, REQUESTS_QUIET_MS } from '../../src/effects/requests-quiet.js';
import type { ExtensionHost } from '../../src/extension.js';
import { createSocketRoutes } from '../../src/http/sockets.js';
import { SOURCE_CHANGED } from '../../src/io/source-frames.js';
import type { ChannelMessage, PushMessage } from '../../src/protocol/push.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import { framedWorkspace, rebuiltState, SAVED_LINE, SAVED_TEXT } from '../helpers/framed-state.js';

describe('createGreetings', () => {
  let scheduler: TestScheduler;
  let checks: number[];
  const state = initialState() as ServiceState;
  const readiness = () => ({
    settled: () => {
      checks.push(scheduler.now());
      return Promise.resolve(state);
    },
  });
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    checks = [];
  });

  it('checks the disk only once no request has been answered for the quiet time', () => {
    scheduler.run(({ cold }) => {
      // The page's script is answered from 0 to 50 ms, the client connected at 0.
      const requestsInProgress$ = cold('1 49ms 0', { 0: 0, 1: 1 });
      createGreetings({ readiness: readiness() as never, requestsInProgress$ }, scheduler)().subscribe();
    });
    expect(checks).to.deep.equal([50 + REQUESTS_QUIET_MS]);
  });

  it('checks at most as late as told while requests go on', () => {
    scheduler.run(({ cold }) => {
      createGreetings({ readiness: readiness() as never, requestsInProgress$: cold('1', { 1: 1 }) }, scheduler)().subscribe();
    });
    expect(checks).to.deep.equal([REQUESTS_AT_MOST_MS]);
  });

  it('checks at once without a count of requests', () => {
    scheduler.run(() => {
      createGreetings({ readiness: readiness() as never }, scheduler)().subscribe();
    });
    expect(checks).to.deep.equal([0]);
  });

  it('greets later clients at once, once one was greeted', async () => {
    const greetings = createGreetings({ readiness: readiness() as never, requestsInProgress$: new BehaviorSubject(1) }, scheduler);
    scheduler.run(({ flush }) => {
      greetings().subscribe();
      flush();
    });
    // The first check's promise settles after the virtual run: the second client comes later.
    await Promise.resolve();
    expect(checks).to.deep.equal([REQUESTS_AT_MOST_MS]);
    const connected = scheduler.now();
    scheduler.run(() => {
      greetings().subscribe();
    });
    expect(checks).to.deep.equal([REQUESTS_AT_MOST_MS, connected]);
  });
});

// README "Code frames": a frame is only ever the lines of the file as the reporting build read it.
describe('registerEventsChannel, greeting a client', () => {
  /** A socket that keeps what it is sent. */
  function fakeSocket(): { socket: WebSocket; sent: ChannelMessage[] } {
    const sent: ChannelMessage[] = [];
    const socket = Object.assign(new EventEmitter(), { OPEN: 1, readyState: 1, send: (text: string) => void sent.push(JSON.parse(text)), ping: () => {}, terminate: () => {} });
    return { socket: socket as unknown as WebSocket, sent };
  }

  it("frames the greeted state's invalid message against that state's build, not one that finished since", async () => {
    // The greeting's check settled on the failed build; the file was saved and its next build
    // finished before the greeting went out: the current state holds that build's read.
    const { root, state: greeted } = framedWorkspace(SAVED_TEXT);
    const current = rebuiltState(greeted);
    const sockets = createSocketRoutes();
    const host = { root, getState: () => current, readiness: { settled: () => Promise.resolve(greeted) }, push$: new Subject<PushMessage>(), sockets };
    registerEventsChannel(host as unknown as ExtensionHost, 'run-1');
    const { socket, sent } = fakeSocket();
    sockets.get('/events')!(socket, {} as never);
    try {
      // The run's greeting comes first, at once (README "Preview and stylesheet push").
      // With the current state's sequence number: a page written from an earlier one asks.
      expect(sent).to.deep.equal([{ type: 'hello', instance: 'run-1', seq: current.seq }]);
      for (let turn = 0; sent.length === 1 && turn < 1000; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      const [, message] = sent;
      expect(message?.type).to.equal('invalid');
      const frames = message?.type === 'invalid' ? message.diagnostics.map((d) => [d.line, d.frame]) : [];
      expect(frames).to.deep.equal([[2, SOURCE_CHANGED]]);
      expect(JSON.stringify(sent)).to.not.include(SAVED_LINE);
    } finally {
      socket.emit('close');
    }
  });
});

