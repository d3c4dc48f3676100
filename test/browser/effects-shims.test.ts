// A read of process.env.X where the import runs, after an import for effects of a workspace module
// (README "Bundling real code", Shims), in Chromium: the page throws exactly while /state calls the
// importer invalid, as the module imported writes process on the global object or not; the
// importer is never built again meanwhile. The page maps the imported module to its code as the
// service serves it, and runs the code esbuild writes for the importer (the service answers 422
// for that while it is invalid).
import path from 'node:path';
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, until } from '../helpers/chromium.js';
import { write } from '../helpers/edit.js';
import { effectsShimsWorkspace, SETUP, SHIM } from '../helpers/effects-shims-workspace.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

const ORIGIN = 'http://shims.test';

describe('a read taken as defined because of an import for effects, in Chromium', function () {
  this.timeout(300_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = effectsShimsWorkspace();
    service = await serve(root);
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  const statusOfApp = async () => (await service.report()).modules.find((module) => module.specifier === '@p/app/app')!.status;

  /** What the page shows, and what it throws, running the importer after the imported module's code as served now. */
  async function run(): Promise<{ shown: string | null; errors: string[] }> {
    const entry = (await service.get('/preview/entry.json?entry=@p/lib/setup')).json<{ imports: Record<string, string> }>();
    const setup = await service.get(entry.imports['@p/lib/setup']!);
    expect(setup.status).to.equal(200);
    const built = await esbuildApi.build({ entryPoints: [path.join(root, 'packages/app/app.js')], bundle: true, format: 'esm', write: false, external: ['@p/lib/*'] });
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
      // The page either shows the value read or throws: whichever comes first ends the wait.
      await Promise.any([watched.page.waitForSelector('#shown', { timeout: 30_000 }), until(() => watched.errors.length > 0, 'the page to throw', 30_000)]);
      const shown = (await watched.page.locator('#shown').count()) > 0 ? await watched.page.locator('#shown').textContent() : null;
      return { shown, errors: [...watched.errors] };
    } finally {
      await watched.page.close();
    }
  }

  it('throws while the importer is invalid, runs while it is valid, following the edits of the module imported', async function () {
    expect(await statusOfApp()).to.equal('invalid');
    const invalid = await run();
    expect(invalid.shown).to.equal(null);
    expect(invalid.errors.join(' | ')).to.include('process is not defined');

    const appBuilds = () => [...service.internals.log.events()].filter((event) => event.type === 'build.started' && event.modules.some(({ module }) => module === '@p/app/app')).length;
    const builtBefore = appBuilds();
    write(root, 'packages/lib/setup.js', SETUP + SHIM);
    await waitFor(async () => (await statusOfApp()) === 'valid', { what: '@p/app/app valid once @p/lib/setup writes process', timeout: 60_000 });
    const valid = await run();
    expect(valid).to.deep.equal({ shown: 'shimmed', errors: [] });

    write(root, 'packages/lib/setup.js', SETUP);
    await waitFor(async () => (await statusOfApp()) === 'invalid', { what: '@p/app/app invalid again once @p/lib/setup no longer writes process', timeout: 60_000 });
    const again = await run();
    expect(again.shown).to.equal(null);
    expect(again.errors.join(' | ')).to.include('process is not defined');
    expect(appBuilds()).to.equal(builtBefore);
  });
});
