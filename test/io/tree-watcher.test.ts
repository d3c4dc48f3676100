// The watcher of the workspace tree (src/io/tree-watcher.ts), on real temporary
// directories, with the file-system calls it makes counted.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { watchTree, type TreeWatcherFs, type TreeWatcherOptions } from '../../src/io/tree-watcher.js';
import { watchSequence } from '../../src/io/file-hashes.js';
import { createWatchScope } from '../../src/io/watch-scope.js';
import { isIgnored } from '../../src/effects/watch.js';
import type { WatcherLike } from '../../src/io/tree-watcher.js';
import { tempWorkspace } from '../helpers/workspace.js';

interface Counted extends TreeWatcherFs {
  reads: string[];
  stats: string[];
  lstats: string[];
  /** Paths watched, and those of them closed since. */
  watches: string[];
  closed: string[];
}

function countingFs(): Counted {
  const counted: Counted = {
    reads: [],
    stats: [],
    lstats: [],
    watches: [],
    closed: [],
    readdirSync: (dir, options) => {
      counted.reads.push(dir);
      return fs.readdirSync(dir, options);
    },
    statSync: (file, options) => {
      counted.stats.push(file);
      return fs.statSync(file, options);
    },
    lstatSync: (file, options) => {
      counted.lstats.push(file);
      return fs.lstatSync(file, options);
    },
    watch: (file, options, listener) => {
      const handle = fs.watch(file, options, listener);
      counted.watches.push(file);
      const close = handle.close.bind(handle);
      handle.close = () => {
        counted.closed.push(file);
        close();
      };
      return handle;
    },
  };
  return counted;
}

type Event = { kind: 'all'; event: string; path: string } | { kind: 'raw'; event: string; name: string; watchedPath: string } | { kind: 'ready' };

