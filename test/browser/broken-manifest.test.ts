// A manifest broken while the preview is open (README "Preview and stylesheet push"): the page
// shows it in the overlay, as a page loaded meanwhile would, keeps running, and drops it once
// the manifest is fixed, without a reload; a page that connects meanwhile hears it too.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, openPreview, until, type Watched } from '../helpers/chromium.js';
import { readText } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

describe('the preview page while a manifest is broken', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  const overlayText = () => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.textContent ?? null);
  const overlayShows = (text: string) =>
    watched.page.waitForFunction((t) => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes(t), text, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the overlay never showed ${text}; it shows ${await overlayText().catch(() => '?')}`);
    });
  const overlayGone = () =>
    watched.page.waitForFunction(() => document.querySelector('core-overlay') === null, null, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the overlay stayed: ${await overlayText().catch(() => '?')}`);
    });

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

  for (const manifest of ['packages/ui/package.json', 'core.json']) {
    it(`shows ${manifest} broken in the overlay and drops it once fixed, without a reload`, async () => {
      const navigations = watched.navigations();
      const good = readText(root, manifest);
      writeFile(root, manifest, good.slice(0, good.length / 2));
      await overlayShows('MANIFEST_INVALID');
      expect(await overlayText()).to.include(manifest);
      expect(await watched.page.locator('demo-storefront .total').textContent(), 'the page keeps running').to.include('Total €73.00');

      writeFile(root, manifest, good);
      await overlayGone();
      expect(watched.navigations()).to.equal(navigations);
    });
  }

  it('tells a page that connects while a manifest is broken', async () => {
    const manifest = 'packages/ui/package.json';
    const good = readText(root, manifest);
    writeFile(root, manifest, good.slice(0, good.length / 2));
    await overlayShows('MANIFEST_INVALID');
    // The service restarts: the page reconnects, drops what it knew and hears what is broken now.
    const { port } = service;
    const heard = watched.messages.length;
    await service.close();
    service = await serve(root, { port });
    await until(() => watched.messages.slice(heard).some((message) => message.type === 'workspace'), 'the new service to tell the broken manifest', 20_000);
    await overlayShows('MANIFEST_INVALID');
    writeFile(root, manifest, good);
    await overlayGone();
  });
});
