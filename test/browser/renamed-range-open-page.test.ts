// A page open on the preview while a package is renamed under an importer that declares a range
// (README "Preview and stylesheet push"): the page served now has no version to map the import at
// (`PREVIEW_VERSION_UNRESOLVED`, a diagnostic of the page, which no module's message tells), so a
// fresh load fails on it. The open page keeps running the code it loaded and its overlay says
// why a page loaded now would not; renamed back, the overlay goes.
import { expect } from 'chai';
import { chromiumForSuite, eventsOpen, openPage, overlayTextOf, shownOk, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const LIB_JSON = 'packages/lib/package.json';
const lib = { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' } };

for (const address of ['/preview/', '/preview/bundled/']) {
  describe(`an open ${address} whose import, declared by a range, is renamed away`, () => {
    const browser = chromiumForSuite();
    let service: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let watched: Watched;
    const overlayNames = (text: string) =>
      watched.page
        .waitForFunction((t) => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes(t), text, { timeout: 30_000 })
        .catch(async () => {
          throw new Error(`the overlay never named ${text}; it shows ${await overlayTextOf(watched)}; the page shows ${await shownOk(watched)}`);
        });

    before(async () => {
      root = inlineWorkspace({
        'packages/app': {
          manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '^1.0.0' } },
          files: { 'main/index.ts': "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n" },
        },
        'packages/lib': { manifest: lib, files: { 'util/index.ts': "export const a = 'mine';\n" } },
      });
      service = await serve(root, { cdnOrigin: 'local' });
      watched = await openPage(browser());
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      await until(() => watched.messages.length > 0, 'the first message on /events', 30_000);
      await watched.page.waitForFunction(() => document.body?.dataset.ok === 'mine', null, { timeout: 30_000 });
      await eventsOpen(watched);
    });
    after(async () => {
      await watched?.page.close();
      await service?.close();
    });

    it('keeps running its code, and its overlay tells the unresolved version a fresh load fails on', async () => {
      const navigations = watched.navigations();
      writeFile(root, LIB_JSON, JSON.stringify({ ...lib, name: '@p/lib2' }));
      await overlayNames('PREVIEW_VERSION_UNRESOLVED');
      // The bundled page runs its bundle, whose address still answers: only the plain page's module addresses go.
      if (address === '/preview/') await overlayNames('This page runs the code it loaded before these problems: /m/@p/lib@1.0.0/modules/util answers 404 now');
      expect(await overlayTextOf(watched)).to.include('Version unresolved').and.include('@p/lib has no exact version');
      expect(await shownOk(watched)).to.equal('mine');
      expect(watched.navigations()).to.equal(navigations);
    });

    it('drops the overlay once the package has its name back', async () => {
      writeFile(root, LIB_JSON, JSON.stringify(lib));
      await watched.page.waitForFunction(() => !document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('PREVIEW_VERSION_UNRESOLVED'), null, { timeout: 30_000 });
      await watched.page.waitForFunction(() => document.body?.dataset.ok === 'mine', null, { timeout: 30_000 });
    });
  });
}
