// Names reached through shared files (README "Shared files", "Bundling real code"): "valid" in
// /state means the page links and runs in Chromium, for an importer of names a public module
// re-exports from a shared file (`export * from`, `export { y } from`, `export * as ns from`, two
// levels of `export *`, a shared file re-exporting a public module), on /preview/, on the bundled
// preview, and as production output loaded by a page of another origin.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { sharedLinksWorkspace } from '../helpers/shared-links-workspace.js';

const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';
const RAN = 'X,B,Y,X,L,XB';

async function result(watched: Watched): Promise<string> {
  await watched.page.waitForFunction(() => document.body?.dataset.result !== undefined, undefined, { timeout: 20_000 }).catch(() => {
    throw new Error(`the page did not run; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
  });
  return watched.page.evaluate(() => document.body.dataset.result!);
}

describe('names reached through shared files on a page', function () {
  this.timeout(60_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    service = await serve(sharedLinksWorkspace());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('/preview/ and the bundled preview run the importer, and /state lists it valid', async () => {
    await service.report();
    for (const address of ['/preview/?entry=@s/app/main', '/preview/bundled/?entry=@s/app/main']) {
      const watched = await openPage(browser);
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      expect(await result(watched), address).to.equal(RAN);
      expect(watched.errors, address).to.deep.equal([]);
      await watched.page.close();
    }
    expect((await service.report()).modules.find((module) => module.specifier === '@s/app/main')?.status).to.equal('valid');
  });

  it('production output, the shared files at their production addresses, runs on a page of another origin', async () => {
    const entry = (await service.get('/preview/entry.json?entry=@s/app/main')).json<{ imports: Record<string, string> }>();
    const imports = Object.fromEntries(Object.entries(entry.imports).map(([specifier, address]) => [specifier, new URL(`${address.split('?')[0]}?${PRODUCTION}`, service.url).href]));
    const html = `<!doctype html><html><head><script type="importmap">${JSON.stringify({ imports })}</script><script type="module">import "@s/app/main";</script></head><body></body></html>`;
    const site = http.createServer((request, response) => {
      if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const watched = await openPage(browser);
      // Another port is another origin.
      await watched.page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, { waitUntil: 'load' });
      expect(await result(watched)).to.equal(RAN);
      expect(watched.errors).to.deep.equal([]);
      await watched.page.close();
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });
});
