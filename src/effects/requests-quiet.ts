// Work that can wait for the requests being answered (the watcher's first walk, the build
// cache's write, a new `/events` client's greeting): on a large workspace it and the first
// page's work each want every core (README "Links and large trees", "The build cache").
import { NEVER, of, race, switchMap, take, timer, type Observable, type SchedulerLike } from 'rxjs';

/**
 * How long without a request being answered such work waits for (README "Links and large trees":
 * at 250 ms a restart's watcher walk often began between the URL line and the browser's requests)...
 */
export const REQUESTS_QUIET_MS = 1_000;
/** ...and at most how long, whatever the requests. */
export const REQUESTS_AT_MOST_MS = 3_000;

/**
 * Emits once no request has been in progress for `quietMs` (counted from subscription at the
 * earliest), or `atMostMs` after subscription, whatever the requests. Without a request count
 * (no HTTP app, as in the effects' own tests) there is nothing to wait for: it emits at once.
 */
export function whenRequestsQuiet$(inProgress$: Observable<number> | undefined, quietMs: number, atMostMs: number, scheduler: SchedulerLike): Observable<unknown> {
  if (!inProgress$) return of(null);
  const quiet$ = inProgress$.pipe(switchMap((count) => (count === 0 ? timer(quietMs, scheduler) : NEVER)));
  return race(quiet$, timer(atMostMs, scheduler)).pipe(take(1));
}
