// An importer's code run in Chromium after the module it imports for its effects, `@p/lib/setup`
// of the workspaces of effects-shims-workspace.ts and effects-unbound-workspace.ts (README
// "Bundling real code", Shims): the page maps `@p/lib/setup` to its code as the service serves it
// now, and runs the code esbuild writes for the importer (the service answers 422 for that while
// the importer is invalid). Each importer shows what it got in `<p id="shown">`, or throws.
import path from 'node:path';
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, until } from './chromium.js';
import { serve } from './service.js';

type Served = Awaited<ReturnType<typeof serve>>;

/**
 * The workspace `makeWorkspace` writes, served, and a Chromium, for the suite this is called in
 * (its `before` and `after`): both closed even when a test failed. `run` loads a page from
 * `origin`, which the test's own routes answer.
 */
export function effectsPageSuite(makeWorkspace: () => string, origin: string): { readonly service: Served; readonly root: string; run(importer: string): Promise<{ shown: string | null; errors: string[] }> } {
  let started: { root: string; service: Served; browser?: Browser } | undefined;
  before(async function () {
    const root = makeWorkspace();
    started = { root, service: await serve(root) };
    started.browser = await launchChromium();
  });
  after(async function () {
    await started?.browser?.close();
    await started?.service.close();
  });
  const suite = () => {
    if (!started?.browser) throw new Error("the suite's service is not started: effectsPageSuite() belongs in a describe, called when it is defined");
    return { ...started, browser: started.browser, origin };
  };
  return {
    get service() {
      return suite().service;
    },
    get root() {
      return suite().root;
    },
    run: (importer) => runAfterSetup(suite(), importer),
  };
}

/** What the page shows, and what it throws, running `importer` (a file of `packages/app`) after `@p/lib/setup`'s code as served now. */
async function runAfterSetup({ browser, service, root, origin }: { browser: Browser; service: Served; root: string; origin: string }, importer: string): Promise<{ shown: string | null; errors: string[] }> {
  const entry = (await service.get('/preview/entry.json?entry=@p/lib/setup')).json<{ imports: Record<string, string> }>();
  const setup = await service.get(entry.imports['@p/lib/setup']!);
  expect(setup.status).to.equal(200);
  const built = await esbuildApi.build({ entryPoints: [path.join(root, 'packages/app', importer)], bundle: true, format: 'esm', write: false, external: ['@p/lib/*'] });
  const files: Record<string, string> = {
    '/': `<!doctype html><html><head><script type="importmap">${JSON.stringify({ imports: { '@p/lib/setup': '/setup.js' } })}</script><script type="module" src="/app.js"></script></head><body></body></html>`,
    '/setup.js': setup.text,
    '/app.js': built.outputFiles[0]!.text,
  };
  const watched = await openPage(browser);
  try {
    await watched.page.route(`${origin}/**`, (route) => {
      const file = new URL(route.request().url()).pathname;
      return route.fulfill({ status: 200, contentType: file === '/' ? 'text/html' : 'text/javascript', body: files[file] ?? '' });
    });
    await watched.page.goto(`${origin}/`, { waitUntil: 'load' });
    // The page either shows the value or throws: whichever comes first ends the wait.
    await Promise.any([watched.page.waitForSelector('#shown', { timeout: 30_000 }), until(() => watched.errors.length > 0, `${importer} to throw`, 30_000)]);
    const shown = (await watched.page.locator('#shown').count()) > 0 ? await watched.page.locator('#shown').textContent() : null;
    return { shown, errors: [...watched.errors] };
  } finally {
    await watched.page.close();
  }
}
