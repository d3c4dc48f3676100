// An installed package's exports importing one another's entry files, run in Chromium on
// /preview/ and /preview/bundled/ (README "The local CDN"): every file of the package runs once,
// so the page holds one registry and one `Base` class, which every export's classes extend.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { SHARED_EXPORTS_SHOWN, sharedExportsWorkspace } from '../helpers/shared-exports-workspace.js';

describe("an installed package's exports importing one another, in Chromium", function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(sharedExportsWorkspace(), { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`runs each file once on ${address}: one registry, instanceof true`, async function () {
      const watched = await openPage(browser);
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined, undefined, { timeout: 20_000 }).catch(() => undefined);
        const shown = await watched.page.evaluate(() => document.body?.dataset.shown);
        expect({ shown, errors: watched.errors, failed: watched.failed }).to.deep.equal({ shown: SHARED_EXPORTS_SHOWN, errors: [], failed: [] });
      } finally {
        await watched.page.close();
      }
    });
  }
});
