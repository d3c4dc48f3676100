// Work that can wait for the requests being answered (the watcher's first walk, the build
// cache's write, a new `/events` client's greeting): on a large workspace it and the first
// page's work each want every core (README "Links and large trees", "The build cache").
import { NEVER, race, switchMap, take, timer, type Observable, type SchedulerLike } from 'rxjs';

/**
 * Emits once no request has been in progress for `quietMs` (counted from subscription at the
 * earliest), or `atMostMs` after subscription, whatever the requests.
 */
export function whenRequestsQuiet$(inProgress$: Observable<number>, quietMs: number, atMostMs: number, scheduler: SchedulerLike): Observable<unknown> {
  const quiet$ = inProgress$.pipe(switchMap((count) => (count === 0 ? timer(quietMs, scheduler) : NEVER)));
  return race(quiet$, timer(atMostMs, scheduler)).pipe(take(1));
}
