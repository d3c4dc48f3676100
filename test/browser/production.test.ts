// A page of another origin that loads the production output (README "Addresses"): it renders with its styles and never asks for the
// development runtime or its push channel.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, waitForColour, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';

const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';
const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

describe('a production page on another origin', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let site: http.Server;
  let siteUrl: string;
  let watched: Watched;

  before(async () => {
    service = await serve(exampleWorkspace());
    const address = (path: string) => new URL(`${path}?${PRODUCTION}`, service.url).href;
    const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>A shop built elsewhere</title>
    <link rel="stylesheet" href="${escapeAttribute(address('/m/@demo/shop@0.4.0/styles/storefront'))}">
    <link rel="stylesheet" href="${escapeAttribute(address('/m/@demo/ui@1.1.0/styles/badge'))}">
    <script type="importmap">${JSON.stringify({ imports: { '@demo/ui/badge': address('/m/@demo/ui@1.1.0/modules/badge'), '@demo/ui/price': address('/m/@demo/ui@1.1.0/modules/price') } })}</script>
    <script type="module" src="${escapeAttribute(address('/m/@demo/shop@0.4.0/modules/storefront'))}"></script>
  </head>
  <body></body>
</html>
`;
    site = http.createServer((request, response) => {
      if (request.url !== '/') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    // Another port is another origin.
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    browser = await launchChromium();
    watched = await openPage(browser);
    await watched.page.goto(siteUrl, { waitUntil: 'load' });
  });

  after(async () => {
    await browser?.close();
    site?.closeAllConnections();
    if (site) await new Promise((resolve) => site.close(resolve));
    await service?.close();
  });

  it('renders the storefront from the production modules of both packages', async () => {
    await watched.page
      .waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent === 'Total €73.00 free shipping', null, { timeout: 30_000 })
      .catch(async () => {
        throw new Error(`the production page did not render; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}; body: ${await watched.page.evaluate(() => document.body.outerHTML)}`);
      });
    const images = await watched.page.evaluate(() => [...document.querySelectorAll<HTMLImageElement>('demo-storefront img')].map((image) => image.naturalWidth));
    expect(images).to.deep.equal([24, 16]); // the declared assets, addressed from the production code
    expect(watched.errors).to.deep.equal([]);
  });

  it('takes its styles from the production stylesheets', async () => {
    await waitForColour(watched, 'demo-storefront', 'rgb(34, 40, 49)');
    const badge = await watched.page.evaluate(() => getComputedStyle(document.querySelector('.demo-badge')!).backgroundColor);
    expect(badge).to.equal('rgb(255, 244, 214)');
  });

  it('asks for no development runtime and opens no push channel', async () => {
    await watched.page.waitForLoadState('networkidle');
    const development = [...watched.requests, ...watched.sockets].filter((url) => {
      const { pathname } = new URL(url);
      return pathname === '/events' || pathname.startsWith('/events/') || pathname.startsWith('/u/');
    });
    expect(development).to.deep.equal([]);
    expect(watched.sockets).to.deep.equal([]);
    // Everything from the service is production output or a declared asset.
    const fromService = watched.requests.filter((url) => url.startsWith(service.url));
    expect(fromService).to.have.length(7);
    for (const url of fromService) {
      const { pathname, searchParams } = new URL(url);
      if (!pathname.includes('/assets/')) expect(searchParams.get('env'), url).to.equal('production');
    }
  });
});