/** The watcher's events as they come, and a way to wait for one. */
function record(watcher: WatcherLike) {
  const events: Event[] = [];
  const waiting: { match(event: Event): boolean; resolve(): void }[] = [];
  const push = (event: Event) => {
    events.push(event);
    for (const waiter of [...waiting]) {
      if (!waiter.match(event)) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  watcher.on('all', (event, file) => push({ kind: 'all', event, path: file }));
  watcher.on('raw', (event, name, details) => push({ kind: 'raw', event, name, watchedPath: details.watchedPath ?? '' }));
  watcher.on('ready', () => push({ kind: 'ready' }));
  watcher.on('error', () => {});
  return {
    events,
    next(match: (event: Event) => boolean, what: string): Promise<void> {
      if (events.some(match)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${what} within 3 s; events: ${JSON.stringify(events)}`)), 3000);
        waiting.push({ match, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('watchTree', () => {
  const open: WatcherLike[] = [];
  afterEach(async () => {
    for (const watcher of open.splice(0)) await watcher.close();
  });

  function start(root: string, files: Counted, sliceMs?: number, more: Partial<TreeWatcherOptions> = {}) {
    const watcher = watchTree(root, { ignored: createWatchScope(root, { skip: (absolute) => isIgnored(root, absolute) }).ignored, fs: files, ...(sliceMs === undefined ? {} : { sliceMs }), ...more });
    open.push(watcher);
    return { ...record(watcher), watcher };
  }

  /** A watcher of `root` with its calls counted, once its first walk is done. */
  async function ready(root: string, more: Partial<TreeWatcherOptions> = {}) {
    const counted = countingFs();
    const events = start(root, counted, undefined, more);
    await events.next((event) => event.kind === 'ready', 'ready');
    return { counted, events, watcher: events.watcher };
  }

  it('passes a save on from its directory’s notice, and reads and stats nothing for it, however large the directory', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 300; index++) files[`app/file-${index}.ts`] = `export const n = ${index};\n`;
    const root = tempWorkspace(files);
    const { counted, events } = await ready(root);
    counted.reads.length = 0;
    counted.stats.length = 0;
    fs.writeFileSync(path.join(root, 'app/file-7.ts'), 'export const n = 70;\n');
    await events.next((event) => event.kind === 'raw' && event.name === 'file-7.ts' && event.watchedPath === path.join(root, 'app'), 'notice of the save');
    await settle();
    expect(counted.reads, 'directories read').to.deep.equal([]);
    expect(counted.stats, 'paths stat-ed').to.deep.equal([]);
    // A file's save is its directory's notice alone: no event of its own (the file is not watched).
    expect(events.events.filter((event) => event.kind === 'all')).to.deep.equal([]);
  });

  it('watches a directory made after the first walk, and those made in it, and reports them', async () => {
    const root = tempWorkspace({ 'app/index.ts': '' });
    const { events } = await ready(root);
    fs.mkdirSync(path.join(root, 'app/new/deeper'), { recursive: true });
    await events.next((event) => event.kind === 'all' && event.event === 'addDir' && event.path === path.join(root, 'app/new/deeper'), 'addDir of app/new/deeper');
    expect(events.events.some((event) => event.kind === 'all' && event.event === 'addDir' && event.path === path.join(root, 'app/new'))).to.equal(true);
    fs.writeFileSync(path.join(root, 'app/new/deeper/x.ts'), 'export {};\n');
    await events.next((event) => event.kind === 'raw' && event.name === 'x.ts' && event.watchedPath === path.join(root, 'app/new/deeper'), 'notice from the new directory');
  });

  it('stops watching a removed directory and what is in it, and watches the one made again under its name', async () => {
    const root = tempWorkspace({ 'app/sub/inner/a.ts': '', 'app/index.ts': '' });
    const { counted, events } = await ready(root);
    const sub = path.join(root, 'app/sub');
    fs.rmSync(sub, { recursive: true });
    await events.next((event) => event.kind === 'all' && event.event === 'unlinkDir' && event.path === sub, 'unlinkDir of app/sub');
    expect(counted.closed).to.include.members([sub, path.join(sub, 'inner')]);
    fs.mkdirSync(sub);
    await events.next((event) => event.kind === 'all' && event.event === 'addDir' && event.path === sub, 'addDir of app/sub again');
    fs.writeFileSync(path.join(sub, 'b.ts'), '');
    await events.next((event) => event.kind === 'raw' && event.name === 'b.ts' && event.watchedPath === sub, 'notice from the directory made again');
  });

  it('watches a linked file itself, and again after its file is replaced by a rename', async () => {
    const root = tempWorkspace({ 'app/index.ts': '', 'common/shared.ts': 'export const a = 1;\n' });
    const link = path.join(root, 'app/shared.ts');
    fs.symlinkSync('../common/shared.ts', link);
    const { counted, events } = await ready(root);
    expect(counted.watches).to.include(link);
    fs.writeFileSync(path.join(root, 'common/shared.ts'), 'export const a = 2;\n');
    await events.next((event) => event.kind === 'all' && event.event === 'change' && event.path === link, 'change of the linked file');
    // An editor's save by rename: the watched file is gone, another takes its name.
    fs.writeFileSync(path.join(root, 'common/shared.ts.tmp'), 'export const a = 3;\n');
    fs.renameSync(path.join(root, 'common/shared.ts.tmp'), path.join(root, 'common/shared.ts'));
    await events.next((event) => event.kind === 'all' && event.event === 'add' && event.path === link, 'the linked file watched again');
    const changes = () => events.events.filter((event) => event.kind === 'all' && event.event === 'change' && event.path === link).length;
    const before = changes();
    fs.writeFileSync(path.join(root, 'common/shared.ts'), 'export const a = 4;\n');
    await events.next((event) => event.kind === 'all' && event.event === 'change' && event.path === link && changes() > before, 'change of the new file');
  });

  it('watches nothing the scope refuses: skipped directories, a link out of the workspace, a second path to a directory', async () => {
    const root = tempWorkspace({ 'app/index.ts': '', 'node_modules/pkg/index.js': '', '.git/HEAD': '' });
    fs.symlinkSync('/', path.join(root, 'app/rootlink'));
    fs.symlinkSync('.', path.join(root, 'app/same'));
    const { counted } = await ready(root);
    expect([...counted.watches].sort()).to.deep.equal([root, path.join(root, 'app')]);
  });

  it('walks a large tree in slices, and is ready once every directory is watched', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 120; index++) files[`packages/p${index % 12}/m${index}/src/index.ts`] = '';
    const root = tempWorkspace(files);
    const counted = countingFs();
    const events = start(root, counted, 0);
    // Other work runs between the slices: a turn of this chain each time.
    let turns = 0;
    let counting = true;
    const turn = () => {
      turns++;
      if (counting) setImmediate(turn);
    };
    setImmediate(turn);
    await events.next((event) => event.kind === 'ready', 'ready');
    counting = false;
    // The root, packages/, 12 packages, 120 modules and their src/ directories.
    expect(counted.watches.length).to.equal(1 + 1 + 12 + 120 + 120);
    expect(events.events.filter((event) => event.kind === 'ready')).to.have.length(1);
    expect(turns, 'turns of other work while walking').to.be.greaterThan(50);
    // Nothing of the first walk is reported as made.
    expect(events.events.filter((event) => event.kind === 'all')).to.deep.equal([]);
  });

  it('closes every watch, and reports nothing after close', async () => {
    const root = tempWorkspace({ 'app/sub/index.ts': '' });
    const { counted, events } = await ready(root);
    await open.pop()!.close();
    expect([...counted.closed].sort()).to.deep.equal([...counted.watches].sort());
    const seen = events.events.length;
    fs.writeFileSync(path.join(root, 'app/sub/index.ts'), 'export {};\n');
    fs.mkdirSync(path.join(root, 'app/other'));
    await settle();
    expect(events.events.length).to.equal(seen);
  });

  it('tells a throw of its own code in a notice to its defect listeners, not to the event loop', async () => {
    const root = tempWorkspace({ 'app/index.ts': '' });
    const { counted, events, watcher } = await ready(root);
    const defects: unknown[] = [];
    watcher.on('defect', (error) => void defects.push(error));
    // The stat of an entry made, read past the call's own error handling: a defect, not an error of the file system.
    counted.lstatSync = () =>
      new Proxy({}, {
        get: () => {
          throw new Error('INJECTED lstat');
        },
      }) as fs.Stats;
    fs.writeFileSync(path.join(root, 'app/made.ts'), '');
    await events.next((event) => event.kind === 'raw' && event.name === 'made.ts', 'notice of the entry made');
    expect(defects.map((error) => (error as Error).message)).to.deep.equal(['INJECTED lstat']);
  });

  it('takes a watched directory replaced at once by a link to itself as a link not followed, as the walk does: nothing listed', async () => {
    const root = tempWorkspace({ 'app/index.ts': '', 'app/inner/a.ts': '' });
    const inner = path.join(root, 'app/inner');
    const { events, watcher } = await ready(root);
    const lists: Map<string, string>[] = [];
    watcher.on('unwatched' as never, ((list: Map<string, string>) => lists.push(new Map(list))) as never);
    fs.rmSync(inner, { recursive: true });
    fs.symlinkSync(inner, inner); // following it fails with ELOOP
    await events.next((event) => event.kind === 'all' && event.event === 'unlinkDir' && event.path === inner, 'unlinkDir of the directory');
    // A later notice, after which any list the first one made has been reported.
    fs.writeFileSync(path.join(root, 'app/later.ts'), '');
    await events.next((event) => event.kind === 'raw' && event.name === 'later.ts', 'notice of a later file');
    await settle();
    expect(lists.filter((list) => list.has(inner))).to.deep.equal([]);
  });

  describe('errors of the file system: the path is unreadable, listed as unwatched, never the end of the process', () => {
    // ELOOP is a loop of links: a link not followed, as a dangling one (the test above).
    const CODES = ['EACCES', 'ENAMETOOLONG', 'EMFILE', 'ENOSPC', 'EIO'];
    const CALLS = ['statSync', 'lstatSync', 'readdirSync', 'watch'] as const;

    /** `counted`, with calls on the paths of `failing` throwing the error of the code given, as Node's calls do. */
    function failingFs(failing: Map<string, { call: (typeof CALLS)[number]; code: string }>): Counted {
      const counted = countingFs();
      for (const call of CALLS) {
        const real = counted[call] as (...args: unknown[]) => unknown;
        (counted as unknown as Record<string, unknown>)[call] = (file: string, ...rest: unknown[]) => {
          const rule = failing.get(file);
          if (rule?.call === call) throw Object.assign(new Error(`${rule.code}: injected, ${call} '${file}'`), { code: rule.code, path: file });
          return real(file, ...rest);
        };
      }
      return counted;
    }

    for (const call of CALLS) {
      for (const code of CODES) {
        it(`${code} from ${call} on a directory made while watching: listed, the rest still watched, and watched once readable`, async () => {
          const root = tempWorkspace({ 'app/index.ts': '' });
          const bad = path.join(root, 'app/bad');
          const failing = new Map([[bad, { call, code }]]);
          const events = start(root, failingFs(failing));
          const lists: Map<string, string>[] = [];
          events.watcher.on('unwatched' as never, ((list: Map<string, string>) => lists.push(new Map(list))) as never);
          await events.next((event) => event.kind === 'ready', 'ready');
          let listed = waitFor(lists, (list) => list.get(bad) === code);
          fs.mkdirSync(bad);
          await listed;
          // Still watching: a directory made elsewhere is seen, and nothing under the unreadable one is.
          fs.mkdirSync(path.join(root, 'app/good'));
          await events.next((event) => event.kind === 'all' && event.event === 'addDir' && event.path === path.join(root, 'app/good'), 'addDir of app/good');
          // Readable again, and named by a notice (as a chmod makes one): watched, and off the list.
          failing.clear();
          listed = waitFor(lists, (list) => list.size === 0);
          fs.utimesSync(bad, new Date(), new Date());
          await listed;
          fs.mkdirSync(path.join(bad, 'inner'));
          await events.next((event) => event.kind === 'all' && event.event === 'addDir' && event.path === path.join(bad, 'inner'), 'addDir inside the directory once readable');
        });
      }
    }

    it('lists the root itself when it cannot be read, and is ready all the same', async () => {
      const root = tempWorkspace({ 'app/index.ts': '' });
      const events = start(root, failingFs(new Map([[root, { call: 'statSync', code: 'EIO' }]])));
      const lists: Map<string, string>[] = [];
      events.watcher.on('unwatched' as never, ((list: Map<string, string>) => lists.push(new Map(list))) as never);
      await events.next((event) => event.kind === 'ready', 'ready');
      await waitFor(lists, (list) => list.get(root) === 'EIO');
    });

    /** Resolves once a list reported satisfies `match` (the watcher reports at most once a turn). */
    function waitFor(lists: Map<string, string>[], match: (list: Map<string, string>) => boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such list of unwatched paths within 3 s; lists: ${JSON.stringify(lists.map((list) => [...list]))}`)), 3000);
        const poll = () => (lists.length > 0 && match(lists[lists.length - 1]!) ? (clearTimeout(timer), resolve()) : setImmediate(poll));
        poll();
      });
    }
  });

  describe('unchangedSince: the watches’ silence as proof', () => {
    /** Waits until the watcher has passed on a notice naming `name` in `dir` (workspace-relative). */
    const noticed = (events: { next: ReturnType<typeof record>['next'] }, root: string, dir: string, name: string) =>
      events.next((event) => event.kind === 'raw' && event.name === name && event.watchedPath === path.join(root, dir), `notice of ${dir}/${name}`);

    it('proves a file, an absent file and a listing unchanged after the walk, until a notice names them', async () => {
      const root = tempWorkspace({ 'app/index.ts': 'export const a = 1;\n', 'app/helper.ts': '' });
      const beforeTheWatch = watchSequence();
      const { watcher, events } = await ready(root, { trustNotices: true });
      const confirmed = watchSequence();
      expect(watcher.unchangedSince('app/index.ts', confirmed), 'file').to.equal(true);
      expect(watcher.unchangedSince('app/tsconfig.json', confirmed), 'absent file').to.equal(true);
      expect(watcher.unchangedSince('app/', confirmed), 'listing').to.equal(true);
      expect(watcher.unchangedSince('./', confirmed), 'the root’s listing').to.equal(true);
      // Confirmed before the directory was walked: its notices did not cover the time between.
      expect(watcher.unchangedSince('app/index.ts', beforeTheWatch), 'confirmed before the walk').to.equal(false);

      // A save in place names the file, not the listing, nor the file beside it.
      fs.writeFileSync(path.join(root, 'app/index.ts'), 'export const a = 2;\n');
      await noticed(events, root, 'app', 'index.ts');
      expect(watcher.unchangedSince('app/index.ts', confirmed), 'saved file').to.equal(false);
      expect(watcher.unchangedSince('app/helper.ts', confirmed), 'the file beside it').to.equal(true);
      expect(watcher.unchangedSince('app/', confirmed), 'listing after a save').to.equal(true);
      // Confirmed again after the notice: proven again.
      expect(watcher.unchangedSince('app/index.ts', watchSequence()), 'confirmed after the save').to.equal(true);

      // A file made where none was: the absent path and the listing both change.
      fs.writeFileSync(path.join(root, 'app/tsconfig.json'), '{}');
      await noticed(events, root, 'app', 'tsconfig.json');
      expect(watcher.unchangedSince('app/tsconfig.json', confirmed), 'made file').to.equal(false);
      expect(watcher.unchangedSince('app/', confirmed), 'listing after a file was made').to.equal(false);
    });

    it('proves nothing about a link, a listing holding one, an unwatched directory, or when notices are not trusted', async () => {
      const root = tempWorkspace({ 'app/index.ts': '', 'common/shared.ts': '', 'node_modules/pkg/index.js': '' });
      fs.symlinkSync('../common/shared.ts', path.join(root, 'app/shared.ts'));
      const { watcher, events } = await ready(root, { trustNotices: true });
      const confirmed = watchSequence();
      expect(watcher.unchangedSince('app/shared.ts', confirmed), 'a linked file').to.equal(false);
      expect(watcher.unchangedSince('app/', confirmed), 'a listing holding a link').to.equal(false);
      expect(watcher.unchangedSince('node_modules/pkg/index.js', confirmed), 'a skipped directory').to.equal(false);
      expect(watcher.unchangedSince('elsewhere/index.ts', confirmed), 'a directory that does not exist').to.equal(false);
      expect(watcher.unchangedSince('app/../common/shared.ts', confirmed), 'a path that is not normal').to.equal(false);
      expect(watcher.unchangedSince('common/shared.ts', confirmed), 'the plain file itself').to.equal(true);
      // A link made after the walk is seen as one too.
      fs.symlinkSync('./shared.ts', path.join(root, 'common/again.ts'));
      await noticed(events, root, 'common', 'again.ts');
      expect(watcher.unchangedSince('common/again.ts', watchSequence()), 'a link made after the walk').to.equal(false);

      const untrusted = await ready(root, { trustNotices: false });
      expect(untrusted.watcher.unchangedSince('common/shared.ts', watchSequence()), 'notices not trusted').to.equal(false);
      await untrusted.watcher.close();
      expect(watcher.unchangedSince('common/shared.ts', watchSequence()), 'still open').to.equal(true);
      await watcher.close();
      expect(watcher.unchangedSince('common/shared.ts', watchSequence()), 'closed').to.equal(false);
    });

    it('moves its proof generation at a notice, a watch lost and the close: what it proved before may no longer hold', async () => {
      const root = tempWorkspace({ 'app/index.ts': '', 'app/helper.ts': '' });
      const handles = new Map<string, fs.FSWatcher>();
      const files = countingFs();
      const watch = files.watch;
      files.watch = (file, options, listener) => {
        const handle = watch(file, options, listener);
        handles.set(String(file), handle);
        return handle;
      };
      const events = start(root, files, undefined, { trustNotices: true });
      await events.next((event) => event.kind === 'ready', 'ready');
      const { watcher } = events;
      const confirmed = watchSequence();
      const quiet = watcher.proofGeneration();
      expect(watcher.unchangedSince('app/helper.ts', confirmed)).to.equal(true);
      expect(watcher.proofGeneration(), 'asking proves, and moves nothing').to.equal(quiet);

      fs.writeFileSync(path.join(root, 'app/index.ts'), 'export {};\n');
      await noticed(events, root, 'app', 'index.ts');
      const afterNotice = watcher.proofGeneration();
      expect(afterNotice).to.be.greaterThan(quiet);

      // The directory's watch fails: nothing in it is proven any more, and the generation says so.
      const errors: unknown[] = [];
      watcher.on('error', (error) => errors.push(error));
      handles.get(path.join(root, 'app'))!.emit('error', Object.assign(new Error('watch lost'), { code: 'EIO' }));
      expect(errors).to.have.length(1);
      expect(watcher.unchangedSince('app/helper.ts', confirmed)).to.equal(false);
      const afterLoss = watcher.proofGeneration();
      expect(afterLoss).to.be.greaterThan(afterNotice);

      await watcher.close();
      expect(watcher.proofGeneration()).to.be.greaterThan(afterLoss);
    });

    it('proves nothing confirmed before a burst of notices large enough to have overflowed the kernel’s queue', async () => {
      const root = tempWorkspace({ 'app/index.ts': '', 'other/kept.ts': '' });
      const { watcher, events } = await ready(root, { trustNotices: true, burstLimit: 3 });
      const confirmed = watchSequence();
      for (let index = 0; index < 8; index++) fs.writeFileSync(path.join(root, `app/file-${index}.ts`), '');
      await noticed(events, root, 'app', 'file-7.ts');
      // Named by no notice, but a lost notice might have named it.
      expect(watcher.unchangedSince('other/kept.ts', confirmed)).to.equal(false);
      expect(watcher.unchangedSince('other/kept.ts', watchSequence()), 'confirmed after the burst').to.equal(true);
    });

    it('proves nothing under a directory removed and made again until the new one is walked', async () => {
      const root = tempWorkspace({ 'app/sub/index.ts': '', 'app/index.ts': '' });
      const { watcher, events } = await ready(root, { trustNotices: true });
      const confirmed = watchSequence();
      const sub = path.join(root, 'app/sub');
      fs.rmSync(sub, { recursive: true });
      fs.mkdirSync(sub);
      fs.writeFileSync(path.join(sub, 'index.ts'), 'export {};\n');
      await events.next((event) => event.kind === 'all' && event.event === 'addDir' && event.path === sub, 'addDir of app/sub again');
      expect(watcher.unchangedSince('app/sub/index.ts', confirmed)).to.equal(false);
      expect(watcher.unchangedSince('app/sub/', confirmed)).to.equal(false);
      // The new directory is watched (its inode number may be the old one's: the old watch ended all the same).
      fs.writeFileSync(path.join(sub, 'b.ts'), '');
      await noticed(events, root, 'app/sub', 'b.ts');
    });
  });
});
