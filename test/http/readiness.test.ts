// What a route waits for before it answers (src/http/readiness.ts): a check against the disk
// that threw proved nothing, so no answer stands on the state it left.
import { expect } from 'chai';
import { BehaviorSubject } from 'rxjs';
import { createReadiness } from '../../src/http/readiness.js';
import { initialState, type ServiceState } from '../../src/store/state.js';

describe('createReadiness', () => {
  const read: ServiceState = { ...initialState(), workspaceRead: true };
  const readiness = (completed: boolean) => {
    const state$ = new BehaviorSubject(read);
    return createReadiness({ state$, getState: () => state$.value, dispatch: () => true, freshness: { check: async () => completed } });
  };
  const failure = (answer: Promise<unknown>) => answer.then(() => null, (error: Error) => error.message);

  it('answers from the state once the check completed', async () => {
    expect(await readiness(true).workspace()).to.equal(read);
  });

  it('fails the answer when the check threw, for the workspace and for /state alike', async () => {
    expect(await failure(readiness(false).workspace())).to.equal('the check against the disk failed');
    expect(await failure(readiness(false).settled())).to.equal('the check against the disk failed');
    // A waiter that is no request checks nothing, so nothing fails.
    expect(await failure(readiness(false).workspace({ kind: 'workspace' }, true))).to.equal(null);
  });
});
