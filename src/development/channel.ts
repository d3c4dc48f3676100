// `/events` (README "Preview and stylesheet push"): pushes the messages derived from the state to every open page.
// It only pushes; whatever a client sends is ignored.
import type { WebSocket } from 'ws';
import type { ExtensionHost } from '../extension.js';
import { invalidMessages, warningMessages } from '../effects/push-messages.js';

const PING_MS = 30_000;

export function registerEventsChannel(host: ExtensionHost): void {
  const clients = new Set<WebSocket>();
  host.push$.subscribe((message) => {
    const text = JSON.stringify(message);
    for (const socket of clients) {
      if (socket.readyState === socket.OPEN) socket.send(text);
    }
  });
  host.sockets.add('/events', (socket) => {
    clients.add(socket);
    // The push tells changes only: a page that reconnects (the service restarted) missed
    // those made meanwhile, so every new client first hears what is broken now, and every warning.
    host.readiness.settled().then(
      (state) => {
        for (const message of [...invalidMessages(state), ...warningMessages(state)]) {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
        }
      },
      () => {}, // the service is closing
    );
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
      clearInterval(ping);
      clients.delete(socket);
    });
  });
}
