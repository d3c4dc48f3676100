// A preview page the service cannot make is answered as an error page (README "Preview and
// stylesheet push"), naming the broken manifest when that is the reason; the save that makes it
// possible again (here: the entry's package.json fixed) shows the preview in that same tab,
// without a reload by hand.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, until, type Watched } from '../helpers/chromium.js';
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
      expect(shown, "the manifest's fix first").to.include('To fix: correct the manifest at the place given.');
      // A broken manifest elsewhere does not make a mistyped address right: the answer's own fix follows.
      expect(shown, "the address's fix after it").to.include('If that is not the cause: ask for an address /state lists');

      writeFile(root, SHOP_MANIFEST, manifest);
      await watched.page.waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent?.startsWith('Total €73.00'), null, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the tab never showed the preview; it shows: ${await watched.page.title().catch(() => '?')}: ${await watched.page.evaluate(() => document.body.innerText).catch(() => '?')}`);
      });
      await eventsOpen(watched);
    });
  });
}

// An entry no manifest declares (a typo in `?entry=`, or one not declared yet) changes only when
// the workspace does: its error page asks for itself when the push tells a change, never on a
// clock, and shows the preview once the entry is declared.
describe('the error page of an entry no manifest declares', () => {
  const ENTRY = '@demo/shop/about';
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  before(async () => {
    root = exampleWorkspace({ 'packages/shop/about/index.ts': "document.body.append(Object.assign(document.createElement('p'), { id: 'about', textContent: 'About the shop' }));\n" });
    service = await serve(root);
    browser = await launchChromium();
    watched = await openPage(browser);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('asks for itself nothing while the workspace stays as it is, and shows the preview once the entry is declared', async () => {
    const address = new URL(`/preview/?entry=${encodeURIComponent(ENTRY)}`, service.url).href;
    await watched.page.goto(address, { waitUntil: 'load' });
    expect(await watched.page.locator('h1').textContent()).to.equal('The preview cannot show this page');
    expect(await watched.page.locator('body').textContent()).to.include(`the preview entry ${ENTRY} is not a public module of the workspace`);
    await eventsOpen(watched);
    const asked = () => watched.requests.filter((url) => url === address).length;
    // The load, and the one look when the connection opened (a save may have come before it).
    await until(() => asked() >= 2, 'the look of the error page when it connected');
    const before = asked();
    // Long enough for a page asking on a clock (once a second, before) to have asked twice.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(asked(), 'requests of the error page for itself while nothing changed').to.equal(before);

    const manifest = readText(root, SHOP_MANIFEST);
    writeFile(root, SHOP_MANIFEST, manifest.replace('"./storefront": "./storefront/index.ts"', '"./storefront": "./storefront/index.ts",\n    "./about": "./about/index.ts"'));
    await watched.page.waitForFunction(() => document.getElementById('about')?.textContent === 'About the shop', null, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the tab never showed the preview; it shows: ${await watched.page.evaluate(() => document.body.innerText).catch(() => '?')}`);
    });
    expect(watched.errors).to.deep.equal([]);
  });
});
