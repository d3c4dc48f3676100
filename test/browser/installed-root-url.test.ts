// An installed package whose sheet names an address from the origin's root (`url(/images/bg.png)`,
// the app's public files) is served by the local CDN, its code and its sheet, the address kept as
// written (README "The local CDN"): the page runs and is styled in Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, waitForColour, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('an installed package whose sheet has a url() from the origin root, in Chromium', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let browser: Browser | undefined;
  let watched: Watched;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/a'], preview: '@p/a/main' }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { comp: '1.0.0' } }),
      'packages/a/src/main/module.json': json({ entry: 'index.ts' }),
      'packages/a/src/main/index.ts': "import { c } from 'comp';\nconst done = document.createElement('p');\ndone.id = 'done';\ndone.textContent = c;\ndocument.body.append(done);\n",
      'node_modules/comp/package.json': json({ name: 'comp', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/comp/index.js': "import './comp.css';\nexport const c = 'COMP';\n",
      'node_modules/comp/comp.css': '#done { color: rgb(0, 128, 0) }\n.hero { background: url(/images/bg.png) }\n',
      // Imported by nothing the page loads until asked: a sheet naming a file the package does not ship.
      'node_modules/broken/package.json': json({ name: 'broken', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/broken/index.js': "import './broken.css';\nexport const b = 'B';\n",
      'node_modules/broken/broken.css': '.x { background: url(./missing.png) }\n',
    });
    service = await serve(root, { cdnOrigin: 'local' });
    ({ browser, watched } = await openPreview(service.url));
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('runs the code and links the sheet with the address kept as written', async function () {
    const code = await service.get('/cdn/comp@1.0.0');
    expect(code.status, code.text.slice(0, 300)).to.equal(200);
    const sheet = await service.get('/cdn/comp@1.0.0?styles');
    expect(sheet.text).to.include('url(/images/bg.png)');
    await watched.page.waitForSelector('#done', { state: 'attached', timeout: 30_000 });
    expect(await watched.page.textContent('#done'), watched.errors.join(' | ')).to.equal('COMP');
    await waitForColour(watched, '#done', 'rgb(0, 128, 0)', 30_000);
    const entry = (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[] }>();
    expect(entry.diagnostics).to.deep.equal([]);
  });

  it('says on the preview entry an installed package the local CDN refuses, which the page would meet as a 422', async function () {
    this.timeout(120_000);
    fs.writeFileSync(path.join(root, 'packages/a/src/main/index.ts'), "import { c } from 'comp';\nimport { b } from 'broken';\ndocument.body.append(c + b);\n");
    fs.writeFileSync(path.join(root, 'packages/a/package.json'), json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { comp: '1.0.0', broken: '1.0.0' } }));
    const refused = await waitFor(
      async () => {
        const entry = (await service.get('/preview/entry.json')).json<{ diagnostics: { kind: string; module?: string; message: string }[] }>();
        const said = entry.diagnostics.filter((problem) => problem.kind === 'PREVIEW_CDN_PACKAGE_REFUSED');
        return said.length > 0 && said;
      },
      { timeout: 60_000, what: 'the preview entry to say the refused package' },
    );
    expect(refused.map((problem) => problem.module)).to.deep.equal(['broken']);
    expect(refused[0]!.message).to.include('broken@1.0.0 cannot be built for browsers').and.include('missing.png');
    expect((await service.get('/cdn/broken@1.0.0')).status).to.equal(422);
  });
});
