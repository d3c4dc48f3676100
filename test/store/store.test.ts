// The store: facts stamped into events, reduced, and delivered in one order to everyone.
import { expect } from 'chai';
import type { CoreEvent } from '../../src/store/events.js';
import { initialState } from '../../src/store/state.js';
import { createStore } from '../../src/store/store.js';
import { started } from '../helpers/models.js';

const clock = () => {
  let tick = 0;
  return () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++));
};

describe('createStore', () => {
  it('stamps each fact with the next seq and the time of its clock', () => {
    const store = createStore({ now: clock() });
    const first = store.dispatch(started);
    const second = store.dispatch({ type: 'service.stopped' });
    expect(first).to.deep.equal({ ...started, seq: 1, time: '2025-01-01T00:00:00.000Z' });
    expect(second).to.deep.equal({ type: 'service.stopped', seq: 2, time: '2025-01-01T00:00:01.000Z' });
    expect(store.getState()).to.include({ seq: 2, time: '2025-01-01T00:00:01.000Z', root: '/w' });
  });

  it('reduces facts dispatched together as one change: consecutive seqs, one state, every event', () => {
    const store = createStore({ now: clock() });
    store.dispatch(started);
    const states: number[] = [];
    const events: number[] = [];
    store.state$.subscribe((state) => states.push(state.seq));
    store.events$.subscribe((event) => events.push(event.seq));
    const last = store.dispatch([{ type: 'service.stopped' }, { type: 'service.stopped' }, { type: 'service.stopped' }]);
    expect(last!.seq).to.equal(4);
    expect(states).to.deep.equal([1, 4]);
    expect(events).to.deep.equal([2, 3, 4]);
    expect(store.dispatch([])).to.equal(null);
  });

  it('continues the seq of the state it starts from', () => {
    const store = createStore({ now: clock(), state: { ...initialState(), seq: 41 } });
    expect(store.dispatch({ type: 'service.stopped' })!.seq).to.equal(42);
  });

  it('reduces an event before emitting it, so a subscriber sees the state it produced', () => {
    const store = createStore({ now: clock() });
    const seen: number[] = [];
    store.events$.subscribe((event) => seen.push(store.getState().seq - event.seq));
    store.dispatch(started);
    store.dispatch({ type: 'service.stopped' });
    expect(seen).to.deep.equal([0, 0]);
  });

  it('replays the current state to a new subscriber of state$', () => {
    const store = createStore({ now: clock() });
    store.dispatch(started);
    const seqs: number[] = [];
    store.state$.subscribe((state) => seqs.push(state.seq));
    expect(seqs).to.deep.equal([1]);
  });

  it('queues a dispatch made during delivery: every subscriber sees states and events in increasing seq order', () => {
    const store = createStore({ now: clock() });
    const early: number[] = [];
    const late: number[] = [];
    const events: number[] = [];
    let inner: CoreEvent | null | undefined;
    // The first subscriber reacts to seq 1 with a dispatch of its own.
    store.state$.subscribe((state) => {
      early.push(state.seq);
      if (state.seq === 1) inner = store.dispatch({ type: 'service.stopped' });
    });
    store.state$.subscribe((state) => late.push(state.seq));
    store.events$.subscribe((event) => events.push(event.seq));
    const outer = store.dispatch(started);
    expect(outer!.seq).to.equal(1);
    expect(inner).to.equal(null);
    expect(early).to.deep.equal([0, 1, 2]);
    expect(late).to.deep.equal([0, 1, 2]);
    expect(events).to.deep.equal([1, 2]);
    expect(store.getState().seq).to.equal(2);
  });

  it('delivers dispatches queued by an events$ subscriber in the order they were made', () => {
    const store = createStore({ now: clock() });
    const types: string[] = [];
    store.events$.subscribe((event) => {
      types.push(`${event.seq}:${event.type}`);
      if (event.type === 'service.started') {
        store.dispatch({ type: 'output.requested', module: '@t/app/one', variant: 'a' });
        store.dispatch({ type: 'service.stopped' });
      }
    });
    store.dispatch(started);
    expect(types).to.deep.equal(['1:service.started', '2:output.requested', '3:service.stopped']);
  });

  it('ends both streams on complete and ignores later dispatches', () => {
    const store = createStore({ now: clock() });
    let statesDone = false;
    let eventsDone = false;
    store.state$.subscribe({ complete: () => (statesDone = true) });
    store.events$.subscribe({ complete: () => (eventsDone = true) });
    store.dispatch(started);
    store.complete();
    expect([statesDone, eventsDone]).to.deep.equal([true, true]);
    expect(store.dispatch({ type: 'service.stopped' })).to.equal(null);
    expect(store.getState().seq).to.equal(1);
  });
});
