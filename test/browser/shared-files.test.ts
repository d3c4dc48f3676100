// Shared files on a page (README "Shared files"): module state, a Symbol and a class that two
// public modules of a package reach through a private file exist once, on /preview/, on the
// bundled preview, and after an edit of the shared file.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { writeFile } from '../helpers/workspace.js';
import { SEED_FILE, seedSource, sharedStateWorkspace, SHOWN } from '../helpers/shared-workspace.js';

async function shown(watched: Watched): Promise<Record<string, string | undefined>> {
  await watched.page.waitForSelector('#seed', { timeout: 30_000 }).catch(async () => {
    throw new Error(`the app did not render; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
  });
  return watched.page.evaluate(() => Object.fromEntries(['registry', 'symbol', 'instance', 'seed'].map((id) => [id, document.getElementById(id)?.textContent ?? undefined])));
}

describe('shared files on a page', function () {
  this.timeout(60_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async () => {
    root = sharedStateWorkspace();
    service = await serve(root);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('/preview/ holds one registry, one Symbol and one class, each file loaded once from its own address', async () => {
    const watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    expect(await shown(watched)).to.deep.equal({ ...SHOWN, seed: 'v1' });
    const paths = watched.requests.map((url) => new URL(url).pathname);
    for (const file of ['registry.ts', 'token.ts', 'base.ts']) expect(paths.filter((path) => path === `/m/@r/lib@1.0.0/modules/.shared/src/${file}`), file).to.have.length(1);
    expect(watched.errors).to.deep.equal([]);
    await watched.page.close();
  });

  it('the bundled preview holds one of each too, in its one script', async () => {
    const watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/bundled/', service.url).href, { waitUntil: 'load' });
    expect(await shown(watched)).to.deep.equal({ ...SHOWN, seed: 'v1' });
    const paths = watched.requests.map((url) => new URL(url).pathname);
    expect(paths.filter((path) => path.startsWith('/m/') && path.includes('/modules/')), 'nothing is fetched on its own').to.deep.equal([]);
    const code = (await service.get('/preview/bundled/code.js')).text;
    expect(code.match(/Symbol\("token"\)/g)).to.have.length(1);
    expect(watched.errors).to.deep.equal([]);
    await watched.page.close();
  });

  it('an edit of the shared file is seen by both modules at the next load, still one instance', async () => {
    writeFile(root, SEED_FILE, seedSource('v2'));
    const watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    expect(await shown(watched)).to.deep.equal({ ...SHOWN, seed: 'v2' });
    await watched.page.close();
  });

  it('a package left out of the selection, served by the local CDN, still holds one of each', async () => {
    const local = sharedStateWorkspace();
    writeFile(local, '.core/selection.json', JSON.stringify({ packages: ['@r/app'] }));
    const cdnService = await serve(local, { cdnOrigin: 'local' });
    try {
      const watched = await openPage(browser);
      await watched.page.goto(new URL('/preview/', cdnService.url).href, { waitUntil: 'load' });
      expect(await shown(watched)).to.deep.equal({ ...SHOWN, seed: 'v1' });
      const paths = watched.requests.map((url) => new URL(url).pathname);
      expect(paths).to.include('/cdn/@r/lib@1.0.0/.shared/src/registry.ts');
      // Each /cdn/ address redirects to the production output at /m/ (README "The local CDN"):
      // none of the package's development outputs is loaded.
      const development = watched.requests.filter((url) => new URL(url).pathname.startsWith('/m/@r/lib') && new URL(url).searchParams.get('env') !== 'production');
      expect(development).to.deep.equal([]);
      await watched.page.close();
    } finally {
      await cdnService.close();
    }
  });
});
