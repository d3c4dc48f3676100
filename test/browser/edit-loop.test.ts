// The page's edit loop in Chromium, on both previews (README "Preview and stylesheet push"): a
// code edit reloads the page once and the new code runs; a page that failed to load reloads
// itself once the module builds again; a CSS syntax problem shows in the overlay and keeps the
// last good sheet; warnings come and go without a reload; a module of the entry's package the
// page never imports is neither preloaded nor reported.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { colourOf, eventsOpen, launchChromium, openPage, until, waitForColour, type Watched } from '../helpers/chromium.js';
import { readText } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const CART_FILE = 'packages/shop/storefront/cart.ts';
const STYLES_FILE = 'packages/shop/storefront/storefront.css';
const STOREFRONT = '@demo/shop@0.4.0/storefront';
const doubled = "export interface Line { name: string; cents: number; quantity: number }\nexport const totalCents = (lines: readonly Line[]): number => 2 * lines.reduce((sum, line) => sum + line.cents * line.quantity, 0);\n";
const stylesheet = (colour: string, close = '}') => `demo-storefront {\n  display: block;\n  color: ${colour};\n${close}\n`;

for (const address of ['/preview/', '/preview/bundled/']) {
  describe(`the edit loop of ${address}`, () => {
    let browser: Browser;
    let service: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let watched: Watched;

    const total = () => watched.page.evaluate(() => document.querySelector('demo-storefront .total')?.textContent ?? null);
    const overlayText = () => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.textContent ?? null);
    const pillText = () => watched.page.evaluate(() => document.querySelector('core-warnings')?.shadowRoot?.querySelector('summary')?.textContent ?? null);
    /**
     * Waits for the load event of the document shown: a reload renders its code and takes its
     * sheet before its `load`, which is what a test's `loads` counts.
     */
    const loaded = () => watched.page.waitForLoadState('load');
    const showsTotal = (text: string) =>
      watched.page.waitForFunction((t) => document.querySelector('demo-storefront .total')?.textContent?.startsWith(t), text, { timeout: 20_000 }).catch(async () => {
        throw new Error(`the page never showed ${text}; it shows ${await total().catch(() => '?')}; overlay: ${await overlayText().catch(() => '?')}; errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
      });

    before(async () => {
      // A module of the entry's package that the page never imports, and that does not build.
      root = exampleWorkspace({
        'packages/shop/unused/module.json': JSON.stringify({ platforms: ['web'], entry: 'index.ts' }),
        'packages/shop/unused/index.ts': 'export const broken: number = ;\n',
      });
      service = await serve(root);
      browser = await launchChromium();
      watched = await openPage(browser);
      await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      await showsTotal('Total €73.00');
      await eventsOpen(watched);
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    it('neither preloads nor reports a broken module of the package that the page does not import', async () => {
      expect((await service.report()).modules.find((module) => module.specifier === '@demo/shop/unused')?.status).to.equal('invalid');
      const preloads = await watched.page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[rel=modulepreload]')].map((link) => new URL(link.href).pathname));
      expect(preloads.filter((path) => path.includes('/unused'))).to.deep.equal([]);
      expect(watched.failed.filter((answer) => answer.startsWith('422'))).to.deep.equal([]);
      expect(await overlayText()).to.equal(null);
      expect(watched.errors).to.deep.equal([]);
    });

    it('reloads the page once on a code edit, and the new code runs', async () => {
      const navigations = watched.navigations();
      writeFile(root, CART_FILE, doubled);
      await showsTotal('Total €146.00');
      expect(watched.navigations()).to.equal(navigations + 1);
      await eventsOpen(watched);
    });

    it('reloads a page that failed to load by itself once the module builds again, not while it stays broken', async () => {
      writeFile(root, CART_FILE, 'export const broken: number = ;\n');
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('BUNDLE_ERROR'), null, { timeout: 20_000 });
      await watched.page.reload({ waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('LOAD_FAILED'), null, { timeout: 20_000 });
      await eventsOpen(watched);
      const navigations = watched.navigations();
      // Still broken, otherwise: the page waits.
      const messages = watched.messages.length;
      writeFile(root, CART_FILE, '\nexport const broken: number = ;\n');
      await until(() => watched.messages.slice(messages).some((message) => message.type === 'invalid' && message.module === STOREFRONT), 'the new diagnostics of the storefront', 20_000);
      // The fix restores the last good code: only `valid` is pushed, no `code`.
      writeFile(root, CART_FILE, doubled);
      await showsTotal('Total €146.00');
      expect(watched.navigations(), 'one reload, the runtime\'s').to.equal(navigations + 1);
      expect(watched.messages.slice(messages).filter((message) => message.module === STOREFRONT).map((message) => message.type)).to.not.include('code');
      expect(await overlayText()).to.equal(null);
      await eventsOpen(watched);
    });

    it('keeps the last good sheet for a CSS syntax problem and shows it in the overlay with its lines, then applies the fix without a reload', async () => {
      const navigations = watched.navigations();
      const colour = await colourOf(watched.page, 'demo-storefront');
      await watched.page.locator('demo-storefront input').fill('typed before the edit');
      writeFile(root, STYLES_FILE, stylesheet('rgb(200, 0, 0)', ''));
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('CSS_SYNTAX'), null, { timeout: 20_000 });
      const text = (await overlayText())!;
      expect(text).to.include(`${STYLES_FILE}:`);
      expect(text).to.include('Expected "}" to go with "{"');
      expect(text).to.include('1 | demo-storefront {');
      expect(await colourOf(watched.page, 'demo-storefront')).to.equal(colour);

      writeFile(root, STYLES_FILE, stylesheet('rgb(20, 140, 60)'));
      await waitForColour(watched, 'demo-storefront', 'rgb(20, 140, 60)', 20_000);
      await watched.page.waitForFunction(() => document.querySelector('core-overlay') === null, null, { timeout: 10_000 });
      expect(watched.navigations()).to.equal(navigations);
      expect(await watched.page.locator('demo-storefront input').inputValue()).to.equal('typed before the edit');
      const storefront = (await service.report()).modules.find((module) => module.specifier === '@demo/shop/storefront')!;
      expect(storefront.warnings).to.equal(undefined);
      expect(JSON.parse((await service.get('/preview/entry.json')).text).warnings).to.equal(undefined);
    });

    it('reloads the page once when a module it loads gains a stylesheet, which the page then has', async () => {
      let loads = 0;
      watched.page.on('load', () => void (loads += 1));
      writeFile(root, 'packages/ui/src/price/price.css', 'demo-storefront li { color: rgb(5, 6, 7); }\n');
      writeFile(root, 'packages/ui/src/price/index.ts', `import './price.css';\n${readText(root, 'packages/ui/src/price/index.ts')}`);
      await waitForColour(watched, 'demo-storefront li', 'rgb(5, 6, 7)', 20_000);
      await loaded();
      expect(loads).to.equal(1);
      await eventsOpen(watched);
    });

    it('with ?reload=false, shows a code edit and its warnings without a reload; the overlay\'s toggle turns reloading back on', async () => {
      await watched.page.goto(new URL(`${address}?reload=false`, service.url).href, { waitUntil: 'load' });
      await showsTotal('Total €146.00');
      await eventsOpen(watched);
      // Loads, not navigations: the toggle drops `reload` from the address, which Chromium counts as one.
      let loads = 0;
      watched.page.on('load', () => void (loads += 1));
      writeFile(root, CART_FILE, `${doubled}export const unset = (value: unknown): boolean => typeof value === 'undefine';\n`);
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('Code changed'), null, { timeout: 20_000 });
      await watched.page.waitForFunction(() => document.querySelector('core-warnings')?.shadowRoot?.textContent?.includes('undefine'), null, { timeout: 20_000 });
      expect(await pillText()).to.equal('▲ 1 warning');
      writeFile(root, CART_FILE, doubled);
      await watched.page.waitForFunction(() => document.querySelector('core-warnings') === null, null, { timeout: 20_000 });
      expect(loads).to.equal(0);

      await watched.page.evaluate(() => document.querySelector('core-overlay')!.shadowRoot!.querySelector<HTMLInputElement>('input.reload')!.click());
      await until(() => loads === 1, 'the reload the toggle asks for', 20_000);
      await showsTotal('Total €146.00');
      expect(new URL(watched.page.url()).searchParams.has('reload')).to.equal(false);
      expect(await watched.page.evaluate(() => localStorage.getItem('core-reload-on-code'))).to.equal('true');
      await eventsOpen(watched);
      writeFile(root, CART_FILE, readText(root, CART_FILE).replace('2 *', '3 *'));
      await showsTotal('Total €219.00');
      await loaded();
      expect(loads).to.equal(2);
    });
  });
}
