// The distribution in a real browser: a page at the root of the output directory, served by
// a plain static file server, with the import map of core-distribution.json, renders the
// basic fixture's element with its stylesheet and asset. No service runs.
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import type { DistributionManifest } from '../../src/dist/distribution-manifest.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { TEST_FIXTURES_DIR } from '../helpers/workspace.js';
import { installCore, installedWorkspace } from './installed.js';
import { staticServer } from '../helpers/static-server.js';
import { sharedStateWorkspace, SHOWN } from '../helpers/shared-workspace.js';

const launchBrowser = () =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });

// A production page as README "Distribution: core dist" shows it: the stylesheets linked, the entry imported.
const handWrittenPage = (manifest: DistributionManifest, sheets: string[], entry: string) => `<!doctype html>
<html>
  <head>
    <script type="importmap">${JSON.stringify(manifest.importMap)}</script>
    ${sheets.map((sheet) => `<link rel="stylesheet" href="./${sheet}">`).join('\n    ')}
    <script type="module">import ${JSON.stringify(entry)};</script>
  </head>
  <body></body>
</html>`;

/** What went wrong on `page`: its uncaught errors and every answer of 400 or more. */
function failuresOf(page: Page): string[] {
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
  });
  return failures;
}

describe('core dist output in a browser', () => {
  let browser: Browser;
  let server: http.Server;
  let manifest: DistributionManifest;

  before(async () => {
    const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
    const out = path.join(root, 'dist');
    ({ manifest } = await distribute({ root, out }));
    const styles = manifest.outputs.filter((output) => output.kind === 'styles' && output.module === '@acme/app/main');
    server = await staticServer(out, handWrittenPage(manifest, styles.map((output) => output.path), '@acme/app/main'));
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    // A before() that failed leaves no server: nothing to wait for.
    if (server) await new Promise((resolve) => server.close(resolve));
  });

  it('renders acme-probe with the formatted number, its stylesheet colour and its logo', async () => {
    const page = await browser.newPage();
    const failures = failuresOf(page);
    const { port } = server.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('acme-probe .core-probe-text');
    expect(await page.textContent('acme-probe .core-probe-text')).to.include('No. 00042');
    expect(await page.$eval('acme-probe', (element) => getComputedStyle(element).color)).to.equal('rgb(1, 2, 3)');
    await page.waitForFunction(() => (document.querySelector('acme-probe img') as HTMLImageElement | null)?.complete === true);
    const logo = await page.$eval('acme-probe img', (image) => ({ src: (image as HTMLImageElement).src, width: (image as HTMLImageElement).naturalWidth }));
    expect(logo).to.deep.equal({ src: `http://127.0.0.1:${port}/@acme/app@1.0.0/assets/main/logo.svg`, width: 16 });
    expect(failures).to.deep.equal([]);
    await page.close();
  });
});

describe('the page core dist writes, from a plain static server', () => {
  let browser: Browser;
  let server: http.Server;
  let out: string;

  before(async () => {
    const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
    out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.page).to.deep.equal({ written: true, path: 'index.html', entry: '@acme/app/main' });
    const html = fs.readFileSync(path.join(out, 'index.html'));
    expect(result.manifest.page).to.deep.equal({ path: 'index.html', entry: '@acme/app/main', hash: contentHash(html), size: html.length });
    server = await staticServer(out, null);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });

  it('renders the preview entry with its stylesheet and asset, asking nothing of any other origin', async () => {
    const page = await browser.newPage();
    const failures = failuresOf(page);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const { port } = server.address() as { port: number };
    const origin = `http://127.0.0.1:${port}`;
    await page.goto(`${origin}/`);
    await page.waitForSelector('acme-probe .core-probe-text');
    expect(await page.textContent('acme-probe .core-probe-text')).to.include('No. 00042');
    expect(await page.$eval('acme-probe', (element) => getComputedStyle(element).color)).to.equal('rgb(1, 2, 3)');
    expect(failures).to.deep.equal([]);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).to.deep.equal([]);
    // The production page's shape: a stylesheet link and a module script, both relative.
    const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
    expect(html).to.include('<link rel="stylesheet" href="./@acme/app@1.0.0/styles/main.css">');
    expect(html).to.include('<script type="module" src="./@acme/app@1.0.0/modules/main.js"></script>');
    await page.close();
  });

  it("never overwrites an index.html that no core dist wrote, and removes its own when it has no page to write", async () => {
    const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
    const mine = path.join(root, 'mine');
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'index.html'), 'my own page');
    const kept = await distribute({ root, out: mine });
    expect(kept.page.written).to.equal(false);
    expect(fs.readFileSync(path.join(mine, 'index.html'), 'utf8')).to.equal('my own page');

    const ours = path.join(root, 'ours');
    expect((await distribute({ root, out: ours })).page.written).to.equal(true);
    // The preview entry now names a module that is not there: no page, and the old one goes.
    const core = JSON.parse(fs.readFileSync(path.join(root, 'core.json'), 'utf8'));
    fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ ...core, preview: '@acme/app/absent' }));
    const none = await distribute({ root, out: ours });
    expect(none.page).to.deep.equal({ written: false, reason: 'the preview entry @acme/app/absent is not a public module of the workspace' });
    expect(fs.existsSync(path.join(ours, 'index.html'))).to.equal(false);
  });
});

describe('core dist output of shared files in a browser', () => {
  let browser: Browser;
  let server: http.Server;
  let manifest: DistributionManifest;

  before(async () => {
    const root = installCore(sharedStateWorkspace());
    const out = path.join(root, 'dist');
    // Seven modules in seven jobs: the modules that share a file are built apart, and still import it once.
    ({ manifest } = await distribute({ root, out, parallelism: 7 }));
    server = await staticServer(out, handWrittenPage(manifest, [], '@r/app/main.js'));
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });

  it('shows one registry, one Symbol and one class, each shared file written and mapped once', async () => {
    expect(manifest.invalid).to.deep.equal([]);
    expect(manifest.importMap.imports['@r/lib/.shared/src/registry.ts']).to.equal('./@r/lib@1.0.0/modules/.shared/src/registry.ts.js');
    expect(manifest.outputs.filter((output) => output.path.includes('/.shared/')).map((output) => output.path)).to.deep.equal([
      '@r/lib@1.0.0/modules/.shared/src/base.ts.js',
      '@r/lib@1.0.0/modules/.shared/src/registry.ts.js',
      '@r/lib@1.0.0/modules/.shared/src/token.ts.js',
    ]);
    const page = await browser.newPage();
    const failures = failuresOf(page);
    const { port } = server.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#seed');
    const shown = await page.evaluate(() => Object.fromEntries(['registry', 'symbol', 'instance'].map((id) => [id, document.getElementById(id)?.textContent])));
    expect(shown).to.deep.equal(SHOWN);
    expect(failures).to.deep.equal([]);
    await page.close();
  });
});
