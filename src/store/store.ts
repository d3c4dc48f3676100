// The store: one state, changed only by dispatching facts. The reducer runs before the
// event is emitted, so an effect reacting to an event already sees the state it produced
// (as redux-observable does). Dispatches made while an event is being delivered are queued
// and handled in order after it: every subscriber sees states in the same, increasing order.
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import type { CoreEvent, Fact, Facts } from './events.js';
import { reduceAll } from './reducer.js';
import { initialState, type ServiceState } from './state.js';

export interface Store {
  /** One fact, or several reduced as one change of state (state$ emits once); the last event. */
  dispatch(facts: Facts): CoreEvent | null;
  getState(): ServiceState;
  readonly state$: Observable<ServiceState>;
  readonly events$: Observable<CoreEvent>;
  /** Ends both streams; later dispatches are ignored. */
  complete(): void;
}

export interface StoreOptions {
  now?: () => Date;
  state?: ServiceState;
  /** Freeze every state, so a mutation throws where it happens (default true; see ReduceOptions). */
  freeze?: boolean;
}

export function createStore(options: StoreOptions = {}): Store {
  const now = options.now ?? (() => new Date());
  const state$ = new BehaviorSubject<ServiceState>(options.state ?? initialState());
  const events$ = new Subject<CoreEvent>();
  const queue: (readonly Fact[])[] = [];
  let delivering = false;
  let completed = false;

  function deliver(facts: readonly Fact[]): CoreEvent | null {
    if (facts.length === 0) return null;
    const before = state$.getValue();
    const time = now().toISOString();
    const events = facts.map((fact, index) => ({ ...fact, seq: before.seq + 1 + index, time }) as CoreEvent);
    state$.next(reduceAll(before, events, { freeze: options.freeze ?? true }));
    for (const event of events) events$.next(event);
    return events[events.length - 1]!;
  }

  return {
    dispatch(facts) {
      if (completed) return null;
      const batch: readonly Fact[] = Array.isArray(facts) ? facts : [facts as Fact];
      if (delivering) {
        queue.push(batch);
        return null;
      }
      delivering = true;
      try {
        const event = deliver(batch);
        while (queue.length > 0 && !completed) deliver(queue.shift()!);
        return event;
      } finally {
        delivering = false;
        queue.length = 0;
      }
    },
    getState: () => state$.getValue(),
    state$: state$.asObservable(),
    events$: events$.asObservable(),
    complete() {
      completed = true;
      state$.complete();
      events$.complete();
    },
  };
}
