// The order a team start checks a list in when a worker reads ahead (ARCHITECTURE.md "Hashing on
// the second core"): the worker reads items from the front in batches, a couple at a time;
// whenever the next batch is not answered yet, this thread checks a few from the back itself
// (read here), then lets the worker's answers in. The two meet and neither waits for the other,
// however busy the second core is. The restore's entries and the workspace model's sources are
// both checked so.

import { setImmediate } from 'node:timers/promises';

/** Items read on the worker in one message, and how many such messages at once. */
const BATCH = 64;
const IN_FLIGHT = 2;
/** Items this thread checks from the back while the worker's next batch is not answered. */
const STOLEN = 16;

export interface TwoEnded<T> {
  /**
   * Checks every item, once: a batch the worker answered as a whole, from the front
   * (`asRead`: its read is there to take), else a few from the back, read here. Stops at the
   * first false, and sends nothing more once it ends. Whether every check held.
   */
  check(holds: (item: T, asRead: boolean) => boolean): Promise<boolean>;
}

/**
 * Begins sending `items` to `readAhead` (none sent without it: all are checked here, from the
 * back). `allSent` is told each time nothing is left to send (so at least once).
 */
export function twoEnded<T>(items: readonly T[], readAhead: ((batch: readonly T[]) => Promise<void>) | undefined, allSent: () => void = () => undefined): TwoEnded<T> {
  // [front, back): neither sent to the worker nor checked here yet.
  let front = 0;
  let back = items.length;
  let reading = 0;
  let done = false;
  const sent: { from: number; to: number; ready: boolean; read: Promise<void> }[] = [];
  const send = () => {
    while (readAhead && !done && reading < IN_FLIGHT && front < back) {
      const batch = { from: front, to: (front = Math.min(front + BATCH, back)), ready: false, read: Promise.resolve() };
      reading += 1;
      // Reading ahead only spares work: a failure of it leaves each item to be read at its check.
      batch.read = readAhead(items.slice(batch.from, batch.to))
        .catch(() => undefined)
        .then(() => {
          batch.ready = true;
          reading -= 1;
          send();
        });
      sent.push(batch);
    }
    if (front >= back) allSent();
  };
  send();
  const checkAll = async (holds: (item: T, asRead: boolean) => boolean): Promise<boolean> => {
    while (sent.length > 0 || front < back) {
      const next = sent[0];
      if (next && (next.ready || front >= back)) {
        await next.read;
        sent.shift();
        for (let index = next.from; index < next.to; index++) if (!holds(items[index]!, true)) return false;
        continue;
      }
      const from = Math.max(front, back - STOLEN);
      for (let index = from; index < back; index++) if (!holds(items[index]!, false)) return false;
      back = from;
      if (front >= back) allSent();
      await setImmediate();
    }
    return true;
  };
  return {
    async check(holds) {
      try {
        return await checkAll(holds);
      } finally {
        done = true;
      }
    },
  };
}
