// Requests being answered, for work that can wait for them. The watcher's first walk of a large
// workspace (a stat of every file, on both cores) slowed the first page after a start by a
// third when both ran at once; it waits until the service has answered what it was asked
// (README "Links and large trees"). A change meanwhile is still seen: by the check before
// every answer, and by the look at every known path once the walk is done.
import type Koa from 'koa';
import { Observable } from 'rxjs';

export interface Activity {
  /** Counts a request while its handlers run (a stream answered over time counts until it starts). */
  middleware: Koa.Middleware;
  /**
   * Emits once no request has been in progress for `quietMs`, counted from subscription at the
   * earliest, or `atMostMs` after subscription whatever the requests; then completes.
   */
  quiet$(quietMs: number, atMostMs: number): Observable<void>;
}

export function createActivity(now: () => number = Date.now): Activity {
  let inProgress = 0;
  let lastEnded = -Infinity;
  return {
    async middleware(_ctx, next) {
      inProgress += 1;
      try {
        await next();
      } finally {
        inProgress -= 1;
        lastEnded = now();
      }
    },
    quiet$: (quietMs, atMostMs) =>
      new Observable<void>((subscriber) => {
        const since = now();
        let timer: NodeJS.Timeout | undefined;
        const look = () => {
          const at = now();
          const quietFor = at - Math.max(lastEnded, since);
          if ((inProgress === 0 && quietFor >= quietMs) || at - since >= atMostMs) {
            subscriber.next();
            subscriber.complete();
            return;
          }
          timer = setTimeout(look, Math.min(atMostMs - (at - since), inProgress === 0 ? quietMs - quietFor : quietMs));
        };
        look();
        return () => clearTimeout(timer);
      }),
  };
}
