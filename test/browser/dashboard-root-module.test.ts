// The dashboard names a package's root module by its specifier, the package name alone (README
// "Exports and sources"), as /state does, not by the `@root` segment of its addresses.
import { expect } from 'chai';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

describe("the dashboard's name of a package's root module", function () {
  it('is the package name, and a subpath module keeps its package and subpath', async function () {
    const root = inlineWorkspace({
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { '.': './index.ts', './extra': './extra.ts' } },
        files: { 'index.ts': 'export const lib = 1;\n', 'extra.ts': 'export const extra = 2;\n' },
      },
    });
    const service = await serve(root);
    const browser = await launchChromium();
    try {
      const watched = await openPage(browser);
      await watched.page.goto(service.url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.querySelectorAll('.live .rows [data-module]').length === 2);
      const names = await watched.page.$$eval('.live .rows [data-module] .name', (cells) => cells.map((cell) => cell.textContent));
      expect(names).to.deep.equal(['@demo/lib', '@demo/lib/extra']);
      expect(watched.errors).to.deep.equal([]);
    } finally {
      await browser.close();
      await service.close();
    }
  });
});
