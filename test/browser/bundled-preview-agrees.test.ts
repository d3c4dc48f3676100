// The bundled preview runs what /preview/ runs (README "The bundled preview"), in Chromium: an
// installed package importing a workspace module finds the one instance the page's code uses,
// and a sheet's `@import` of another module's sheet by its address keeps its place in the cascade;
// the one order it cannot keep, a module awaiting at its top level, the bundled page says.
import { expect } from 'chai';
import { eventsOpen, chromiumForSuite, openPage } from '../helpers/chromium.js';
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

// The sheet of the module imported first makes the text red; the other module's sheet,
// `@import`ed from the origin's root by the sheet linked after it, makes it green.
function rootImportWorkspace(): string {
  return inlineWorkspace(
    {
      'packages/theme': {
        manifest: { name: '@pw/theme', version: '1.0.0', type: 'module', exports: { './green': './green.ts', './theme': './theme.ts', './red': './red.ts' } },
        files: {
          'red.ts': `import './red.css';\nexport const red = 1;\n`,
          'red.css': '#shown { color: rgb(255, 0, 0); }\n',
          'green.ts': `import './green.css';\nexport const green = 1;\n`,
          'green.css': '#shown { color: rgb(0, 128, 0); }\n',
          'theme.ts': `import './theme.css';\nexport const theme = 1;\n`,
          'theme.css': '@import url(/m/@pw/theme@1.0.0/styles/green);\n.theme { color: blue; }\n',
        },
      },
      'packages/app': {
        manifest: { name: '@pw/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@pw/theme': '1.0.0' } },
        files: {
          'main.ts': `import '@pw/theme/red';\nimport '@pw/theme/theme';\ndocument.body.innerHTML = '<p id="shown">text</p>';\n${SHOW}'ready';\n`,
        },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/theme', 'packages/app'], preview: '@pw/app/main' }) },
  );
}

// A module awaiting at its top level between two siblings: on /preview/ the second runs while it waits.
function topLevelAwaitWorkspace(): string {
  const push = (text: string) => `((globalThis as unknown as { order: string[] }).order ??= []).push('${text}');`;
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@pw/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts', './config': './config.ts', './widget': './widget.ts' } },
        files: {
          'main.ts': `import '@pw/app/config';\nimport '@pw/app/widget';\n${SHOW}(globalThis as unknown as { order: string[] }).order.join(',');\n`,
          'config.ts': `${push('config:start')}\nawait new Promise((resolve) => setTimeout(resolve, 0));\n${push('config:end')}\nexport {};\n`,
          'widget.ts': `${push('widget')}\nexport {};\n`,
        },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/app'], preview: '@pw/app/main' }) },
  );
}

describe('the bundled preview runs what /preview/ runs, in Chromium', function () {
  const browser = chromiumForSuite();

  async function shown(url: string, look: () => string = () => document.body.dataset.shown!): Promise<{ shown: string; errors: string[] }> {
    const watched = await openPage(browser());
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

  it("keeps a sheet's @import of another module's sheet by its address at its place in the cascade", async function () {
    const service = await serve(rootImportWorkspace());
    try {
      const colour = () => (document.querySelector('#shown') ? getComputedStyle(document.querySelector('#shown')!).color : 'no #shown');
      for (const address of ['/preview/', '/preview/bundled/']) {
        expect(await shown(new URL(address, service.url).href, colour), address).to.deep.equal({ shown: 'rgb(0, 128, 0)', errors: [] });
      }
    } finally {
      await service.close();
    }
  });

  it('says on the bundled page, and only there, that a joined module awaiting at its top level holds back the modules after it', async function () {
    const service = await serve(topLevelAwaitWorkspace());
    const warningsShown = async (address: string) => {
      const watched = await openPage(browser());
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined, undefined, { timeout: 30_000 });
        await eventsOpen(watched, 30_000);
        // After the messages a new connection hears, which may replace a module's warnings.
        await watched.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
        const order = await watched.page.evaluate(() => document.body.dataset.shown);
        const warnings = await watched.page.evaluate(() => document.querySelector('core-warnings')?.shadowRoot?.textContent ?? '');
        return { order, warned: warnings.includes('PREVIEW_BUNDLED_AWAIT') && warnings.includes('@pw/app@1.0.0/config'), errors: watched.errors };
      } finally {
        await watched.page.close();
      }
    };
    try {
      expect(await warningsShown('/preview/')).to.deep.equal({ order: 'config:start,widget,config:end', warned: false, errors: [] });
      expect(await warningsShown('/preview/bundled/')).to.deep.equal({ order: 'config:start,config:end,widget', warned: true, errors: [] });
    } finally {
      await service.close();
    }
  });
});
