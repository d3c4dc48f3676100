// The service as its own CDN (`cdnOrigin: 'local'`): packages installed in node_modules and
// workspace packages left out of the selection answered at /cdn/, a page that renders with no
// network, one copy of each package on it. The installed packages are ours, written here, and
// imitate real ones: an ESM package whose subpath imports its own root and which depends on
// another (a module-level singleton counting its loads), and a CommonJS package.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/ui'], preview: '@kit/app/main' }),
    'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { fakelit: '2.0.0', 'cjs-pkg': '1.0.0', '@kit/ui': '^3.0.0' } }),
    'packages/app/main/index.ts': `import { html } from 'fakelit';
import { directive } from 'fakelit/directive.js';
import { shout } from 'cjs-pkg';
import { badge } from '@kit/ui/badge';
document.body.textContent = \`\${html('ok')} \${directive()} \${shout('hi')} \${badge()}\`;
`,
    'packages/ui/package.json': json({ name: '@kit/ui', version: '3.0.0', exports: { './badge': './badge.ts', './server': './server/index.ts' }, dependencies: { fakelit: '2.0.0' } }),
    'packages/ui/server/module.json': json({ platforms: ['node'] }),
    'packages/ui/server/index.ts': 'export const port = 80;\n',
    'packages/ui/badge.ts': "import { html } from 'fakelit';\nexport const badge = () => html('badge');\n",
    'node_modules/fakelit/package.json': json({ name: 'fakelit', version: '2.0.0', type: 'module', exports: { '.': { types: './index.d.ts', browser: './lib/index.js', default: './lib/node.js' }, './directive.js': './lib/directive.js' }, dependencies: { fakebase: '1.0.0' } }),
    'node_modules/fakelit/lib/index.js': "import { base } from 'fakebase';\nexport const html = (s) => base + ':' + s;\n",
    'node_modules/fakelit/lib/directive.js': "import { html } from 'fakelit';\nexport const directive = () => html('directive');\n",
    'node_modules/fakebase/package.json': json({ name: 'fakebase', version: '1.0.0', type: 'module', main: 'base.js' }),
    'node_modules/fakebase/base.js': "globalThis.fakebaseLoads = (globalThis.fakebaseLoads ?? 0) + 1;\nif (globalThis.fakebaseLoads > 1) console.warn('fakebase: loaded twice');\nexport const base = 'base';\n",
    'node_modules/cjs-pkg/package.json': json({ name: 'cjs-pkg', version: '1.0.0', main: 'index.js' }),
    'node_modules/cjs-pkg/index.js': "exports.shout = (s) => s.toUpperCase() + (process.env.NODE_ENV === 'production' ? '!' : '?');\n",
  });
}

