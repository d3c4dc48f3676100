// Every way real packages publish (test/helpers/shapes-workspace.ts), run in Chromium: the
// preview entry imports one module of each shape, and the page shows what each exports, on
// /preview/, on /preview/bundled/ and from `core dist`'s own page served by a static server.
import { expect } from 'chai';
import type http from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { SHAPES_SHOWN, shapesWorkspace } from '../helpers/shapes-workspace.js';
import { staticServer } from '../helpers/static-server.js';

describe('every way real packages publish, in Chromium', function () {
  let browser: Browser;
  let root: string;

  before(async function () {
    root = shapesWorkspace();
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  async function shown(url: string): Promise<{ text: string | undefined; errors: string[]; failed: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.shapes !== undefined, undefined, { timeout: 15_000 });
      return { text: await watched.page.evaluate(() => document.body.dataset.shapes), errors: watched.errors, failed: watched.failed };
    } finally {
      await watched.page.close();
    }
  }

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`runs a module of each shape on ${address}`, async function () {
      const service = await serve(root);
      try {
        expect(await shown(new URL(address, service.url).href)).to.deep.equal({ text: SHAPES_SHOWN, errors: [], failed: [] });
      } finally {
        await service.close();
      }
    });
  }

  it("runs a module of each shape from core dist's page, served by a plain static server", async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid).to.deep.equal([]);
    expect(result.page).to.include({ written: true, entry: '@shape/app/main' });
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shown(`http://127.0.0.1:${port}/`)).to.deep.equal({ text: SHAPES_SHOWN, errors: [], failed: [] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
