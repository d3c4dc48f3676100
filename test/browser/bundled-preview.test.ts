// The bundled preview in Chromium (README "The bundled preview"): the example workspace renders
// from one script and one sheet as it does on /preview/, a saved stylesheet swaps the one sheet
// in place, a broken one keeps the last good sheet and shows the overlay, and the fix applies.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { colourOf, eventsOpen, launchChromium, openPage, until, waitForColour, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const STYLES_FILE = 'packages/shop/storefront/storefront.css';
const BADGE_FILE = 'packages/ui/src/badge/badge.css';
const stylesheet = (colour: string) => `demo-storefront {\n  display: block;\n  color: ${colour};\n}\n`;

describe('the bundled preview in Chromium', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  let badgeSheet: string;

  before(async () => {
    root = exampleWorkspace();
    badgeSheet = fs.readFileSync(path.join(root, BADGE_FILE), 'utf8');
    service = await serve(root);
    browser = await launchChromium();
    watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/bundled/', service.url).href, { waitUntil: 'load' });
    await eventsOpen(watched);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const sheets = () => watched.page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[rel=stylesheet]')].map((link) => new URL(link.href).pathname));
  const unstyledMoments = () => watched.page.evaluate(() => (window as unknown as { unstyled: string[] }).unstyled);

  it('renders the page as /preview/ does, from one script and one sheet', async () => {
    await waitForColour(watched, 'demo-storefront', 'rgb(34, 40, 49)', 30_000);
    const text = await watched.page.locator('demo-storefront').innerText();
    expect(text).to.include('Your cart');
    // The asset the code names keeps resolving against the module's own address.
    await watched.page.waitForFunction(() => [...document.images].length > 0 && [...document.images].every((image) => image.complete && image.naturalWidth > 0), null, { timeout: 10_000 });
    const local = watched.requests.filter((url) => new URL(url).origin === new URL(service.url).origin).map((url) => new URL(url).pathname);
    expect(local.filter((path) => path.startsWith('/m/') && path.includes('/modules/')), 'no module is fetched on its own').to.deep.equal([]);
    expect(local).to.include.members(['/preview/bundled/code.js', '/preview/bundled/styles.css']);
    expect(await sheets()).to.deep.equal(['/preview/bundled/styles.css']);
    expect(watched.errors).to.deep.equal([]);
    expect(watched.failed).to.deep.equal([]);
    // From now on, at every change of the document and every frame, the storefront stays styled.
    await watched.page.evaluate(() => {
      const unstyled: string[] = [];
      (window as unknown as { unstyled: string[] }).unstyled = unstyled;
      const check = (when: string) => {
        const colour = getComputedStyle(document.querySelector('demo-storefront')!).color;
        const loaded = [...document.querySelectorAll<HTMLLinkElement>('link[data-core-bundle]')].some((link) => link.sheet !== null);
        if (!loaded || colour === 'rgb(0, 0, 0)') unstyled.push(`${when}: colour ${colour}, sheet loaded ${loaded}`);
      };
      new MutationObserver(() => check('after a mutation')).observe(document, { childList: true, subtree: true, attributes: true });
      const frame = () => {
        check('at a frame');
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
  });

  it('swaps the joined sheet in place when a stylesheet is saved: same node, no navigation, never unstyled', async () => {
    const navigations = watched.navigations();
    await watched.page.locator('demo-storefront input').fill('typed before the edit');
    const before = await watched.page.evaluate(() => document.querySelector<HTMLLinkElement>('link[data-core-bundle]')!.href);
    writeFile(root, STYLES_FILE, stylesheet('rgb(0, 90, 200)'));
    await waitForColour(watched, 'demo-storefront', 'rgb(0, 90, 200)', 15_000);
    await watched.page.waitForFunction(() => document.querySelectorAll('link[data-core-bundle]').length === 1, null, { timeout: 10_000 });
    const after = await watched.page.evaluate(() => document.querySelector<HTMLLinkElement>('link[data-core-bundle]')!.href);
    expect(after).to.not.equal(before);
    expect(new URL(after).searchParams.get('v')).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(await watched.page.locator('demo-storefront input').inputValue()).to.equal('typed before the edit');
    expect(watched.navigations()).to.equal(navigations);
    expect(await unstyledMoments()).to.deep.equal([]);
  });

  it('keeps the last good sheet while a stylesheet does not build, then applies the fix', async () => {
    writeFile(root, STYLES_FILE, `@import "./missing-theme.css";\n${stylesheet('rgb(200, 0, 0)')}`);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('missing-theme.css'), null, { timeout: 15_000 });
    // Another module's sheet changes meanwhile: the page asks for the current joined sheet, which
    // has no storefront rules while they do not build, so it must keep the one it has.
    const messages = watched.messages.length;
    writeFile(root, BADGE_FILE, `${badgeSheet}\n.demo-badge { border: 1px solid rgb(1, 1, 1); }\n`);
    await until(() => watched.messages.slice(messages).some((message) => message.type === 'styles' && message.module.startsWith('@demo/ui@')), 'the badge stylesheet to be announced');
    await watched.page.waitForTimeout(500);
    expect(await colourOf(watched.page, 'demo-storefront')).to.equal('rgb(0, 90, 200)');
    expect(await watched.page.evaluate(() => document.querySelectorAll('link[data-core-bundle]').length)).to.equal(1);

    writeFile(root, STYLES_FILE, stylesheet('rgb(20, 140, 60)'));
    await waitForColour(watched, 'demo-storefront', 'rgb(20, 140, 60)', 15_000);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay') === null, null, { timeout: 10_000 });
    expect(await watched.page.evaluate(() => getComputedStyle(document.querySelector('.demo-badge')!).borderTopColor), 'the change made meanwhile is there too').to.equal('rgb(1, 1, 1)');
    expect(await unstyledMoments()).to.deep.equal([]);
  });
});
