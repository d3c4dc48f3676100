// The cascade of the preview pages (README "Preview and stylesheet push"): what a module imports
// comes before its own sheet, as every bundler joins them, so the app's rule overrides the rule of
// equal specificity of the library module it imports first; on /preview/ and /preview/bundled/ alike.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

function workspace(main = APP_AFTER_LIBRARY): string {
  return inlineWorkspace(
    {
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './button': './button.ts' } },
        files: { 'button.ts': "import './button.css';\nexport const cls = 'btn';\n", 'button.css': '.btn { color: rgb(0, 0, 255); }\n' },
      },
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', dependencies: { '@demo/lib': '1.0.0' }, exports: { './main': './main.ts' } },
        files: {
          'main.ts': main,
          'app.css': '.btn { color: rgb(0, 128, 0); }\n',
        },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }) },
  );
}

const SHOW = "document.body.insertAdjacentHTML('beforeend', `<button id=\"b\" class=\"${cls}\">b</button>`);\ndocument.body.dataset.shown = 'yes';\n";
const APP_AFTER_LIBRARY = `import { cls } from '@demo/lib/button';\nimport './app.css';\n${SHOW}`;
// Its own sheet first: every bundler joins app.css before the library's sheet, whose rule wins.
const APP_BEFORE_LIBRARY = `import './app.css';\nimport { cls } from '@demo/lib/button';\n${SHOW}`;

async function buttonColour(browser: Browser, root: string, address: string, options: Parameters<typeof serve>[1] = {}): Promise<{ colour: string; errors: string[] }> {
  const service = await serve(root, options);
  const watched = await openPage(browser);
  try {
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body.dataset.shown === 'yes');
    return { colour: await watched.page.evaluate(() => getComputedStyle(document.querySelector('#b')!).color), errors: watched.errors };
  } finally {
    await watched.page.close();
    await service.close();
  }
}

describe('the stylesheet cascade in Chromium', function () {
  let browser: Browser;

  before(async function () {
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`shows the app's own rule over the library's it imports first (${address})`, async function () {
      expect(await buttonColour(browser, workspace(), address)).to.deep.equal({ colour: 'rgb(0, 128, 0)', errors: [] });
    });

    it(`shows the library's rule over the app's own sheet imported before the library (${address})`, async function () {
      expect(await buttonColour(browser, workspace(APP_BEFORE_LIBRARY), address)).to.deep.equal({ colour: 'rgb(0, 0, 255)', errors: [] });
    });
  }
});
