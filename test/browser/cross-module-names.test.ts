// Names imported across public modules (README "Bundling real code"): "valid" in /state means the
// page links and runs in Chromium. A module importing names another module gives through whole
// re-exports (`export * from`), and a type re-exported as `export type`, links; those importing a
// name no module gives, a default there is none of, or a name two whole re-exports both give, are
// invalid, and fail in Chromium as /state says. One module's namespace exported by two whole
// re-exports is one binding (it links); two modules' namespaces under one name are two (it fails).
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/b': {
        manifest: { name: '@p/b', version: '1.0.0', type: 'module', exports: {
          './util': './util.ts',
          './x': './x.ts',
          './types': './types.ts',
          './nsleft': './nsleft.ts',
          './nsright': './nsright.ts',
          './nsother': './nsother.ts',
          './nsboth': './nsboth.ts',
          './nsclash': './nsclash.ts',
        },
      },
        files: {
          'util.ts': "export const hello = () => 'hello';\nexport const shared = 1;\n",
          'x.ts': 'export const shared = 2;\nexport const only = 3;\n',
          'types.ts': 'export interface Shape { n: number }\nexport const make = (n: number): Shape => ({ n });\n',
          // One namespace exported in both forms, through two whole re-exports: one binding.
          'nsleft.ts': "export * as ns from '@p/b/util';\n",
          'nsright.ts': "import * as ns from '@p/b/util';\nexport { ns };\n",
          'nsboth.ts': "export * from '@p/b/nsleft';\nexport * from '@p/b/nsright';\n",
          // Two modules' namespaces under one name: two bindings.
          'nsother.ts': "export * as ns from '@p/b/x';\n",
          'nsclash.ts': "export * from '@p/b/nsleft';\nexport * from '@p/b/nsother';\n",
        },
      },
      'packages/a': {
        manifest: {
          name: '@p/a',
          version: '1.0.0',
          type: 'module',
          exports: {
            './star': './star.ts',
            './fine': './fine.ts',
            './missing': './missing.ts',
            './nodefault': './nodefault.ts',
            './ambiguous': './ambiguous.ts',
            './namespace': './namespace.ts',
            './nsambiguous': './nsambiguous.ts',
          },
          dependencies: { '@p/b': '1.0.0' },
        },
        files: {
          'star.ts': "export * from '@p/b/util';\nexport * from '@p/b/x';\n",
          'fine.ts': "import { hello, only } from '@p/a/star';\nimport { make } from '@p/b/types';\nexport type { Shape } from '@p/b/types';\ndocument.body.dataset.shown = hello() + only + make(4).n;\n",
          'missing.ts': "import { hello, nothing } from '@p/b/util';\ndocument.body.dataset.shown = hello() + String(nothing);\n",
          'nodefault.ts': "import util from '@p/b/util';\ndocument.body.dataset.shown = String(util);\n",
          'ambiguous.ts': "import { shared } from '@p/a/star';\ndocument.body.dataset.shown = String(shared);\n",
          'namespace.ts': "import { ns } from '@p/b/nsboth';\ndocument.body.dataset.shown = ns.hello();\n",
          'nsambiguous.ts': "import { ns } from '@p/b/nsclash';\ndocument.body.dataset.shown = String(ns);\n",
        },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/b', 'packages/a'] }) },
  );
}

describe('names imported across public modules, in /state and in Chromium', function () {
  // Six pages opened one after another: mocha's 60 s per test is too short on a loaded machine.
  this.timeout(300_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    browser = await launchChromium();
    service = await serve(workspace());
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('runs on /preview/ exactly the importers /state calls valid', async function () {
    const { modules } = JSON.parse((await service.get('/state')).body.toString()) as { modules: { specifier: string; status: string }[] };
    const said: Record<string, string> = {};
    const seen: Record<string, string> = {};
    for (const module of modules.filter((line) => line.specifier.startsWith('@p/a/') && line.specifier !== '@p/a/star')) {
      said[module.specifier] = module.status === 'valid' ? 'runs' : 'fails';
      const watched = await openPage(browser);
      try {
        await watched.page.goto(new URL(`/preview/?entry=${encodeURIComponent(module.specifier)}`, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined || document.querySelector('core-overlay') !== null, undefined, { timeout: 60_000 });
        const ran = await watched.page.evaluate(() => document.body.dataset.shown);
        seen[module.specifier] = ran !== undefined && watched.errors.length === 0 ? `runs` : 'fails';
        if (module.specifier === '@p/a/fine') expect(ran).to.equal('hello34');
        if (module.specifier === '@p/a/namespace') expect(ran).to.equal('hello');
      } finally {
        await watched.page.close();
      }
    }
    expect(said).to.deep.equal({
      '@p/a/fine': 'runs',
      '@p/a/missing': 'fails',
      '@p/a/nodefault': 'fails',
      '@p/a/ambiguous': 'fails',
      '@p/a/namespace': 'runs',
      '@p/a/nsambiguous': 'fails',
    });
    expect(seen).to.deep.equal(said);
  });
});
