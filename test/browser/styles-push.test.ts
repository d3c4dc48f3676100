// Stylesheet push on the open preview page (README "Preview and stylesheet push"):
// a saved stylesheet replaces the linked sheet in place, a broken one keeps the last good
// style and shows the overlay, and fixing it brings the new style back.
import { expect } from 'chai';
import type { Browser, Route } from 'playwright-core';
import { colourOf, eventsOpen, until, waitForColour, type Watched, openPreview } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const STOREFRONT = '@demo/shop@0.4.0/storefront';
const STYLES_FILE = 'packages/shop/storefront/storefront.css';
const stylesheet = (colour: string) => `demo-storefront {\n  display: block;\n  color: ${colour};\n}\n\ndemo-storefront .total {\n  font-weight: 600;\n}\n`;

/** What the page's watch saw: how often it looked, and every moment the storefront had no loaded sheet. */
interface StyleWatch {
  observations: number;
  unstyled: string[];
}

describe('stylesheet push on the preview page', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;
  let colour = 'rgb(34, 40, 49)'; // the last good colour, from fixtures/

  before(async () => {
    root = exampleWorkspace();
    service = await serve(root);
    ({ browser, watched } = await openPreview(service.url));
    await waitForColour(watched, 'demo-storefront', colour, 30_000);
    await eventsOpen(watched);
    // From now on, at every change of the document and at every frame, the storefront's
    // sheet must be loaded and its colour one the stylesheet gave it.
    await watched.page.evaluate((module) => {
      const watch = { observations: 0, unstyled: [] as string[] };
      (window as unknown as { styleWatch: StyleWatch }).styleWatch = watch;
      const check = (when: string) => {
        const links = [...document.querySelectorAll<HTMLLinkElement>('link[data-core-styles]')].filter((link) => link.dataset.coreStyles === module);
        const colour = getComputedStyle(document.querySelector('demo-storefront')!).color;
        watch.observations += 1;
        if (!links.some((link) => link.sheet !== null) || colour === 'rgb(0, 0, 0)') {
          watch.unstyled.push(`${when}: ${links.length} link(s), ${links.filter((link) => link.sheet !== null).length} loaded, colour ${colour}`);
        }
      };
      new MutationObserver(() => check('after a mutation')).observe(document, { childList: true, subtree: true, attributes: true });
      const frame = () => {
        check('at a frame');
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    }, STOREFRONT);
  });

  // Each test answers for its own moments.
  beforeEach(() => watched.page.evaluate(() => void ((window as unknown as { styleWatch: StyleWatch }).styleWatch.unstyled = [])));

  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const styleWatch = () => watched.page.evaluate(() => (window as unknown as { styleWatch: StyleWatch }).styleWatch);
  const linksOf = (module: string) =>
    watched.page.evaluate((m) => [...document.querySelectorAll<HTMLLinkElement>('link[data-core-styles]')].filter((link) => link.dataset.coreStyles === m).map((link) => link.href), module);
  const overlayText = () =>
    watched.page.evaluate(() => {
      const overlay = document.querySelector('core-overlay');
      return overlay === null ? null : (overlay.shadowRoot?.textContent ?? '(no open shadow root)');
    });

  it('applies a saved stylesheet in place: same node, input, window state, no navigation, never unstyled', async () => {
    const navigations = watched.navigations();
    await watched.page.evaluate(() => {
      (window as unknown as { kept: string }).kept = 'window state';
      (document.querySelector('demo-storefront') as unknown as { mark: string }).mark = 'the same node';
    });
    await watched.page.locator('demo-storefront input').fill('typed before the edit');

    colour = 'rgb(0, 90, 200)';
    writeFile(root, STYLES_FILE, stylesheet(colour));
    await waitForColour(watched, 'demo-storefront', colour, 10_000);
    await watched.page.waitForFunction((m) => document.querySelectorAll(`link[data-core-styles="${m}"]`).length === 1, STOREFRONT, { timeout: 10_000 });

    const page = await watched.page.evaluate(() => ({
      kept: (window as unknown as { kept?: string }).kept,
      mark: (document.querySelector('demo-storefront') as unknown as { mark?: string }).mark,
      storefronts: document.querySelectorAll('demo-storefront').length,
      note: document.querySelector<HTMLInputElement>('demo-storefront input')!.value,
    }));
    expect(page).to.deep.equal({ kept: 'window state', mark: 'the same node', storefronts: 1, note: 'typed before the edit' });
    expect(watched.navigations()).to.equal(navigations);
    const watch = await styleWatch();
    expect(watch.observations).to.be.above(0);
    expect(watch.unstyled).to.deep.equal([]);
    // The one link left is the new sheet, at the address the push named (with its token).
    const [href] = await linksOf(STOREFRONT);
    expect(new URL(href!).pathname).to.equal('/m/@demo/shop@0.4.0/styles/storefront');
    expect(new URL(href!).searchParams.get('v')).to.be.a('string').and.not.equal('');
    expect(await linksOf('@demo/ui@1.1.0/badge')).to.have.length(1); // other sheets are left alone
  });

  it('applies the last of two saves when the second is announced while the first sheet is still loading', async () => {
    // The new sheets' answers are held until both saves were announced and asked for.
    const held: Route[] = [];
    const newSheet = (url: URL) => url.pathname === '/m/@demo/shop@0.4.0/styles/storefront' && url.searchParams.has('v');
    const hold = (route: Route) => void held.push(route);
    await watched.page.route(newSheet, hold);
    try {
      writeFile(root, STYLES_FILE, stylesheet('rgb(150, 20, 20)'));
      await until(() => held.length === 1, 'the page to ask for the first new sheet');
      const pushes = () => watched.messages.filter((message) => message.type === 'styles' && message.module === STOREFRONT).length;
      const announced = pushes();
      writeFile(root, STYLES_FILE, stylesheet('rgb(20, 20, 150)'));
      await until(() => pushes() > announced, 'the styles message of the second save');
      await until(() => held.length === 2, 'the page to ask for the second new sheet while the first one is loading');
    } finally {
      await watched.page.unroute(newSheet, hold);
      // The first request may be gone already: the page dropped the sheet it superseded.
      for (const route of held) await route.continue().catch(() => {});
    }
    colour = 'rgb(20, 20, 150)';
    await waitForColour(watched, 'demo-storefront', colour, 10_000);
    await watched.page.waitForFunction((m) => document.querySelectorAll(`link[data-core-styles="${m}"]`).length === 1, STOREFRONT, { timeout: 10_000 });
    expect((await styleWatch()).unstyled).to.deep.equal([]);
  });

  it('keeps the last good style while the stylesheet does not build, and shows the diagnostic in the overlay', async () => {
    writeFile(root, STYLES_FILE, `@import "./missing-theme.css";\n${stylesheet('rgb(200, 0, 0)')}`);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('missing-theme.css'), null, { timeout: 15_000 });

    const module = (await service.report()).modules.find((m) => m.specifier === '@demo/shop/storefront')!;
    expect(module.status).to.equal('invalid');
    const [problem] = module.diagnostics;
    expect(problem).to.include({ kind: 'BUNDLE_ERROR', file: STYLES_FILE, line: 1 });
    const text = await overlayText();
    expect(text).to.include(`${problem!.file}:${problem!.line}`);
    expect(text).to.include(problem!.message);
    expect(text).to.include('BUNDLE_ERROR');

    expect(await colourOf(watched.page, 'demo-storefront')).to.equal(colour);
    expect(await linksOf(STOREFRONT)).to.have.length(1);
    expect((await styleWatch()).unstyled).to.deep.equal([]);
  });

  it('removes the overlay and applies the new style once the stylesheet builds again', async () => {
    const navigations = watched.navigations();
    colour = 'rgb(20, 140, 60)';
    writeFile(root, STYLES_FILE, stylesheet(colour));
    await waitForColour(watched, 'demo-storefront', colour, 10_000);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay') === null, null, { timeout: 10_000 });
    expect(watched.navigations()).to.equal(navigations);
    expect((await styleWatch()).unstyled).to.deep.equal([]);
  });
});
