// A page loaded while a package directory core.json lists is moved away (README "Workspaces"):
// it asks the CDN for nothing under that package's name (anyone may publish it there) and runs
// no code of it; the directory back, a fresh load runs the workspace's code, with no restart.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, overlayTextOf, routeSquatterCdn, shownOk, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const CDN = 'https://cdn.test';
const LIB = 'packages/lib';

for (const address of ['/preview/', '/preview/bundled/']) {
  describe(`${address} loaded while a listed package directory is moved away`, () => {
    let browser: Browser;
    let service: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let watched: Watched;
    const cdnRequests: string[] = [];

    const shown = () => shownOk(watched);
    const overlayText = () => overlayTextOf(watched);
    // A new page for each load: the page of the first may reload itself once the package is
    // back, which would abort a navigation of the same page.
    const freshLoad = async () => {
      await watched?.page.close();
      watched = await openPage(browser);
      // What a squatter's package of that name would answer, had the page asked the CDN.
      await routeSquatterCdn(watched.page, CDN, cdnRequests);
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    };
    const mainReport = async () => (await service.report()).modules.find((module) => module.specifier === '@p/app/main');

    before(async () => {
      root = inlineWorkspace({
        'packages/app': {
          manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' }, core: { modules: '.' } },
          files: { 'main/index.ts': "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n" },
        },
        [LIB]: { manifest: { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' }, core: { modules: '.' } }, files: { 'util/index.ts': "export const a = 'mine';\n" } },
      });
      fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app', LIB], preview: '@p/app/main' }));
      service = await serve(root, { cdnOrigin: CDN });
      expect((await mainReport())?.status).to.equal('valid');
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    it('asks the CDN for nothing and runs no code under its name; the overlay names the missing package.json', async () => {
      fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
      expect((await mainReport())?.invalidImports).to.deep.equal(['@p/lib/util']);
      await freshLoad();
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('has no package.json'), null, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the overlay never named the missing package.json; it shows ${await overlayText()}; failed: ${watched.failed.join(' | ') || 'none'}`);
      });
      expect(cdnRequests).to.deep.equal([]);
      expect(watched.requests.filter((url) => url.startsWith(CDN))).to.deep.equal([]);
      expect(await shown()).to.equal(null);
    });

    it("runs the workspace's code at a fresh load once the directory is back, with no restart", async () => {
      fs.renameSync(path.join(root, 'lib-away'), path.join(root, LIB));
      await waitFor(async () => (await mainReport())?.invalidImports === undefined, { what: '@p/app/main valid with no invalidImports' });
      await freshLoad();
      await watched.page.waitForFunction(() => document.body?.dataset.ok === 'mine', null, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the page never showed mine; it shows ${await shown()}; overlay: ${await overlayText()}; failed: ${watched.failed.join(' | ') || 'none'}`);
      });
      expect(cdnRequests).to.deep.equal([]);
    });
  });
}
