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

// Installed packages whose code imports other installed packages' sheets (README "Preview and
// stylesheet push"): `uikit` imports `tokens` before its own sheet, `icons` (no sheet of its own)
// imports `glyphs`; the app imports both, then its own sheet; `admin`, a module of the app's
// package the entry never imports, has a sheet too. The order every bundler gives: tokens, uikit,
// glyphs, app, and admin's after all of them.
function installedWorkspace(): string {
  const json = (value: unknown) => JSON.stringify(value);
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', dependencies: { uikit: '1.0.0', icons: '1.0.0' }, exports: { './main': './main.ts', './admin': './admin.ts' } },
        files: {
          'main.ts': `import { cls } from 'uikit';\nimport 'icons';\nimport './app.css';\n${SHOW}`,
          'app.css': '.btn { color: rgb(0, 128, 0); }\n',
          'admin.ts': "import './admin.css';\nexport const admin = true;\n",
          'admin.css': '.btn { outline-color: rgb(1, 2, 3); }\n',
        },
      },
    },
    {
      'core.json': json({ packages: ['packages/app'], preview: '@demo/app/main' }),
      'node_modules/uikit/package.json': json({ name: 'uikit', version: '1.0.0', type: 'module', exports: './index.js', dependencies: { tokens: '1.0.0' } }),
      'node_modules/uikit/index.js': "import 'tokens';\nimport './uikit.css';\nexport const cls = 'btn';\n",
      'node_modules/uikit/uikit.css': '.btn { background-color: rgb(0, 0, 255); }\n',
      'node_modules/tokens/package.json': json({ name: 'tokens', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/tokens/index.js': "import './tokens.css';\n",
      'node_modules/tokens/tokens.css': '.btn { color: rgb(255, 0, 0); background-color: rgb(255, 0, 0); }\n',
      'node_modules/icons/package.json': json({ name: 'icons', version: '1.0.0', type: 'module', exports: './index.js', dependencies: { glyphs: '1.0.0' } }),
      'node_modules/icons/index.js': "import 'glyphs';\nexport const icons = true;\n",
      'node_modules/glyphs/package.json': json({ name: 'glyphs', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/glyphs/index.js': "import './glyphs.css';\n",
      'node_modules/glyphs/glyphs.css': '.btn { color: rgb(255, 0, 0); outline-color: rgb(255, 0, 0); }\n',
    },
  );
}

describe('the cascade of installed packages and of modules the entry never imports, in Chromium', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(installedWorkspace(), { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('links an installed sheet after those of the packages its code imports, and the unimported module last (/preview/)', async function () {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.shown === 'yes');
      const looks = await watched.page.evaluate(() => {
        const style = getComputedStyle(document.querySelector('#b')!);
        return { color: style.color, background: style.backgroundColor, outline: style.outlineColor };
      });
      // uikit's background over tokens', the app's colour over both installed sheets, admin's outline over glyphs'.
      expect({ looks, errors: watched.errors, failed: watched.failed }).to.deep.equal({ looks: { color: 'rgb(0, 128, 0)', background: 'rgb(0, 0, 255)', outline: 'rgb(1, 2, 3)' }, errors: [], failed: [] });
    } finally {
      await watched.page.close();
    }
  });
});
