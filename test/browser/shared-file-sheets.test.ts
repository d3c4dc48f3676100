// A sheet a shared file imports (README "Shared files"): part of the sheet of each module importing
// the file, at the place esbuild's bundle gives it, the file's import: a module importing the
// shared file before its own sheet has the file's rules first, so its own rule of equal
// specificity wins, as in the bundle of its sources, on /preview/ and /preview/bundled/.
import { expect } from 'chai';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

// theme.ts is shared by card and panel (both import it); card imports it before its own sheet.
// esbuild's bundle of main.ts joins theme.css, then card.css: the card's green wins.
function workspace(): string {
  return inlineWorkspace(
    {
      'packages/lib': {
        manifest: { name: '@r/lib', version: '1.0.0', type: 'module', exports: { './card.js': './src/card.ts', './panel.js': './src/panel.ts' } },
        files: {
          'src/theme.ts': "import './theme.css';\nexport const tag = 'probe';\n",
          'src/theme.css': '.probe { color: rgb(255, 0, 0); }\n',
          'src/card.ts': "import { tag } from './theme.ts';\nimport './card.css';\nexport const card = tag;\n",
          'src/card.css': '.probe { color: rgb(0, 128, 0); }\n',
          'src/panel.ts': "import { tag } from './theme.ts';\nexport const panel = tag;\n",
        },
      },
      'packages/app': {
        manifest: { name: '@r/app', version: '1.0.0', type: 'module', exports: { './main.js': './main.ts' }, dependencies: { '@r/lib': '1.0.0' } },
        files: {
          'main.ts': "import { panel } from '@r/lib/panel.js';\nimport { card } from '@r/lib/card.js';\ndocument.body.insertAdjacentHTML('beforeend', `<p id=\"p\" class=\"${card}\">${panel}</p>`);\ndocument.body.dataset.shown = 'yes';\n",
        },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@r/app/main.js' }) },
  );
}

describe('a sheet a shared file imports, in Chromium', function () {
  const browser = chromiumForSuite();
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(workspace());
  });
  after(async function () {
    await service?.close();
  });

  it("comes before the importing module's own sheet where its code imports the file first, on both pages", async function () {
    for (const path of ['/preview/', '/preview/bundled/']) {
      const watched = await openPage(browser());
      try {
        await watched.page.goto(new URL(path, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.dataset.shown === 'yes', null, { timeout: 30_000 });
        const colour = await watched.page.$eval('#p', (element) => getComputedStyle(element).color);
        expect({ colour, problems: [...watched.errors, ...watched.failed] }, path).to.deep.equal({ colour: 'rgb(0, 128, 0)', problems: [] });
      } finally {
        await watched.page.close();
      }
    }
    // The module's own sheet holds the file's rules first: the same bytes on its own address.
    const sheet = (await service.get('/m/@r/lib@1.0.0/styles/card.js')).text;
    expect(sheet.indexOf('rgb(255, 0, 0)'), sheet).to.be.within(0, sheet.indexOf('rgb(0, 128, 0)'));
  });
});
