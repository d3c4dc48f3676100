// A development module run for its effects (it exports nothing: a config, a polyfill) imported
// before an installed package runs before it on the bundled page too (README "The bundled
// preview"): joined, it ran after every separate module, which the bundle imports at its top.
import { expect } from 'chai';
import { bundledPageSuite, json } from '../helpers/bundled-page.js';

describe('a setup module imported before an installed package, on the bundled page in Chromium', function () {
  const page = bundledPageSuite({
    'core.json': json({ packages: ['packages/a', 'packages/b'], preview: '@p/a/main' }),
    'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
    'packages/b/src/setup/module.json': json({ entry: 'index.ts' }),
    'packages/b/src/setup/index.ts': "(globalThis as any).APP_CONFIG = { api: '/api' };\n((globalThis as any).ORDER ??= []).push('setup');\n",
    'packages/b/src/util/module.json': json({ entry: 'index.ts' }),
    'packages/b/src/util/index.ts': "export const shout = (text: string) => text.toUpperCase();\n",
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { '@p/b': '1.0.0', client: '1.0.0' } }),
    'packages/a/src/main/module.json': json({ entry: 'index.ts' }),
    'packages/a/src/main/index.ts': [
      "import { shout } from '@p/b/util';",
      "import '@p/b/setup';",
      "import { api } from 'client';",
      "const done = document.createElement('p');",
      "done.id = 'done';",
      "done.textContent = shout(`order=${(globalThis as any).ORDER.join(',')} api=${api}`);",
      'document.body.append(done);',
      '',
    ].join('\n'),
    'node_modules/client/package.json': json({ name: 'client', version: '1.0.0', type: 'module', exports: './index.js' }),
    'node_modules/client/index.js': "(globalThis.ORDER ??= []).push('client');\nexport const api = globalThis.APP_CONFIG ? globalThis.APP_CONFIG.api : 'missing';\n",
  });

  const shown = async (address: string) => {
    const { text, errors, imports } = await page.shown(address);
    // The map names joined modules too, by small modules of the bundle's (README "The bundled preview"): those are not separate.
    const separate = Object.entries(imports).filter(([, address]) => !address.startsWith('/preview/bundled/module.js?'));
    return { text, errors, separate: separate.map(([specifier]) => specifier).sort() };
  };

  it('runs it first on both pages, keeping it (and no module that exports something) out of the join', async function () {
    const preview = await shown('/preview/');
    expect(preview.text, preview.errors.join(' | ')).to.equal('ORDER=SETUP,CLIENT API=/API');
    const bundled = await shown('/preview/bundled/');
    expect(bundled.text, bundled.errors.join(' | ')).to.equal('ORDER=SETUP,CLIENT API=/API');
    expect(bundled.separate).to.deep.equal(['@p/b/setup', 'client']);
  });
});
