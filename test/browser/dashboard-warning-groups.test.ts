// The dashboard's warnings about a package's own structure (README "Warnings"): one line per
// package and kind, counted, which opens to each distinct warning.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('the dashboard\'s grouped warnings', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['lib'] }),
      'lib/package.json': json({ name: '@r/lib', version: '1.0.0', exports: { './a': './a.ts', './b': './b.ts', './c': './c.ts' } }),
      // A CommonJS helper is copied into each module that reaches it (README "Shared files"): warned.
      'lib/registry.cjs': 'exports.registry = new Map();\n',
      'lib/a.ts': "import { registry } from './registry.cjs';\nexport const define = (k: string, v: unknown) => registry.set(k, v);\n",
      'lib/b.ts': "import { registry } from './registry.cjs';\nexport const lookup = (k: string) => registry.get(k);\n",
      'lib/c.ts': "import { registry } from './registry.cjs';\nexport const size = () => registry.size;\n",
    });
    service = await serve(root);
    await service.get('/state');
    ({ browser, watched } = await openPreview(service.url, '/'));
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('shows one line per package and kind with its count, and each distinct warning once opened', async function () {
    const group = watched.page.locator('.banner details.warning-group');
    await group.waitFor();
    expect(await group.count()).to.equal(1);
    expect(await group.locator('summary').textContent()).to.equal('@r/lib: 3 HELPER_SHARED warnings about its own structure, in 3 modules');
    expect(await group.evaluate((element) => (element as HTMLDetailsElement).open)).to.equal(false);
    await group.locator('summary').click();
    const listed = await group.evaluate((element) => element.querySelectorAll('li').length);
    expect(listed).to.equal(1); // one shared file: one warning, carried by three modules
    expect(await group.textContent()).to.include('lib/registry.cjs is bundled into 3 modules');
    expect(watched.errors).to.deep.equal([]);
  });
});
