// The local CDN follows an installed package patched in place (README "The local CDN"): a
// kept bundle answers only while every file its build read, and every path its imports tried,
// is as the build found it; a patch of the same size and the same mtime (patch-package, an edit
// to debug, a restored timestamp) builds it again; an unchanged package is not built again; the
// answer is revalidated (`no-cache`, a strong ETag), so a reload in the browser shows the patch.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { registerLocalCdn, type LocalCdn } from '../../src/development/local-cdn.js';
import { MTIME_LAG_MS } from '../../src/io/file-hashes.js';
import type { ServiceExtension } from '../../src/extension.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const IMPL = "export const greet = () => 'hello from before';\n";
const PATCHED = "export const greet = () => 'hello from AFTER!';\n";

/**
 * A workspace whose preview imports `patchme`, an installed package whose entry imports
 * `./lib/impl` (impl.js, found after impl.jsx was tried) and `./lib/typed` (typed.ts, found after
 * typed.jsx, typed.js and typed.tsx were tried: inside node_modules esbuild tries JavaScript first).
 * `files`: the package's files written instead, or besides, by their paths in it.
 */
function workspace(files: Record<string, string> = {}): { root: string; impl: string } {
  const packageFiles = {
    'package.json': json({ name: 'patchme', version: '1.0.0', type: 'module', main: 'index.js' }),
    'index.js': "export { greet } from './lib/impl';\nexport { kind } from './lib/typed';\n",
    'lib/impl.js': IMPL,
    'lib/typed.ts': "export const kind: string = 'from typed.ts';\n",
    ...files,
  };
  const root = tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@p/app/main' }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { patchme: '1.0.0' } }),
    'packages/app/main/index.ts': "import { greet } from 'patchme';\ndocument.body.textContent = greet();\n",
    ...Object.fromEntries(Object.entries(packageFiles).map(([file, text]) => [`node_modules/patchme/${file}`, text])),
  });
  // As npm installs a package: files whose mtimes are long past.
  // Whole seconds, which utimes sets exactly (a patch puts the very same mtime back).
  const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  for (const file of Object.keys(packageFiles)) fs.utimesSync(path.join(root, 'node_modules/patchme', file), past, past);
  // Installed before any build starts: their ctimes (now) out of the window in which a write may be one during the build (README "Addresses").
  const installedAt = Date.now();
  while (Date.now() <= installedAt + MTIME_LAG_MS);
  return { root, impl: path.join(root, 'node_modules/patchme/lib/impl.js') };
}

/** Rewrites `file` in place with `text` of the same length, its mtime put back as it was: only its ctime tells. */
function patchInPlace(file: string, text: string): void {
  const { atime, mtime, size } = fs.statSync(file);
  const mtimeNs = fs.statSync(file, { bigint: true }).mtimeNs;
  expect(Buffer.byteLength(text), 'a patch of the same size').to.equal(size);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, atime, mtime);
  expect(fs.statSync(file, { bigint: true }).mtimeNs, 'the same mtime').to.equal(mtimeNs);
}

