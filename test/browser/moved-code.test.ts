// Code the page loads that moves without a build telling it (README "Preview and stylesheet
// push"): a package whose version is bumped while the page is open (every address of its
// modules changes), and a source saved while the service was stopped. Either way the page
// reloads once onto the current code, and goes on following the edits after it.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, until, type Watched } from '../helpers/chromium.js';
import { readText } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const CART_FILE = 'packages/shop/storefront/cart.ts';
const SHOP_MANIFEST = 'packages/shop/package.json';
const UI_MANIFEST = 'packages/ui/package.json';

for (const address of ['/preview/', '/preview/bundled/']) {
  describe(`the page of ${address} when the code it loads moves`, () => {
    let browser: Browser;
    let service: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let watched: Watched;
    let loads: number;

    const total = () => watched.page.evaluate(() => document.querySelector('demo-storefront .total')?.textContent ?? null);
    const showsTotal = (text: string) =>
      watched.page.waitForFunction((t) => document.querySelector('demo-storefront .total')?.textContent?.startsWith(t), text, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the page never showed ${text}; it shows ${await total().catch(() => '?')}; errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
      });
    /** The labels the page names its modules by (the runtime's `core-page`). */
    const pageModules = () => watched.page.evaluate(() => (JSON.parse(document.getElementById('core-page')!.textContent!) as { modules: string[] }).modules);
    /**
     * Waits for the load event of the document shown: a reload renders the new total before its
     * `load`, which is what `loads` counts (under load, the count was read in between).
     */
    const loaded = () => watched.page.waitForLoadState('load');
    const multiplyTotal = (factor: number) => writeFile(root, CART_FILE, readText(root, CART_FILE).replace(/=> (\d+ \* )?lines\.reduce/, `=> ${factor} * lines.reduce`));

    before(async () => {
      root = exampleWorkspace();
      service = await serve(root);
      browser = await launchChromium();
      watched = await openPage(browser);
      watched.page.on('load', () => void (loads += 1));
      loads = 0;
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      await showsTotal('Total €73.00');
      await eventsOpen(watched);
      await service.report();
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    for (const [what, manifest, from, to] of [
      ['its own package', SHOP_MANIFEST, '0.4.0', '0.5.0'],
      ['a package it imports', UI_MANIFEST, '1.1.0', '1.2.0'],
    ] as const) {
      it(`reloads once when ${what} gets a new version, and follows the next code edit at the new addresses`, async () => {
        const before = loads;
        const name = JSON.parse(readText(root, manifest)).name as string;
        writeFile(root, manifest, readText(root, manifest).replace(`"version": "${from}"`, `"version": "${to}"`));
        await until(() => loads === before + 1, `the reload after ${name} became ${to}`, 20_000);
        await showsTotal('Total €');
        expect(await pageModules()).to.include.members([`${name}@${to}/${name === '@demo/shop' ? 'storefront' : 'price'}`]);
        await eventsOpen(watched);

        const factor = name === '@demo/shop' ? 2 : 3;
        multiplyTotal(factor);
        await showsTotal(`Total €${(73 * factor).toFixed(2)}`);
        await loaded();
        expect(loads).to.equal(before + 2);
        await eventsOpen(watched);
      });
    }

    it('reloads once onto code saved while the service was stopped, after it reconnects', async () => {
      const before = loads;
      const opened = watched.events.opened;
      const { port } = service;
      await service.close();
      multiplyTotal(5);
      service = await serve(root, { port });
      await showsTotal('Total €365.00');
      await loaded();
      expect(loads).to.equal(before + 1);
      expect(watched.events.opened).to.be.greaterThan(opened);
    });

    it('with ?reload=false, says the code changed while the service was stopped, and does not reload', async () => {
      await watched.page.goto(new URL(`${address}?reload=false`, service.url).href, { waitUntil: 'load' });
      await showsTotal('Total €365.00');
      await eventsOpen(watched);
      const before = loads;
      const { port } = service;
      await service.close();
      multiplyTotal(6);
      service = await serve(root, { port });
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('Code changed'), null, { timeout: 20_000 });
      expect(await watched.page.evaluate(() => document.querySelector('core-overlay')!.shadowRoot!.querySelector('li')!.textContent)).to.include(address);
      expect(loads).to.equal(before);
      await showsTotal('Total €365.00');
    });
  });
}
