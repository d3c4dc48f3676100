// The preview page in Chromium (README "Preview and stylesheet push"): the entry mounts
// the page with its bundled helper and the modules of another package it imports by bare
// specifier, the linked stylesheets style it, and a code edit reloads it.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, waitForColour, type Watched, openPreview } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, tempWorkspace, writeFile } from '../helpers/workspace.js';

const STOREFRONT = '@demo/shop@0.4.0/storefront';
const BADGE = '@demo/ui@1.1.0/badge';

describe('the preview page', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  before(async () => {
    root = exampleWorkspace();
    service = await serve(root);
    ({ browser, watched } = await openPreview(service.url));
    await watched.page.waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent?.includes('€73.00'), null, { timeout: 30_000 }).catch(async () => {
      throw new Error(`the storefront did not render; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}; body: ${await watched.page.evaluate(() => document.body.outerHTML)}`);
    });
  });

  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('renders the entry with its bundled helper and the modules of @demo/ui imported by bare specifier', async () => {
    const shown = await watched.page.evaluate(() => ({
      items: [...document.querySelectorAll('demo-storefront li')].map((item) => item.textContent),
      total: document.querySelector('demo-storefront .total')?.textContent,
      badge: document.querySelector('demo-storefront .demo-badge')?.textContent,
    }));
    // formatPrice comes from @demo/ui/price, totalCents from the private helper cart.ts.
    expect(shown.items).to.deep.equal(['2 × Notebook: €25.00', '1 × Fountain pen: €48.00']);
    expect(shown.total).to.equal('Total €73.00 free shipping');
    expect(shown.badge).to.equal('free shipping'); // createBadge of @demo/ui/badge
    expect(watched.errors).to.deep.equal([]);
    expect(watched.failed.filter((answer) => !answer.endsWith('/favicon.ico'))).to.deep.equal([]);
  });

  it('loads the modules of @demo/ui from their own /m/ addresses, through the import map', async () => {
    const loaded = watched.requests.map((url) => new URL(url).pathname);
    expect(loaded).to.include('/m/@demo/shop@0.4.0/modules/storefront');
    expect(loaded).to.include('/m/@demo/ui@1.1.0/modules/price');
    expect(loaded).to.include('/m/@demo/ui@1.1.0/modules/badge');
  });

  it('styles the page from the linked stylesheet of each module', async () => {
    const links = await watched.page.evaluate(() =>
      [...document.querySelectorAll<HTMLLinkElement>('link[data-core-styles]')].map((link) => ({ module: link.dataset.coreStyles, loaded: link.sheet !== null })),
    );
    expect(links).to.have.deep.members([
      { module: STOREFRONT, loaded: true },
      { module: BADGE, loaded: true },
    ]);
    await waitForColour(watched, 'demo-storefront', 'rgb(34, 40, 49)');
    const styles = await watched.page.evaluate(() => ({
      weight: getComputedStyle(document.querySelector('demo-storefront .total')!).fontWeight,
      badge: getComputedStyle(document.querySelector('.demo-badge')!).backgroundColor,
    }));
    expect(styles).to.deep.equal({ weight: '600', badge: 'rgb(255, 244, 214)' });
  });

  it('shows the declared assets the code addresses', async () => {
    const images = await watched.page.evaluate(() =>
      [...document.querySelectorAll<HTMLImageElement>('demo-storefront img')].map((image) => ({ path: new URL(image.src).pathname, width: image.naturalWidth })),
    );
    expect(images).to.deep.equal([
      { path: '/m/@demo/shop@0.4.0/assets/storefront/cart.svg', width: 24 },
      { path: '/m/@demo/ui@1.1.0/assets/badge/star.svg', width: 16 },
    ]);
  });

  it('reloads once on a code edit, and runs the new code', async () => {
    await eventsOpen(watched);
    const navigations = watched.navigations();
    writeFile(root, 'packages/shop/storefront/cart.ts', "export interface Line { name: string; cents: number; quantity: number }\nexport const totalCents = (lines: readonly Line[]): number => 2 * lines.reduce((sum, line) => sum + line.cents * line.quantity, 0);\n");
    await watched.page.waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent === 'Total €146.00 free shipping', null, { timeout: 20_000 });
    expect(watched.messages.filter((pushed) => pushed.module === STOREFRONT)).to.deep.equal([{ type: 'code', module: STOREFRONT }]);
    expect(watched.navigations()).to.equal(navigations + 1);
  });
});

describe('a preview page that fails to load', () => {
  it('says in the overlay which address failed and why: an unreachable CDN, a module that throws', async () => {
    const root = tempWorkspace({
      'core.json': JSON.stringify({ packages: ['packages/app'] }),
      'packages/app/package.json': JSON.stringify({ name: '@kit/app', version: '1.0.0', exports: { './main': './main.ts', './boom': './boom.ts' }, dependencies: { lit: '3.1.0' } }),
      'packages/app/main.ts': "import { html } from 'lit';\nexport const page = html;\n",
      'packages/app/boom.ts': "throw new Error('the module threw at load');\n",
    });
    const service = await serve(root);
    const { browser, watched } = await openPreview(service.url);
    try {
      const overlayText = () => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.textContent ?? '');
      await watched.page.goto(new URL('/preview/?entry=@kit/app/main', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => /cdn\.test\/lit/.test(document.querySelector('core-overlay')?.shadowRoot?.textContent ?? ''), null, { timeout: 20_000 }).catch(() => {});
      const text = await overlayText();
      expect(text, `errors: ${[...watched.errors, ...watched.failed].join(' | ')}`).to.include('LOAD_FAILED');
      expect(text).to.include('https://cdn.test/lit@3.1.0');
      expect(text).to.include('could not be fetched');
      await watched.page.goto(new URL('/preview/?entry=@kit/app/boom', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => /the module threw at load/.test(document.querySelector('core-overlay')?.shadowRoot?.textContent ?? ''), null, { timeout: 20_000 });
      expect(await overlayText()).to.include('/m/@kit/app@1.0.0/modules/boom').and.not.include('/modules/boom?');
    } finally {
      await browser.close();
      await service.close();
    }
  });
});
