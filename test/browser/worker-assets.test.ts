// What README "Bundling real code" promises of workers and build-time constants, on the page in
// Chromium: a declared `.js` worker runs; a declared `worker.ts` (its module invalid) is served as
// text, which the browser refuses to run, and its page is not given the module's code; a `core.define`
// value esbuild takes (single quotes, a dotted name) is not refused by the manifest's check and
// shows on the page.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const startsWorker = (file: string) =>
  [
    `const worker = new Worker(new URL('../assets/m/${file}', import.meta.url), { type: 'module' });`,
    "worker.onmessage = (event) => { document.body.dataset.ok = 'worker ' + event.data; };",
    "worker.onerror = () => { document.body.dataset.ok = 'worker failed to load'; };",
    '',
  ].join('\n');

describe('workers and constants on the page', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;

  const shown = async (entry: string) => {
    await watched.page.goto(new URL(`/preview/?entry=${entry}`, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body?.dataset.ok !== undefined, undefined, { timeout: 20_000 }).catch(() => {
      throw new Error(`the module never ran; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
    });
    return watched.page.evaluate(() => document.body.dataset.ok);
  };

  before(async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/js', 'packages/ts', 'packages/d'] }),
      'packages/js/package.json': json({ name: '@w/js', version: '1.0.0', exports: { './m': './m/index.ts' } }),
      'packages/js/m/module.json': json({ assets: ['worker.js'] }),
      'packages/js/m/worker.js': 'postMessage(42);\n',
      'packages/js/m/index.ts': startsWorker('worker.js'),
      'packages/ts/package.json': json({ name: '@w/ts', version: '1.0.0', exports: { './m': './m/index.ts' } }),
      'packages/ts/m/module.json': json({ assets: ['worker.ts'] }),
      'packages/ts/m/worker.ts': 'const n: number = 41;\npostMessage(n + 1);\n',
      'packages/ts/m/index.ts': startsWorker('worker.ts'),
      'packages/d/package.json': json({ name: '@w/d', version: '1.0.0', exports: { './m': './m/index.ts' }, core: { define: { __X__: "'fine'", __Y__: 'globalThis.config.y' } } }),
      'packages/d/m/index.ts': "(globalThis as any).config = { y: 'dotted' };\ndocument.body.dataset.ok = __X__ + ' ' + __Y__;\ndeclare const __X__: string, __Y__: string;\n",
    });
    service = await serve(root);
    browser = await launchChromium();
  });
  beforeEach(async () => {
    watched = await openPage(browser);
  });
  afterEach(async () => watched?.page.close());
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('a declared .js worker runs', async () => {
    expect(await shown('@w/js/m')).to.equal('worker 42');
  });

  it('a declared worker.ts: its module invalid, so the page is not given its code (never a page whose worker cannot run); the browser refuses the text the file is served as', async () => {
    const report = await service.report();
    expect(report.modules.find((m) => m.specifier === '@w/ts/m')!.status).to.equal('invalid');
    await watched.page.goto(new URL('/preview/?entry=@w/ts/m', service.url).href, { waitUntil: 'load' });
    await waitFor(async () => watched.failed.some((failed) => failed.startsWith('422 ') && failed.includes('/m/@w/ts@1.0.0/modules/m?')));
    expect(await watched.page.evaluate(() => document.body.dataset.ok)).to.equal(undefined);
    // Asked for as a worker all the same, from a page whose code runs: refused, never run as TypeScript.
    expect(await shown('@w/js/m')).to.equal('worker 42');
    const loaded = await watched.page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const worker = new Worker('/m/@w/ts@1.0.0/assets/m/worker.ts', { type: 'module' });
          worker.onmessage = (event) => resolve(`ran: ${event.data}`);
          worker.onerror = () => resolve('refused');
        }),
    );
    expect(loaded).to.equal('refused');
  });

  it("core.define values esbuild takes ('single quotes', a dotted name) reach the page", async () => {
    expect(await shown('@w/d/m')).to.equal('fine dotted');
  });
});
