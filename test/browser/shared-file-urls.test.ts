// `new URL('./x.svg', import.meta.url)` in a shared file (README "Shared files"): it names the
// asset of the module nearest the file that declares it, as an import of the asset does, from
// wherever the shared file is served. Where `/state` says valid, the page gets the asset (200, its
// bytes) and the worker runs, on /preview/, on /preview/bundled/ and from `core dist`'s page.
// Before, every module importing the file was invalid, with a remedy naming an address under
// `assets/.shared/...` that nothing serves.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { distribute } from '../../src/dist/distribute.js';
import type { Report } from '../../src/store/selectors.js';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" id="x"/>';
const SHOWN = `worker logo 200 ${SVG}`;
const statuses = (report: Report) => report.modules.map((m) => [m.specifier, m.status, m.diagnostics.map((d) => [d.kind, d.file, d.message])]);

// Module a (a/) and module b (a/icons/, the nearer to the files) both declare them; a/icons/icon.ts is shared.
function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@u/app/a' }),
    'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: { './a': './a/index.ts', './b': './a/icons/index.ts' } }),
    'packages/app/a/module.json': json({ assets: ['icons/x.svg', 'icons/worker.js'] }),
    'packages/app/a/icons/module.json': json({ assets: ['x.svg', 'worker.js'] }),
    'packages/app/a/icons/x.svg': SVG,
    'packages/app/a/icons/worker.js': "self.postMessage('worker');\n",
    'packages/app/a/icons/icon.ts': [
      'export async function shown(): Promise<string> {',
      "  const worker = new Worker(new URL('./worker.js', import.meta.url));",
      '  const said = await new Promise<string>((resolve) => {',
      '    worker.onmessage = (event) => resolve(String(event.data));',
      "    worker.onerror = () => resolve('worker failed');",
      '  });',
      "  const answer = await fetch(new URL('./x.svg', import.meta.url));",
      '  return `${said} logo ${answer.status} ${await answer.text()}`;',
      '}',
      '',
    ].join('\n'),
    'packages/app/a/index.ts': "import { shown } from './icons/icon.ts';\ndocument.body.dataset.urls = await shown();\n",
    'packages/app/a/icons/index.ts': "import { shown } from './icon.ts';\nexport const b = shown;\n",
  });
}

describe("new URL(..., import.meta.url) of a declared asset in a shared file, in Chromium", function () {
  this.timeout(60_000);
  const browser = chromiumForSuite();

  async function shown(url: string): Promise<{ text: string | undefined; errors: string[]; failed: string[]; assets: string[] }> {
    const watched = await openPage(browser());
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.urls !== undefined, undefined, { timeout: 15_000 });
      const assets = watched.requests.map((request) => new URL(request).pathname).filter((pathname) => pathname.includes('assets/'));
      return { text: await watched.page.evaluate(() => document.body.dataset.urls), errors: watched.errors, failed: watched.failed, assets };
    } finally {
      await watched.page.close();
    }
  }

  it('is valid, names the nearest declaring module\'s asset, and runs on /preview/ and /preview/bundled/', async function () {
    const service = await serve(workspace());
    try {
      expect(statuses(await service.report())).to.deep.equal([
        ['@u/app/a', 'valid', []],
        ['@u/app/b', 'valid', []],
      ]);
      const code = (await service.get('/m/@u/app@1.0.0/modules/.shared/a/icons/icon.ts')).text;
      // With each asset's version in development (README "Preview and stylesheet push").
      expect(code).to.match(/new URL\("\.\.\/\.\.\/\.\.\/\.\.\/assets\/b\/worker\.js\?v=[\w-]{22}", import\.meta\.url\)/).and.to.match(/new URL\("\.\.\/\.\.\/\.\.\/\.\.\/assets\/b\/x\.svg\?v=[\w-]{22}", import\.meta\.url\)/);
      const logo = await service.get('/m/@u/app@1.0.0/assets/b/x.svg');
      expect([logo.status, logo.text]).to.deep.equal([200, SVG]);
      for (const address of ['/preview/', '/preview/bundled/']) {
        const page = await shown(new URL(address, service.url).href);
        expect(page, address).to.deep.include({ text: SHOWN, errors: [], failed: [] });
        expect(page.assets, address).to.include.members(['/m/@u/app@1.0.0/assets/b/x.svg', '/m/@u/app@1.0.0/assets/b/worker.js']);
      }
    } finally {
      await service.close();
    }
  });

  it("runs from core dist's page, served by a plain static server", async function () {
    const root = workspace();
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid).to.deep.equal([]);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shown(`http://127.0.0.1:${port}/`)).to.deep.include({ text: SHOWN, errors: [], failed: [] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('makes each importing module declare the asset itself; with none declaring it each is invalid naming the declaration to make, and valid again once both do', async function () {
    const root = workspace();
    fs.writeFileSync(path.join(root, 'packages/app/a/module.json'), json({ assets: ['icons/worker.js'] }));
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(report.modules.map((m) => [m.specifier, m.status, m.diagnostics.map((d) => [d.kind, d.file])])).to.deep.equal([
        ['@u/app/a', 'invalid', [['BUNDLE_ERROR', 'packages/app/a/icons/icon.ts']]],
        ['@u/app/b', 'valid', []],
      ]);
      expect(report.modules[0]!.diagnostics[0]!.message).to.include('"./x.svg" is not a declared asset of the module importing it');

      // No module declares it: each invalid at its place, naming the declaration that makes it work.
      fs.writeFileSync(path.join(root, 'packages/app/a/icons/module.json'), json({ assets: ['worker.js'] }));
      const undeclared = await waitFor(async () => {
        const next = await service.report();
        return next.modules.every((m) => m.status === 'invalid') && next;
      });
      for (const module of undeclared.modules) {
        expect(module.diagnostics.map((d) => [d.kind, d.file, d.line])).to.deep.equal([['BUNDLE_ERROR', 'packages/app/a/icons/icon.ts', 7]]);
        expect(module.diagnostics[0]!.message).to.include("new URL('./x.svg', import.meta.url)").and.to.include('under "assets"').and.not.to.include('assets/.shared');
      }

      // Declared by both again: valid, the file shared again, naming b's asset (the nearer).
      fs.writeFileSync(path.join(root, 'packages/app/a/icons/module.json'), json({ assets: ['x.svg', 'worker.js'] }));
      fs.writeFileSync(path.join(root, 'packages/app/a/module.json'), json({ assets: ['icons/x.svg', 'icons/worker.js'] }));
      await waitFor(async () => (await service.report()).modules.every((m) => m.status === 'valid'), { what: 'both valid' });
      const code = await waitFor(async () => {
        const answer = await service.get('/m/@u/app@1.0.0/modules/.shared/a/icons/icon.ts');
        return answer.status === 200 && answer.text;
      });
      expect(code).to.match(/new URL\("\.\.\/\.\.\/\.\.\/\.\.\/assets\/b\/x\.svg\?v=[\w-]{22}", import\.meta\.url\)/);
      const page = await shown(new URL('/preview/', service.url).href);
      expect(page).to.deep.include({ text: SHOWN, errors: [], failed: [] });
    } finally {
      await service.close();
    }
  });
});
