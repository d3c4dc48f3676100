// The states the push messages derive from (src/service/effects.ts, `statesAhead`): each reaches
// them before the effects and extensions subscribed later, so a `styles` message leaves before
// those judge the state (ARCHITECTURE.md "One stylesheet edit").
import { expect } from 'chai';
import { BehaviorSubject, VirtualTimeScheduler } from 'rxjs';
import type { EffectDeps } from '../../src/effects/table.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import { startEffects, statesAhead } from '../../src/service/effects.js';
import { createBuildHistory } from '../../src/store/build-history.js';
import type { Fact } from '../../src/store/events.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import { createStore } from '../../src/store/store.js';
import { moduleModel, startedBuild, workspaceModel } from '../helpers/models.js';

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

describe('startEffects', () => {
  const DEV = 'browser.development';
  const one = moduleModel('one');
  const unused = (name: string) => (): never => {
    throw new Error(`${name} is not used here`);
  };
  // The effects' timers run on a clock that never advances: they stay still, and the facts
  // are the test's own (the push messages derive from states, not from effects).
  const inertDeps = (): EffectDeps => ({
    scheduler: new VirtualTimeScheduler(),
    openEventFile: unused('openEventFile'),
    readWorkspace: unused('readWorkspace'),
    run: unused('run'),
    concurrency: 1,
    root: '/w',
    hashes: createFileHashes('/w'),
    createWatcher: unused('createWatcher'),
    outputs: createOutputCache(),
  });
  const built = (build: number, styles: string): Fact[] => [
    ...(build > 1 ? [{ type: 'files.changed', files: { [one.entry!]: `edit-${build}` }, source: 'watcher' } as Fact] : []),
    startedBuild(build, DEV, [{ module: one, generation: build }]),
    { type: 'build.succeeded', build, module: one.specifier, variant: DEV, outputs: { code: { hash: 'code-1', size: 1 }, styles: { hash: styles, size: 1 } }, imports: [], inputs: { [one.entry!]: `edit-${build}` } },
  ];

  it("derives the push messages from each state before the store's later subscribers get it", () => {
    const store = createStore({ now: () => new Date(0) });
    const running = startEffects(store, createBuildHistory(), inertDeps(), { root: '/w', watch: false, localCdn: false, logger: () => {} });
    const seen: string[] = [];
    // Subscribed after the effects started, before the messages are listened to (as an
    // extension's channel is, on a page's first connection): the message still comes first.
    const later = store.state$.subscribe((state) => seen.push(`later ${state.seq}`));
    const pushed = running.pushed$.subscribe(({ message, sheet }) => seen.push(`${message.type} ${sheet?.state.seq}`));
    const facts: Fact[] = [{ type: 'workspace.read', workspace: workspaceModel([one]) }, ...built(1, 'styles-1-abcdefghijklmnop'), ...built(2, 'styles-2-abcdefghijklmnop')];
    for (const fact of facts) expect(running.dispatch(fact), fact.type).to.equal(true);
    const last = store.getState().seq;
    expect(seen.slice(-2)).to.deep.equal([`styles ${last}`, `later ${last}`]);
    for (const subscription of [pushed, later, ...running.subscriptions]) subscription.unsubscribe();
  });
});
