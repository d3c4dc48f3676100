// In Chromium, the sheet a script module of a workspace package left out of development imports
// (README "The local CDN", "Preview and stylesheet push"): with `--cdn local` the page is styled by
// it on /preview/ and /preview/bundled/. Both link it at its place in the cascade, before the
// sheet of the module importing it (the bundled page: before the part of its joined sheet holding
// that sheet), whose value shows where both set one property. The addresses and the warning of
// another CDN origin: test/integration/left-out-script-sheets.test.ts.
import { expect } from 'chai';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/tokens': '1.0.0' } },
        files: {
          'main.ts': "import '@demo/tokens/js';\nimport './main.css';\ndocument.body.insertAdjacentHTML('beforeend', '<p class=\"probe\">probe</p>');\n",
          'main.css': '.probe { color: rgb(0, 0, 9); }\n',
        },
      },
      'packages/tokens': {
        manifest: { name: '@demo/tokens', version: '1.0.0', type: 'module', exports: { './js': './js/index.ts' } },
        files: { 'js/index.ts': "import './js.css';\nexport const tokens = 1;\n", 'js/js.css': '.probe { color: rgb(1, 2, 3); background-color: rgb(4, 5, 6); }\n' },
      },
    },
    {
      'core.json': JSON.stringify({ packages: ['packages/app', 'packages/tokens'], preview: '@demo/app/main' }),
      '.core/selection.json': JSON.stringify({ packages: ['@demo/app'] }),
    },
  );
}

describe('the sheet of a left-out script module in Chromium', function () {
  const browser = chromiumForSuite();

  it('styles /preview/ and /preview/bundled/ from the local CDN, before the importer\'s sheet on both', async function () {
    const service = await serve(workspace(), { cdnOrigin: 'local' });
    try {
      // main's own color over the tokens' it imports, on both pages.
      const shown = { '/preview/': ['rgb(0, 0, 9)', 'rgb(4, 5, 6)'], '/preview/bundled/': ['rgb(0, 0, 9)', 'rgb(4, 5, 6)'] };
      for (const path of ['/preview/', '/preview/bundled/'] as const) {
        const watched = await openPage(browser());
        try {
          await watched.page.goto(new URL(path, service.url).href, { waitUntil: 'load' });
          await watched.page.waitForSelector('.probe', { timeout: 20_000 });
          const looks = await watched.page.$eval('.probe', (element) => [getComputedStyle(element).color, getComputedStyle(element).backgroundColor]);
          expect(looks, path).to.deep.equal(shown[path]);
          expect([...watched.errors, ...watched.failed], path).to.deep.equal([]);
        } finally {
          await watched.page.close();
        }
      }
    } finally {
      await service.close();
    }
  });
});
