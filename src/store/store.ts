// The store: one state, changed only by dispatching facts. The reducer runs before the
// event is emitted, so an effect reacting to an event already sees the state it produced
// (as redux-observable does). Dispatches made while an event is being delivered are queued
// and handled in order after it: every subscriber sees states in the same, increasing order.
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import type { CoreEvent, Fact } from './events.js';
import { reducer } from './reducer.js';
import { initialState, type ServiceState } from './state.js';

export interface Store {
  dispatch(fact: Fact): CoreEvent | null;
  getState(): ServiceState;
  readonly state$: Observable<ServiceState>;
  readonly events$: Observable<CoreEvent>;
  /** Ends both streams; later dispatches are ignored. */
  complete(): void;
}

export interface StoreOptions {
  now?: () => Date;
  state?: ServiceState;
}

export function createStore(options: StoreOptions = {}): Store {
  const now = options.now ?? (() => new Date());
  const state$ = new BehaviorSubject<ServiceState>(options.state ?? initialState());
  const events$ = new Subject<CoreEvent>();
  const queue: Fact[] = [];
  let delivering = false;
  let completed = false;

  function deliver(fact: Fact): CoreEvent {
    const before = state$.getValue();
    const event = { ...fact, seq: before.seq + 1, time: now().toISOString() } as CoreEvent;
    state$.next(reducer(before, event));
    events$.next(event);
    return event;
  }

  return {
    dispatch(fact) {
      if (completed) return null;
      if (delivering) {
        queue.push(fact);
        return null;
      }
      delivering = true;
      try {
        const event = deliver(fact);
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
