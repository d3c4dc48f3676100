// Requests being answered, for work that can wait for them: the watcher's first walk of a
// large workspace and the build cache's write wait until the service has answered what it was
// asked (README "Links and large trees"; the waiting itself is `src/effects/requests-quiet.ts`).
import type Koa from 'koa';
import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';

export interface Activity {
  /** Counts a request while its handlers run (a stream answered over time counts until it starts). */
  middleware: Koa.Middleware;
  /** How many requests are being answered: the count now, then each change. */
  inProgress$: Observable<number>;
}

export function createActivity(): Activity {
  const inProgress = new BehaviorSubject(0);
  return {
    async middleware(_ctx, next) {
      inProgress.next(inProgress.value + 1);
      try {
        await next();
      } finally {
        inProgress.next(inProgress.value - 1);
      }
    },
    inProgress$: inProgress.pipe(distinctUntilChanged()),
  };
}
