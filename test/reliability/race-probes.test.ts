// Time, order and concurrency against a running service (README "Addresses", README "Links and
// large trees", README "The build cache"): a save that lands while its module builds, the ways
// editors save, timestamps set back or ahead, a directory replaced whole, a watcher the kernel
// refuses, a branch switch under requests, the build cache across a kill or an unseen edit.
// Each answer must hold the bytes on disk now, or say it cannot, never a 5xx.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Observable } from 'rxjs';
import type { EffectDeps } from '../../src/effects/table.js';
import { coarseStat } from '../helpers/coarse-stat.js';
import { DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { awaitedWalk, serve, stopAll } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { moduleOf, quietTree, stateOf } from './support.js';

const HELPER = 'packages/app/main/helper.ts';
const MAIN = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
const FORMAT = `/m/@acme/lib@1.2.0/modules/format?${DEV}`;
const PAD = 'packages/lib/format/internal/pad.ts';

// Same length as the fixture's marker: a save of the same size, so only times tell it apart.
const helperWith = (root: string, marker: string) => {
  const file = path.join(root, HELPER);
  const text = fs.readFileSync(file, 'utf8').replace(/APP_HELPER_[A-Z]+/, marker);
  return { file, text };
};

type HookedDeps = ((deps: EffectDeps) => EffectDeps) & { arm(): void };

/** What a service is given, its build runner calling `during` once an armed build of `module` has read its inputs and hashed them, before its result is recorded. */
function runnerHook(module: string, during: () => void): HookedDeps {
  let armed = false;
  const hook = (deps: EffectDeps): EffectDeps => ({
    ...deps,
    run: (job) =>
      new Observable((subscriber) => {
        const inner = deps.run(job).subscribe({
          next: (facts) => {
            if (armed && job.modules.some((entry) => entry.module.specifier === module)) {
              armed = false;
              during();
            }
            subscriber.next(facts);
          },
          error: (error) => subscriber.error(error),
          complete: () => subscriber.complete(),
        });
        return () => inner.unsubscribe();
      }),
  });
  return Object.assign(hook, { arm: () => (armed = true) });
}

describe('race probes', function () {
  // Each test's services stop with it: esbuild's contexts of one are gone before the next starts.
  afterEach(() => stopAll());

  for (const watch of [true, false]) {
    const how = watch ? 'watching' : 'no watcher';
    describe(`a save while its module builds (${how})`, function () {
      it('is in the next answer when it lands after the build read the old bytes, before its result is recorded', async function () {
        const root = fixtureWorkspace('basic');
        quietTree(root);
        const hook = runnerHook('@acme/app/main', () => {
          const { file, text } = helperWith(root, 'APP_HELPER_SECOND');
          fs.writeFileSync(file, text);
        });
        const service = await serve(root, { watch, effectDeps: hook });
        expect((await service.get(MAIN)).text).to.include('APP_HELPER_MARKER');
        hook.arm();
        const { file, text } = helperWith(root, 'APP_HELPER_FIRSTS');
        fs.writeFileSync(file, text);
        // Asked before the second save: either save may be in it.
        const answer = await service.get(MAIN);
        expect(answer.status).to.equal(200);
        expect(answer.text).to.match(/APP_HELPER_(FIRSTS|SECOND)/);
        expect((await service.get(MAIN)).text, 'the answer asked after the second save').to.include('APP_HELPER_SECOND');
        expect(moduleOf(await stateOf(service), '@acme/app/main')!.status).to.equal('valid');
      });

      it('is in the next answer when it lands as the build is recorded started', async function () {
        const root = fixtureWorkspace('basic');
        quietTree(root);
        const service = await serve(root, { watch });
        expect((await service.get(MAIN)).text).to.include('APP_HELPER_MARKER');
        let armed = true;
        const subscription = service.events$.subscribe((event) => {
          if (armed && event.type === 'build.started' && JSON.stringify(event).includes('@acme/app/main')) {
            armed = false;
            const { file, text } = helperWith(root, 'APP_HELPER_SECOND');
            fs.writeFileSync(file, text);
          }
        });
        try {
          const { file, text } = helperWith(root, 'APP_HELPER_FIRSTS');
          fs.writeFileSync(file, text);
          const answer = await service.get(MAIN);
          expect(armed, 'the build started').to.equal(false);
          expect(answer.status).to.equal(200);
          expect(answer.text).to.match(/APP_HELPER_(FIRSTS|SECOND)/);
          expect((await service.get(MAIN)).text, 'the answer asked after the second save').to.include('APP_HELPER_SECOND');
        } finally {
          subscription.unsubscribe();
        }
      });
    });
  }

  /** A service on the basic fixture, its watcher's first walk done (or none), the pad module answered once. */
  async function walked(watch: boolean) {
    const root = fixtureWorkspace('basic');
    quietTree(root);
    const walk = awaitedWalk();
    const service = await serve(root, watch ? { effectDeps: walk.deps } : { watch: false });
    expect((await service.get(FORMAT)).text).to.include('LIB_PAD_MARKER');
    if (watch) await walk.walked;
    expect((await service.get(FORMAT)).text).to.include('LIB_PAD_MARKER');
    return { root, service, pad: path.join(root, PAD) };
  }

  const padWith = (file: string, marker: string) => fs.readFileSync(file, 'utf8').replace(/LIB_PAD_[A-Z]+/, marker);

  for (const watch of [true, false]) {
    const how = watch ? 'after the watcher’s walk' : 'no watcher';
    describe(`editors’ saves (${how})`, function () {
      it('the original renamed away, a new file written (vim without backupcopy)', async function () {
        const { service, pad } = await walked(watch);
        const text = padWith(pad, 'LIB_PAD_VIMSAV');
        fs.renameSync(pad, `${pad}~`);
        fs.writeFileSync(pad, text);
        fs.rmSync(`${pad}~`);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_VIMSAV');
      });

      it('truncated, answered, then written', async function () {
        const { service, pad } = await walked(watch);
        const text = padWith(pad, 'LIB_PAD_LATERS');
        fs.writeFileSync(pad, '');
        const between = await service.get(FORMAT);
        // Built from the empty file as it is (esbuild takes a name a TypeScript file lacks for a type), never from the old bytes.
        expect(between.status).to.equal(200);
        expect(between.text).not.to.include('LIB_PAD_MARKER');
        fs.writeFileSync(pad, text);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_LATERS');
      });

      it('truncated and written in one breath', async function () {
        const { service, pad } = await walked(watch);
        const text = padWith(pad, 'LIB_PAD_BREATH');
        fs.writeFileSync(pad, '');
        fs.writeFileSync(pad, text);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_BREATH');
      });
    });

    describe(`timestamps (${how})`, function () {
      it('a same-size edit whose mtime is then set an hour back', async function () {
        const { service, pad } = await walked(watch);
        const before = fs.statSync(pad);
        fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_BACKED'));
        const hourAgo = new Date(Date.now() - 3_600_000);
        fs.utimesSync(pad, hourAgo, hourAgo);
        expect(fs.statSync(pad).size).to.equal(before.size);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_BACKED');
      });

      it('a file whose mtime is in the future, edited at the same size and the same future mtime', async function () {
        const { service, pad } = await walked(watch);
        const future = new Date(Date.now() + 3_600_000);
        fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_FUTURE'));
        fs.utimesSync(pad, future, future);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_FUTURE');
        fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_FUTURF'));
        fs.utimesSync(pad, future, future);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_FUTURF');
        fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_FUTURG'));
        fs.utimesSync(pad, future, future);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_FUTURG');
      });
    });

    describe(`a copy keeping times while its module builds (${how})`, function () {
      // `cp -p`, `rsync -a`: the file rewritten at the same size, its mtime put back, after the
      // build read it and before its inputs are hashed. The first stat of the file is that hash's
      // (an input first seen by the build): the copy lands there, in the window.
      it('is in the answer after the build: the ctime tells the write the mtime hides', async function () {
        const root = fixtureWorkspace('basic');
        // Its builds start once the tree's own writes (their ctimes) are out of their window: only the copy is in it.
        quietTree(root);
        const helper = path.join(root, HELPER);
        let landed = false;
        const stat = (file: string) => {
          if (!landed && file === helper) {
            landed = true;
            const { atime, mtime } = fs.statSync(helper);
            fs.writeFileSync(helper, helperWith(root, 'APP_HELPER_SECOND').text);
            fs.utimesSync(helper, atime, mtime);
          }
          return fs.statSync(file, { throwIfNoEntry: false });
        };
        const service = await serve(root, { watch, fileHashes: { stat } });
        const answer = await service.get(MAIN);
        expect(landed, 'the copy landed during the build').to.equal(true);
        expect(answer.status).to.equal(200);
        expect(answer.text).to.include('APP_HELPER_SECOND').and.not.include('APP_HELPER_MARKER');
      });
    });

    describe(`a directory replaced (${how})`, function () {
      it('a package removed, answered, and copied back unchanged but with an older mtime', async function () {
        const { root, service } = await walked(watch);
        const saved = path.join(tempWorkspace(), 'lib');
        fs.cpSync(path.join(root, 'packages/lib'), saved, { recursive: true, preserveTimestamps: true });
        fs.writeFileSync(path.join(saved, 'format/internal/pad.ts'), padWith(path.join(saved, 'format/internal/pad.ts'), 'LIB_PAD_COPIEP'));
        const old = new Date(Date.now() - 120_000);
        fs.utimesSync(path.join(saved, 'format/internal/pad.ts'), old, old);
        fs.rmSync(path.join(root, 'packages/lib'), { recursive: true });
        // A listed directory gone is a package whose name the service read: its addresses answer
        // its problem, never a CDN's copy (README "Workspaces").
        const removed = await service.get(FORMAT);
        expect([removed.status, removed.json<{ code: string }>().code]).to.deep.equal([422, 'BUILD_FAILED']);
        fs.cpSync(saved, path.join(root, 'packages/lib'), { recursive: true, preserveTimestamps: true });
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_COPIEP');
      });

      it('a module’s entry replaced by a directory of the same name', async function () {
        const { root, service } = await walked(watch);
        const entry = path.join(root, 'packages/lib/format/index.ts');
        fs.rmSync(entry);
        fs.mkdirSync(entry);
        fs.writeFileSync(path.join(entry, 'index.ts'), 'export const X = 1;\n');
        const answer = await service.get(FORMAT);
        expect(answer.status, answer.text.slice(0, 300)).to.be.below(500);
        const fresh = await serve(root, { watch: false });
        try {
          const first = await fresh.get(FORMAT);
          expect(answer.status).to.equal(first.status);
          expect(answer.text).to.equal(first.text);
          expect(await stateOf(service)).to.deep.equal(await stateOf(fresh));
        } finally {
          await fresh.close();
        }
      });
    });
  }

  // The kernel out of watches (ENOSPC: fs.inotify.max_user_watches; EMFILE: max_user_instances).
  describe('a watcher the kernel refuses', function () {
    const realWatch = fs.watch;
    afterEach(() => void ((fs as { watch: typeof fs.watch }).watch = realWatch));

    for (const [code, scope] of [['ENOSPC', 'the edited file’s directory'], ['EMFILE', 'every directory']] as const) {
      it(`${code} for ${scope}: an edit of the same size is still answered, and /state names what is unwatched`, async function () {
        const root = fixtureWorkspace('basic');
        quietTree(root);
        const refused = path.join(root, 'packages/lib/format/internal');
        (fs as { watch: typeof fs.watch }).watch = ((file: fs.PathLike, ...rest: unknown[]) => {
          if (scope === 'every directory' || String(file) === refused) throw Object.assign(new Error(`${code}: injected, watch '${String(file)}'`), { code, path: String(file) });
          return (realWatch as (...args: unknown[]) => fs.FSWatcher)(file, ...rest);
        }) as typeof fs.watch;
        const walk = awaitedWalk();
        const service = await serve(root, { effectDeps: walk.deps });
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_MARKER');
        await walk.walked;
        const report = await stateOf(service);
        expect((report as unknown as { unwatched?: { path: string; code: string }[] }).unwatched).to.deep.include({ path: scope === 'every directory' ? '.' : 'packages/lib/format/internal', code });
        const pad = path.join(root, PAD);
        for (const marker of ['LIB_PAD_ONCEMO', 'LIB_PAD_TWICEM']) {
          fs.writeFileSync(pad, padWith(pad, marker));
          expect((await service.get(FORMAT)).text).to.include(marker);
        }
      });
    }
  });

  // A branch switch: every source of two packages rewritten by another process within a few
  // milliseconds, then a module.json and, last, a package.json's version, while requests arrive.
  // The process waits between the two until a round of requests was asked with the sources
  // switched and the version not yet: the round the switch is under way is always asked.
  describe('a branch switch under requests', function () {
    const COUNT = 50;
    const sources = (branch: string) => {
      const files: Record<string, string> = {};
      for (let i = 0; i < COUNT; i++) {
        files[`packages/a/m${i}/index.ts`] = `export const A${i} = 'A${i}_${branch}';\n`;
        files[`packages/app/m${i}/index.ts`] = `export const P${i} = 'P${i}_${branch}';\n`;
      }
      files['packages/app/main/index.ts'] = `${Array.from({ length: COUNT }, (_, i) => `import { A${i} } from '@b/a/m${i}';\n`).join('')}export const ALL = [${Array.from({ length: COUNT }, (_, i) => `A${i}`).join(', ')}, 'MAIN_${branch}'];\n`;
      return files;
    };
    const manifest = (name: string, version: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ name, version, type: 'module', exports: Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [`./m${i}`, `./m${i}/index.ts`])), ...extra }, null, 2);

    for (const watch of [true, false]) it(`never answers a new version’s address from old sources, never 5xx, and settles to what a fresh service reports (${watch ? 'watching' : 'no watcher'})`, async function () {
      const root = tempWorkspace({
        'core.json': JSON.stringify({ packages: ['packages/a', 'packages/app'], preview: '@b/app/main' }),
        'packages/a/package.json': manifest('@b/a', '1.0.0'),
        'packages/app/package.json': JSON.stringify({ ...JSON.parse(manifest('@b/app', '1.0.0')), exports: { ...JSON.parse(manifest('@b/app', '1.0.0')).exports, './main': './main/index.ts' }, dependencies: { '@b/a': '^1.0.0' } }, null, 2),
        'packages/a/m0/module.json': JSON.stringify({ entry: 'index.ts' }),
        ...sources('OLD'),
      });
      quietTree(root);
      const walk = awaitedWalk();
      const service = await serve(root, watch ? { effectDeps: walk.deps } : { watch: false });
      const mapOf = async () => {
        const answer = await service.get('/preview/entry.json');
        expect(answer.status, answer.text.slice(0, 300)).to.be.below(500);
        return answer.status === 200 ? answer.json<{ imports: Record<string, string> }>().imports : {};
      };
      const first = await mapOf();
      expect(first['@b/a/m5']).to.match(/^\/m\/@b\/a@1\.0\.0\//);
      if (watch) await walk.walked;

      // The other process: sources first, says so, and once its input ends the module.json (its
      // entry moves), the version last.
      const rest = { 'packages/a/m0/main.ts': "export const A0 = 'A0_NEW';\n", 'packages/a/m0/module.json': JSON.stringify({ entry: 'main.ts' }), 'packages/a/package.json': manifest('@b/a', '1.1.0') };
      const script =
        `const fs = require('fs'), path = require('path'); const write = (files) => { for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(${JSON.stringify(root)}, file), text); };` +
        `write(${JSON.stringify(sources('NEW'))}); process.stdout.write('sources\\n'); process.stdin.on('end', () => write(${JSON.stringify(rest)})).resume();`;
      const { spawn } = await import('node:child_process');
      const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      let switched = false;
      child.stdout.once('data', () => (switched = true));
      let done = false;
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => ((done = true), resolve(code))));
      // Each round by when it began: before the sources were switched, with them switched and the
      // version not yet, or once the process was let finish.
      const rounds: ('before' | 'under way' | 'finishing')[] = [];
      while (!done) {
        const underWay = switched && !child.stdin.writableEnded;
        rounds.push(underWay ? 'under way' : switched ? 'finishing' : 'before');
        const map = await mapOf();
        const answers = await Promise.all(Object.values(map).filter((address) => address.startsWith('/m/')).map(async (address) => [address, await service.get(address)] as const));
        for (const [address, answer] of answers) {
          expect(answer.status, `${address}: ${answer.text.slice(0, 200)}`).to.be.below(500);
          if (address.startsWith('/m/@b/a@1.1.0/') && answer.status === 200) expect(answer.text, address).to.include('_NEW');
        }
        if (underWay) child.stdin.end();
      }
      expect(await exited).to.equal(0);
      expect(rounds, 'a round asked while the switch was under way').to.include('under way');
      const after = await mapOf();
      for (const [specifier, address] of Object.entries(after)) {
        if (!address.startsWith('/m/')) continue;
        const answer = await service.get(address);
        expect(answer.status, `${specifier} at ${address}`).to.equal(200);
        expect(answer.text, address).to.include('_NEW').and.not.include('_OLD');
      }
      expect(after['@b/a/m5']).to.match(/^\/m\/@b\/a@1\.1\.0\//);
      const live = await stateOf(service);
      const fresh = await serve(root, { watch: false });
      try {
        expect(live).to.deep.equal(await stateOf(fresh));
      } finally {
        await fresh.close();
      }
    });
  });

  // The build cache across a restart, when what it recorded and the disk part ways.
  describe('the build cache and an edit it did not see', function () {
    for (const when of ['between the build and the write at close', 'while the service is stopped']) {
      it(`is not restored as fresh: a same-size edit ${when}, its mtime set back to what it was`, async function () {
        const root = fixtureWorkspace('basic');
        quietTree(root);
        const cacheDir = path.join(tempWorkspace(), 'cache');
        const pad = path.join(root, PAD);
        const first = await serve(root, { cache: cacheDir, watch: false });
        expect((await first.get(FORMAT)).text).to.include('LIB_PAD_MARKER');
        await first.report();
        const was = fs.statSync(pad);
        const sameTimes = () => fs.utimesSync(pad, was.atime, was.mtime);
        if (when.startsWith('between')) {
          fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_UNSEEN'));
          sameTimes();
          await first.close();
        } else {
          await first.close();
          fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_UNSEEN'));
          sameTimes();
        }
        expect(fs.existsSync(path.join(cacheDir, 'builds.json')), 'the cache written').to.equal(true);
        expect(fs.statSync(pad).mtimeMs).to.equal(was.mtimeMs);
        const second = await serve(root, { cache: cacheDir, watch: false });
        expect((await second.get(FORMAT)).text).to.include('LIB_PAD_UNSEEN');
        const restored = second.internals.log.events().find((event) => event.type === 'cache.restored') as { builds: { module: string }[] } | undefined;
        const modules = restored!.builds.map((build) => build.module);
        expect(modules, 'what the cache restored').to.include('@acme/app/templates').and.not.include('@acme/lib/format');
      });
    }
  });

  // `core run` killed with SIGKILL while it writes the build cache: the next start believes
  // nothing half-written, and serves what a start without the cache serves. The killed one never
  // renames that temporary file into place (a module preloaded into it holds the rename), so the
  // kill lands mid-write however fast the write is.
  describe('core run killed while it writes the build cache', function () {
    after(() => killAllCores());
    for (const which of ['a pack', 'the index']) {
      it(`at the first temporary file of ${which}: the restart serves the bytes a start without the cache serves`, async function () {
        const root = fixtureWorkspace('basic');
        quietTree(root);
        const cacheDir = path.join(tempWorkspace(), 'cache');
        fs.mkdirSync(cacheDir);
        const pattern = which === 'a pack' ? /\.pack\.\d+\.[0-9a-f]{8}\.tmp$/ : /^builds\.json\.\d+\.[0-9a-f]{8}\.tmp$/;
        const holdRename = path.join(tempWorkspace(), 'hold-rename.cjs');
        fs.writeFileSync(
          holdRename,
          `const fs = require('node:fs'); const rename = fs.promises.rename; const held = new RegExp(${JSON.stringify(pattern.source)});\n` +
            `fs.promises.rename = (from, to) => (held.test(require('node:path').basename(String(from))) ? new Promise(() => {}) : rename(from, to));\n`,
        );
        const env = { ...DEVELOPMENT_ENV, CORE_CACHE_DIR: cacheDir };
        let killed!: () => void;
        const killedAt = new Promise<void>((resolve) => (killed = resolve));
        const left = () => (fs.readdirSync(cacheDir, { recursive: true }) as string[]).filter((name) => pattern.test(path.basename(name)));
        let core: Awaited<ReturnType<typeof startCore>> | null = null;
        const kill = () => {
          core!.child.kill('SIGKILL');
          killed();
        };
        const watcher = fs.watch(cacheDir, { recursive: true }, (_event, name) => {
          if (core && name !== null && pattern.test(path.basename(String(name)))) kill();
        });
        try {
          core = await startCore(['--port', '0'], { cwd: root, env: { ...env, NODE_OPTIONS: `--require ${holdRename}` } });
          // Written before startCore returned, when the watcher had no child to kill: its rename is held.
          if (left().length > 0) kill();
          expect((await get(core.url, '/state')).status).to.equal(200);
          await killedAt;
          expect((await core.exited).signal).to.equal('SIGKILL');
        } finally {
          watcher.close();
        }
        expect(left(), 'the temporary file the kill left').to.have.length.above(0);
        const again = await startCore(['--port', '0'], { cwd: root, env });
        const fresh = await serve(root, { watch: false });
        try {
          const state = await get(again.url, '/state');
          expect(state.status).to.equal(200);
          expect(state.json<{ modules: { status: string }[] }>().modules.map((m) => m.status)).to.deep.equal((await stateOf(fresh)).modules.map((m) => m.status));
          for (const address of [FORMAT, MAIN]) {
            const answer = await get(again.url, address);
            const expected = await fresh.get(address);
            expect(answer.status).to.equal(200);
            expect(answer.text, address).to.equal(expected.text);
          }
          expect(again.output.stderr).not.to.match(/internal error|effect failed|TypeError|at .*\.js:\d+/i);
        } finally {
          await again.stop();
          await fresh.close();
        }
      });
    }
  });

  // The watcher's first walk, a save made at the moment it reaches the file's directory (the
  // walk asks whether to skip an entry just before it watches it): not yet watched, not yet
  // walked, the save makes no notice.
  describe('a save as the watcher’s first walk reaches its directory', function () {
    for (const how of ['in place', 'renamed over', 'the directory replaced']) {
      it(`is in the next answer, and in the one after the walk (${how})`, async function () {
        const root = fixtureWorkspace('basic');
        quietTree(root);
        const dir = path.join(root, 'packages/lib/format/internal');
        const pad = path.join(dir, 'pad.ts');
        let saved = false;
        const save = () => {
          saved = true;
          const text = padWith(pad, 'LIB_PAD_MIDWAY');
          if (how === 'in place') fs.writeFileSync(pad, text);
          else if (how === 'renamed over') (fs.writeFileSync(`${pad}.tmp`, text), fs.renameSync(`${pad}.tmp`, pad));
          else {
            const copy = `${dir}.copy`;
            fs.cpSync(dir, copy, { recursive: true });
            fs.writeFileSync(path.join(copy, 'pad.ts'), text);
            fs.rmSync(dir, { recursive: true });
            fs.renameSync(copy, dir);
          }
        };
        const walk = awaitedWalk();
        const service = await serve(root, {
          effectDeps: (deps) => {
            const walking = walk.deps(deps);
            return {
              ...walking,
              createWatcher: (dirOfRoot, ignored) =>
                walking.createWatcher(dirOfRoot, (absolute, seen) => {
                  if (!saved && (absolute === dir || absolute === pad)) save();
                  return ignored(absolute, seen);
                }),
            };
          },
        });
        // The first answer may come before the walk: it waits for nothing the walk does.
        const before = await service.get(FORMAT);
        expect(before.status).to.equal(200);
        await walk.walked;
        expect(saved, 'the walk reached the directory').to.equal(true);
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_MIDWAY');
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_MIDWAY');
        fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_AFTERS'));
        expect((await service.get(FORMAT)).text).to.include('LIB_PAD_AFTERS');
      });
    }
  });

  // A change and its undoing within a tick (a checkout and a checkout back): the bytes first read.
  describe('a file changed and changed back at once', function () {
    it('answers the original bytes, and the next edit', async function () {
      const { service, pad } = await walked(true);
      const original = fs.readFileSync(pad, 'utf8');
      fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_BRANCH'));
      fs.writeFileSync(pad, original);
      const answer = await service.get(FORMAT);
      expect(answer.text).to.include('LIB_PAD_MARKER').and.not.include('LIB_PAD_BRANCH');
      fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_BACKTO'));
      expect((await service.get(FORMAT)).text).to.include('LIB_PAD_BACKTO');
    });
  });

  // A file system of whole seconds with no watcher at all (test/helpers/coarse-stat.ts): only the
  // check before answering, by stat, stands between a save and a stale answer.
  describe('a file system of whole seconds, no watcher', function () {
    it('answers each of three same-size saves within one second, and a save setting the second back', async function () {
      const root = fixtureWorkspace('basic');
      const pad = path.join(root, PAD);
      const second = new Date('2020-01-01T00:00:00.000Z');
      const save = (marker: string, at = second) => {
        fs.writeFileSync(pad, padWith(pad, marker));
        fs.utimesSync(pad, at, at);
      };
      save('LIB_PAD_SECOND');
      const service = await serve(root, { watch: false, fileHashes: { stat: coarseStat, now: () => second.getTime() + 300 } });
      expect((await service.get(FORMAT)).text).to.include('LIB_PAD_SECOND');
      for (const marker of ['LIB_PAD_SAVEDA', 'LIB_PAD_SAVEDB', 'LIB_PAD_SAVEDC']) {
        save(marker);
        expect((await service.get(FORMAT)).text).to.include(marker);
      }
      save('LIB_PAD_EARLIE', new Date(second.getTime() - 3_600_000));
      expect((await service.get(FORMAT)).text).to.include('LIB_PAD_EARLIE');
    });
  });

  // Requests in flight when a save lands: those asked before it may hold either content; every
  // one asked after it holds the new one, whether the answer cache or the route answers it.
  describe('a save amid concurrent requests', function () {
    for (const watch of [true, false]) {
      it(`every request asked after the save has it, none fails (${watch ? 'watching' : 'no watcher'})`, async function () {
        const { service, pad } = await walked(watch);
        const ask = (count: number) => Array.from({ length: count }, (_, at) => service.get(at % 5 === 0 ? MAIN : FORMAT));
        // Warm: the answer cache holds both.
        await Promise.all(ask(10));
        const before = ask(40);
        fs.writeFileSync(pad, padWith(pad, 'LIB_PAD_AMIDST'));
        const after = ask(40);
        for (const answer of await Promise.all(before)) expect(answer.status).to.equal(200);
        const answers = await Promise.all(after);
        expect(answers.map((answer) => answer.status)).to.deep.equal(answers.map(() => 200));
        const formats = answers.filter((_, at) => at % 5 !== 0);
        expect(formats.filter((answer) => !answer.text.includes('LIB_PAD_AMIDST')).length, 'answers asked after the save without it').to.equal(0);
      });
    }
  });
});
