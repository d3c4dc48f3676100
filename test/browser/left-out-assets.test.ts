// A workspace package left out of development (`core select` of another) is loaded from the local
// CDN; its declared assets, which its production code and sheet name by relative address
// (`../assets/<subpath>/x.png`), load in Chromium from there as they do in development
// (README "The local CDN").
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function workspace(): string {
  const root = tempWorkspace({
    'core.json': json({ packages: ['packages/ui', 'packages/app'], preview: '@p/app/main' }),
    '.core/selection.json': json({ packages: ['@p/app'] }),
    'packages/ui/package.json': json({ name: '@p/ui', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
    'packages/ui/src/badge/module.json': json({ entry: 'index.ts', assets: ['dot.png', 'bg.png'] }),
    'packages/ui/src/badge/index.ts': "import './badge.css';\nimport dot from './dot.png';\nexport const dotUrl = String(dot);\nexport const bgUrl = new URL('./bg.png', import.meta.url).href;\n",
    'packages/ui/src/badge/badge.css': '#done { background-image: url(bg.png); }\n',
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { '@p/ui': '1.0.0' } }),
    'packages/app/src/main/module.json': json({ entry: 'index.ts' }),
    'packages/app/src/main/index.ts': "import { dotUrl, bgUrl } from '@p/ui/badge';\nconst done = document.createElement('p');\ndone.id = 'done';\ndone.dataset.urls = JSON.stringify([dotUrl, bgUrl]);\ndocument.body.append(done);\n",
  });
  for (const file of ['dot.png', 'bg.png']) fs.writeFileSync(path.join(root, 'packages/ui/src/badge', file), PNG);
  return root;
}

describe('assets of a workspace package left out of development, in Chromium', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let browser: Browser | undefined;
  let watched: Watched;

  before(async function () {
    service = await serve(workspace(), { cdnOrigin: 'local' });
    ({ browser, watched } = await openPreview(service.url));
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('loads each asset its code imports, builds by new URL and its sheet names by url(), from the /cdn/ address the page maps', async function () {
    const imports = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string> }>().imports;
    expect(imports['@p/ui/badge']).to.equal('/cdn/@p/ui@1.0.0/badge');
    await watched.page.waitForSelector('#done', { state: 'attached', timeout: 30_000 });
    const statuses = await watched.page.evaluate(async () => {
      const done = document.querySelector<HTMLElement>('#done')!;
      const sheetUrl = getComputedStyle(done).backgroundImage.slice(5, -2);
      const urls: string[] = [...JSON.parse(done.dataset.urls!), sheetUrl];
      return Promise.all(urls.map(async (url) => `${new URL(url).pathname} ${(await fetch(url)).status}`));
    });
    expect(statuses, `page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`).to.deep.equal([
      '/m/@p/ui@1.0.0/assets/badge/dot.png 200',
      '/m/@p/ui@1.0.0/assets/badge/bg.png 200',
      '/m/@p/ui@1.0.0/assets/badge/bg.png 200',
    ]);
    expect(watched.failed).to.deep.equal([]);
  });
});
