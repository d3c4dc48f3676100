// A file system that keeps whole seconds (README "Addresses"), simulated: every stat the service
// takes has its times cut to the second, and its clock stands 0.3 s into that second. Two saves
// of the same size within it leave the same stat; the second is still in the next answer, and a
// restart does not restore the output of the first.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { coarseStat } from '../helpers/coarse-stat.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const FORMAT = `/m/@acme/lib@1.2.0/modules/format?${DEV}`;
const PAD = 'packages/lib/format/internal/pad.ts';
const SECOND = new Date('2020-01-01T00:00:00.000Z');

describe('a file system of whole seconds', function () {
  it('answers the second of two same-size saves within one second, running and after a restart', async () => {
    const root = fixtureWorkspace('basic');
    const cache = tempWorkspace();
    const original = fs.readFileSync(path.join(root, PAD), 'utf8');
    /** Saves pad.ts with `marker` (as long as the original's) within SECOND. */
    const save = (marker: string) => {
      fs.writeFileSync(path.join(root, PAD), original.replace('LIB_PAD_MARKER', marker));
      fs.utimesSync(path.join(root, PAD), SECOND, SECOND);
    };
    const start = (at: number) => serve(root, { cache, fileHashes: { stat: coarseStat, now: () => at }, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });

    const running = await start(SECOND.getTime() + 300);
    save('LIB_PAD_SAVE_1');
    expect((await running.get(FORMAT)).text).to.include('LIB_PAD_SAVE_1');
    save('LIB_PAD_SAVE_2');
    expect((await running.get(FORMAT)).text, 'the second save of the second').to.include('LIB_PAD_SAVE_2');
    await running.report(); // every module built, so the cache holds them all
    await running.close();

    // Saved again while the service is down, in the same second: the cache's record of pad.ts was read within it.
    save('LIB_PAD_SAVE_3');
    const restarted = await start(SECOND.getTime() + 60_000);
    const restored = restarted.internals.log.events().find((event) => event.type === 'cache.restored');
    const modules = restored?.type === 'cache.restored' ? restored.builds.map((build) => build.module) : [];
    expect(modules, 'restored from the cache').to.include('@acme/app/main').and.not.to.include('@acme/lib/format');
    expect((await restarted.get(FORMAT)).text, 'after a restart').to.include('LIB_PAD_SAVE_3');
  });
});
