// Joining the bundled preview ahead of its page request (src/development/bundled-preview.ts
// `joinAhead`): on each settled state, only while a bundled page is in use, a newer state first.
import { expect } from 'chai';
import { Subject } from 'rxjs';
import { joinAhead } from '../../src/development/bundled-preview.js';
import { initialState, type ServiceState } from '../../src/store/state.js';

const settled = (seq: number): ServiceState => ({ ...initialState(), seq, workspaceRead: true });
const unsettled = (seq: number): ServiceState => ({ ...initialState(), seq, workspaceRead: true, workspaceStale: true });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('joinAhead', () => {
  it('joins each settled state while a bundled page is in use, and nothing otherwise', async () => {
    const states = new Subject<ServiceState>();
    let wanted = false;
    const joined: number[] = [];
    const subscription = joinAhead(states, { wanted: () => wanted, join: async (state) => void joined.push(state.seq), failed: (error) => { throw error; } });
    states.next(settled(1));
    await tick();
    expect(joined, 'no bundled page asked for yet').to.deep.equal([]);
    wanted = true;
    states.next(unsettled(2));
    states.next(settled(3));
    await tick();
    expect(joined, 'a state still building is not joined').to.deep.equal([3]);
    wanted = false;
    states.next(settled(4));
    await tick();
    expect(joined).to.deep.equal([3]);
    subscription.unsubscribe();
  });

  it('does not judge whether a state settled while no bundled page is in use', async () => {
    const states = new Subject<ServiceState>();
    let wanted = false;
    let judged = 0;
    const joined: number[] = [];
    const subscription = joinAhead(states, { wanted: () => wanted, join: async (state) => void joined.push(state.seq), failed: (error) => { throw error; } });
    // Whether the workspace was read is the first thing a judgement of the state looks at.
    const counted = (seq: number): ServiceState => Object.defineProperty({ ...settled(seq) }, 'workspaceRead', { get: () => (judged++, true), enumerable: true });
    states.next(counted(1));
    states.next(counted(2));
    await tick();
    expect(judged, 'no page in use: no state judged').to.equal(0);
    wanted = true;
    states.next(counted(3));
    await tick();
    expect(judged).to.be.greaterThan(0);
    expect(joined).to.deep.equal([3]);
    subscription.unsubscribe();
  });

  it('lets a failed join go (the page request reports it) and goes on with the next state', async () => {
    const states = new Subject<ServiceState>();
    const joined: number[] = [];
    const subscription = joinAhead(states, {
      wanted: () => true,
      join: async (state) => {
        joined.push(state.seq);
        if (state.seq === 1) throw new Error('the bundle could not be joined');
      },
      failed: (error) => {
        throw error;
      },
    });
    states.next(settled(1));
    await tick();
    states.next(settled(2));
    await tick();
    expect(joined).to.deep.equal([1, 2]);
    expect(subscription.closed).to.equal(false);
    subscription.unsubscribe();
  });

  it('reports a throw of wanted() and goes on with the next state', async () => {
    const states = new Subject<ServiceState>();
    const joined: number[] = [];
    const failures: string[] = [];
    const subscription = joinAhead(states, {
      wanted: () => {
        if (failures.length === 0) throw new Error('INJECTED wanted');
        return true;
      },
      join: async (state) => void joined.push(state.seq),
      failed: (error) => void failures.push((error as Error).message),
    });
    states.next(settled(1));
    await tick();
    states.next(settled(2));
    await tick();
    expect(failures).to.deep.equal(['INJECTED wanted']);
    expect(joined).to.deep.equal([2]);
    expect(subscription.closed).to.equal(false);
    subscription.unsubscribe();
  });
});
