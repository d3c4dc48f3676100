// A page open on the preview while a package's name changes under its importer (README
// "Workspaces", "Preview and stylesheet push"). Renamed away: the importer's import now maps
// elsewhere with no code of the page changed, and the open page ends as a fresh load would; a
// module declared that the page's import map does not reach reloads nothing. Renamed onto a
// name another package has: neither package's code is run under it, by the open page (reloaded
// by an edit of its importer) or by a fresh one.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, overlayTextOf, shownOk, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const LIB_JSON = 'packages/lib/package.json';
const MAIN = 'packages/app/main/index.ts';

function helpers(get: () => Watched) {
  const shown = () => shownOk(get());
  const overlayText = () => overlayTextOf(get());
  return {
    shown,
    overlayText,
    shows: (text: string) =>
      get()
        .page.waitForFunction((t) => document.body?.dataset.ok === t, text, { timeout: 20_000 })
        .catch(async () => {
          throw new Error(`the page never showed ${text}; it shows ${await shown()}; overlay: ${await overlayText()}; failed: ${get().failed.join(' | ') || 'none'}`);
        }),
    overlayNames: (text: string) =>
      get()
        .page.waitForFunction((t) => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes(t), text, { timeout: 20_000 })
        .catch(async () => {
          throw new Error(`the overlay never named ${text}; it shows ${await overlayText()}; the page shows ${await shown()}; failed: ${get().failed.join(' | ') || 'none'}`);
        }),
  };
}

// Declares lib's `./extra` (a module the page's import map does not reach), waits for the workspace
// message and for the page's question which page the service would serve now, answered whole, and
// checks that no reload followed.
async function declaresExtraUnreloaded(watched: Watched, root: string, lib: { exports: Record<string, string> }, navigations: number): Promise<void> {
  const messages = watched.messages.length;
  let asked = 0;
  const finished = (request: { url(): string; resourceType(): string }) => {
    if (new URL(request.url()).pathname === '/preview/' && request.resourceType() === 'fetch') asked += 1;
  };
  watched.page.on('requestfinished', finished);
  writeFile(root, LIB_JSON, JSON.stringify({ ...lib, exports: { ...lib.exports, './extra': './extra/index.ts' } }));
  await until(() => watched.messages.slice(messages).some((message) => message.type === 'workspace'), 'the workspace message of the module declared', 20_000);
  await until(() => asked > 0, "the page's question which page it would be served now", 20_000);
  watched.page.off('requestfinished', finished);
  // Two turns of the page's event loop: the answer read, compared, and a reload begun had it differed.
  await watched.page.evaluate(() => new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), 0))).catch(() => undefined);
  expect(watched.navigations()).to.equal(navigations);
}

