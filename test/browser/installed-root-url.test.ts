// An installed package whose sheet names an address from the origin's root (`url(/images/bg.png)`,
// the app's public files) is served by the local CDN, its code and its sheet, the address kept as
// written (README "The local CDN"): the page runs and is styled in Chromium.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, waitForColour, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('an installed package whose sheet has a url() from the origin root, in Chromium', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let browser: Browser | undefined;
  let watched: Watched;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a'], preview: '@p/a/main' }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { comp: '1.0.0' } }),
      'packages/a/src/main/module.json': json({ entry: 'index.ts' }),
      'packages/a/src/main/index.ts': "import { c } from 'comp';\nconst done = document.createElement('p');\ndone.id = 'done';\ndone.textContent = c;\ndocument.body.append(done);\n",
      'node_modules/comp/package.json': json({ name: 'comp', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/comp/index.js': "import './comp.css';\nexport const c = 'COMP';\n",
      'node_modules/comp/comp.css': '#done { color: rgb(0, 128, 0) }\n.hero { background: url(/images/bg.png) }\n',
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
  });
});
