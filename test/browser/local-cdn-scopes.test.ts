// Two versions of one installed package, run in Chromium on /preview/ and /preview/bundled/
// (README "The local CDN"): the workspace's own imports load dep 1.0.0 and helper 1.0.0, while
// other, whose dependency npm (or pnpm) installed as dep 2.0.0, loads that, and dep 2.0.0 its
// own helper 2.0.0; a workspace package with its own dep 3.0.0 in its node_modules loads that:
// each version Node gives its importer, through the import map's scopes.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { NESTED_VERSIONS_SHOWN, nestedVersionsWorkspace, OWN_VERSIONS_SHOWN, ownVersionsWorkspace, pnpmVersionsWorkspace } from '../helpers/nested-versions-workspace.js';

const cases = [
  ['npm nesting', nestedVersionsWorkspace, NESTED_VERSIONS_SHOWN],
  ['pnpm store', pnpmVersionsWorkspace, NESTED_VERSIONS_SHOWN],
  ['a workspace package with its own version', ownVersionsWorkspace, OWN_VERSIONS_SHOWN],
] as const;

for (const [layout, workspace, expected] of cases) {
  describe(`two installed versions of one package, in Chromium (${layout})`, function () {
    let browser: Browser;
    let service: Awaited<ReturnType<typeof serve>>;

    before(async function () {
      service = await serve(workspace(), { cdnOrigin: 'local' });
      browser = await launchChromium();
    });
    after(async function () {
      await browser?.close();
      await service?.close();
    });

    for (const address of ['/preview/', '/preview/bundled/']) {
      it(`runs each package with the version it loads in Node on ${address}`, async function () {
        const watched = await openPage(browser);
        try {
          await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
          await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined, undefined, { timeout: 20_000 }).catch(() => undefined);
          const shown = await watched.page.evaluate(() => document.body?.dataset.shown);
          expect({ shown, errors: watched.errors, failed: watched.failed }).to.deep.equal({ shown: expected, errors: [], failed: [] });
        } finally {
          await watched.page.close();
        }
      });
    }
  });
}
