// A workspace package renamed leaves npm's link of its old name in node_modules (README
// "Workspaces"). A page that still imports the old name, served with the local CDN by a run
// started after the rename, fails to load it (the local CDN serves installed copies only, and
// that link is none): its overlay says why, naming the link and the package it leads to, as
// /preview/entry.json's PREVIEW_OUTSIDE_NOT_INSTALLED does. Before, it said "a copy linked there
// from elsewhere is not served", and the preview warned of nothing.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { openPreview, overlayTextOf, type Watched } from '../helpers/chromium.js';
import type { Browser } from 'playwright-core';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

describe('a page importing a workspace package by the old name npm\'s link still holds', () => {
  let browser: Browser | undefined;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;

  before(async () => {
    const root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' } },
        files: { 'main/index.ts': "import { a } from '@p/lib/util';\ndocument.body.dataset.ok = a;\n" },
      },
      'packages/core-lib': { manifest: { name: '@p/core', version: '1.0.0', exports: { './util': './util/index.ts' } }, files: { 'util/index.ts': "export const a = 'mine';\n" } },
    });
    fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app', 'packages/core-lib'], preview: '@p/app/main' }));
    fs.mkdirSync(path.join(root, 'node_modules/@p'), { recursive: true });
    fs.symlinkSync('../../packages/core-lib', path.join(root, 'node_modules/@p/lib'));
    service = await serve(root, { cdnOrigin: 'local' });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("shows in its overlay that the link is no install, naming the package's name now", async () => {
    ({ browser, watched } = await openPreview(service.url));
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('LOAD_FAILED'), null, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the overlay never told of the failed load; it shows ${await overlayTextOf(watched)}`);
    });
    const text = (await overlayTextOf(watched))!;
    expect(text).to.include('/cdn/@p/lib@1.0.0/util');
    expect(text).to.include("node_modules/@p/lib is npm's link of that name to packages/core-lib, whose package is @p/core now (renamed), no install of @p/lib; import it as @p/core");
  });
});
