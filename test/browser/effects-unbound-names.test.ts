// A name nothing binds (not Node's) written or read where the import runs, after an import for
// effects of a workspace module (README "Bundling real code", names nothing binds and Shims), in
// Chromium: each importer's page throws exactly while /state calls it invalid, as the module
// imported writes the name on the global object or not; no importer is built again meanwhile. The
// page maps the imported module to its code as the service serves it, and runs the code esbuild
// writes for the importer (the service answers 422 for that while it is invalid).
import path from 'node:path';
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, until } from '../helpers/chromium.js';
import { write } from '../helpers/edit.js';
import { effectsUnboundWorkspace, IMPORTERS, SETUP, SHIM } from '../helpers/effects-unbound-workspace.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

const ORIGIN = 'http://unbound-shims.test';
type Importer = keyof typeof IMPORTERS;

describe('a name nothing binds used after an import for effects, in Chromium', function () {
  this.timeout(300_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = effectsUnboundWorkspace();
    service = await serve(root);
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  const statuses = async () => {
    const modules = (await service.report()).modules;
    return Object.keys(IMPORTERS).map((name) => modules.find((module) => module.specifier === `@p/app/${name}`)!.status);
  };

  /** What the page shows, and what it throws, running the importer after the imported module's code as served now. */
  async function run(name: Importer): Promise<{ shown: string | null; errors: string[] }> {
    const entry = (await service.get('/preview/entry.json?entry=@p/lib/setup')).json<{ imports: Record<string, string> }>();
    const setup = await service.get(entry.imports['@p/lib/setup']!);
    expect(setup.status).to.equal(200);
    const built = await esbuildApi.build({ entryPoints: [path.join(root, 'packages/app', IMPORTERS[name].file)], bundle: true, format: 'esm', write: false, external: ['@p/lib/*'] });
    const files: Record<string, string> = {
      '/': `<!doctype html><html><head><script type="importmap">${JSON.stringify({ imports: { '@p/lib/setup': '/setup.js' } })}</script><script type="module" src="/app.js"></script></head><body></body></html>`,
      '/setup.js': setup.text,
      '/app.js': built.outputFiles[0]!.text,
    };
    const watched = await openPage(browser);
    try {
      await watched.page.route(`${ORIGIN}/**`, (route) => {
        const file = new URL(route.request().url()).pathname;
        return route.fulfill({ status: 200, contentType: file === '/' ? 'text/html' : 'text/javascript', body: files[file] ?? '' });
      });
      await watched.page.goto(`${ORIGIN}/`, { waitUntil: 'load' });
      // The page either shows the value or throws: whichever comes first ends the wait.
      await Promise.any([watched.page.waitForSelector('#shown', { timeout: 30_000 }), until(() => watched.errors.length > 0, `${name} to throw`, 30_000)]);
      const shown = (await watched.page.locator('#shown').count()) > 0 ? await watched.page.locator('#shown').textContent() : null;
      return { shown, errors: [...watched.errors] };
    } finally {
      await watched.page.close();
    }
  }

  const THROWN: Record<Importer, string> = { written: 'cache is not defined', called: 'gtag is not defined', typed: 'gtag is not defined' };

  async function expectEachThrows(): Promise<void> {
    for (const name of Object.keys(IMPORTERS) as Importer[]) {
      const ran = await run(name);
      expect(ran.shown, name).to.equal(null);
      expect(ran.errors.join(' | '), name).to.include(THROWN[name]);
    }
  }

  it('throws while each importer is invalid, runs while it is valid, following the edits of the module imported', async function () {
    expect(await statuses()).to.deep.equal(['invalid', 'invalid', 'invalid']);
    await expectEachThrows();

    const importerBuilds = () => [...service.internals.log.events()].filter((event) => event.type === 'build.started' && event.modules.some(({ module }) => module.startsWith('@p/app/'))).length;
    const builtBefore = importerBuilds();
    write(root, 'packages/lib/setup.js', SETUP + SHIM);
    await waitFor(async () => (await statuses()).every((status) => status === 'valid'), { what: 'the importers valid once @p/lib/setup writes cache and gtag', timeout: 60_000 });
    for (const name of Object.keys(IMPORTERS) as Importer[]) expect(await run(name), name).to.deep.equal({ shown: IMPORTERS[name].shown, errors: [] });

    write(root, 'packages/lib/setup.js', SETUP);
    await waitFor(async () => (await statuses()).every((status) => status === 'invalid'), { what: 'the importers invalid again once @p/lib/setup writes neither', timeout: 60_000 });
    await expectEachThrows();
    expect(importerBuilds()).to.equal(builtBefore);
  });
});
