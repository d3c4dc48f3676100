// A preview page the service cannot make is answered as an error page (README "Preview and
// stylesheet push"), naming the broken manifest when that is the reason; the save that makes it
// possible again (here: the entry's package.json fixed) shows the preview in that same tab,
// without a reload by hand.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { readText } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const SHOP_MANIFEST = 'packages/shop/package.json';

for (const address of ['/preview/', '/preview/bundled/']) {
  describe(`the error page of ${address}`, () => {
    let browser: Browser;
    let service: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let watched: Watched;

    before(async () => {
      root = exampleWorkspace();
      service = await serve(root);
      browser = await launchChromium();
      watched = await openPage(browser);
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    it('shows the preview once a save makes it possible again', async () => {
      const manifest = readText(root, SHOP_MANIFEST);
      writeFile(root, SHOP_MANIFEST, manifest.replace('"exports"', '"exports" "'));
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      expect(await watched.page.locator('h1').textContent()).to.equal('The preview cannot show this page');
      const shown = await watched.page.locator('body').textContent();
      expect(shown).to.include('OUTPUT_NOT_AVAILABLE');
      expect(shown, 'the broken manifest, the reason').to.include(`${SHOP_MANIFEST}:6:17 MANIFEST_INVALID`);

      writeFile(root, SHOP_MANIFEST, manifest);
      await watched.page.waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent?.startsWith('Total €73.00'), null, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the tab never showed the preview; it shows: ${await watched.page.title().catch(() => '?')}: ${await watched.page.evaluate(() => document.body.innerText).catch(() => '?')}`);
      });
      await eventsOpen(watched);
    });
  });
}
