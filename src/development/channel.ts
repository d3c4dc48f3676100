// `/events` (README "Preview and stylesheet push"): pushes the messages derived from the state to every open page.
// It only pushes; whatever a client sends is ignored.
import { asapScheduler, from, of, switchMap, tap, type Observable, type SchedulerLike } from 'rxjs';
import type { WebSocket } from 'ws';
import type { ExtensionHost } from '../extension.js';
import { invalidMessages, warningMessages, workspaceMessages } from '../effects/push-messages.js';
import { REQUESTS_AT_MOST_MS, REQUESTS_QUIET_MS, whenRequestsQuiet$ } from '../effects/requests-quiet.js';
import type { ServiceState } from '../store/state.js';
import type { HelloMessage, PushMessage } from '../protocol/push.js';
import { createMessageFramer } from './framed-messages.js';

const PING_MS = 30_000;

/**
 * The states new clients are greeted from: checked against the disk, as every answer's. Until
 * one client was greeted, the check waits for the requests being answered: on a first start a
 * page connects while it renders, right after its own requests, and nothing vouches for a path
 * yet, so the check stats every input of the workspace (1,000 modules: 8,400 paths, about 0.1 s
 * of the main thread) beside the browser. Later clients (a reload, a second tab, a reconnect)
 * are greeted at once: what is broken shows as soon as the page can hear it.
 */
export function createGreetings(host: Pick<ExtensionHost, 'readiness' | 'requestsInProgress$'>, scheduler: SchedulerLike = asapScheduler): () => Observable<ServiceState> {
  let greeted = false;
  return () => {
    const quiet$ = !greeted ? whenRequestsQuiet$(host.requestsInProgress$, REQUESTS_QUIET_MS, REQUESTS_AT_MOST_MS, scheduler) : of(null);
    return quiet$.pipe(
      switchMap(() => from(host.readiness.settled())),
      tap(() => (greeted = true)),
    );
  };
}

/** `instance`: the id of this run of the service, which the preview pages it writes carry too. */
export function registerEventsChannel(host: ExtensionHost, instance: string): void {
  const hello = () => JSON.stringify({ type: 'hello', instance, seq: host.getState().seq } satisfies HelloMessage);
  const clients = new Set<WebSocket>();
  const greetingState$ = createGreetings(host);
  const framed = createMessageFramer(host.root);
  // Each message is sent once its frames are read, in the order the messages came: a page must
  // never hear a module valid before it hears it invalid. Framed against the state it was
  // derived from (README "Code frames"), never a later one.
  let sending: Promise<unknown> = Promise.resolve();
  const sendInOrder = (message: PushMessage, from: ServiceState, to: () => Iterable<WebSocket>) => {
    const ready = framed(message, from);
    sending = sending
      .then(() => ready)
      .then((sent) => {
        const text = JSON.stringify(sent);
        for (const socket of to()) if (socket.readyState === socket.OPEN) socket.send(text);
      })
      .catch(() => {}); // a socket that failed: the next message is still sent
  };
  // A pushed message is derived from each state as the store delivers it, one at a time (a
  // dispatch made meanwhile waits its turn, src/store/store.ts): the current state is its own.
  host.push$.subscribe((message) => sendInOrder(message, host.getState(), () => clients));
  host.sockets.add('/events', (socket) => {
    // Before anything else this connection hears (sent here, synchronously, ahead of every
    // message queued in `sending`): a page loaded from another run, or from an earlier state,
    // compares it with its own.
    socket.send(hello());
    clients.add(socket);
    // The push tells changes only: a page that reconnects (the service restarted) missed
    // those made meanwhile, so every new client first hears what is broken now (the workspace's
    // manifests, then each module), and every warning.
    const greeting = greetingState$().subscribe({
      next: (state) => {
        // From the greeted state, which a build that finished since the check is not.
        for (const message of [...workspaceMessages(state), ...invalidMessages(state), ...warningMessages(state)]) sendInOrder(message, state, () => [socket]);
      },
      error: () => {}, // the service is closing
    });
    let alive = true;
    socket.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, PING_MS);
    ping.unref();
    socket.on('message', () => {}); // no commands are accepted
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      greeting.unsubscribe();
      clearInterval(ping);
      clients.delete(socket);
    });
  });
}
