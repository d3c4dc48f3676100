// Fault injection into the tree watcher's own callbacks (src/io/tree-watcher.ts and its parts):
// an `fs.watch` listener, the timer of its walk and a watch's `error` listener. A throw there runs
// from the event loop; it must fail the watch effect (reported, restarted by the supervisor, listed
// on /state past the bound), never the process.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { EffectDeps } from '../../src/service.js';
import type { CoreEvent } from '../../src/store/events.js';
import { EFFECT_FAILURE_BOUND, type Report } from '../../src/store/selectors.js';
import { watchTree, type TreeWatcher, type TreeWatcherFs } from '../../src/io/tree-watcher.js';
import { esbuildHolds } from '../helpers/esbuild-holds.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { edit, write } from '../helpers/edit.js';

/** An object whose every property throws `INJECTED <what>` when read: a defect past the call's own error handling. */
const throwingWhenRead = <T extends object>(what: string): T =>
  new Proxy({}, {
    get: () => {
      throw new Error(`INJECTED ${what}`);
    },
  }) as T;

/** The service, its watch effect given tree watchers that use `files`; each watcher made is kept, with whether it is ready. */
async function served(files: TreeWatcherFs) {
  const reported: string[] = [];
  const watchers: { watcher: TreeWatcher; ready: boolean }[] = [];
  const effectDeps = (deps: EffectDeps): EffectDeps => ({
    ...deps,
    createWatcher: (dir, ignored) => {
      const made = { watcher: watchTree(dir, { ignored, fs: files }), ready: false };
      made.watcher.on('ready', () => void (made.ready = true));
      watchers.push(made);
      return made.watcher;
    },
  });
  const root = fixtureWorkspace('basic');
  const service = await serve(root, { effectDeps, logger: (line) => void reported.push(line) });
  const failures = () =>
    service.internals.log
      .events()
      .filter((event): event is Extract<CoreEvent, { type: 'effect.failed' }> => event.type === 'effect.failed')
      .map((event) => [event.effect, event.message]);
  /** Waits for the `count`th watcher to have walked the tree. */
  const watching = (count: number) => waitFor(() => watchers.length >= count && watchers[count - 1]!.ready, { what: `watcher ${count} ready` });
  return { service, root, reported, failures, watching };
}

/** /state and a module answer; returns the diagnostics of failing effects. */
async function answers(service: Awaited<ReturnType<typeof served>>['service']) {
  expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
  const state = await service.get('/state');
  expect(state.status).to.equal(200);
  return (JSON.parse(state.text) as Report).diagnostics.filter((diagnostic) => diagnostic.kind === 'EFFECT_FAILED').map((diagnostic) => diagnostic.message);
}

const pushedByWatcher = (events: readonly CoreEvent[], file: string) => events.some((event) => event.type === 'files.changed' && event.source === 'watcher' && file in event.files);

describe('watcher faults', () => {
  // A service closed while the watcher's edit was still building (the first test) left that
  // build running past its end, holding esbuild's process: stopped at the end of the run,
  // esbuild then printed "all goroutines are asleep - deadlock!". A closed service holds it no more.
  let held: number;
  beforeEach(() => void (held = esbuildHolds()));
  afterEach(() => expect(esbuildHolds(), "esbuild's process held after the service closed").to.equal(held));

  it('an fs.watch listener that throws fails the watch effect: reported, listed on /state past the bound, and a watcher started afresh pushes changes', async function () {
    this.timeout(60_000);
    let armed = true;
    // The stat of an entry made in a watched directory, which only a notice takes.
    const files: TreeWatcherFs = { ...fs, lstatSync: (file, options) => (armed ? throwingWhenRead<fs.Stats>('lstat') : fs.lstatSync(file, options)) };
    const { service, root, reported, failures, watching } = await served(files);
    try {
      for (let failure = 1; failure <= EFFECT_FAILURE_BOUND; failure += 1) {
        await watching(failure);
        write(root, `packages/app/main/made-${failure}.ts`, 'export {};\n');
        await waitFor(() => failures().length >= failure, { what: `failure ${failure} of the watcher` });
      }
      expect(new Set(failures().map((failure) => failure.join(': ')))).to.deep.equal(new Set(['watch: INJECTED lstat']));
      expect(reported.join('\n')).to.include('the watch effect failed: INJECTED lstat');
      expect(await answers(service)).to.have.length(1).and.to.satisfy((messages: string[]) => messages[0]!.includes('the watch effect failed'));
      armed = false;
      await watching(EFFECT_FAILURE_BOUND + 1);
      edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(3, 2, 1)'));
      await waitFor(() => pushedByWatcher(service.internals.log.events(), 'packages/app/main/styles.css'), { what: 'the restarted watcher reporting the edit' });
    } finally {
      await service.close();
    }
  });

  it('a walk whose timer throws fails the watch effect every time; past the bound /state lists it, and the service answers', async function () {
    this.timeout(60_000);
    const entry = throwingWhenRead<fs.Dirent>('dirent');
    // The walk's own slice reads each entry it lists: a defect in the loop of its timer.
    const files: TreeWatcherFs = { ...fs, readdirSync: () => [entry] };
    const { service, reported, failures } = await served(files);
    try {
      await waitFor(() => failures().length >= EFFECT_FAILURE_BOUND, { timeout: 30_000, what: `${EFFECT_FAILURE_BOUND} failures of the walk` });
      expect(new Set(failures().map((failure) => failure.join(': ')))).to.deep.equal(new Set(['watch: INJECTED dirent']));
      expect(reported.join('\n')).to.include('the watch effect failed: INJECTED dirent');
      const faults = await answers(service);
      expect(faults).to.have.length(1);
      expect(faults[0]).to.include('the watch effect failed');
    } finally {
      await service.close();
    }
  });

  it("a watch's error listener that throws fails the watch effect, and a watcher started afresh pushes changes", async () => {
    const handles = new Map<string, fs.FSWatcher>();
    const files: TreeWatcherFs = {
      ...fs,
      watch: (file, options, listener) => {
        const handle = fs.watch(file, options, listener);
        handles.set(file, handle);
        return handle;
      },
    };
    const { service, root, failures, watching } = await served(files);
    try {
      await watching(1);
      const directory = path.join(root, 'packages/app/main');
      const handle = handles.get(directory)!;
      const close = handle.close.bind(handle);
      // Ending the failed watch throws: a defect inside the listener, which runs from the event loop.
      handle.close = () => {
        throw new Error('INJECTED close');
      };
      setImmediate(() => handle.emit('error', Object.assign(new Error('EIO: i/o error, watch'), { code: 'EIO' })));
      await waitFor(() => failures().length > 0, { what: 'the failure of the watcher' });
      expect(failures()).to.deep.equal([['watch', 'INJECTED close']]);
      close(); // the watcher forgot it before the throw
      await watching(2);
      edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(3, 2, 1)'));
      await waitFor(() => pushedByWatcher(service.internals.log.events(), 'packages/app/main/styles.css'), { what: 'the restarted watcher reporting the edit' });
      expect(await answers(service)).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });
});