describe('an open preview whose import is renamed away (the local CDN)', () => {
  const lib = { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' } };
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;
  const { shows, overlayNames, overlayText } = helpers(() => watched);

  before(async () => {
    root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' } },
        files: { 'main/index.ts': "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n" },
      },
      'packages/lib': { manifest: lib, files: { 'util/index.ts': "export const a = 'mine';\n", 'extra/index.ts': "export const extra = 1;\n" } },
    });
    service = await serve(root, { cdnOrigin: 'local' });
    browser = await launchChromium();
    watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await shows('mine');
    await eventsOpen(watched);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('reloads nothing for a module declared that its import map does not reach', async () => {
    const navigations = watched.navigations();
    await declaresExtraUnreloaded(watched, root, lib, navigations);
    expect(await overlayText()).to.equal(null);
  });

  it('ends as a fresh load would once the package is renamed: reloaded, the overlay naming the address that fails', async () => {
    const navigations = watched.navigations();
    writeFile(root, LIB_JSON, JSON.stringify({ ...lib, name: '@p/lib2', exports: { ...lib.exports, './extra': './extra/index.ts' } }));
    await until(() => watched.navigations() > navigations, 'the reload of the page whose import map changed', 20_000);
    await overlayNames('LOAD_FAILED');
    expect(await overlayText()).to.include('/cdn/@p/lib@1.0.0/util');
    const fresh = await openPage(browser);
    await fresh.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await fresh.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('LOAD_FAILED'), null, { timeout: 20_000 });
    expect(await overlayTextOf(fresh)).to.include('/cdn/@p/lib@1.0.0/util');
    await fresh.page.close();
  });

  it("runs the package's code again once the importer names it by its new name", async () => {
    writeFile(root, 'packages/app/package.json', JSON.stringify({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib2': '1.0.0' } }));
    writeFile(root, MAIN, "import { a } from '@p/lib2/util';\ndocument.body.dataset.ok = a;\n");
    await shows('mine');
    expect(await overlayText()).to.equal(null);
  });
});

describe('an open preview whose import names a package another is renamed onto', () => {
  const other = { name: '@p/other', version: '1.0.0', exports: { './util': './util/index.ts' } };
  const main = "import { a } from '@p/other/util';\ndocument.body.dataset.ok = a;\n";
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;
  const { shown, shows, overlayNames, overlayText } = helpers(() => watched);

  before(async () => {
    root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/other': '1.0.0' } },
        files: { 'main/index.ts': main },
      },
      'packages/lib': { manifest: { ...other, name: '@p/lib' }, files: { 'util/index.ts': "export const a = 'LIB';\n" } },
      'packages/lib-b': { manifest: other, files: { 'util/index.ts': "export const a = 'OTHER';\n" } },
    });
    service = await serve(root);
    browser = await launchChromium();
    watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await shows('OTHER');
    await eventsOpen(watched);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("runs neither package's code under the name: the open page, reloaded by an edit of its importer, and a fresh one", async () => {
    writeFile(root, LIB_JSON, JSON.stringify(other));
    await overlayNames('MANIFEST_INVALID');
    expect(await overlayText()).to.include(LIB_JSON).and.include('packages/lib-b/package.json');
    expect(await shown()).to.not.equal('LIB');
    const navigations = watched.navigations();
    writeFile(root, MAIN, `${main}// saved again\n`);
    await until(() => watched.navigations() > navigations, 'the reload the edit of the importer pushes', 20_000);
    await overlayNames('LOAD_FAILED');
    expect(await shown()).to.equal(null);
    const fresh = await openPage(browser);
    await fresh.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await fresh.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('MANIFEST_INVALID'), null, { timeout: 20_000 });
    expect(await shownOk(fresh)).to.equal(null);
    await fresh.page.close();
  });
});

describe('an open preview after an edit of a module it does not load (README "Preview and stylesheet push")', () => {
  const lib = { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts', './other': './other/index.ts' } };
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;
  const { shows, overlayText } = helpers(() => watched);

  before(async () => {
    root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './side': './side/index.ts' }, dependencies: { '@p/lib': '1.0.0' } },
        // The preview's map names every module of the entry's package and what they import: the side
        // module's import of `@p/lib/other` too, which the page never loads.
        files: { 'main/index.ts': "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n", 'side/index.ts': "import { o } from '@p/lib/other';\nexport const side = o;\n" },
      },
      'packages/lib': { manifest: lib, files: { 'util/index.ts': "export const a = 'mine';\n", 'other/index.ts': "export const o = 1;\n", 'extra/index.ts': 'export const extra = 1;\n' } },
    });
    service = await serve(root);
    browser = await launchChromium();
    watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await shows('mine');
    await eventsOpen(watched);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('reloads nothing for a module declared next: its map names that module at a new version, which the page never imports', async () => {
    const navigations = watched.navigations();
    const before = watched.messages.length;
    writeFile(root, 'packages/lib/other/index.ts', 'export const o = 2;\n');
    await until(() => watched.messages.slice(before).some((message) => message.type === 'code'), 'the code message of the module edited', 20_000);
    await declaresExtraUnreloaded(watched, root, lib, navigations);
    expect(await overlayText()).to.equal(null);
  });
});
