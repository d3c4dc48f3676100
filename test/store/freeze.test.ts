// Immutability where it is relied on: frozen states make a mutation fail where it happens,
// and a store that does not freeze changes nothing for anyone else.
import { expect } from 'chai';
import { produce } from 'immer';
import { startService } from '../../src/service.js';
import { createStore } from '../../src/store/store.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { started, workspaceModel } from '../helpers/models.js';

describe('frozen states', () => {
  it('are what a store makes by default: a mutation throws', () => {
    const store = createStore();
    store.dispatch([started, { type: 'workspace.read', workspace: workspaceModel([]) }]);
    const state = store.getState();
    expect(Object.isFrozen(state) && Object.isFrozen(state.workspace)).to.equal(true);
    expect(() => {
      (state as { seq: number }).seq = 99;
    }).to.throw(TypeError);
  });

  it('are not made by a store told not to freeze, and immer elsewhere still freezes', () => {
    const store = createStore({ freeze: false });
    store.dispatch(started);
    expect(Object.isFrozen(store.getState())).to.equal(false);
    expect(Object.isFrozen(produce({ a: 1 }, (draft) => void (draft.a = 2)))).to.equal(true);
  });

  it('are what every service of the tests makes (CORE_DEBUG_FREEZE=1), and a service without it leaves immer as it was', async () => {
    expect(process.env.CORE_DEBUG_FREEZE).to.equal('1');
    const debug = await startService({ root: fixtureWorkspace('basic'), logger: () => {} });
    const fast = await startService({ root: fixtureWorkspace('basic'), logger: () => {}, freeze: false });
    try {
      await Promise.all([debug.report(), fast.report()]);
      expect(Object.isFrozen(debug.internals.store.getState().builds)).to.equal(true);
      expect(Object.isFrozen(fast.internals.store.getState().builds)).to.equal(false);
      expect(Object.isFrozen(produce({ a: 1 }, (draft) => void (draft.a = 2)))).to.equal(true);
    } finally {
      await Promise.all([debug.close(), fast.close()]);
    }
  });
});
