// A declared asset named by its address from the origin's root (`/m/<package>@<version>/assets/...`,
// README "Workspaces"), in a sheet's url() and in code, loads from `core dist`'s files served by a
// plain static server, which has no `/m/`: the dist writes the address relative to the file.
import { expect } from 'chai';
import type http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe("core dist of asset addresses from the origin's root, in Chromium", function () {
  let browser: Browser;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'], preview: '@c/c/s1' }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts' } }),
      'packages/c/s1/module.json': json({ assets: ['a.svg', 'data.json'] }),
      'packages/c/s1/a.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>',
      'packages/c/s1/data.json': '{"answer":42}',
      'packages/c/s1/s.css': '.x { width: 4px; height: 4px; background-image: url(/m/@c/c@1.0.0/assets/s1/a.svg); }\n',
      'packages/c/s1/index.ts': [
        "import './s.css';",
        "const x = document.createElement('div');",
        "x.className = 'x';",
        'document.body.append(x);',
        "const data = await (await fetch(new URL('/m/@c/c@1.0.0/assets/s1/data.json', import.meta.url))).json();",
        'document.body.dataset.ok = `s1:${data.answer}`;',
        '',
      ].join('\n'),
    });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  it('shows the background and reads the data file from the dist served by a static server', async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid).to.deep.equal([]);
    expect(fs.readFileSync(path.join(out, '@c/c@1.0.0/styles/s1.css'), 'utf8')).to.include('url(../assets/s1/a.svg)');
    const server: http.Server = await staticServer(out, null);
    const watched = await openPage(browser);
    try {
      const { port } = server.address() as { port: number };
      await watched.page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.ok !== undefined, undefined, { timeout: 15_000 });
      expect(await watched.page.evaluate(() => document.body.dataset.ok)).to.equal('s1:42');
      // The background image is asked for once the element is laid out: its answer, as the page saw it.
      const image = await watched.page.waitForFunction(
        () => {
          const entry = performance.getEntriesByType('resource').find((e) => e.name.includes('a.svg')) as (PerformanceResourceTiming & { responseStatus?: number }) | undefined;
          return entry && `${new URL(entry.name).pathname} ${entry.responseStatus}`;
        },
        undefined,
        { timeout: 15_000 },
      );
      expect(await image.jsonValue()).to.equal('/@c/c@1.0.0/assets/s1/a.svg 200');
      expect(await watched.page.evaluate(() => getComputedStyle(document.querySelector('.x')!).backgroundImage)).to.equal(`url("http://127.0.0.1:${port}/@c/c@1.0.0/assets/s1/a.svg")`);
      expect(watched.failed).to.deep.equal([]);
      expect(watched.errors).to.deep.equal([]);
    } finally {
      await watched.page.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("an @import from the origin's root kept as written, in Chromium (probe51b F18)", function () {
  let browser: Browser;
  before(async function () {
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  it("applies another module's sheet and the module's own declared sheet an @import names, on the preview and from core dist", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'], preview: '@c/c/s1' }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts', './s2': './s2/index.ts' } }),
      'packages/c/s1/module.json': json({ assets: ['extra.css'] }),
      'packages/c/s1/extra.css': '.own { color: rgb(0, 0, 3); }\n',
      'packages/c/s1/s.css': '@import url(/m/@c/c@1.0.0/styles/s2);\n@import "/m/@c/c@1.0.0/assets/s1/extra.css";\n.x { color: rgb(1, 0, 0); }\n',
      'packages/c/s1/index.ts': "import './s.css';\ndocument.body.insertAdjacentHTML('beforeend', '<p class=\"other\">o</p><p class=\"own\">w</p>');\ndocument.body.dataset.ok = 'yes';\n",
      'packages/c/s2/s.css': '.other { color: rgb(0, 2, 0); }\n',
      'packages/c/s2/index.ts': "import './s.css';\nexport const s2 = 1;\n",
    });
    const colours = async (url: string) => {
      const watched = await openPage(browser);
      try {
        await watched.page.goto(url, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.dataset.ok === 'yes' && getComputedStyle(document.querySelector('.own')!).color === 'rgb(0, 0, 3)', undefined, { timeout: 20_000 }).catch(() => undefined);
        const shown = await watched.page.evaluate(() => ['.other', '.own'].map((selector) => getComputedStyle(document.querySelector(selector)!).color));
        return { shown, failed: watched.failed, errors: watched.errors };
      } finally {
        await watched.page.close();
      }
    };
    const service = await serve(root);
    try {
      expect(await colours(new URL('/preview/', service.url).href)).to.deep.equal({ shown: ['rgb(0, 2, 0)', 'rgb(0, 0, 3)'], failed: [], errors: [] });
    } finally {
      await service.close();
    }
    // From core dist, the module's own sheet is named relative and loads from a static server.
    const out = path.join(root, 'dist');
    expect((await distribute({ root, out })).invalid).to.deep.equal([]);
    expect(fs.readFileSync(path.join(out, '@c/c@1.0.0/styles/s1.css'), 'utf8')).to.include('@import "../assets/s1/extra.css";');
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      const fromDist = await colours(`http://127.0.0.1:${port}/`);
      expect(fromDist.shown[1]).to.equal('rgb(0, 0, 3)');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// An address under /m/ that the router never answers, or answers only while other modules import a
// file (a shared file's, `modules/.shared/<path>`, README "Shared files"), is a BUNDLE_ERROR of the
// module naming it: Chromium's fetch of it answers 404 while `/state` said valid. The address of a
// shared file the module's own code imports answers whenever the module is valid: kept.
describe('a shared file named by its address under /m/, in Chromium', function () {
  let browser: Browser;
  before(async function () {
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  it("answers the importing module's page, and 404 where no module shares the file: that module is invalid, as is one naming a path the router never serves", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'], preview: '@c/c/s1' }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts', './s2': './s2/index.ts', './s3': './s3/index.ts', './s4': './s4/index.ts' } }),
      'packages/c/lib/y.ts': "export const y = 'y';\n",
      'packages/c/lib/x.ts': "export const x = 'x';\n",
      // y is shared by s1 and s2; x is imported by s2 alone, so it is bundled there and never shared.
      'packages/c/s1/index.ts': [
        "import { y } from '../lib/y';",
        "const answer = await fetch(new URL('/m/@c/c@1.0.0/modules/.shared/lib/y.ts', import.meta.url));",
        'document.body.dataset.ok = `${y}:${answer.status}`;',
        '',
      ].join('\n'),
      'packages/c/s2/index.ts': "import { y } from '../lib/y';\nimport { x } from '../lib/x';\nexport const s2 = y + x;\n",
      'packages/c/s3/index.ts': "export const unshared = new URL('/m/@c/c@1.0.0/modules/.shared/lib/x.ts', import.meta.url);\n",
      'packages/c/s4/index.ts': "export const nowhere = new URL('/m/@c/c@1.0.0/files/lib/x.ts', import.meta.url);\n",
    });
    const service = await serve(root);
    const watched = await openPage(browser);
    try {
      const { modules } = (await service.get('/state')).json<{ modules: { specifier: string; status: string; diagnostics: { kind: string; file: string; message: string }[] }[] }>();
      const verdicts = Object.fromEntries(modules.map((module) => [module.specifier, [module.status, ...module.diagnostics.map((d) => `${d.kind} ${d.file}`)]]));
      expect(verdicts).to.deep.equal({
        '@c/c/s1': ['valid'],
        '@c/c/s2': ['valid'],
        '@c/c/s3': ['invalid', 'BUNDLE_ERROR packages/c/s3/index.ts'],
        '@c/c/s4': ['invalid', 'BUNDLE_ERROR packages/c/s4/index.ts'],
      });
      await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.ok !== undefined, undefined, { timeout: 20_000 });
      expect(await watched.page.evaluate(() => document.body.dataset.ok)).to.equal('y:200');
      // What the browser gets at the addresses the invalid modules name.
      const statuses = await watched.page.evaluate(async (addresses) => Promise.all(addresses.map(async (address) => (await fetch(address)).status)), ['/m/@c/c@1.0.0/modules/.shared/lib/x.ts', '/m/@c/c@1.0.0/files/lib/x.ts']);
      expect(statuses).to.deep.equal([404, 404]);
      expect(watched.errors).to.deep.equal([]);
    } finally {
      await watched.page.close();
      await service.close();
    }
  });
});
