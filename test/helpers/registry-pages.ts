// The checks the boundary tests share (test/browser/boundary-*.test.ts): a workspace whose
// importers each push their name into a registry module that defines a custom element (a second
// copy throws), and every page of the service shows the registries' one copy holding them all.
import path from 'node:path';
import type http from 'node:http';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { openPage } from './chromium.js';
import { serve } from './service.js';
import { staticServer } from './static-server.js';

/** What the page's one copy of each registry holds (`document.body.dataset.shown`), once it ran without an error. */
async function shownAt(browser: Browser, url: string, waitMs: number): Promise<string | undefined> {
  const watched = await openPage(browser);
  try {
    await watched.page.goto(url, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined, undefined, { timeout: waitMs }).catch(() => {
      throw new Error(`${url} did not run: ${[...watched.errors, ...watched.failed].join(' | ') || 'no error seen'}`);
    });
    expect({ errors: watched.errors, failed: watched.failed }, url).to.deep.equal({ errors: [], failed: [] });
    return await watched.page.evaluate(() => document.body.dataset.shown);
  } finally {
    await watched.page.close();
  }
}

/** The two tests: one copy of each registry on /preview/ and /preview/bundled/, and on core dist's page. */
export function itSharesOneCopyOnEveryPage(browser: () => Browser, workspace: () => string, expected: string, waitMs: number): void {
  it('share one copy of each registry on /preview/ and /preview/bundled/', async function () {
    const service = await serve(workspace());
    try {
      expect(await shownAt(browser(), new URL('/preview/', service.url).href, waitMs), '/preview/').to.equal(expected);
      expect(await shownAt(browser(), new URL('/preview/bundled/', service.url).href, waitMs), '/preview/bundled/').to.equal(expected);
    } finally {
      await service.close();
    }
  });

  it("share one copy of each registry on core dist's page", async function () {
    const root = workspace();
    const out = path.join(root, 'dist');
    expect((await distribute({ root, out })).page.written).to.equal(true);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shownAt(browser(), `http://127.0.0.1:${port}/`, waitMs)).to.equal(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
}
