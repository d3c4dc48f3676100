// An open page and what changed without a message it heard (README "Preview and stylesheet
// push"): an asset saved while the service was away (the page reconnects and asks each plain
// address it fetched again, comparing the bytes by the hash its resource timeline kept), an
// asset fetched inside a frame of the page (its timeline is the frame's own), and a package name
// two packages write while the page runs the code of one (the overlay says that the code running
// is the one loaded before, and the page is not reloaded into the failure), a page loaded fresh into
// that failure (no such line), and the service back on another workspace whose page is broken.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, overlayTextOf, shownOk, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { BLUE, RED, square } from '../helpers/pixels.js';
import { inlineWorkspace, tempWorkspace, writeFile } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const LOGO = '/m/@a/app@1.0.0/assets/main/logo.svg';
const FRAMED = '/m/@a/app@1.0.0/assets/main/framed.svg';

/** A page that shows `logo.svg` by its plain address, and `framed.svg` inside a `srcdoc` frame. */
function assetWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@a/app/main' }),
    'packages/app/package.json': json({ name: '@a/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'packages/app/main/module.json': json({ platforms: ['web'], assets: ['logo.svg', 'framed.svg', 'unused.svg'] }),
    'packages/app/main/logo.svg': square('red'),
    'packages/app/main/framed.svg': square('red'),
    'packages/app/main/unused.svg': square('red'),
    'packages/app/main/index.ts': [
      "const image = document.createElement('img');",
      `image.src = '${LOGO}';`,
      'document.body.append(image);',
      'await image.decode();',
      "const frame = document.createElement('iframe');",
      `frame.srcdoc = '<img id="framed" src="${FRAMED}">';`,
      'document.body.append(frame);',
      "await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));",
      "document.body.dataset.ok = 'yes';",
      '',
    ].join('\n'),
  });
}

describe('an open page and the assets it fetched by their plain address', function () {
  this.timeout(120_000);
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  async function opened(address: string) {
    const root = assetWorkspace();
    let service = await serve(root);
    const watched = await openPage(browser);
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body.dataset.ok === 'yes', undefined, { timeout: 30_000 });
    await eventsOpen(watched);
    return {
      root,
      watched,
      /** Stops the service, does `meanwhile`, starts it again on the same port: the page reconnects by itself. */
      async restart(meanwhile: () => void) {
        const { port } = service;
        const opened = watched.events.opened;
        await service.close();
        meanwhile();
        service = await serve(root, { port });
        await until(() => watched.events.opened > opened, 'the page to connect to the service started again', 30_000);
      },
      async close() {
        await watched.page.close();
        await service.close();
      },
    };
  }
  /** The colour the page's own `<img>` of the logo shows (a new Image would fetch the address again). */
  const logoColour = (watched: Watched) =>
    watched.page.evaluate(() => {
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 1;
      const context = canvas.getContext('2d')!;
      context.drawImage(document.querySelector('body > img')!, 5, 5, 1, 1, 0, 0, 1, 1);
      return [...context.getImageData(0, 0, 1, 1).data].join(',');
    });

  it('reloads once onto an asset saved while the service was away, after it reconnects', async () => {
    const { root, watched, restart, close } = await opened('/preview/');
    try {
      await restart(() => writeFile(root, 'packages/app/main/logo.svg', square('blue')));
      await until(() => watched.navigations() === 2, 'the reload onto the logo saved meanwhile', 30_000);
      await watched.page.waitForFunction(() => document.body.dataset.ok === 'yes', undefined, { timeout: 30_000 });
      expect(await logoColour(watched)).to.equal(BLUE);
      await eventsOpen(watched);
      expect(watched.navigations()).to.equal(2);
      expect(watched.errors).to.deep.equal([]);
    } finally {
      await close();
    }
  });

  it('with ?reload=false, names each asset saved while the service was away that it fetched, no other, and does not reload', async () => {
    const { root, watched, restart, close } = await opened('/preview/?reload=false');
    try {
      await restart(() => {
        writeFile(root, 'packages/app/main/unused.svg', square('blue'));
        writeFile(root, 'packages/app/main/logo.svg', square('blue'));
        writeFile(root, 'packages/app/main/framed.svg', square('blue'));
      });
      await watched.page.waitForFunction((logo) => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes(logo), LOGO, { timeout: 30_000 });
      // One look names every asset saved meanwhile that the page or its frame fetched: the one
      // the page never fetched is not among them.
      expect(await overlayTextOf(watched))
        .to.include('Code changed')
        .and.include('reloading on code changes is off')
        .and.include(FRAMED)
        .and.not.include('unused.svg');
      expect(watched.navigations()).to.equal(1);
      expect(await logoColour(watched)).to.equal(RED);
    } finally {
      await close();
    }
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`on ${address}: reloads for an asset that only a frame of the page fetched, saved`, async () => {
      const { root, watched, close } = await opened(address);
      try {
        const framedColour = () => watched.page.frames()[1]!.evaluate(() => (document.getElementById('framed') as HTMLImageElement).decode().then(() => 'decoded'));
        expect(await framedColour()).to.equal('decoded');
        writeFile(root, 'packages/app/main/framed.svg', square('blue'));
        await until(() => watched.navigations() === 2, 'the reload for the asset the frame fetched', 30_000);
        expect(watched.errors).to.deep.equal([]);
      } finally {
        await close();
      }
    });
  }
});

