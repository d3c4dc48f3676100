// Imports of another public module's entry that esbuild resolves by a tsconfig `paths` pattern
// the module's entry config does not hold (README "Bundling real code"): one of a config nearer to
// a file of the module than its entry's, a catch-all `"*"` pattern, and one a config's `extends`
// brings from an installed package in the workspace's node_modules. Each registry defines a custom
// element, which throws when a second copy runs, and every importer pushes its name into the one
// copy the page's public import holds: on /preview/, /preview/bundled/ and core dist's page.
import path from 'node:path';
import type http from 'node:http';
import { expect } from 'chai';
import { distribute } from '../../src/dist/distribute.js';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const registry = (tag: string) => `export const reg: string[] = [];\ncustomElements.define('x-${tag}', class extends HTMLElement {});\n`;

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/lib', 'packages/cat', 'packages/app'], preview: '@demo/app/main' }),
    'packages/lib/package.json': json({ name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './reg': './src/reg/index.ts', './nearer': './src/nearer.ts' } }),
    'packages/lib/tsconfig.json': json({ compilerOptions: { strict: true } }),
    'packages/lib/src/reg/index.ts': registry('reg'),
    // The entry's config (packages/lib/tsconfig.json) has no paths; the one nearer to deep/use.ts has.
    'packages/lib/src/nearer.ts': "import './deep/use';\n",
    'packages/lib/src/deep/tsconfig.json': json({ compilerOptions: { paths: { 'near/*': ['../*'] } } }),
    'packages/lib/src/deep/use.ts': "import { reg } from 'near/reg';\nreg.push('nearerConfig');\n",
    // A catch-all pattern: 'element' is src/element.ts, another module's entry named alone.
    'packages/cat/package.json': json({ name: '@demo/cat', version: '1.0.0', type: 'module', exports: { './element': './src/element.ts', './use': './src/use.ts' } }),
    'packages/cat/tsconfig.json': json({ compilerOptions: { paths: { '*': ['./src/*'] } } }),
    'packages/cat/src/element.ts': registry('element'),
    'packages/cat/src/use.ts': "import { reg } from 'element';\nreg.push('catchAll');\n",
    // A config extending one of an installed package, whose paths lead into another package.
    'node_modules/@acme/tsconfig/package.json': json({ name: '@acme/tsconfig', version: '1.0.0' }),
    'node_modules/@acme/tsconfig/base.json': json({ compilerOptions: { paths: { 'shared/*': ['../../../packages/lib/src/*'] } } }),
    'packages/app/tsconfig.json': json({ extends: '@acme/tsconfig/base.json' }),
    'packages/app/package.json': json({ name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0', '@demo/cat': '1.0.0' } }),
    'packages/app/main.ts': [
      "import { reg } from '@demo/lib/reg';",
      "import { reg as elements } from '@demo/cat/element';",
      "import '@demo/lib/nearer';",
      "import '@demo/cat/use';",
      "import { reg as shared } from 'shared/reg';",
      "shared.push('extendsInstalled');",
      "document.body.dataset.shown = [...reg, ...elements].sort().join(',');",
      '',
    ].join('\n'),
  });
}

const EVERY_ONE = 'catchAll,extendsInstalled,nearerConfig';

describe("modules importing another module's entry by a paths pattern of a nearer config, a catch-all pattern or an installed package's config, in Chromium", function () {
  this.timeout(300_000);
  const browser = chromiumForSuite();

  // The registries the page's one copy of each module holds: every importer pushed into it.
  async function shownAt(url: string): Promise<string | undefined> {
    const watched = await openPage(browser());
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined, undefined, { timeout: 60_000 }).catch(() => {
        throw new Error(`${url} did not run: ${[...watched.errors, ...watched.failed].join(' | ') || 'no error seen'}`);
      });
      expect({ errors: watched.errors, failed: watched.failed }, url).to.deep.equal({ errors: [], failed: [] });
      return await watched.page.evaluate(() => document.body.dataset.shown);
    } finally {
      await watched.page.close();
    }
  }

  it('share one copy of each registry on /preview/ and /preview/bundled/', async function () {
    const service = await serve(workspace());
    try {
      expect(await shownAt(new URL('/preview/', service.url).href), '/preview/').to.equal(EVERY_ONE);
      expect(await shownAt(new URL('/preview/bundled/', service.url).href), '/preview/bundled/').to.equal(EVERY_ONE);
    } finally {
      await service.close();
    }
  });

  it("share one copy of each registry on core dist's page", async function () {
    const root = workspace();
    const out = path.join(root, 'dist');
    expect((await distribute({ root, out })).page.written).to.equal(true);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shownAt(`http://127.0.0.1:${port}/`)).to.equal(EVERY_ONE);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
