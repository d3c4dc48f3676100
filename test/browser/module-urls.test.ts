// The address a BUNDLE_ERROR names for `new URL('./x', import.meta.url)` (README "Workspaces"):
// a declared asset's, `new URL('../assets/<subpath>/<file>', import.meta.url)`, runs in Chromium
// on /preview/, on /preview/bundled/ and from `core dist`'s own page (a worker answers, an image
// loads), where the URL written beside the source was a 404 while the module was valid.
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

describe('new URL(..., import.meta.url) of a declared asset, in Chromium', function () {
  let browser: Browser;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@u/app/main' }),
      'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/module.json': json({ assets: ['worker.js', 'logo.svg'] }),
      'packages/app/main/worker.js': "self.postMessage('worker');\n",
      'packages/app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/app/main/index.ts': [
        "const worker = new Worker(new URL('../assets/main/worker.js', import.meta.url));",
        'const said = await new Promise<string>((resolve) => {',
        '  worker.onmessage = (event) => resolve(String(event.data));',
        "  worker.onerror = () => resolve('worker failed');",
        '});',
        "const logo = await fetch(new URL('../assets/main/logo.svg', import.meta.url)).then((answer) => `logo ${answer.status}`);",
        "document.body.dataset.urls = `${said} ${logo}`;",
        '',
      ].join('\n'),
    });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  async function shown(url: string): Promise<{ text: string | undefined; errors: string[]; failed: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.urls !== undefined, undefined, { timeout: 15_000 });
      return { text: await watched.page.evaluate(() => document.body.dataset.urls), errors: watched.errors, failed: watched.failed };
    } finally {
      await watched.page.close();
    }
  }

  it('is valid, and runs on /preview/ and /preview/bundled/', async function () {
    const service = await serve(root);
    try {
      expect((await service.report()).modules.map((m) => [m.specifier, m.status])).to.deep.equal([['@u/app/main', 'valid']]);
      for (const address of ['/preview/', '/preview/bundled/']) {
        expect(await shown(new URL(address, service.url).href), address).to.deep.equal({ text: 'worker logo 200', errors: [], failed: [] });
      }
    } finally {
      await service.close();
    }
  });

  it("runs from core dist's page, served by a plain static server", async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid).to.deep.equal([]);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shown(`http://127.0.0.1:${port}/`)).to.deep.equal({ text: 'worker logo 200', errors: [], failed: [] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('runs with assets in folders: a worker, an image and a CSS module script, each answered with its type (not its path)', async function () {
    const folders = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@u/app/main' }),
      'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/module.json': json({ assets: ['workers/w.js', 'img/bg.svg', 'css/card.css'] }),
      'packages/app/main/workers/w.js': "self.postMessage('worker');\n",
      'packages/app/main/img/bg.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
      'packages/app/main/css/card.css': '.card { outline-color: rgb(7, 7, 7); }\n',
      'packages/app/main/index.ts': [
        "import card from './css/card.css' with { type: 'css' };",
        'document.adoptedStyleSheets = [...document.adoptedStyleSheets, card];',
        "const worker = new Worker(new URL('./workers/w.js', import.meta.url));",
        'const said = await new Promise<string>((resolve) => {',
        '  worker.onmessage = (event) => resolve(String(event.data));',
        "  worker.onerror = () => resolve('worker failed');",
        '});',
        'const image = new Image();',
        "image.src = new URL('./img/bg.svg', import.meta.url).href;",
        "const drawn = await image.decode().then(() => 'image', () => 'image failed');",
        "const sheet = card.cssRules.length === 1 ? 'sheet' : 'no sheet';",
        "document.body.dataset.urls = `${said} ${drawn} ${sheet}`;",
        '',
      ].join('\n'),
    });
    const service = await serve(folders);
    try {
      expect((await service.report()).modules.map((m) => [m.specifier, m.status])).to.deep.equal([['@u/app/main', 'valid']]);
      for (const address of ['/preview/', '/preview/bundled/']) {
        expect(await shown(new URL(address, service.url).href), address).to.deep.equal({ text: 'worker image sheet', errors: [], failed: [] });
      }
    } finally {
      await service.close();
    }
  });
});
