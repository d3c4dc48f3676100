// In Chromium, the verdict on a package left out of development (README "Addresses", "The local
// CDN"): /preview/ runs its production build through the local CDN, so a module of it that
// `/state` calls valid runs there (no overlay), and one whose code only production takes fails
// is reported invalid, as its page shows, and its importer is told (`invalidImports`). The three
// kinds of such code, and the address asked directly: test/integration/production-verdict.test.ts.
import { expect } from 'chai';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

const SHOW = (what: string) => `document.body.dataset.shown = JSON.stringify(${what});\n`;

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts', './broken': './broken.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
        files: {
          'main.ts': `import { ok } from '@demo/lib/ok';\n${SHOW('ok')}`,
          'broken.ts': `import { x } from '@demo/lib/x';\n${SHOW('x')}`,
        },
      },
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './ok': './ok.ts', './x': './x.ts' } },
        files: {
          'ok.ts': "export const ok = import.meta.env.PROD ? 'production' : 'development';\n",
          'x.ts': "declare const __ANALYTICS__: any;\nexport let x = 'x';\nif (import.meta.env.PROD) { x = __ANALYTICS__.id; }\n",
        },
      },
    },
    {
      'core.json': JSON.stringify({ packages: ['packages/app', 'packages/lib'], preview: '@demo/app/main' }),
      '.core/selection.json': JSON.stringify({ packages: ['@demo/app'] }),
    },
  );
}

describe("a left-out package's verdict in Chromium", function () {
  const browser = chromiumForSuite();

  it('runs on /preview/ the module /state calls valid, and the page of the one it calls invalid fails, which the dashboard shows', async function () {
    const service = await serve(workspace(), { cdnOrigin: 'local' });
    try {
      const { modules } = (await service.get('/state')).json<{ modules: { specifier: string; status: string; invalidImports?: string[] }[] }>();
      const statuses = Object.fromEntries(modules.map(({ specifier, status }) => [specifier, status]));
      expect([statuses['@demo/lib/ok'], statuses['@demo/lib/x']]).to.deep.equal(['valid', 'invalid']);
      // The importer whose page fails below is told of the import it fails on; the other is not.
      const invalidImports = Object.fromEntries(modules.map(({ specifier, invalidImports: found }) => [specifier, found ?? []]));
      expect([invalidImports['@demo/app/main'], invalidImports['@demo/app/broken']]).to.deep.equal([[], ['@demo/lib/x']]);
      const outcome: Record<string, string> = {};
      for (const [entry, lib] of [['@demo/app/main', '@demo/lib/ok'], ['@demo/app/broken', '@demo/lib/x']] as const) {
        const watched = await openPage(browser());
        try {
          await watched.page.goto(new URL(`/preview/?entry=${encodeURIComponent(entry)}`, service.url).href, { waitUntil: 'load' });
          await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined || document.querySelector('core-overlay') !== null, undefined, { timeout: 30_000 });
          const shown = await watched.page.evaluate(() => document.body.dataset.shown ?? null);
          const overlay = await watched.page.evaluate(() => document.querySelector('core-overlay') !== null);
          outcome[lib] = shown !== null && !overlay && watched.errors.length === 0 && watched.failed.length === 0 ? `runs ${shown}` : 'fails';
          if (lib === '@demo/lib/x') expect(watched.failed.some((failure) => failure.startsWith('422 ') && failure.includes('/m/@demo/lib@1.0.0/modules/x?env=production')), watched.failed.join('\n')).to.equal(true);
        } finally {
          await watched.page.close();
        }
      }
      // The page ran the production build, which /state judged.
      expect(outcome).to.deep.equal({ '@demo/lib/ok': 'runs "production"', '@demo/lib/x': 'fails' });
      // The dashboard's detail of the module names the build that failed.
      const dashboard = await openPage(browser());
      try {
        await dashboard.page.goto(service.url, { waitUntil: 'load' });
        await dashboard.page.click('.live .rows [data-module="@demo/lib/x"]');
        await dashboard.page.waitForSelector('.live .detail .diagnostic .env', { timeout: 30_000 });
        expect(await dashboard.page.$$eval('.live .detail .diagnostic', (items) => items.map((item) => [item.querySelector('.kind')?.textContent, item.querySelector('.env')?.textContent ?? null]))).to.deep.include(['BUNDLE_ERROR', 'production build']);
        expect(dashboard.errors).to.deep.equal([]);
      } finally {
        await dashboard.page.close();
      }
    } finally {
      await service.close();
    }
  });
});
