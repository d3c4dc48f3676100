// The dashboard while esbuild's process is unavailable (README "When esbuild's process dies"):
// one line says so, why, and what brings it back, and the modules it left unbuilt are named
// together, not each with the same error.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { allowRestarts } from '../../src/bundlers/esbuild-service.js';
import type { Report } from '../../src/store/selectors.js';
import { openPreview } from '../helpers/chromium.js';
import { esbuildChildren, esbuildHeldAtStart, killingEachEsbuild } from '../helpers/esbuild-process.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

describe('the dashboard while esbuild is unavailable', function () {
  this.timeout(300_000);
  let browser: Browser | undefined;
  let service: Awaited<ReturnType<typeof serve>> | undefined;

  after(async function () {
    await browser?.close();
    await service?.close();
    allowRestarts();
  });

  it('says once that esbuild is unavailable and what brings it back, and names the modules it left unbuilt together', async function () {
    const root = fixtureWorkspace('basic');
    service = await serve(root);
    await waitFor(async () => (await service!.get('/state')).json<Report>().modules.every((module) => module.status === 'valid'), { timeout: 120_000, what: 'every module valid' });
    // Each process stopped as it starts, then killed: no build ends, and the restarts run out.
    const held = esbuildHeldAtStart();
    const killer = killingEachEsbuild();
    try {
      for (const entry of ['app/main', 'app/templates', 'lib/format', 'lib/server', 'lib/widgets/badge']) fs.appendFileSync(path.join(root, 'packages', entry, 'index.ts'), '\n/* edited */\n');
      // Throws with each module's status and kinds, so a time-out says where each one stood.
      await waitFor(
        async () => {
          const modules = (await service!.get('/state')).json<Report>().modules;
          const standing = modules.map((module) => `${module.specifier} ${module.status} [${module.diagnostics.map((d) => d.kind).join(' ')}]`);
          const processes = `esbuild processes started ${held.started.join(',')}, killed ${killer.killed.join(',')}, running ${esbuildChildren().map(({ pid, state }) => `${pid} ${state}`).join(',')}`;
          expect(modules.every((module) => module.diagnostics.some((d) => d.kind === 'ENGINE_UNAVAILABLE')), `${standing.join('; ')}; ${processes}`).to.equal(true);
          return true;
        },
        { timeout: 120_000, what: 'every module ENGINE_UNAVAILABLE' },
      );
    } finally {
      // The killer's last look first, then spawning as before: no process is left stopped.
      await killer.stop();
      held.restore();
    }
    let watched;
    ({ browser, watched } = await openPreview(service.url, '/'));
    const notice = watched.page.locator('.banner .engine-unavailable');
    await notice.waitFor();
    expect(await notice.count()).to.equal(1);
    expect(await notice.textContent()).to.match(/^ENGINE_UNAVAILABLE esbuild is unavailable \(esbuild's process died .*\): 5 modules not built\. Save a file to build them again\.$/);
    const together = watched.page.locator('.detail .problem.engine-unavailable');
    await together.waitFor();
    expect(await together.locator('button').allTextContents()).to.have.members(['@acme/app/main', '@acme/app/templates', '@acme/lib/format', '@acme/lib/server', '@acme/lib/widgets/badge']);
    expect(await watched.page.locator('.detail .problem').count(), 'no module listed with the same error of its own').to.equal(1);
    expect(watched.errors).to.deep.equal([]);
  });
});
