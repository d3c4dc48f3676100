// The watcher's reports (src/effects/watch.ts), with a scripted watcher in place of chokidar and
// real files: what it reports of a raw notification, and of a save seen half done.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { BehaviorSubject, EMPTY, type Observable, type Subscription } from 'rxjs';
import type { Fact } from '../../src/store/events.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { watch$, type WatchDeps } from '../../src/effects/watch.js';
import type { WatcherLike } from '../../src/io/tree-watcher.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

type Listener = (...args: never[]) => void;

/** A watcher whose notifications the test sends. */
function scriptedWatcher() {
  const listeners = new Map<string, Listener[]>();
  const watcher: WatcherLike = {
    on(event: string, listener: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return watcher;
    },
    close: () => Promise.resolve(),
  } as WatcherLike;
  const emit = (event: string, ...args: unknown[]) => {
    for (const listener of listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  };
  return { watcher, emit };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watch$', () => {
  let subscription: Subscription | undefined;
  afterEach(() => subscription?.unsubscribe());

  /** `listings`: directories whose listing the state depends on (as a searched directory). */
  function start(files: Record<string, string>, requestsInProgress$?: Observable<number>, listings: string[] = [], more: Partial<WatchDeps> = {}) {
    const root = tempWorkspace(files);
    const sources: Record<string, string | null> = Object.fromEntries(Object.entries(files).map(([relative, text]) => [relative, contentHash(text)]));
    for (const listing of listings) sources[listing] = createFileHashes(root).hash(listing);
    const state: ServiceState = { ...initialState(), root, workspaceRead: true, workspace: { ...initialState().workspace, sources } };
    const { watcher, emit } = scriptedWatcher();
    const facts: Fact[] = [];
    let created = 0;
    const state$ = new BehaviorSubject(state);
    subscription = watch$(EMPTY, state$, {
      root,
      hashes: createFileHashes(root),
      createWatcher: () => {
        created += 1;
        return watcher;
      },
      truncationMs: 30,
      ...more,
      ...(requestsInProgress$ ? { requestsInProgress$, walkQuietMs: 20, walkAtMostMs: 60_000 } : {}),
    }).subscribe((fact) => {
      facts.push(fact);
      // As the service's state does: a reported hash is what it now knows of the file.
      if (fact.type === 'files.changed') {
        const now = state$.value;
        state$.next({ ...now, workspace: { ...now.workspace, sources: { ...now.workspace.sources, ...(fact.files as Record<string, string>) } } });
      }
    });
    // What a directory's watcher says of a change of a file in it ('rename': one made or removed).
    const notify = (relative: string, event = 'change') => emit('raw', event, path.basename(relative), { watchedPath: path.join(root, path.dirname(relative)) });
    return { root, facts, notify, created: () => created };
  }

  it('reports a file its directory says changed, with its new hash', async () => {
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' });
    fs.writeFileSync(path.join(root, 'app/styles.css'), 'a { color: blue; }\n');
    notify('app/styles.css');
    await wait(10);
    expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/styles.css': contentHash('a { color: blue; }\n') }, source: 'watcher' }]);
  });

  it('tells the bundlers of a saved file, with the bytes it hashed, before it reports the change', async () => {
    const told: { saved: readonly string[]; bytes: (string | undefined)[]; reportedBefore: number }[] = [];
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' }, undefined, [], {
      anticipate: (saved, bytesOf) => told.push({ saved, bytes: saved.map((file) => bytesOf(file)?.toString()), reportedBefore: facts.length }),
    });
    fs.writeFileSync(path.join(root, 'app/styles.css'), 'a { color: blue; }\n');
    notify('app/styles.css');
    await waitFor(() => facts.length > 0, { what: 'the change reported' });
    expect(told).to.deep.equal([{ saved: ['app/styles.css'], bytes: ['a { color: blue; }\n'], reportedBefore: 0 }]);
    expect(facts).to.have.length(1);
  });

  it('tells the bundlers of no file that is gone, and reports it gone', async () => {
    const told: (readonly string[])[] = [];
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' }, undefined, [], {
      anticipate: (saved) => told.push(saved),
    });
    fs.rmSync(path.join(root, 'app/styles.css'));
    notify('app/styles.css');
    await waitFor(() => facts.length > 0, { what: 'the change reported' });
    expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/styles.css': null }, source: 'watcher' }]);
    expect(told.flat()).to.deep.equal([]);
  });

  it('reports the change though the bundlers could not be told of it', async () => {
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' }, undefined, [], {
      anticipate: () => {
        throw new Error('a bundler failed');
      },
    });
    fs.writeFileSync(path.join(root, 'app/styles.css'), 'a { color: blue; }\n');
    notify('app/styles.css');
    await waitFor(() => facts.length > 0, { what: 'the change reported' });
    expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/styles.css': contentHash('a { color: blue; }\n') }, source: 'watcher' }]);
  });

  it('does not report a file seen emptied in the middle of a save, only what the save wrote', async () => {
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' });
    fs.writeFileSync(path.join(root, 'app/styles.css'), ''); // the truncation
    notify('app/styles.css');
    await wait(5);
    expect(facts, 'nothing yet: the rest of the save may come').to.deep.equal([]);
    fs.writeFileSync(path.join(root, 'app/styles.css'), 'a { color: blue; }\n');
    notify('app/styles.css');
    await wait(60);
    expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/styles.css': contentHash('a { color: blue; }\n') }, source: 'watcher' }]);
  });

  it('reports a file that stays empty, a moment later', async () => {
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' });
    fs.writeFileSync(path.join(root, 'app/styles.css'), '');
    notify('app/styles.css');
    await wait(5);
    expect(facts).to.deep.equal([]);
    await wait(60);
    expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/styles.css': contentHash('') }, source: 'watcher' }]);
  });

  it("lists a directory again when an entry of it was made or removed, not when a file's content changed", async () => {
    const { root, facts, notify } = start({ 'app/styles.css': 'a { color: red; }\n' }, undefined, ['app/']);
    fs.writeFileSync(path.join(root, 'app/new.css'), '');
    notify('app/styles.css'); // a save of styles.css: its content is unchanged, and no listing is read
    await wait(10);
    expect(facts).to.deep.equal([]);
    notify('app/new.css', 'rename');
    await wait(10);
    expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/': createFileHashes(root).hash('app/') }, source: 'watcher' }]);
  });

  it('starts watching once the first builds are done and the requests answered, not before', async () => {
    const requests = new BehaviorSubject(1);
    const { created } = start({ 'app/styles.css': 'a { color: red; }\n' }, requests);
    await wait(60);
    expect(created(), 'the first page is being answered').to.equal(0);
    requests.next(0);
    await wait(200);
    expect(created()).to.equal(1);
  });
});
