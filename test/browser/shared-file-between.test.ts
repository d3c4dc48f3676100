// A shared file importing a name another shared file does not export (README "Shared files"): each
// is built alone, so esbuild never looks into the other, and the page fails to link ("does not
// provide an export named"). /state must call every importer invalid, at that import, never
// valid while its page breaks; and once the name is back, the page runs and /state says valid.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, overlayTextOf, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { sharedBetweenWorkspace } from '../helpers/shared-links-workspace.js';
import { writeFile } from '../helpers/workspace.js';

const ran = (watched: Watched): Promise<string | null> => watched.page.evaluate(() => document.body?.dataset.result ?? null).catch(() => null);

describe('a name missing between two shared files, on a page', function () {
  this.timeout(90_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async () => {
    root = sharedBetweenWorkspace();
    service = await serve(root);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('is never called valid while the page breaks: /state and the overlay name the import; the name back, the page runs and is valid', async () => {
    const statusOf = async () => (await service.report()).modules.find((module) => module.specifier === '@b/lib/one')!;
    expect((await statusOf()).status).to.equal('valid');
    writeFile(root, 'packages/lib/src/b.ts', 'export const registry: string[] = [];\n');
    const broken = await statusOf();
    const watched = await openPage(browser);
    await watched.page.goto(new URL('/preview/?entry=@b/lib/one', service.url).href, { waitUntil: 'load' });
    // What the page shows: the overlay once it has read the module's diagnostics, or Chromium's link error.
    await until(() => watched.errors.length > 0 || watched.failed.length > 0, 'the page to fail', 20_000);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay') !== null, undefined, { timeout: 20_000 }).catch(() => {});
    const overlay = await overlayTextOf(watched);
    expect(await ran(watched), 'the page ran').to.equal(null);
    expect({ status: broken.status, kinds: broken.diagnostics.map((d) => `${d.kind} ${d.file}:${d.line}`) }, `page errors: ${[...watched.errors, ...watched.failed].join(' | ')}`).to.deep.equal({
      status: 'invalid',
      kinds: ['BUNDLE_ERROR packages/lib/src/a.ts:1'],
    });
    expect(overlay).to.include('does not export "extra"');
    await watched.page.close();

    writeFile(root, 'packages/lib/src/b.ts', "export const registry: string[] = [];\nexport const extra = 'E';\n");
    expect((await statusOf()).status).to.equal('valid');
    const again = await openPage(browser);
    await again.page.goto(new URL('/preview/?entry=@b/lib/one', service.url).href, { waitUntil: 'load' });
    await again.page.waitForFunction(() => document.body?.dataset.result !== undefined, undefined, { timeout: 20_000 });
    expect(await ran(again)).to.equal('one 0E');
    expect(again.errors).to.deep.equal([]);
    await again.page.close();
  });
});
