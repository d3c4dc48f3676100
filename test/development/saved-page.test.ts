// A restart preparing the page its last run served (src/development/bundled-preview.ts
// `prepareSavedPage`): once its state first settled, from that state, only when a page is saved.
import { expect } from 'chai';
import { prepareSavedPage } from '../../src/development/bundled-preview.js';
import type { JoinedPages } from '../../src/io/joined-pages.js';
import { initialState, type ServiceState } from '../../src/store/state.js';

const settled = (seq: number): ServiceState => ({ ...initialState(), seq, workspaceRead: true });
const unsettled = (seq: number): ServiceState => ({ ...initialState(), seq, workspaceRead: true, workspaceStale: true });
const pages = (any: boolean): JoinedPages => ({ any: () => any, read: () => null, write: async () => {} });

describe('prepareSavedPage', () => {
  it('prepares the page of the state there is once the first settled, when a page is saved', async () => {
    const prepared: number[] = [];
    let state = settled(1);
    const settledOnce = Promise.resolve().then(() => {
      state = settled(2); // a state after the first settled one: the newest is prepared
    });
    await prepareSavedPage({ saved: pages(true), settled: () => settledOnce, getState: () => state, prepare: async (from) => void prepared.push(from.seq) });
    expect(prepared).to.deep.equal([2]);
  });

  // `prepareSavedPage` lets every failure go: what it prepared is recorded, not thrown.
  it('prepares nothing when no page is saved: the last run served none', async () => {
    let asked = false;
    const prepared: number[] = [];
    await prepareSavedPage({ saved: pages(false), settled: async () => void (asked = true), getState: () => settled(1), prepare: async (from) => void prepared.push(from.seq) });
    expect(asked, 'waited for the state').to.equal(false);
    expect(prepared).to.deep.equal([]);
  });

  it('prepares nothing from a state building again: its request makes the page', async () => {
    const prepared: number[] = [];
    await prepareSavedPage({ saved: pages(true), settled: async () => {}, getState: () => unsettled(2), prepare: async (from) => void prepared.push(from.seq) });
    expect(prepared).to.deep.equal([]);
  });

  it('lets a failure go (the service closing, a page that cannot be made): the request reports it', async () => {
    const prepared: number[] = [];
    await prepareSavedPage({ saved: pages(true), settled: () => Promise.reject(new Error('the service is closing')), getState: () => settled(1), prepare: async (from) => void prepared.push(from.seq) });
    expect(prepared).to.deep.equal([]);
    let tried = false;
    await prepareSavedPage({ saved: pages(true), settled: async () => {}, getState: () => settled(1), prepare: async () => ((tried = true), Promise.reject(new Error('no preview entry'))) });
    expect(tried).to.equal(true);
  });
});
