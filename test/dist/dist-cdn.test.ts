// The page `core dist` writes for an entry importing a package from outside the workspace
// (README "Distribution: core dist"): with a CDN origin its import map maps the package to it at
// its installed version, and the page runs in Chromium from a plain static server; without one
// (or with `local`) no page is written and stderr names the imports and the option.
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { staticServer } from '../helpers/static-server.js';
import { installedWorkspace } from './installed.js';
import { runCore } from './run-core.js';

// `@p/a/main` imports `dep` (declared ^1.0.0, 1.0.3 installed) and `dep/extra`; `@p/a/other`,
// only preloaded by the page, imports `other-dep`, which is not installed.
function externalWorkspace(): string {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return installedWorkspace({
    'core.json': json({ packages: ['packages/a'], preview: '@p/a/main' }),
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', core: { modules: 'src' }, dependencies: { dep: '^1.0.0', 'other-dep': '^2.0.0' } }),
    'packages/a/src/main/module.json': json({ entry: 'index.ts' }),
    'packages/a/src/main/index.ts': `import { v } from 'dep';\nimport { w } from 'dep/extra';\ndocument.body.insertAdjacentHTML('beforeend', '<p id="done">' + v + w + '</p>');\n`,
    'packages/a/src/other/module.json': json({ entry: 'index.ts' }),
    'packages/a/src/other/index.ts': `export { x } from 'other-dep';\n`,
    'node_modules/dep/package.json': json({ name: 'dep', version: '1.0.3', type: 'module', exports: { '.': './index.js', './extra': './extra.js' } }),
    'node_modules/dep/index.js': `export const v = 'DEP';\n`,
    'node_modules/dep/extra.js': `export const w = '+EXTRA';\n`,
  });
}

const importMapOf = (html: string): Record<string, string> => JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(html)![1]!).imports;

describe('core dist: the page of an entry importing a package from outside the workspace', function () {
  this.timeout(120_000);

  it('maps each such import to the CDN origin at its installed version, and what a preloaded module imports too when it has a version', async () => {
    const root = externalWorkspace();
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out, cdnOrigin: 'https://esm.sh/' });
    expect(result.ok).to.equal(true);
    expect(result.page).to.deep.equal({ written: true, path: 'index.html', entry: '@p/a/main' });
    const imports = importMapOf(fs.readFileSync(path.join(out, 'index.html'), 'utf8'));
    expect(imports).to.deep.equal({
      '@p/a/main': './@p/a@1.0.0/modules/main.js',
      '@p/a/other': './@p/a@1.0.0/modules/other.js',
      dep: 'https://esm.sh/dep@1.0.3',
      'dep/extra': 'https://esm.sh/dep@1.0.3/extra',
    });
    // The record's import map stays the workspace's own (README "Distribution: core dist").
    expect(result.manifest.importMap.imports).to.not.have.property('dep');
  });

  it('writes no page without a CDN origin, or with local, and removes the one an earlier run wrote', async () => {
    const root = externalWorkspace();
    const out = path.join(root, 'dist');
    expect((await distribute({ root, out, cdnOrigin: 'https://esm.sh' })).page.written).to.equal(true);
    for (const cdnOrigin of [null, 'local']) {
      const result = await distribute({ root, out, cdnOrigin });
      expect(result.ok, String(cdnOrigin)).to.equal(true);
      expect(result.page.written).to.equal(false);
      expect(result.page).to.have.property('unresolved').that.deep.equals(['dep', 'dep/extra']);
      expect(result.manifest.page).to.equal(null);
      expect(fs.existsSync(path.join(out, 'index.html'))).to.equal(false);
      expect(fs.existsSync(path.join(out, '@p/a@1.0.0/modules/main.js'))).to.equal(true);
    }
  });

  it('says on stderr which imports the page cannot resolve and names the option, exit code 0; refuses an origin that is none', async () => {
    const root = externalWorkspace();
    const run = await runCore(root, ['dist']);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.not.include('wrote the page');
    expect(run.stderr).to.include('core dist: no page written: the preview entry @p/a/main imports "dep", "dep/extra", from outside the workspace');
    expect(run.stderr).to.include('--cdn ORIGIN or CORE_CDN_ORIGIN');
    const local = await runCore(root, ['dist', '--cdn', 'local']);
    expect(local.code).to.equal(0);
    expect(local.stderr).to.include('"local" is the service itself, which no static file server answers');
    const wrong = await runCore(root, ['dist', '--cdn', 'esm.sh']);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.include('--cdn "esm.sh" is no origin');
    expect(fs.existsSync(path.join(root, 'dist/index.html'))).to.equal(false);
  });
});