describe('the local CDN', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  const entry = async () => (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[]; imports: Record<string, string> }>();

  it('maps installed packages to /cdn/, with what they import themselves, each named by the hash of its bytes', async function () {
    const { diagnostics, imports } = await entry();
    expect(diagnostics).to.deep.equal([]);
    const expected = {
      fakelit: '/cdn/fakelit@2.0.0',
      'fakelit/directive.js': '/cdn/fakelit@2.0.0/directive.js',
      'cjs-pkg': '/cdn/cjs-pkg@1.0.0',
      fakebase: '/cdn/fakebase@1.0.0',
    };
    for (const [specifier, address] of Object.entries(expected)) {
      expect(imports[specifier]).to.match(/\?v=[A-Za-z0-9_-]{22}$/);
      const [plain, hash] = imports[specifier]!.split('?v=');
      expect(plain).to.equal(address);
      expect((await service.get(address)).headers.etag, `${specifier}: v is the ETag of its plain address`).to.equal(`"${hash}"`);
    }
  });

  it('answers an installed entry for browsers, production, bare imports kept, revalidated, once built', async function () {
    const root = await service.get('/cdn/fakelit@2.0.0');
    expect(root.status).to.equal(200);
    // Not immutable: an installed file patched in place changes the answer (README "The local CDN").
    expect(root.headers['cache-control']).to.equal('no-cache');
    expect(root.headers.etag).to.match(/^"[A-Za-z0-9_-]{22}"$/);
    expect(root.headers['access-control-allow-origin']).to.equal('*');
    expect(root.text).to.match(/from\s*"fakebase"/);
    const cjs = await service.get('/cdn/cjs-pkg@1.0.0');
    expect(cjs.text).to.match(/export\s*\{[^}]*\bshout\b/);
    expect(cjs.text).to.include('"!"'); // process.env.NODE_ENV is "production"
    const again = await service.get('/cdn/fakelit@2.0.0');
    expect(again.body.equals(root.body)).to.equal(true);
    expect((await service.get('/cdn/fakelit@9.9.9')).status).to.equal(404);
    expect((await service.get('/cdn/not-installed@1.0.0')).status).to.equal(404);
  });

  // Redirected, not answered in place: the production bytes' relative asset addresses are
  // written for the depth of /m/ (README "The local CDN").
  const redirected = async (address: string) => {
    const got = await service.get(address);
    expect(got.status, address).to.equal(302);
    expect(got.headers['access-control-allow-origin'], address).to.equal('*');
    return got.headers.location!;
  };

  it('redirects a workspace package left out of the selection to its production output', async function () {
    const selection = path.join(root, '.core/selection.json');
    fs.mkdirSync(path.dirname(selection), { recursive: true });
    fs.writeFileSync(selection, json({ packages: ['@kit/app'] }));
    try {
      expect((await entry()).imports['@kit/ui/badge']).to.equal('/cdn/@kit/ui@3.0.0/badge');
      expect(await redirected('/cdn/@kit/ui@3.0.0/badge')).to.equal('/m/@kit/ui@3.0.0/modules/badge?env=production');
      const served = await service.get(await redirected('/cdn/@kit/ui@3.0.0/badge'));
      const production = await service.get('/m/@kit/ui@3.0.0/modules/badge?env=production');
      expect(served.status).to.equal(200);
      expect(served.body.equals(production.body)).to.equal(true);
    } finally {
      fs.rmSync(selection, { force: true });
    }
  });

  it('redirects a workspace package to /m/, which answers its production output, refusals and headers included', async function () {
    const PRODUCTION = 'target=browser&env=production&min=true&sourcemap=none';
    const pairs: [string, string][] = [
      ['/cdn/@kit/ui@3.0.0/badge', `/m/@kit/ui@3.0.0/modules/badge?${PRODUCTION}`],
      ['/cdn/@kit/ui@3.0.0/badge?styles', `/m/@kit/ui@3.0.0/styles/badge?${PRODUCTION}`],
      ['/cdn/@kit/ui@3.0.0/server', `/m/@kit/ui@3.0.0/modules/server?${PRODUCTION}`],
      ['/cdn/@kit/ui@3.0.0/absent', `/m/@kit/ui@3.0.0/modules/absent?${PRODUCTION}`],
      ['/cdn/@kit/ui@2.0.0/badge', `/m/@kit/ui@2.0.0/modules/badge?${PRODUCTION}`],
    ];
    const answer = async (address: string) => {
      const got = await service.get(address);
      const error = got.status === 200 ? null : got.json<{ code: string; message: string }>();
      return { status: got.status, code: error?.code, message: error?.message, etag: got.headers.etag, cacheControl: got.headers['cache-control'], cors: got.headers['access-control-allow-origin'] };
    };
    const answers = await Promise.all(pairs.map(async ([cdn, m]) => [await answer(await redirected(cdn)), await answer(m)]));
    for (const [index, [cdn, m]] of answers.entries()) expect(cdn, pairs[index]![0]).to.deep.equal(m);
    expect(answers.map(([cdn]) => [cdn!.status, cdn!.code])).to.deep.equal([
      [200, undefined],
      [404, 'OUTPUT_NOT_AVAILABLE'],
      [404, 'CONDITIONAL_NOT_FOUND'],
      [404, 'OUTPUT_NOT_AVAILABLE'],
      [404, 'OUTPUT_NOT_AVAILABLE'],
    ]);
  });

  it('answers the copy installed now: after an upgrade in place, the new version from its own files, and the old one no more', async function () {
    const upgraded = workspace();
    const own = await serve(upgraded, { cdnOrigin: 'local' });
    try {
      const before = await own.get('/cdn/cjs-pkg@1.0.0');
      expect(before.status).to.equal(200);
      expect(before.text).to.include('toUpperCase');
      // npm install cjs-pkg@1.1.0: new files in the same directory.
      fs.writeFileSync(path.join(upgraded, 'node_modules/cjs-pkg/package.json'), json({ name: 'cjs-pkg', version: '1.1.0', main: 'index.js' }));
      fs.writeFileSync(path.join(upgraded, 'node_modules/cjs-pkg/index.js'), "exports.shout = (s) => s.toLowerCase() + ' UPGRADED';\n");
      const now = await own.get('/cdn/cjs-pkg@1.1.0');
      expect(now.status).to.equal(200);
      expect(now.text, 'the new version, built from its files').to.include('UPGRADED').and.not.include('toUpperCase');
      const old = await own.get('/cdn/cjs-pkg@1.0.0');
      expect(old.status, 'the version no longer installed').to.equal(404);
      expect(old.json<{ code: string }>().code).to.equal('OUTPUT_NOT_AVAILABLE');
    } finally {
      await own.close();
    }
  });

  describe('in Chromium, with no network', function () {
    let browser: Browser;
    let watched: Watched;

    before(async function () {
      ({ browser, watched } = await openPreview(service.url));
    });
    after(async function () {
      await browser?.close();
    });

    it('renders, with one copy of each package', async function () {
      await watched.page.waitForFunction(() => document.body.textContent?.includes('HI!'), null, { timeout: 20_000 }).catch(() => {});
      const shown = await watched.page.evaluate(() => ({ text: document.body.textContent, loads: (globalThis as { fakebaseLoads?: number }).fakebaseLoads }));
      expect(shown, `page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`).to.deep.equal({ text: 'base:ok base:directive HI! base:badge', loads: 1 });
    });

    it('still renders after a selection, the packages left out served from /cdn/ as production output', async function () {
      const selection = path.join(root, '.core/selection.json');
      fs.mkdirSync(path.dirname(selection), { recursive: true });
      fs.writeFileSync(selection, json({ packages: ['@kit/app'] }));
      try {
        const fetched: string[] = [];
        watched.page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
        await watched.page.reload({ waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.textContent?.includes('base:badge'), null, { timeout: 20_000 }).catch(() => {});
        const shown = await watched.page.evaluate(() => ({ text: document.body.textContent, loads: (globalThis as { fakebaseLoads?: number }).fakebaseLoads }));
        expect(shown, `page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`).to.deep.equal({ text: 'base:ok base:directive HI! base:badge', loads: 1 });
        expect(fetched).to.include('/cdn/@kit/ui@3.0.0/badge');
      } finally {
        fs.rmSync(selection, { force: true });
      }
    });
  });
});
