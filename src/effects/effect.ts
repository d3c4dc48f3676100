// The one shape of every effect (as redux-observable's epics): a function of the events, the
// states and what it needs from outside, returning the facts it wants dispatched.
//
//   (event$, state$, deps) => Observable<Facts>
//
// - `event$` emits each event after it is reduced; `state$` emits the current state at once
//   and each new one (the store's streams).
// - `deps` holds every piece of I/O the effect does (readers, the bundler runner, the watcher
//   factory, the output cache) and its `scheduler`, whose `now()` is its clock: a marble test
//   passes fakes and a TestScheduler, the service passes the real ones (one object for all
//   effects, each taking what it names).
// - An effect never throws out of a callback of its own (a timer, a watcher's listener, an
//   inner subscription): it wraps them in `guarded`, so what they throw fails the effect's
//   Observable, which the supervisor (src/effects/supervisor.ts) reports and restarts.
import type { Observable, SchedulerLike, Subscriber } from 'rxjs';
import type { CoreEvent, Facts } from '../store/events.js';
import type { ServiceState } from '../store/state.js';

export type Effect<Deps> = (event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: Deps) => Observable<Facts>;

/** What every effect may use: the scheduler of its timers, and its clock (`scheduler.now()`). */
export interface EffectScheduling {
  scheduler?: SchedulerLike;
}

/** `callback`, made to fail the effect's Observable with what it throws instead of escaping to the process. */
export function guarded<A extends unknown[]>(subscriber: Subscriber<unknown>, callback: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    if (subscriber.closed) return;
    try {
      callback(...args);
    } catch (error) {
      subscriber.error(error);
    }
  };
}
