// A page that failed to load on an address no module of it names (README "Preview and stylesheet
// push"): opened while the package it imports is not yet in core.json, its import goes to the
// CDN, which has no such package (a 404). Once the package is listed and built, the open page
// reloads by itself and runs the workspace's code, as a fresh load does; and it does not reload
// while the page the service would serve is the same broken one.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, overlayTextOf, shownOk, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const CDN = 'https://cdn.test';
const core = (packages: string[]) => JSON.stringify({ packages, preview: '@p/app/main' });

describe('/preview/ that failed on a package not yet in the workspace', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  const shown = () => shownOk(watched);
  const overlayText = () => overlayTextOf(watched);

  before(async () => {
    root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' }, core: { modules: '.' } },
        files: { 'main/index.ts': "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n" },
      },
      'packages/lib': {
        manifest: { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' }, core: { modules: '.' } },
        files: { 'util/index.ts': "export const a = 'mine';\n", 'other/index.ts': "export const b = 'other';\n" },
      },
    });
    writeFile(root, 'core.json', core(['packages/app']));
    service = await serve(root, { cdnOrigin: CDN });
    browser = await launchChromium();
    watched = await openPage(browser);
    // The CDN has no package of that name.
    await watched.page.route(`${CDN}/**`, (route) => route.fulfill({ status: 404, contentType: 'text/plain', headers: { 'access-control-allow-origin': '*' }, body: 'no such package' }));
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('LOAD_FAILED'), undefined, { timeout: 20_000 });
    await eventsOpen(watched);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('stays as it is while the page the service would serve is the same broken one', async () => {
    const navigations = watched.navigations();
    let asked = 0;
    watched.page.on('request', (request) => {
      if (request.resourceType() === 'fetch' && new URL(request.url()).pathname === '/preview/') asked += 1;
    });
    const appManifest = (modules: string[]) =>
      JSON.stringify({ name: '@p/app', version: '1.0.0', exports: Object.fromEntries(modules.map((m) => [`./${m}`, `./${m}/index.ts`])), dependencies: { '@p/lib': '1.0.0' }, core: { modules: '.' } });
    // Manifest re-reads the page hears of (`workspace` messages) that change nothing of its page.
    writeFile(root, 'packages/app/more/index.ts', 'export const more = 1;\n');
    writeFile(root, 'packages/app/package.json', appManifest(['main', 'more']));
    await until(() => asked >= 1, 'the page asking which page is served now', 20_000);
    // One question at a time: the second is asked only once the first is answered, so when it
    // is asked, the first answer (the same page) has been taken without a reload.
    writeFile(root, 'packages/app/package.json', appManifest(['main']));
    await until(() => asked >= 2, 'the page asking again after the next re-read', 20_000);
    expect(watched.navigations()).to.equal(navigations);
    expect(await shown()).to.equal(null);
  });

  it('reloads by itself and runs the workspace code once the package is listed and built', async () => {
    const navigations = watched.navigations();
    writeFile(root, 'core.json', core(['packages/app', 'packages/lib']));
    await watched.page.waitForFunction(() => document.body?.dataset.ok === 'mine', undefined, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the open page never ran the workspace's code; it shows ${await shown()}; overlay: ${await overlayText()}`);
    });
    expect(watched.navigations()).to.be.greaterThan(navigations);
    expect(await overlayText()).to.equal(null);
  });
});
