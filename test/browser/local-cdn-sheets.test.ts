// Installed sheets `@import`ing another package's sheet, run in Chromium on /preview/ and
// /preview/bundled/ (README "The local CDN"): the cascade is CSS's, the importing sheets' rules
// after the imported one's (green, where the imported sheet says red), and no request fails.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { cdnSheetsWorkspace, GREEN } from '../helpers/cdn-sheets-workspace.js';

describe("an installed sheet's @import of another package's sheet, in Chromium", function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(cdnSheetsWorkspace(), { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`cascades as CSS orders the sheets on ${address}`, async function () {
      const watched = await openPage(browser);
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined, undefined, { timeout: 20_000 }).catch(() => undefined);
        const colours = await watched.page.evaluate(() => ['comp', 'local', 'theme'].map((id) => { const element = document.getElementById(id); return element ? getComputedStyle(element).color : null; }));
        expect({ colours, errors: watched.errors, failed: watched.failed }).to.deep.equal({ colours: [GREEN, GREEN, GREEN], errors: [], failed: [] });
      } finally {
        await watched.page.close();
      }
    });
  }
});
