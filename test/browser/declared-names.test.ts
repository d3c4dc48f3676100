// Names TypeScript declares for its checker alone, which esbuild erases, in Chromium (README
// "Bundling real code", names nothing binds): a read of a global only a declaration file the
// package's tsconfig includes declares (`declare function analytics(...)` in types/globals.d.ts,
// `declare global { var eventQueue }` in a module one), and a write of a name declared so, in a
// declaration file or in the source (`declare let counter: number; counter = 1;`), throw when the
// module is imported, and /state lists each invalid, as core dist does; a module testing such a
// global with typeof, or writing the declared name on the global object first, is valid and runs
// on the preview.
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { chromiumForSuite, openPage, until } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SHOW = (value: string) => `document.body.insertAdjacentHTML('beforeend', '<p id="shown">' + ${value} + '</p>');\n`;

const THROWING = {
  declarationFileCall: { text: `analytics('js');\n${SHOW("'tracked'")}`, thrown: 'analytics is not defined' },
  declarationFileBlock: { text: `eventQueue.push('x');\n${SHOW("'pushed'")}`, thrown: 'eventQueue is not defined' },
  // Written only, never read: the write alone throws.
  declarationFileWrite: { text: `pageCounter = 1;\n${SHOW("'counted'")}`, thrown: 'pageCounter is not defined' },
  declaredWrite: { text: `declare let counter: number;\ncounter = 1;\n${SHOW("'counted'")}`, thrown: 'counter is not defined' },
} as const;

const RUNNING = {
  declarationFileTested: { text: `if (typeof analytics === 'function') analytics('js');\n${SHOW("'tracked ' + typeof analytics")}`, shown: 'tracked undefined' },
  declaredWriteShimmed: { text: `declare let shimmedCounter: number;\n(globalThis as { shimmedCounter?: number }).shimmedCounter = 0;\nshimmedCounter = 1;\n${SHOW("'counted ' + shimmedCounter")}`, shown: 'counted 1' },
} as const;

function workspace(): string {
  const cases = { ...THROWING, ...RUNNING };
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'] }),
    'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: Object.fromEntries(Object.keys(cases).map((name) => [`./${name}`, `./${name}/index.ts`])) }),
    // The globals, declared where only the checker reads them.
    'packages/app/tsconfig.json': json({ include: ['*/index.ts', 'types'] }),
    'packages/app/types/globals.d.ts': 'declare function analytics(...args: unknown[]): void;\ndeclare let pageCounter: number;\n',
    'packages/app/types/page.d.ts': 'export {};\ndeclare global {\n  var eventQueue: unknown[];\n}\n',
    ...Object.fromEntries(Object.entries(cases).map(([name, { text }]) => [`packages/app/${name}/index.ts`, `${text}export {};\n`])),
  });
}

describe('names TypeScript declares for its checker alone, read or written where the import runs, in Chromium', function () {
  this.timeout(300_000);
  const browser = chromiumForSuite();
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  it('runs the code esbuild writes for each module /state calls invalid, and it throws on the page', async function () {
    const statuses = new Map((await service.report()).modules.map((m) => [m.specifier, m.status]));
    for (const [name, { thrown }] of Object.entries(THROWING)) {
      const specifier = `@u/app/${name}`;
      expect(statuses.get(specifier), name).to.equal('invalid');
      for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
        const target: BundleTarget = { specifier, subpath: name, dir: `packages/app/${name}`, entry: `packages/app/${name}/index.ts`, assets: [], platforms: ['web'] };
        const built = await esbuildApi.build(esbuildOptions(root, [target], variant));
        const code = built.outputFiles!.find((file) => file.path.endsWith('.js'))!.text;
        const watched = await openPage(browser());
        try {
          await watched.page.setContent('<!doctype html><html><body></body></html>');
          await watched.page.addScriptTag({ type: 'module', content: code });
          await until(() => watched.errors.length > 0, `${name} (${variant.env}) to throw`, 60_000);
          expect(watched.errors.join(' | '), `${name} ${variant.env}`).to.include(thrown);
          expect(await watched.page.locator('#shown').count(), `${name} ${variant.env}`).to.equal(0);
        } finally {
          await watched.page.close();
        }
      }
    }
  });

  it('runs on the preview each module /state calls valid', async function () {
    const statuses = new Map((await service.report()).modules.map((m) => [m.specifier, m.status]));
    for (const [name, { shown }] of Object.entries(RUNNING)) {
      const specifier = `@u/app/${name}`;
      expect(statuses.get(specifier), name).to.equal('valid');
      const watched = await openPage(browser());
      try {
        await watched.page.goto(new URL(`/preview/?entry=${encodeURIComponent(specifier)}`, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForSelector('#shown', { timeout: 60_000 }).catch(() => {
          throw new Error(`${specifier} never ran; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
        });
        expect(await watched.page.locator('#shown').textContent(), name).to.equal(shown);
        expect(watched.errors, name).to.deep.equal([]);
      } finally {
        await watched.page.close();
      }
    }
  });

  it('core dist judges as /state does: it writes each module that runs, and none that throws', async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out, parallelism: 2 });
    const invalid = result.invalid.map(({ module }) => module.specifier).sort();
    expect(invalid).to.deep.equal(Object.keys(THROWING).map((name) => `@u/app/${name}`).sort());
    for (const name of Object.keys(RUNNING)) expect(fs.existsSync(path.join(out, '@u/app@1.0.0/modules', `${name}.js`)), name).to.equal(true);
  });
});