describe('the local CDN, an installed package patched in place', function () {
  let cdn: LocalCdn;
  // The local CDN alone, so that its kept bundles can be counted.
  const localCdnOnly: ServiceExtension = { name: 'local-cdn', setup: (host) => void (cdn = registerLocalCdn(host)) };

  it('answers the patched code, a same-size same-mtime patch included, and the old ETag no more', async function () {
    const { root, impl } = workspace();
    const service = await serve(root, { cdnOrigin: 'local', extensions: [localCdnOnly] });
    try {
      const first = await service.get('/cdn/patchme@1.0.0');
      expect(first.status).to.equal(200);
      expect(first.text).to.include('hello from before');
      expect(first.headers['cache-control'], 'an answer that can change is revalidated').to.equal('no-cache');
      expect(first.headers['access-control-allow-origin']).to.equal('*');
      expect(first.headers.etag).to.match(/^"[A-Za-z0-9_-]{22}"$/);
      expect((await service.get('/cdn/patchme@1.0.0', { 'If-None-Match': first.headers.etag! })).status).to.equal(304);

      patchInPlace(impl, PATCHED);
      const patched = await service.get('/cdn/patchme@1.0.0');
      expect(patched.status).to.equal(200);
      expect(patched.text).to.include('hello from AFTER!').and.not.include('hello from before');
      expect(patched.headers.etag).to.not.equal(first.headers.etag);
      const withOld = await service.get('/cdn/patchme@1.0.0', { 'If-None-Match': first.headers.etag! });
      expect(withOld.status, 'the old ETag is not the content now').to.equal(200);
      expect(withOld.body.equals(patched.body)).to.equal(true);
      expect((await service.get('/cdn/patchme@1.0.0', { 'If-None-Match': patched.headers.etag! })).status).to.equal(304);
    } finally {
      await service.close();
    }
  });

  it('builds an unchanged package once, and again only after a patch', async function () {
    const { root, impl } = workspace();
    const service = await serve(root, { cdnOrigin: 'local', extensions: [localCdnOnly] });
    try {
      for (let request = 0; request < 5; request += 1) expect((await service.get('/cdn/patchme@1.0.0')).status).to.equal(200);
      expect(cdn.kept(), 'five answers, one build').to.deep.include({ count: 1, builds: 1 });
      patchInPlace(impl, PATCHED);
      for (let request = 0; request < 5; request += 1) expect((await service.get('/cdn/patchme@1.0.0')).text).to.include('hello from AFTER!');
      expect(cdn.kept(), 'built again once, for the patch').to.deep.include({ count: 1, builds: 2 });
    } finally {
      await service.close();
    }
  });

  it('builds again when a file is made where an import tried before the file it found', async function () {
    const { root } = workspace();
    const service = await serve(root, { cdnOrigin: 'local', extensions: [localCdnOnly] });
    try {
      expect((await service.get('/cdn/patchme@1.0.0')).text).to.include('hello from before');
      // Inside node_modules, esbuild resolves `./lib/impl` to impl.jsx before impl.js.
      fs.writeFileSync(path.join(root, 'node_modules/patchme/lib/impl.jsx'), "export const greet = () => 'hello from impl.jsx';\n");
      const now = await service.get('/cdn/patchme@1.0.0');
      expect(now.text).to.include('hello from impl.jsx').and.not.include('hello from before');
      expect(cdn.kept().builds).to.equal(2);
    } finally {
      await service.close();
    }
  });

  it('builds again when a JavaScript file is made beside the TypeScript one found, as esbuild tries them inside node_modules', async function () {
    const { root } = workspace();
    const service = await serve(root, { cdnOrigin: 'local', extensions: [localCdnOnly] });
    try {
      expect((await service.get('/cdn/patchme@1.0.0')).text).to.include('from typed.ts');
      fs.writeFileSync(path.join(root, 'node_modules/patchme/lib/typed.js'), "export const kind = 'from typed.js';\n");
      const now = await service.get('/cdn/patchme@1.0.0');
      expect(now.text).to.include('from typed.js').and.not.include('from typed.ts');
    } finally {
      await service.close();
    }
  });

  it('builds again when a file is made where a dynamic import by a pattern looks, below its first directory too', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@p/app/main' }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': 'export {};\n',
      'node_modules/globbed/package.json': json({ name: 'globbed', version: '1.0.0', main: 'index.js' }),
      'node_modules/globbed/index.js': "export const load = (n) => import(`./locale/${n}.js`);\nexport const data = (n) => require('./data/' + n);\n",
      'node_modules/globbed/locale/en.js': "export default 'LOCALE_EN';\n",
      'node_modules/globbed/locale/regional/en-gb.js': "export default 'LOCALE_EN_GB';\n",
      'node_modules/globbed/data/a.json': '{"first": "DATA_A"}',
    });
    const service = await serve(root, { cdnOrigin: 'local', extensions: [localCdnOnly] });
    const code = async () => (await service.get('/cdn/globbed@1.0.0')).text;
    try {
      expect(await code()).to.include('LOCALE_EN').and.include('LOCALE_EN_GB').and.include('DATA_A');
      fs.writeFileSync(path.join(root, 'node_modules/globbed/locale/fr.js'), "export default 'LOCALE_FR';\n");
      expect(await code()).to.include('LOCALE_FR');
      fs.writeFileSync(path.join(root, 'node_modules/globbed/locale/regional/fr-ca.js'), "export default 'LOCALE_FR_CA';\n");
      expect(await code()).to.include('LOCALE_FR_CA');
      fs.writeFileSync(path.join(root, 'node_modules/globbed/data/b.json'), '{"second": "DATA_B"}');
      expect(await code()).to.include('DATA_B');
    } finally {
      await service.close();
    }
  });

  it('keeps a package directory\'s reader only while a bundle of it is kept: dropped with its last bundle, and after a failed build', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@p/app/main' }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': 'export {};\n',
      'node_modules/one/package.json': json({ name: 'one', version: '1.0.0', main: 'index.js', exports: { '.': './index.js', './more': './more.js' } }),
      'node_modules/one/index.js': `export const one = '${'1'.repeat(3000)}';\n`,
      'node_modules/one/more.js': `export const more = '${'m'.repeat(3000)}';\n`,
      'node_modules/two/package.json': json({ name: 'two', version: '1.0.0', main: 'index.js' }),
      'node_modules/two/index.js': `export const two = '${'2'.repeat(3000)}';\n`,
      'node_modules/broken/package.json': json({ name: 'broken', version: '1.0.0', main: 'index.js' }),
      'node_modules/broken/index.js': 'export const = ;\n',
    });
    // Room for two of these bundles, not three.
    const small: ServiceExtension = { name: 'local-cdn', setup: (host) => void (cdn = registerLocalCdn(host, { keptBytes: 8000 })) };
    const service = await serve(root, { cdnOrigin: 'local', extensions: [small] });
    try {
      expect((await service.get('/cdn/one@1.0.0')).status).to.equal(200);
      expect((await service.get('/cdn/one@1.0.0/more')).status).to.equal(200);
      expect(cdn.kept(), 'one directory, two bundles').to.deep.include({ count: 2, readers: 1 });
      expect((await service.get('/cdn/two@1.0.0')).status).to.equal(200);
      expect(cdn.kept(), 'one of one\'s bundles dropped: its reader stays for the other').to.deep.include({ count: 2, readers: 2 });
      expect((await service.get('/cdn/two@1.0.0')).status).to.equal(200);
      expect((await service.get('/cdn/one@1.0.0/more')).status).to.equal(200);
      expect((await service.get('/cdn/two@1.0.0')).status).to.equal(200);
      expect((await service.get('/cdn/one@1.0.0/more')).status).to.equal(200);
      expect((await service.get('/cdn/one@1.0.0')).status).to.equal(200);
      expect(cdn.kept(), 'two dropped, its last bundle gone: its reader too').to.deep.include({ count: 2, readers: 1 });
      expect((await service.get('/cdn/broken@1.0.0')).status).to.equal(422);
      expect(cdn.kept(), 'no reader kept for a build that failed').to.deep.include({ count: 2, readers: 1 });
    } finally {
      await service.close();
    }
  });

  it('names each installed package in the import map by the hash of its bytes: that address immutable and only those bytes, the plain one revalidated, a patch a new address', async function () {
    const { root, impl } = workspace({
      'lib/look.css': '.patchme { color: red; }\n',
      'index.js': "import './lib/look.css';\nexport { greet } from './lib/impl';\nexport { kind } from './lib/typed';\n",
    });
    const service = await serve(root, { cdnOrigin: 'local' });
    const mapped = async () => (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; stylesheets?: { specifier: string; href: string }[] }>();
    try {
      const before = await mapped();
      const address = before.imports.patchme!;
      expect(address).to.match(/^\/cdn\/patchme@1\.0\.0\?v=[A-Za-z0-9_-]{22}$/);
      const named = await service.get(address);
      expect(named.status).to.equal(200);
      expect(named.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(named.headers.etag).to.equal(`"${address.split('?v=')[1]}"`);
      expect(named.text).to.include('hello from before');
      const sheet = before.stylesheets?.find((link) => link.specifier === 'patchme')?.href;
      expect(sheet).to.match(/^\/cdn\/patchme@1\.0\.0\?styles&v=[A-Za-z0-9_-]{22}$/);
      const sheetAnswer = await service.get(sheet!);
      expect(sheetAnswer.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(sheetAnswer.text).to.include('red');
      const plain = await service.get('/cdn/patchme@1.0.0');
      expect(plain.headers['cache-control'], 'the plain address stays revalidated').to.equal('no-cache');
      expect(plain.headers.etag).to.equal(named.headers.etag);
      expect((await service.get('/cdn/patchme@1.0.0?v=token')).headers['cache-control'], 'a v that is no hash is a plain token').to.equal('no-cache');
      const other = await service.get('/cdn/patchme@1.0.0?v=AAAAAAAAAAAAAAAAAAAAAA');
      expect(other.status, 'a hash of bytes it never had').to.equal(404);
      expect(other.json<{ code: string }>().code).to.equal('OUTPUT_NOT_AVAILABLE');

      patchInPlace(impl, PATCHED);
      const kept = await service.get(address);
      expect(kept.text, 'the old address answers the old bytes while they are kept').to.include('hello from before');
      const after = await mapped();
      expect(after.imports.patchme, 'a patched package gets a new address').to.not.equal(address);
      const patched = await service.get(after.imports.patchme!);
      expect(patched.text).to.include('hello from AFTER!');
      expect(patched.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      const old = await service.get(address);
      expect(old.status, 'the old bytes, dropped once judged stale, are not answered as the old address').to.equal(404);
      expect(old.json<{ code: string }>().code).to.equal('OUTPUT_NOT_AVAILABLE');
    } finally {
      await service.close();
    }
  });

  it("builds again when a file is made where esbuild looks before TypeScript's rewrite: `./x.js`, found as x.ts, once x.js.jsx is made", async function () {
    const { root } = workspace({ 'index.js': "export { greet } from './lib/x.js';\n", 'lib/x.ts': "export const greet = (): string => 'hello from x.ts';\n" });
    const service = await serve(root, { cdnOrigin: 'local', extensions: [localCdnOnly] });
    try {
      expect((await service.get('/cdn/patchme@1.0.0')).text).to.include('hello from x.ts');
      // Inside node_modules, the first of the names esbuild tries before the rewrite to x.ts.
      fs.writeFileSync(path.join(root, 'node_modules/patchme/lib/x.js.jsx'), "export const greet = () => 'hello from x.js.jsx';\n");
      const now = await service.get('/cdn/patchme@1.0.0');
      expect(now.text).to.include('hello from x.js.jsx').and.not.include('hello from x.ts');
    } finally {
      await service.close();
    }
  });

  describe('in Chromium', function () {
    let browser: Browser | undefined;
    let watched: Watched;
    let service: Awaited<ReturnType<typeof serve>>;
    let impl: string;

    before(async function () {
      const made = workspace();
      impl = made.impl;
      service = await serve(made.root, { cdnOrigin: 'local' });
      ({ browser, watched } = await openPreview(service.url));
    });
    after(async function () {
      await browser?.close();
      await service?.close();
    });

    const shown = async (text: string) => {
      await watched.page.waitForFunction((expected) => document.body.textContent === expected, text, { timeout: 20_000 }).catch(() => {});
      return watched.page.evaluate(() => document.body.textContent);
    };

    it('fetches no unchanged package on a reload, and shows the patched behaviour after one', async function () {
      expect(await shown('hello from before'), `page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`).to.equal('hello from before');
      // What the page asks the network for (a 304 included), not what its cache answers.
      const cdp = await watched.page.context().newCDPSession(watched.page);
      const fetched: string[] = [];
      const cached = new Set<string>();
      cdp.on('Network.requestServedFromCache', ({ requestId }) => void cached.add(requestId));
      cdp.on('Network.responseReceived', ({ requestId, response }) => {
        if (new URL(response.url).pathname.startsWith('/cdn/') && !cached.has(requestId) && !response.fromDiskCache && !response.fromServiceWorker) fetched.push(`${response.status} ${response.url}`);
      });
      await cdp.send('Network.enable');
      await watched.page.reload({ waitUntil: 'load' });
      expect(await shown('hello from before')).to.equal('hello from before');
      expect(fetched, 'the import map names the package by the hash of its bytes: immutable, kept by the browser').to.deep.equal([]);
      patchInPlace(impl, PATCHED);
      await watched.page.reload({ waitUntil: 'load' });
      expect(await shown('hello from AFTER!'), `page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`).to.equal('hello from AFTER!');
    });
  });
});
