// The overlay's title says what failed (README "Preview and stylesheet push"): a broken manifest
// is no build, a page that could not load its modules is told so, and a service that does not
// answer is neither. CORE_TEST_SHOTS=<dir> keeps a screenshot of each, to look at.
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, openPreview, until, type Watched } from '../helpers/chromium.js';
import { readText } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const CART_FILE = 'packages/shop/storefront/cart.ts';
const UI_MANIFEST = 'packages/ui/package.json';

describe("the preview overlay's title", () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  const title = () => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.title')?.textContent ?? null);
  const titleBecomes = (wanted: string) =>
    watched.page.waitForFunction((t) => document.querySelector('core-overlay')?.shadowRoot?.querySelector('.title')?.textContent === t, wanted, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the overlay's title never became ${wanted}; it is ${await title().catch(() => '?')}`);
    });
  const overlayGone = () => watched.page.waitForFunction(() => document.querySelector('core-overlay') === null, null, { timeout: 20_000 });
  const shot = async (name: string) => {
    if (process.env.CORE_TEST_SHOTS) await watched.page.screenshot({ path: path.join(process.env.CORE_TEST_SHOTS, `overlay-${name}.png`) });
  };

  before(async () => {
    root = exampleWorkspace();
    service = await serve(root);
    ({ browser, watched } = await openPreview(service.url));
    await watched.page.waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent?.startsWith('Total €73.00'), null, { timeout: 20_000 });
    await eventsOpen(watched);
    await service.report();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('says "Manifest invalid" for a broken package.json, not "Build failed"', async () => {
    const good = readText(root, UI_MANIFEST);
    writeFile(root, UI_MANIFEST, good.slice(0, good.length / 2));
    await titleBecomes('Manifest invalid');
    await shot('manifest');
    writeFile(root, UI_MANIFEST, good);
    await overlayGone();
  });

  it('says "Build failed" for a module that does not build, and "Load failed" too once the page loaded without it', async () => {
    const good = readText(root, CART_FILE);
    writeFile(root, CART_FILE, 'export const broken: number = ;\n');
    await titleBecomes('Build failed');
    await shot('build');
    await watched.page.reload({ waitUntil: 'load' });
    await titleBecomes('Build failed · Load failed');
    await shot('build-load');
    await eventsOpen(watched);
    writeFile(root, CART_FILE, good);
    await watched.page.waitForFunction(() => document.querySelector('demo-storefront .total')?.textContent?.startsWith('Total €73.00'), null, { timeout: 20_000 });
    await overlayGone();
  });

  it('says "Service unreachable" while the service does not answer, and drops it once it is back', async () => {
    await eventsOpen(watched);
    const { port, url } = service;
    await service.close();
    await titleBecomes('Service unreachable');
    await shot('unreachable');
    const opened = watched.events.opened;
    service = await serve(root, { port });
    expect(service.url).to.equal(url);
    await until(() => watched.events.opened > opened, 'the page to connect to the new service', 20_000);
    await overlayGone();
  });
});