describe('core dist: a page mapped to a CDN origin, in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let site: http.Server;
  let cdn: http.Server;

  // A CDN of the test's own: the package's files at /<package>@<version>/<subpath>, with CORS, as a CDN serves modules to another origin.
  const cdnFiles: Record<string, string> = { '/dep@1.0.3': `export const v = 'DEP';\n`, '/dep@1.0.3/extra': `export const w = '+EXTRA';\n` };
  const startCdn = (): Promise<http.Server> =>
    new Promise((resolve) => {
      const server = http.createServer((request, response) => {
        const body = cdnFiles[new URL(request.url ?? '/', 'http://x').pathname];
        if (body === undefined) response.writeHead(404).end();
        else response.writeHead(200, { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' }).end(body);
      });
      server.listen(0, '127.0.0.1', () => resolve(server));
    });

  before(async () => {
    const root = externalWorkspace();
    const out = path.join(root, 'dist');
    cdn = await startCdn();
    const result = await distribute({ root, out, cdnOrigin: `http://127.0.0.1:${(cdn.address() as { port: number }).port}` });
    expect(result.page.written).to.equal(true);
    site = await staticServer(out, null);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  });

  after(async () => {
    await browser?.close();
    for (const server of [site, cdn]) if (server) await new Promise((resolve) => server.close(resolve));
  });

  it('runs the entry with the package fetched from the CDN', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${(site.address() as { port: number }).port}/`);
    await page.waitForSelector('#done', { state: 'attached', timeout: 60_000 });
    expect(await page.textContent('#done')).to.equal('DEP+EXTRA');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});

// `@p/a/main` imports `dep` (1.0.3, installed at the root) and `@p/b/lib`, whose package has its
// own `dep` 2.0.0 installed in packages/b/node_modules: two versions of one external.
function twoVersionsWorkspace(): string {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return installedWorkspace({
    'core.json': json({ packages: ['packages/a', 'packages/b'], preview: '@p/a/main' }),
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', core: { modules: 'src' }, dependencies: { dep: '^1.0.0', '@p/b': '1.0.0' } }),
    'packages/a/src/main/module.json': json({ entry: 'index.ts' }),
    'packages/a/src/main/index.ts': `import { v } from 'dep';\nimport { bv } from '@p/b/lib';\ndocument.body.insertAdjacentHTML('beforeend', '<p id="done">' + v + '+' + bv + '</p>');\n`,
    'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', core: { modules: 'src' }, dependencies: { dep: '^2.0.0' } }),
    'packages/b/src/lib/module.json': json({ entry: 'index.ts' }),
    'packages/b/src/lib/index.ts': `import { v } from 'dep';\nexport const bv = v;\n`,
    'packages/b/node_modules/dep/package.json': json({ name: 'dep', version: '2.0.0', type: 'module', exports: './index.js' }),
    'packages/b/node_modules/dep/index.js': `export const v = 'DEP2';\n`,
    'node_modules/dep/package.json': json({ name: 'dep', version: '1.0.3', type: 'module', exports: './index.js' }),
    'node_modules/dep/index.js': `export const v = 'DEP';\n`,
  });
}

describe('core dist: two versions of one package from outside the workspace', function () {
  this.timeout(120_000);
  let browser: Browser | undefined;
  let site: http.Server | undefined;
  let cdn: http.Server | undefined;

  after(async () => {
    await browser?.close();
    for (const server of [site, cdn]) if (server) await new Promise((resolve) => server.close(resolve));
  });

  it("maps the entry's version at the top level and the other package's in the scope of its directory, and the page runs both", async () => {
    const root = twoVersionsWorkspace();
    const out = path.join(root, 'dist');
    const files: Record<string, string> = { '/dep@1.0.3': `export const v = 'DEP';\n`, '/dep@2.0.0': `export const v = 'DEP2';\n` };
    cdn = await new Promise<http.Server>((resolve) => {
      const server = http.createServer((request, response) => {
        const body = files[new URL(request.url ?? '/', 'http://x').pathname];
        if (body === undefined) response.writeHead(404).end();
        else response.writeHead(200, { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' }).end(body);
      });
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
    const origin = `http://127.0.0.1:${(cdn.address() as { port: number }).port}`;
    const result = await distribute({ root, out, cdnOrigin: origin });
    expect(result.page.written).to.equal(true);
    const map = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(fs.readFileSync(path.join(out, 'index.html'), 'utf8'))![1]!);
    expect(map.imports.dep).to.equal(`${origin}/dep@1.0.3`);
    expect(map.scopes).to.deep.equal({ './@p/b@1.0.0/': { dep: `${origin}/dep@2.0.0` } });
    site = await staticServer(out, null);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${(site.address() as { port: number }).port}/`);
    await page.waitForSelector('#done', { state: 'attached', timeout: 60_000 });
    expect(await page.textContent('#done')).to.equal('DEP+DEP2');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
