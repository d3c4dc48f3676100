// The states the push messages derive from (src/service/effects.ts, `statesAhead`): each reaches
// them before the effects and extensions subscribed later, so a `styles` message leaves before
// those judge the state (ARCHITECTURE.md "One stylesheet edit").
import { expect } from 'chai';
import { BehaviorSubject } from 'rxjs';
import { statesAhead } from '../../src/service/effects.js';
import { initialState, type ServiceState } from '../../src/store/state.js';

describe('statesAhead', () => {
  const stateWith = (seq: number): ServiceState => ({ ...initialState(), seq });

  it('gives each state to its subscribers before the subscribers of the states made after it, and the current state first', () => {
    const state$ = new BehaviorSubject(stateWith(1));
    const ahead = statesAhead(state$, () => state$.getValue());
    const seen: string[] = [];
    state$.subscribe((state) => seen.push(`later ${state.seq}`));
    state$.next(stateWith(2));
    // Subscribed last, as the push's derivation is (by an extension's channel): it still comes first.
    ahead.state$.subscribe((state) => seen.push(`ahead ${state.seq}`));
    state$.next(stateWith(3));
    expect(seen).to.deep.equal(['later 1', 'later 2', 'ahead 2', 'ahead 3', 'later 3']);
    ahead.subscription.unsubscribe();
    state$.next(stateWith(4));
    expect(seen.at(-1)).to.equal('later 4');
  });

  it('ends when the states end, and a subscriber that comes again starts from the current state', () => {
    const state$ = new BehaviorSubject(stateWith(1));
    const ahead = statesAhead(state$, () => state$.getValue());
    const first: number[] = [];
    const subscription = ahead.state$.subscribe((state) => first.push(state.seq));
    state$.next(stateWith(2));
    subscription.unsubscribe();
    state$.next(stateWith(3));
    const again: number[] = [];
    let ended = false;
    ahead.state$.subscribe({ next: (state) => again.push(state.seq), complete: () => (ended = true) });
    state$.complete();
    expect([first, again, ended]).to.deep.equal([[1, 2], [3], true]);
  });
});
