// A declared asset named by a stylesheet's `url()` with a fragment (README "Workspaces"), in
// Chromium: the mask keeps its `#element` (it was dropped), and the image beside it answers 200.
import { expect } from 'chai';
import type http from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('url() fragments of declared assets, in Chromium', function () {
  let browser: Browser;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'], preview: '@c/c/s1' }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts' } }),
      'packages/c/s1/module.json': json({ assets: ['a.svg', 'b.svg'] }),
      'packages/c/s1/a.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>',
      'packages/c/s1/b.svg': '<svg xmlns="http://www.w3.org/2000/svg"><mask id="frag"><rect width="4" height="4" fill="white"/></mask></svg>',
      'packages/c/s1/s.css': '.x { width: 4px; height: 4px; background-image: url("./a.svg"); mask: url("b.svg#frag"); }\n',
      'packages/c/s1/index.ts': "import './s.css';\nconst x = document.createElement('div');\nx.className = 'x';\ndocument.body.append(x);\ndocument.body.dataset.ok = 's1';\n",
    });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  async function shown(url: string): Promise<{ image: string; mask: string; failed: string[]; errors: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.ok === 's1', undefined, { timeout: 15_000 });
      // The background image is asked for once the element is laid out: its answer, as the page saw it.
      const image = await watched.page.waitForFunction(
        () => {
          const entry = performance.getEntriesByType('resource').find((e) => e.name.includes('a.svg')) as (PerformanceResourceTiming & { responseStatus?: number }) | undefined;
          return entry && `${new URL(entry.name).pathname.replace(/^.*\/assets\//, 'assets/')} ${entry.responseStatus}`;
        },
        undefined,
        { timeout: 15_000 },
      );
      const mask = await watched.page.evaluate(() => getComputedStyle(document.querySelector('.x')!).maskImage);
      return { image: String(await image.jsonValue()), mask: mask.replace(/^url\("[^"]*\/assets\//, 'url("assets/'), failed: watched.failed, errors: watched.errors };
    } finally {
      await watched.page.close();
    }
  }

  const expected = { image: 'assets/s1/a.svg 200', mask: 'url("assets/s1/b.svg#frag")', failed: [], errors: [] };

  it('is valid, and the page gets the image and keeps the fragment on /preview/', async function () {
    const service = await serve(root);
    try {
      expect((await service.report()).modules.map((m) => [m.specifier, m.status])).to.deep.equal([['@c/c/s1', 'valid']]);
      // In development the sheet names the asset with its version, before the fragment (README "Preview and stylesheet push").
      const page = await shown(new URL('/preview/', service.url).href);
      expect(page.mask).to.match(/^url\("assets\/s1\/b\.svg\?v=[\w-]{22}#frag"\)$/);
      expect({ ...page, mask: page.mask.replace(/\?v=[\w-]{22}#/, '#') }).to.deep.equal(expected);
    } finally {
      await service.close();
    }
  });

  it("does the same from core dist's page, served by a plain static server", async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid).to.deep.equal([]);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shown(`http://127.0.0.1:${port}/`)).to.deep.equal(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