describe('an open page whose import names a package another is renamed onto, while it runs', function () {
  this.timeout(120_000);
  const other = { name: '@p/other', version: '1.0.0', exports: { './util': './util/index.ts' } };
  const LIB_JSON = 'packages/lib/package.json';
  const HELD = 'This page runs the code it loaded before these problems: /m/@p/other@1.0.0/modules/util answers 422 now';
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;
  const heldText = () => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.held')?.textContent ?? null);

  before(async () => {
    root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/other': '1.0.0' } },
        files: { 'main/index.ts': "import { a } from '@p/other/util';\ndocument.body.dataset.ok = a;\n" },
      },
      'packages/lib': { manifest: { ...other, name: '@p/lib' }, files: { 'util/index.ts': "export const a = 'LIB';\n" } },
      'packages/lib-b': { manifest: other, files: { 'util/index.ts': "export const a = 'OTHER';\n" } },
      // A package the page does not load, broken at the end: problems the overlay shows again.
      'packages/junk': { manifest: { name: '@p/junk', version: '1.0.0', exports: { './x': './x/index.ts' } }, files: { 'x/index.ts': 'export const x = 1;\n' } },
    });
    service = await serve(root);
    browser = await launchChromium();
    watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body.dataset.ok === 'OTHER', undefined, { timeout: 20_000 });
    await eventsOpen(watched);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('says, above both manifests, that the code running is the one loaded before, and is not reloaded into the failure', async () => {
    writeFile(root, LIB_JSON, JSON.stringify(other));
    await watched.page.waitForFunction((held) => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.held')?.textContent?.startsWith(held), HELD, { timeout: 20_000 });
    expect(await overlayTextOf(watched)).to.include('Manifest invalid').and.include(LIB_JSON).and.include('packages/lib-b/package.json');
    expect(await heldText()).to.include('a page loaded now would not run it').and.include('not reloaded into that failure');
    expect(await shownOk(watched)).to.equal('OTHER');
    expect(watched.navigations()).to.equal(1);
  });

  it("drops that line, with the manifests, once the name is one package's again", async () => {
    writeFile(root, LIB_JSON, JSON.stringify({ ...other, name: '@p/lib' }));
    await watched.page.waitForFunction(() => document.querySelector('core-overlay') === null || !document.querySelector('core-overlay')!.isConnected, undefined, { timeout: 20_000 });
    expect(await heldText()).to.equal(null);
    expect(await shownOk(watched)).to.equal('OTHER');
  });

  // The line is the page's own word, cleared once its code is served again, not only hidden with
  // the overlay: problems shown later (another package's manifest broken) come without it.
  it('says nothing of code loaded before when other problems are shown later', async () => {
    writeFile(root, 'packages/junk/package.json', '{ broken');
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('packages/junk/package.json'), undefined, { timeout: 20_000 });
    // Not the line of the contest ended two steps before, once the page's question is answered:
    // its module is served again.
    await watched.page
      .waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.held')?.textContent === '', undefined, { timeout: 20_000 })
      .catch(async () => {
        throw new Error(`the overlay still says: ${await heldText()}`);
      });
    expect(await shownOk(watched)).to.equal('OTHER');
    expect(watched.navigations()).to.equal(1);
  });
});

