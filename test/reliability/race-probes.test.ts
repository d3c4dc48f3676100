// Time, order and concurrency against a running service (README "Addresses", README "Links and
// large trees"): a save that lands while its module builds, the ways editors save, timestamps
// set back or ahead, a directory replaced whole. Each answer must hold the bytes on disk now.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Observable } from 'rxjs';
import type { EffectDeps } from '../../src/effects/table.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { awaitedWalk, serve } from '../helpers/service.js';
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

/** A service whose build runner calls `during` once a build of `module` has read its sources and before its result is recorded. */
function runnerHook(module: string, during: () => void): (deps: EffectDeps) => EffectDeps {
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

for (const watch of [true, false]) {
  const how = watch ? 'watching' : 'no watcher';
  describe(`a save while its module builds (${how})`, function () {
    it('is in the next answer when it lands after the build read the old bytes, before its result is recorded', async function () {
      const root = fixtureWorkspace('basic');
      quietTree(root);
      const hook = runnerHook('@acme/app/main', () => {
        const { file, text } = helperWith(root, 'APP_HELPER_SECOND');
        fs.writeFileSync(file, text);
      }) as ((deps: EffectDeps) => EffectDeps) & { arm(): void };
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
    it('a temporary file renamed over the file', async function () {
      const { service, pad } = await walked(watch);
      const text = padWith(pad, 'LIB_PAD_RENAME');
      fs.writeFileSync(`${pad}.tmp`, text);
      fs.renameSync(`${pad}.tmp`, pad);
      expect((await service.get(FORMAT)).text).to.include('LIB_PAD_RENAME');
    });

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
      expect(between.status).to.be.oneOf([200, 500 - 78]); // 422 BUILD_FAILED: pad is empty
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

    it('deleted, answered, then made again', async function () {
      const { service, pad } = await walked(watch);
      const text = padWith(pad, 'LIB_PAD_REMADE');
      fs.rmSync(pad);
      const between = await service.get(FORMAT);
      expect(between.status).not.to.equal(200);
      expect(between.status).to.be.below(500);
      fs.writeFileSync(pad, text);
      expect((await service.get(FORMAT)).text).to.include('LIB_PAD_REMADE');
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

  describe(`a directory replaced (${how})`, function () {
    it('a package removed and copied back from a saved copy with an edit', async function () {
      const { root, service } = await walked(watch);
      const saved = path.join(tempWorkspace(), 'lib');
      fs.cpSync(path.join(root, 'packages/lib'), saved, { recursive: true });
      fs.writeFileSync(path.join(saved, 'format/internal/pad.ts'), padWith(path.join(saved, 'format/internal/pad.ts'), 'LIB_PAD_COPIED'));
      fs.rmSync(path.join(root, 'packages/lib'), { recursive: true });
      fs.cpSync(saved, path.join(root, 'packages/lib'), { recursive: true });
      expect((await service.get(FORMAT)).text).to.include('LIB_PAD_COPIED');
      expect(moduleOf(await stateOf(service), '@acme/lib/format')!.status).to.equal('valid');
    });

    it('a package removed, answered, and copied back unchanged but with an older mtime', async function () {
      const { root, service } = await walked(watch);
      const saved = path.join(tempWorkspace(), 'lib');
      fs.cpSync(path.join(root, 'packages/lib'), saved, { recursive: true, preserveTimestamps: true });
      fs.writeFileSync(path.join(saved, 'format/internal/pad.ts'), padWith(path.join(saved, 'format/internal/pad.ts'), 'LIB_PAD_COPIEP'));
      const old = new Date(Date.now() - 120_000);
      fs.utimesSync(path.join(saved, 'format/internal/pad.ts'), old, old);
      fs.rmSync(path.join(root, 'packages/lib'), { recursive: true });
      expect((await service.get(FORMAT)).status).to.equal(404);
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
