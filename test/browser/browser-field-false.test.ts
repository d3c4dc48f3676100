// Bare names a package.json's `browser` field maps to `false` (README "Bundling real code", "The
// local CDN"), run in Chromium: on /preview/, on /preview/bundled/, and from a page of another
// origin loading the production modules and the local CDN's bundles, nothing asks for the name.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { BROWSER_FALSE_SHOWN, browserFalseWorkspace } from '../helpers/browser-false-workspace.js';

const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';

describe('bare names the browser field maps to false, in Chromium', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(browserFalseWorkspace(), { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  async function shown(url: string): Promise<{ text: string | undefined; errors: string[]; failed: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined, undefined, { timeout: 15_000 }).catch(() => undefined);
      return { text: await watched.page.evaluate(() => document.body?.dataset.shown), errors: watched.errors, failed: watched.failed };
    } finally {
      await watched.page.close();
    }
  }

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`runs on ${address}`, async function () {
      expect(await shown(new URL(address, service.url).href)).to.deep.equal({ text: BROWSER_FALSE_SHOWN, errors: [], failed: [] });
    });
  }

  it('runs from a page of another origin, production modules and the local CDN', async function () {
    const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string> }>();
    const imports = Object.fromEntries(
      Object.entries(entry.imports).map(([name, address]) => {
        const url = new URL(address, service.url);
        if (url.pathname.startsWith('/m/')) url.search = PRODUCTION;
        return [name, url.href];
      }),
    );
    const html = `<!doctype html><script type="importmap">${JSON.stringify({ imports })}</script><script type="module">import '@bf/app/main';</script>`;
    const site = http.createServer((request, response) => {
      if (request.url !== '/') response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      // Another port is another origin.
      expect(await shown(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`)).to.deep.equal({ text: BROWSER_FALSE_SHOWN, errors: [], failed: [] });
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });
});
