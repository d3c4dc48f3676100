// The example workspace with `packages/ui` a link to `real/ui-a` inside it (README "Links and
// large trees"), in Chromium: the preview renders the storefront with the badge of @demo/ui,
// and the badge's declared star.svg loads, as in the tree without the link.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';

describe('a package directory reached through a link inside the workspace, in Chromium', function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let watched: Watched;

  after(async () => {
    await browser?.close();
  });

  it('the preview renders the badge of the linked package, its star image loaded', async () => {
    const root = exampleWorkspace();
    fs.mkdirSync(path.join(root, 'real'));
    fs.renameSync(path.join(root, 'packages/ui'), path.join(root, 'real/ui-a'));
    fs.symlinkSync('../real/ui-a', path.join(root, 'packages/ui'));
    const service = await serve(root);
    ({ browser, watched } = await openPreview(service.url));
    const star = await watched.page
      .waitForFunction(
        () => {
          const image = document.querySelector<HTMLImageElement>('demo-storefront .demo-badge img');
          return image && image.complete && image.naturalWidth > 0 && { src: new URL(image.src).pathname, width: image.naturalWidth };
        },
        null,
        { timeout: 30_000 },
      )
      .catch(async () => {
        throw new Error(`the badge's star did not load; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}; body: ${await watched.page.evaluate(() => document.body.outerHTML)}`);
      });
    expect(await star.jsonValue()).to.deep.equal({ src: '/m/@demo/ui@1.1.0/assets/badge/star.svg', width: 16 });
    expect(await watched.page.evaluate(() => document.querySelector('demo-storefront .demo-badge')?.textContent)).to.equal('free shipping');
    expect(watched.errors).to.deep.equal([]);
    expect(watched.failed.filter((answer) => !answer.endsWith('/favicon.ico'))).to.deep.equal([]);
  });
});
