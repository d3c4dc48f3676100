// The sheet of an installed version the import map loads only in a scope (README "The local
// CDN"): npm nested theme 2.0.0 in other's node_modules, beside the workspace's theme 1.0.0, and
// each version's code imports a sheet of its own; a workspace package with its own theme 3.0.0 in
// its node_modules loads that. The page runs every version, so it links every version's sheet,
// on /preview/ and /preview/bundled/, in Chromium.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value);
const theme = (version: string, cls: string, colour: string) => ({
  [`package.json`]: json({ name: 'theme', version, type: 'module', exports: './index.js' }),
  'index.js': `import './theme.css';\nexport const cls = '${cls}';\n`,
  'theme.css': `.${cls} { color: ${colour}; }\n`,
});
const under = (dir: string, files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([file, text]) => [`${dir}/${file}`, text]));

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', dependencies: { theme: '1.0.0', other: '1.0.0', '@demo/lib': '1.0.0' }, exports: { './main': './main.ts' } },
        files: {
          'main.ts': [
            "import { cls as one } from 'theme';",
            "import { cls as two } from 'other';",
            "import { cls as three } from '@demo/lib/mark';",
            "document.body.insertAdjacentHTML('beforeend', `<i id=\"one\" class=\"${one}\">1</i><i id=\"two\" class=\"${two}\">2</i><i id=\"three\" class=\"${three}\">3</i>`);",
            "document.body.dataset.shown = 'yes';",
            '',
          ].join('\n'),
        },
      },
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', dependencies: { theme: '3.0.0' }, exports: { './mark': './mark.ts' } },
        files: { 'mark.ts': "export { cls } from 'theme';\n", ...under('node_modules/theme', theme('3.0.0', 't3', 'rgb(0, 0, 3)')) },
      },
    },
    {
      'core.json': json({ packages: ['packages/app', 'packages/lib'], preview: '@demo/app/main' }),
      ...under('node_modules/theme', theme('1.0.0', 't1', 'rgb(0, 0, 1)')),
      'node_modules/other/package.json': json({ name: 'other', version: '1.0.0', type: 'module', exports: './index.js', dependencies: { theme: '2.0.0' } }),
      'node_modules/other/index.js': "export { cls } from 'theme';\n",
      ...under('node_modules/other/node_modules/theme', theme('2.0.0', 't2', 'rgb(0, 0, 2)')),
    },
  );
}

describe('the sheets of installed versions loaded in a scope, in Chromium', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(workspace(), { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`styles each version's elements with its own sheet on ${address}`, async function () {
      const watched = await openPage(browser);
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.dataset.shown === 'yes');
        const colours = await watched.page.evaluate(() => ['one', 'two', 'three'].map((id) => getComputedStyle(document.getElementById(id)!).color));
        expect({ colours, errors: watched.errors, failed: watched.failed }).to.deep.equal({ colours: ['rgb(0, 0, 1)', 'rgb(0, 0, 2)', 'rgb(0, 0, 3)'], errors: [], failed: [] });
      } finally {
        await watched.page.close();
      }
    });
  }
});