// A fresh page whose import's name is contested fails to load and runs nothing: it shows the
// problems only, never the line for a page running code loaded before them (README "Preview and
// stylesheet push"). The page's own fetch of that import is held until the runtime's question
// about it was answered, so the question is asked before the page knows it failed.
describe('a page loaded fresh while its import names a package two packages write', function () {
  this.timeout(120_000);
  const other = { name: '@p/other', version: '1.0.0', exports: { './util': './util/index.ts' } };
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    const root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/other': '1.0.0' } },
        files: { 'main/index.ts': "import { a } from '@p/other/util';\ndocument.body.dataset.ok = a;\n" },
      },
      'packages/lib': { manifest: other, files: { 'util/index.ts': "export const a = 'LIB';\n" } },
      'packages/lib-b': { manifest: other, files: { 'util/index.ts': "export const a = 'OTHER';\n" } },
    });
    service = await serve(root);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`on ${address}: shows the manifests and the failed load, and not that it runs code loaded before`, async () => {
      const watched = await openPage(browser);
      try {
        // The page's modules wait until the runtime fetched the page served now (its question begun,
        // the page not yet failed); then the test waits for its HEAD of the failing address.
        let pageAsked: () => void = () => {};
        const asked = new Promise<void>((resolve) => (pageAsked = resolve));
        let failingHeadAnswered = false;
        watched.page.on('requestfinished', (request) => {
          if (request.resourceType() === 'fetch' && request.method() === 'GET' && new URL(request.url()).pathname === address) pageAsked();
        });
        watched.page.on('response', (response) => {
          if (response.request().method() === 'HEAD' && response.status() >= 400) failingHeadAnswered = true;
        });
        await watched.page.route(
          (url) => url.pathname.startsWith('/m/') || url.pathname.startsWith('/b/'),
          async (route) => {
            if (route.request().resourceType() === 'script') await asked;
            await route.continue();
          },
        );
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'commit' });
        await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('Load failed'), undefined, { timeout: 30_000 });
        await until(() => failingHeadAnswered, "the runtime's question about the address that fails", 30_000);
        await watched.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
        expect(await overlayTextOf(watched)).to.include('Manifest invalid').and.include('packages/lib-b/package.json');
        expect(await watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.held')?.textContent ?? null)).to.equal('');
        expect(await shownOk(watched)).to.equal(null);
      } finally {
        await watched.page.close();
      }
    });
  }
});

// The service started again on the same port onto another workspace, whose page is broken: the
// open page's module answers 404 there. It keeps running, says why with the other page's problems,
// and that page fixed reloads it (README "Preview and stylesheet push").
describe('an open page whose service comes back on another workspace with a broken page', function () {
  this.timeout(120_000);
  const BROKEN = "document.body.dataset.ok = 'B';\nexport const x = ;\n";
  const HELD = 'This page runs the code it loaded before these problems: /m/@a/app@1.0.0/modules/main answers 404 now';
  let browser: Browser;

  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  it("keeps running, shows the other page's problem and that its module answers 404, then reloads into the fix", async () => {
    const first = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@a/app/main' }),
      'packages/app/package.json': json({ name: '@a/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': "document.body.dataset.ok = 'A';\n",
    });
    const second = tempWorkspace({
      'core.json': json({ packages: ['packages/other'], preview: '@b/other/main' }),
      'packages/other/package.json': json({ name: '@b/other', version: '2.0.0', exports: { './main': './main/index.ts' } }),
      'packages/other/main/index.ts': BROKEN,
    });
    let service = await serve(first);
    const watched = await openPage(browser);
    try {
      await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.ok === 'A', undefined, { timeout: 30_000 });
      await eventsOpen(watched);
      const { port } = service;
      const opened = watched.events.opened;
      await service.close();
      service = await serve(second, { port });
      await until(() => watched.events.opened > opened, 'the page to connect to the service started again', 30_000);
      await watched.page.waitForFunction((held) => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.held')?.textContent?.startsWith(held), HELD, { timeout: 30_000 });
      expect(await overlayTextOf(watched)).to.include('Build failed').and.include('packages/other/main/index.ts');
      expect(await shownOk(watched)).to.equal('A');
      expect(watched.navigations()).to.equal(1);
      writeFile(second, 'packages/other/main/index.ts', BROKEN.replace('= ;', '= 2;'));
      await until(() => watched.navigations() === 2, 'the reload into the page fixed', 30_000);
      await watched.page.waitForFunction(() => document.body.dataset.ok === 'B', undefined, { timeout: 30_000 });
    } finally {
      await watched.page.close();
      await service.close();
    }
  });
});
