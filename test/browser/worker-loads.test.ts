// What README "Bundling real code" says of what a worker loads, on the page in Chromium: a
// classic worker (no `{ type: 'module' }`) holding a static import, and one calling importScripts
// of an undeclared file, are each said (WORKER_TYPE_MISMATCH, ASSET_IMPORT_UNSERVED) and do fail
// in Chromium; a classic worker loading declared files by importScripts and import() is said
// nothing of, and runs. A module worker calling importScripts in a `try` runs to its end, and is
// said nothing of; one calling it where it starts throws a TypeError, and is told (probe51b F9).
// The module is `valid` in each case (its own code runs).
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
// Each worker's first answer, or its error, on the page.
const startsWorker = (file: string, options = '') =>
  [
    `const worker = new Worker(new URL('./${file}', import.meta.url)${options});`,
    "worker.onmessage = (event) => { document.body.dataset.ok = 'worker ' + event.data; };",
    "worker.onerror = (event) => { event.preventDefault(); document.body.dataset.ok = 'worker failed: ' + event.message; };",
    '',
  ].join('\n');

describe('what a worker loads, said and shown in Chromium', () => {
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
  const said = async (specifier: string) => {
    const module = (await service.report()).modules.find((m) => m.specifier === specifier)!;
    return { status: module.status, warnings: (module.warnings ?? []).map((w) => `${w.kind} ${w.file}:${w.line}:${w.column}`) };
  };

  before(async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/w'] }),
      'packages/w/package.json': json({ name: '@w/w', version: '1.0.0', exports: { './imports': './imports/index.ts', './missing': './missing/index.ts', './loads': './loads/index.ts', './tries': './tries/index.ts', './throws': './throws/index.ts' } }),
      'packages/w/imports/module.json': json({ assets: ['worker.js', 'helper.js'] }),
      'packages/w/imports/worker.js': "import { h } from './helper.js';\npostMessage(h);\n",
      'packages/w/imports/helper.js': "export const h = 'helped';\n",
      'packages/w/imports/index.ts': startsWorker('worker.js'),
      'packages/w/missing/module.json': json({ assets: ['worker.js'] }),
      'packages/w/missing/worker.js': "importScripts('helper.js');\npostMessage(self.h);\n",
      'packages/w/missing/helper.js': "self.h = 'helped';\n",
      'packages/w/missing/index.ts': startsWorker('worker.js'),
      'packages/w/loads/module.json': json({ assets: ['worker.js', 'helper.js', 'lib.js'] }),
      'packages/w/loads/worker.js': "importScripts('helper.js');\nimport('./lib.js').then(({ l }) => postMessage(`${self.h} ${l}`));\n",
      'packages/w/loads/helper.js': "self.h = 'helped';\n",
      'packages/w/loads/lib.js': "export const l = 'imported';\n",
      'packages/w/loads/index.ts': startsWorker('worker.js'),
      'packages/w/tries/module.json': json({ assets: ['worker.js', 'helper.js'] }),
      'packages/w/tries/worker.js': "let how = 'imported';\ntry { importScripts('./helper.js'); how = 'by importScripts'; } catch {}\npostMessage(how);\n",
      'packages/w/tries/helper.js': "self.h = 'helped';\n",
      'packages/w/tries/index.ts': startsWorker('worker.js', ", { type: 'module' }"),
      'packages/w/throws/module.json': json({ assets: ['worker.js', 'helper.js'] }),
      'packages/w/throws/worker.js': "importScripts('./helper.js');\npostMessage('ran');\n",
      'packages/w/throws/helper.js': "self.h = 'helped';\n",
      'packages/w/throws/index.ts': startsWorker('worker.js', ", { type: 'module' }"),
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

  it('a static import in a classic worker: WORKER_TYPE_MISMATCH, and Chromium throws a SyntaxError', async () => {
    expect(await said('@w/w/imports')).to.deep.equal({ status: 'valid', warnings: ['WORKER_TYPE_MISMATCH packages/w/imports/worker.js:1:1'] });
    expect(await shown('@w/w/imports')).to.match(/^worker failed: .*SyntaxError/);
  });

  it('importScripts of an undeclared file: ASSET_IMPORT_UNSERVED, and Chromium throws a NetworkError', async () => {
    expect(await said('@w/w/missing')).to.deep.equal({ status: 'valid', warnings: ['ASSET_IMPORT_UNSERVED packages/w/missing/worker.js:1:15'] });
    expect(await shown('@w/w/missing')).to.match(/^worker failed: .*NetworkError/);
  });

  it('importScripts and import() of declared files: nothing said, and the worker runs', async () => {
    expect(await said('@w/w/loads')).to.deep.equal({ status: 'valid', warnings: [] });
    expect(await shown('@w/w/loads')).to.equal('worker helped imported');
  });

  it('importScripts in a try of a module worker: nothing said, and the worker runs on (its TypeError caught)', async () => {
    expect(await said('@w/w/tries')).to.deep.equal({ status: 'valid', warnings: [] });
    expect(await shown('@w/w/tries')).to.equal('worker imported');
  });

  it('importScripts where a module worker starts: WORKER_TYPE_MISMATCH, and Chromium throws a TypeError', async () => {
    expect(await said('@w/w/throws')).to.deep.equal({ status: 'valid', warnings: ['WORKER_TYPE_MISMATCH packages/w/throws/worker.js:1:1'] });
    expect(await shown('@w/w/throws')).to.match(/^worker failed: .*TypeError/);
  });
});
