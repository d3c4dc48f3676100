// A stylesheet's `image-set()` string naming a declared asset (README "Workspaces"), in Chromium:
// the image loads (its request answers 200 at the asset's address, `naturalWidth` 4) on /preview/,
// on /preview/bundled/ and from `core dist`'s page, and the production sheet holds its address.
// The string stayed as esbuild printed it: the browser asked the sheet's own address, a 404, while
// `/state` said valid. One naming an undeclared file is an error in `/state` and the overlay.
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
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>';
const shows = (name: string) => `import './s.css';\nconst x = document.createElement('div');\nx.className = 'x';\ndocument.body.append(x);\ndocument.body.dataset.ok = '${name}';\n`;

describe('image-set() strings of declared assets, in Chromium', function () {
  let browser: Browser;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'], preview: '@c/c/s1' }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts', './s2': './s2/index.ts' } }),
      'packages/c/s1/module.json': json({ assets: ['a.svg', 'b.svg'] }),
      'packages/c/s1/a.svg': SVG,
      'packages/c/s1/b.svg': SVG,
      'packages/c/s1/s.css': '.x { width: 4px; height: 4px; background-image: image-set("./a.svg" 1x, url(b.svg) 2x); }\n.y { background-image: -webkit-image-set("a.svg" 1x); }\n',
      'packages/c/s1/index.ts': shows('s1'),
      'packages/c/s2/secret.svg': SVG,
      'packages/c/s2/s.css': '.x { width: 4px; height: 4px; background-image: image-set("secret.svg" 1x); }\n',
      'packages/c/s2/index.ts': shows('s2'),
    });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  // What the page asked for the image, the answer, and the image the element's computed style names, loaded.
  async function shown(url: string): Promise<{ image: string; width: number; failed: string[]; errors: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.ok === 's1', undefined, { timeout: 15_000 });
      const image = await watched.page.waitForFunction(
        () => {
          const entry = performance.getEntriesByType('resource').find((e) => e.name.includes('a.svg')) as (PerformanceResourceTiming & { responseStatus?: number }) | undefined;
          return entry && `${new URL(entry.name).pathname.replace(/^.*\/assets\//, 'assets/')} ${entry.responseStatus}`;
        },
        undefined,
        { timeout: 15_000 },
      );
      const width = await watched.page.evaluate(async () => {
        const style = getComputedStyle(document.querySelector('.x')!).backgroundImage;
        const url = /url\("([^"]+)"\)/.exec(style)?.[1];
        if (!url) return -1;
        const img = new Image();
        img.src = url;
        await img.decode().catch(() => undefined);
        return img.naturalWidth;
      });
      return { image: String(await image.jsonValue()), width, failed: watched.failed, errors: watched.errors };
    } finally {
      await watched.page.close();
    }
  }

  const expected = { image: 'assets/s1/a.svg 200', width: 4, failed: [], errors: [] };

  it('is valid, and the page gets the image on /preview/ and /preview/bundled/; the production sheet names it too', async function () {
    const service = await serve(root);
    try {
      const statuses = Object.fromEntries((await service.report()).modules.map((m) => [m.specifier, m.status]));
      expect(statuses['@c/c/s1']).to.equal('valid');
      expect(await shown(new URL('/preview/', service.url).href)).to.deep.equal(expected);
      expect(await shown(new URL('/preview/bundled/', service.url).href)).to.deep.equal(expected);
      const production = await service.get('/m/@c/c@1.0.0/styles/s1?env=production');
      expect(production.status).to.equal(200);
      expect(production.body.toString()).to.include('image-set(url(../assets/s1/a.svg) 1x,url(../assets/s1/b.svg) 2x)').and.to.include('-webkit-image-set(url(../assets/s1/a.svg) 1x)');
    } finally {
      await service.close();
    }
  });

  it('says an image-set() string naming an undeclared file is an error, in /state and in the overlay', async function () {
    const service = await serve(root);
    const watched = await openPage(browser);
    try {
      const state = JSON.parse((await service.get('/state')).body.toString()) as { modules: { specifier: string; status: string; diagnostics?: { code: string; file?: string; line?: number; message: string }[] }[] };
      const s2 = state.modules.find((m) => m.specifier === '@c/c/s2')!;
      expect(s2.status).to.equal('invalid');
      await watched.page.goto(new URL('/preview/?entry=@c/c/s2', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('secret.svg'), undefined, { timeout: 15_000 });
      const overlay = await watched.page.evaluate(() => document.querySelector('core-overlay')!.shadowRoot!.textContent!);
      expect(overlay).to.include('"secret.svg" in image-set() is not a declared asset');
    } finally {
      await watched.page.close();
      await service.close();
    }
  });

  it("does the same from core dist's page, served by a plain static server", async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid.map((line) => line.module.specifier)).to.deep.equal(['@c/c/s2']);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shown(`http://127.0.0.1:${port}/`)).to.deep.equal(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
