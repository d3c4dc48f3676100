// A WebSocket client that queues JSON messages, so the harness can wait for the next one
// that matches without missing any that arrived first.
import WebSocket from 'ws';
import { now, withTimeout } from './stats.js';

export async function openSocket(url, protocols) {
  const socket = new WebSocket(url, protocols);
  const queue = [];
  let waiter = null;
  socket.on('message', (data) => {
    let message;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    queue.push({ at: now(), message });
    if (waiter) waiter();
  });
  await withTimeout(
    new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
      socket.once('unexpected-response', (_, response) => reject(new Error(`${url}: ${response.statusCode}`)));
    }),
    10_000,
    `opening ${url}`,
  );
  return {
    socket,
    /** Drops every message received so far. */
    clear: () => void (queue.length = 0),
    /** The next message (received or coming) for which `match` returns true; { at, message }. */
    async next(match, ms = 5000) {
      const deadline = now() + ms;
      for (;;) {
        while (queue.length > 0) {
          const entry = queue.shift();
          if (match(entry.message)) return entry;
        }
        const left = deadline - now();
        if (left <= 0) throw new Error('timed out waiting for a message');
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, left);
          waiter = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiter = null;
      }
    },
    close: () => socket.terminate(),
  };
}

export { withTimeout };
