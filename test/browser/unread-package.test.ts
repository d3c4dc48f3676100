// A page open on the preview while a workspace package's package.json is saved broken (README
// "Workspaces"): the page, reloaded by an edit of its importer, asks the CDN for nothing under
// that package's name (anyone may publish it there), and its overlay names the broken manifest;
// the fixed manifest brings the workspace's code back, without a restart of the service.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, overlayTextOf, routeSquatterCdn, shownOk, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const CDN = 'https://cdn.test';
const LIB_JSON = 'packages/lib/package.json';
const MAIN = 'packages/app/main/index.ts';
const libManifest = JSON.stringify({ name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' }, core: { modules: '.' } });
const main = "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n";

for (const address of ['/preview/', '/preview/bundled/']) {
  describe(`${address} while a workspace package's package.json is broken`, () => {
    let browser: Browser;
    let service: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let watched: Watched;
    const cdnRequests: string[] = [];

    const shown = () => shownOk(watched);
    const overlayText = () => overlayTextOf(watched);
    const overlayNames = (text: string) =>
      watched.page.waitForFunction((t) => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes(t), text, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the overlay never named ${text}; it shows ${await overlayText()}; failed: ${watched.failed.join(' | ') || 'none'}`);
      });
    const shows = (text: string) =>
      watched.page.waitForFunction((t) => document.body?.dataset.ok === t, text, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the page never showed ${text}; it shows ${await shown()}; overlay: ${await overlayText()}; failed: ${watched.failed.join(' | ') || 'none'}`);
      });

    before(async () => {
      root = inlineWorkspace({
        'packages/app': {
          manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' }, core: { modules: '.' } },
          files: { 'main/index.ts': main },
        },
        'packages/lib': { manifest: JSON.parse(libManifest), files: { 'util/index.ts': "export const a = 'mine';\n" } },
      });
      service = await serve(root, { cdnOrigin: CDN });
      browser = await launchChromium();
      watched = await openPage(browser);
      // What a squatter's package of that name would answer, had the page asked the CDN.
      await routeSquatterCdn(watched.page, CDN, cdnRequests);
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      await shows('mine');
      await eventsOpen(watched);
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    it('asks the CDN for nothing once its importer is edited, and the overlay names the broken manifest', async () => {
      writeFile(root, LIB_JSON, libManifest.slice(0, -1));
      // The open page is told of the broken manifest as it is (no reload: its code is the same).
      await overlayNames(LIB_JSON);
      const navigations = watched.navigations();
      writeFile(root, MAIN, `${main}// saved again\n`);
      await until(() => watched.navigations() > navigations, 'the reload the edit of the importer pushes', 20_000);
      await overlayNames('LOAD_FAILED');
      const overlay = (await overlayText())!;
      expect(overlay).to.include('MANIFEST_INVALID').and.include(`${LIB_JSON} is not valid JSON`);
      expect(cdnRequests).to.deep.equal([]);
      expect(watched.requests.filter((url) => url.startsWith(CDN))).to.deep.equal([]);
      expect(await shown()).to.not.equal('FOREIGN');
      const report = await service.report();
      expect(report.modules.find((module) => module.specifier === '@p/app/main')?.invalidImports).to.deep.equal(['@p/lib/util']);
    });

    it("runs the workspace's code again once the package.json is fixed, with no restart", async () => {
      writeFile(root, LIB_JSON, libManifest);
      // The page that failed to load reloads itself once the manifest is fixed (the package comes back with no build).
      await shows('mine');
      expect(await overlayText()).to.equal(null);
      expect(cdnRequests).to.deep.equal([]);
    });
  });
}
