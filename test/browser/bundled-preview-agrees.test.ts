// The bundled preview runs what /preview/ runs (README "The bundled preview"), in Chromium: an
// installed package importing a workspace module finds the one instance the page's code uses.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

const SHOW = `document.body.dataset.shown = `;

// An installed plugin whose peer is a workspace package (the host it registers with).
function pluginWorkspace(): string {
  return inlineWorkspace(
    {
      'packages/core': { manifest: { name: '@pw/core', version: '1.0.0', type: 'module', exports: { './registry': './registry.ts' } }, files: { 'registry.ts': 'export const registry: string[] = [];\n' } },
      'packages/app': {
        manifest: { name: '@pw/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@pw/core': '1.0.0', 'pw-plugin': '1.0.0' } },
        files: { 'main.ts': `import { registry } from '@pw/core/registry';\nimport 'pw-plugin';\n${SHOW}'registry=' + registry.join('+');\n` },
      },
    },
    {
      'core.json': JSON.stringify({ packages: ['packages/core', 'packages/app'], preview: '@pw/app/main' }),
      'node_modules/pw-plugin/package.json': JSON.stringify({ name: 'pw-plugin', version: '1.0.0', type: 'module', exports: './index.js', peerDependencies: { '@pw/core': '1.0.0' } }),
      'node_modules/pw-plugin/index.js': `import { registry } from '@pw/core/registry';\nregistry.push('plugin');\n`,
    },
  );
}

describe('the bundled preview runs what /preview/ runs, in Chromium', function () {
  let browser: Browser;

  before(async function () {
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  async function shown(url: string, look: () => string = () => document.body.dataset.shown!): Promise<{ shown: string; errors: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined || document.querySelector('core-overlay') !== null, undefined, { timeout: 30_000 }).catch(() => undefined);
      // The joined sheet is linked in the head: loaded with the document.
      return { shown: await watched.page.evaluate(look), errors: watched.errors };
    } finally {
      await watched.page.close();
    }
  }

  it("gives an installed package's import of a workspace module the one instance the page uses", async function () {
    const service = await serve(pluginWorkspace(), { cdnOrigin: 'local' });
    try {
      for (const address of ['/preview/', '/preview/bundled/']) {
        expect(await shown(new URL(address, service.url).href), address).to.deep.equal({ shown: 'registry=plugin', errors: [] });
      }
    } finally {
      await service.close();
    }
  });
});
