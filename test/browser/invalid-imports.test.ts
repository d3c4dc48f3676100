// A valid module that imports an invalid one (README "Addresses"): its own build is fine, and
// the page that loads it fails all the same. `/state` says which invalid modules it reaches, so
// that "valid" without `invalidImports` means the module runs in Chromium, on /preview/ and on
// /preview/bundled/.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

interface ModuleLine {
  specifier: string;
  status: string;
  invalidImports?: string[];
}

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './good': './good.ts', './broken': './broken.ts', './middle': './middle.ts' } },
        files: {
          'good.ts': "export const good = 'good';\n",
          'broken.ts': "import { missing } from './missing.js';\nexport const broken = missing;\n",
          'middle.ts': "export { broken } from '@demo/lib/broken';\n",
        },
      },
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts', './plain': './plain.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
        files: {
          'main.ts': "import { good } from '@demo/lib/good';\nimport { broken } from '@demo/lib/middle';\ndocument.body.dataset.shown = good + broken;\n",
          'plain.ts': "import { good } from '@demo/lib/good';\ndocument.body.dataset.shown = good;\n",
        },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }) },
  );
}

describe('a valid module importing an invalid one, in /state and in Chromium', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    browser = await launchChromium();
    root = workspace();
    service = await serve(root);
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('lists, beside "valid", the invalid modules each reaches, through valid ones too', async function () {
    const { modules } = JSON.parse((await service.get('/state')).body.toString()) as { modules: ModuleLine[] };
    const lines = Object.fromEntries(modules.map(({ specifier, status, invalidImports }) => [specifier, invalidImports ? `${status}, imports invalid ${invalidImports.join(' ')}` : status]));
    expect(lines).to.deep.equal({
      '@demo/lib/good': 'valid',
      '@demo/lib/broken': 'invalid',
      '@demo/lib/middle': 'valid, imports invalid @demo/lib/broken',
      '@demo/app/main': 'valid, imports invalid @demo/lib/broken',
      '@demo/app/plain': 'valid',
    });
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`runs on ${address} each module /state calls valid without invalid imports, and fails with those it lists`, async function () {
      const { modules } = JSON.parse((await service.get('/state')).body.toString()) as { modules: ModuleLine[] };
      const seen: Record<string, string> = {};
      for (const module of modules.filter((line) => line.status === 'valid' && line.specifier.startsWith('@demo/app/'))) {
        const watched = await openPage(browser);
        try {
          await watched.page.goto(new URL(`${address}?entry=${encodeURIComponent(module.specifier)}`, service.url).href, { waitUntil: 'load' });
          await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined || document.querySelector('core-overlay') !== null, undefined, { timeout: 15_000 });
          const ran = await watched.page.evaluate(() => document.body.dataset.shown !== undefined);
          seen[module.specifier] = ran && watched.errors.length === 0 && watched.failed.length === 0 ? 'runs' : 'fails';
        } finally {
          await watched.page.close();
        }
        expect(seen[module.specifier], module.specifier).to.equal(module.invalidImports ? 'fails' : 'runs');
      }
      expect(seen).to.deep.equal({ '@demo/app/main': 'fails', '@demo/app/plain': 'runs' });
    });
  }

  it("shows them in the dashboard's detail of the module, each a link to that module", async function () {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(service.url, { waitUntil: 'load' });
      await watched.page.click('.live .rows [data-module="@demo/app/main"]');
      await watched.page.waitForSelector('.live .detail .invalid-imports');
      expect(await watched.page.$$eval('.live .detail .invalid-imports li', (items) => items.map((item) => item.textContent))).to.deep.equal(['@demo/lib/broken']);
      await watched.page.click('.live .detail .invalid-imports li button');
      await watched.page.waitForFunction(() => document.querySelector('.live .detail h2')?.textContent === '@demo/lib/broken');
      expect(watched.errors).to.deep.equal([]);
    } finally {
      await watched.page.close();
    }
  });

  it('lists none once the invalid module comes from the CDN, its package out of development (the last test: it changes the selection)', async function () {
    writeFile(root, '.core/selection.json', JSON.stringify({ packages: ['@demo/app'] }));
    const { modules } = JSON.parse((await service.get('/state')).body.toString()) as { modules: ModuleLine[] };
    expect(modules.filter((line) => line.invalidImports)).to.deep.equal([]);
    expect(modules.find((line) => line.specifier === '@demo/lib/broken')?.status).to.equal('invalid');
  });
});

describe('invalidImports through a package out of development', function () {
  it('stops at a module the CDN serves: what it imports is its published code, not this workspace', async function () {
    const root = inlineWorkspace(
      {
        'packages/base': {
          manifest: { name: '@demo/base', version: '1.0.0', type: 'module', exports: { './broken': './broken.ts' } },
          files: { 'broken.ts': "import { missing } from './missing.js';\nexport const broken = missing;\n" },
        },
        'packages/lib': {
          manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './middle': './middle.ts' }, dependencies: { '@demo/base': '1.0.0' } },
          files: { 'middle.ts': "export { broken } from '@demo/base/broken';\n" },
        },
        'packages/app': {
          manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
          files: { 'main.ts': "import { broken } from '@demo/lib/middle';\ndocument.body.dataset.shown = String(broken);\n" },
        },
      },
      {
        'core.json': JSON.stringify({ packages: ['packages/base', 'packages/lib', 'packages/app'] }),
        '.core/selection.json': JSON.stringify({ packages: ['@demo/base', '@demo/app'] }),
      },
    );
    const service = await serve(root);
    try {
      const { modules } = JSON.parse((await service.get('/state')).body.toString()) as { modules: ModuleLine[] };
      const line = (specifier: string) => modules.find((module) => module.specifier === specifier);
      expect(line('@demo/base/broken')?.status).to.equal('invalid');
      // The middle module reaches it in this workspace, but a page loads it from the CDN.
      expect(line('@demo/lib/middle')?.invalidImports).to.deep.equal(['@demo/base/broken']);
      expect(line('@demo/app/main')?.status).to.equal('valid');
      expect(line('@demo/app/main')?.invalidImports).to.equal(undefined);
    } finally {
      await service.close();
    }
  });
});
