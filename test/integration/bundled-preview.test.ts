// The bundled preview (README "The bundled preview"): the page's development modules joined in
// one script and its stylesheets in one sheet, both named by content hash; what the CDN serves
// (and whatever a module loaded on its own imports) stays in the import map.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expectError } from '../helpers/answers.js';
import { remove, write } from '../helpers/edit.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { inlineWorkspace } from '../helpers/workspace.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Page {
  html: string;
  /** What stays a separate module: the map without the joined modules' names. */
  imports: Record<string, string>;
  /** The joined modules the map names, by small modules of the bundle's (README "The bundled preview"). */
  named: Record<string, string>;
  code: string;
  styles: string;
  currentStyles: string;
}

function readPage(html: string): Page {
  const mapped = (JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)![1]!) as { imports: Record<string, string> }).imports;
  const isNamed = ([, address]: [string, string]) => address.startsWith('/preview/bundled/module.js?');
  const imports = Object.fromEntries(Object.entries(mapped).filter((entry) => !isNamed(entry)));
  const named = Object.fromEntries(Object.entries(mapped).filter(isNamed));
  const sheet = /<link rel="stylesheet" href="([^"]+)" data-core-bundle="([^"]+)">/.exec(html)!;
  const code = /<script type="module">import "([^"]+)";<\/script>/.exec(html)![1]!;
  const unescape = (text: string) => text.replaceAll('&amp;', '&');
  return { html, imports, named, code, styles: unescape(sheet[1]!), currentStyles: unescape(sheet[2]!) };
}

describe('the bundled preview', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  const page = async (query = '') => {
    const answer = await service.get(`/preview/bundled/${query}`);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers['content-type']).to.match(/^text\/html/);
    expect(answer.headers['cache-control']).to.equal('no-store');
    return readPage(answer.text);
  };

  it('joins the modules in development into one script, named by its hash, and keeps the rest in the import map', async function () {
    const { imports, named, code, html } = await page();
    expect(Object.keys(imports), 'the modules in development are in the bundle, not the map').to.not.include.members(['@acme/app/main', '@acme/lib/format']);
    expect(Object.keys(named)).to.include.members(['@acme/app/main', '@acme/lib/format']);
    for (const address of Object.values(named)) expect(html).to.not.include(`<link rel="modulepreload" href="${address.replaceAll('&', '&amp;')}">`);
    expect(code).to.match(/^\/preview\/bundled\/code\.js\?entry=%40acme%2Fapp%2Fmain&v=[A-Za-z0-9_-]{22}$/);
    expect(html).to.include(`<link rel="modulepreload" href="${code.replaceAll('&', '&amp;')}">`);
    const script = await service.get(code);
    expect(script.status).to.equal(200);
    expect(script.headers['content-type']).to.match(/^text\/javascript/);
    expect(script.headers['cache-control']).to.equal(IMMUTABLE);
    expect(script.headers.etag).to.equal(`"${code.slice(-22)}"`);
    expect(script.headers).to.not.have.property('access-control-allow-origin');
    // The code of both packages, as compiled for their own addresses; no bare import of either left.
    expect(script.text).to.include('APP_HELPER_MARKER').and.to.include('No. ');
    expect(script.text).to.not.match(/from\s*"@acme\//);
    // The asset keeps resolving against the module's own address, not the bundle's.
    expect(script.text).to.include('new URL("/m/@acme/app@1.0.0/modules/main');
    // The source map is linked, named by what the bundle joined: a reload never fetches it, a
    // debugger does, and it is joined then.
    const mapAddress = /\/\/# sourceMappingURL=(\S+)\n$/.exec(script.text)![1]!;
    expect(mapAddress).to.match(/^\/preview\/bundled\/code\.js\.map\?entry=%40acme%2Fapp%2Fmain&v=[A-Za-z0-9_-]{22}$/);
    const map = await service.get(mapAddress);
    expect(map.status, map.text).to.equal(200);
    expect(map.headers['cache-control']).to.equal(IMMUTABLE);
    const { sources, sourcesContent, mappings } = map.json<{ sources: string[]; sourcesContent: string[]; mappings: string }>();
    expect(sources.some((source) => source.endsWith('packages/app/main/helper.ts')), sources.join(', ')).to.equal(true);
    expect(sourcesContent.join('\n')).to.include("export const HELPER_MARKER = 'APP_HELPER_MARKER';");
    // Joined apart from the code, the map is of that very code: one group of mappings per line.
    const lines = script.text.slice(0, script.text.lastIndexOf('//# sourceMappingURL=')).split('\n');
    const mapped = mappings.split(';').length;
    // esbuild ends the mappings at the last line it maps; after it, only the script's export of
    // its joined modules' names (README "The bundled preview"), which maps to no source.
    expect(mapped).to.be.at.most(lines.length);
    expect(lines.slice(mapped - 1).join('\n')).to.match(/^export \{\n {2}joinedNamespace\n\};\n$/);
    expect((await service.get(mapAddress.replace(/&v=.*$/, ''))).text, 'the current map at the plain address').to.equal(map.text);
    expectError(await service.get(mapAddress.replace(/v=[^&]+/, 'v=AAAAAAAAAAAAAAAAAAAAAA')), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['@acme/app/main'] });
    const plain = await service.get(code.replace(/&v=.*$/, ''));
    expect(plain.headers['cache-control']).to.equal('no-cache');
    expect(plain.text).to.equal(script.text);
  });

  it('joins every stylesheet into one sheet, its url() addresses made absolute', async function () {
    const { styles, currentStyles } = await page();
    expect(currentStyles).to.equal('/preview/bundled/styles.css?entry=%40acme%2Fapp%2Fmain');
    const sheet = await service.get(styles);
    expect(sheet.status).to.equal(200);
    expect(sheet.headers['content-type']).to.match(/^text\/css/);
    expect(sheet.headers['cache-control']).to.equal(IMMUTABLE);
    expect(sheet.text).to.include('rgb(1, 2, 3)');
    expect(sheet.headers.etag).to.equal(`"${styles.slice(-22)}"`);
    const mapAddress = /\/\*# sourceMappingURL=(\S+) \*\/\n$/.exec(sheet.text)![1]!;
    expect(mapAddress).to.match(/^\/preview\/bundled\/styles\.css\.map\?entry=%40acme%2Fapp%2Fmain&v=[A-Za-z0-9_-]{22}$/);
    const { sources } = (await service.get(mapAddress)).json<{ sources: string[] }>();
    expect(sources.some((source) => source.endsWith('packages/app/main/styles.css')), sources.join(', ')).to.equal(true);
  });

  it('gives an edited stylesheet a new sheet address; the old one keeps its bytes', async function () {
    const before = await page();
    const old = await service.get(before.styles);
    write(root, 'packages/app/main/styles.css', '.core-probe {\n  color: rgb(4, 5, 6);\n  background: url(./logo.svg);\n  display: block;\n}\n');
    try {
      const after = await page();
      expect(after.styles).to.not.equal(before.styles);
      // The open page keeps its script: its joined modules' names keep their addresses (README "The bundled preview").
      expect(Object.keys(after.named)).to.not.deep.equal([]);
      expect(after.named).to.deep.equal(before.named);
      const fresh = await service.get(after.styles);
      expect(fresh.text).to.include('rgb(4, 5, 6)');
      // A url() means what it meant at the stylesheet's own address, with the asset's version (README "Preview and stylesheet push").
      expect(fresh.text).to.match(/url\(\/m\/@acme\/app@1\.0\.0\/assets\/main\/logo\.svg\?v=[A-Za-z0-9_-]{22}\)/);
      const again = await service.get(before.styles);
      expect(again.status).to.equal(200);
      expect(again.text).to.equal(old.text);
      expect((await service.get(after.currentStyles)).headers.etag).to.equal(`"${after.styles.slice(-22)}"`);
    } finally {
      write(root, 'packages/app/main/styles.css', '.core-probe {\n  color: rgb(1, 2, 3);\n  display: block;\n}\n');
    }
  });

  it('answers OUTPUT_NOT_AVAILABLE for a hash it never made, and refuses other sites', async function () {
    const { code } = await page();
    expectError(await service.get(code.replace(/v=.*$/, 'v=AAAAAAAAAAAAAAAAAAAAAA')), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['@acme/app/main'] });
    expectError(await service.get(code, { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }), { status: 403, code: 'CROSS_SITE_REFUSED' });
  });

  it('keeps the last good sheet: the current sheet is refused while a module is broken', async function () {
    const before = await page();
    write(root, 'packages/app/main/helper.ts', 'export const greet = (: string => ;\n');
    try {
      const broken = await page();
      expect(broken.html).to.include('BUNDLE_ERROR');
      expect(Object.keys(broken.imports), 'the broken module is loaded on its own, and fails as on /preview/').to.include('@acme/app/main');
      expectError(await service.get(broken.currentStyles), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/app/main'], diagnostics: true });
      expect((await service.get(before.styles)).status, 'a named sheet is still served').to.equal(200);
    } finally {
      write(root, 'packages/app/main/helper.ts', "export const HELPER_MARKER = 'APP_HELPER_MARKER';\n\nexport const greet = (): string => `Hello from ${HELPER_MARKER}`;\n");
    }
    expect((await service.get(before.currentStyles)).status).to.equal(200);
  });

  it('leaves a package out of the selection in the import map, and joins the rest', async function () {
    write(root, '.core/selection.json', JSON.stringify({ packages: ['@acme/app'] }));
    try {
      const { imports, code } = await page();
      expect(imports['@acme/lib/format']).to.equal('https://cdn.test/@acme/lib@1.2.0/format');
      const script = await service.get(code);
      expect(script.text).to.include('APP_HELPER_MARKER');
      expect(script.text).to.match(/from\s*"@acme\/lib\/format"/);
    } finally {
      remove(root, '.core');
    }
  });

  it('previews another entry with ?entry=, and redirects /preview/bundled', async function () {
    const { code } = await page('?entry=@acme/lib/widgets/badge');
    expect(code).to.match(/entry=%40acme%2Flib%2Fwidgets%2Fbadge&v=/);
    const script = await service.get(code);
    expect(script.text).to.include('new URL("/m/@acme/lib@1.2.0/modules/widgets/badge');
    const redirect = await service.get('/preview/bundled?entry=@acme/app/main');
    expect(redirect.status).to.equal(302);
    expect(redirect.headers.location).to.equal('/preview/bundled/?entry=@acme/app/main');
  });

  it('never also joins a module that a module loaded on its own imports: one instance of each module', async function () {
    // app (in development) imports lib (from the CDN) and util; lib imports util: util must be
    // the one module the import map names, or the page would run two copies of it.
    const pkg = (name: string, dependencies: Record<string, string> = {}) => ({ name, version: '1.0.0', type: 'module', exports: { './main': './main/index.ts' }, dependencies });
    const local = inlineWorkspace(
      {
        app: { manifest: pkg('@x/app', { '@x/lib': '1.0.0', '@x/util': '1.0.0', '@x/solo': '1.0.0' }), files: { 'main/index.ts': "import { lib } from '@x/lib/main';\nimport { util } from '@x/util/main';\nimport { solo } from '@x/solo/main';\nconsole.log(lib, util, solo, 'APP_MARKER');\n" } },
        lib: { manifest: pkg('@x/lib', { '@x/util': '1.0.0' }), files: { 'main/index.ts': "import { util } from '@x/util/main';\nexport const lib = `lib ${util}`;\n" } },
        util: { manifest: pkg('@x/util'), files: { 'main/index.ts': "export const util = 'UTIL_MARKER';\n" } },
        solo: { manifest: pkg('@x/solo'), files: { 'main/index.ts': "export const solo = 'SOLO_MARKER';\n" } },
      },
      { '.core/selection.json': JSON.stringify({ packages: ['@x/app', '@x/util', '@x/solo'] }) },
    );
    const other = await serve(local);
    const answer = await other.get('/preview/bundled/');
    expect(answer.status, answer.text).to.equal(200);
    const { imports, code } = readPage(answer.text);
    expect(imports['@x/lib/main']).to.equal('https://cdn.test/@x/lib@1.0.0/main');
    expect(imports['@x/util/main']).to.match(/^\/m\/@x\/util@1\.0\.0\/modules\/main\?.*&v=/);
    expect(imports).to.not.have.property('@x/solo/main');
    const script = (await other.get(code)).text;
    expect(script).to.include('APP_MARKER').and.to.include('SOLO_MARKER');
    expect(script).to.not.include('UTIL_MARKER');
    expect(script).to.match(/from\s*"@x\/util\/main"/);
  });

  it("never joins a workspace module an installed package imports: the local CDN's bundle finds it in the import map", async function () {
    const local = inlineWorkspace(
      {
        core: { manifest: { name: '@x/core', version: '1.0.0', type: 'module', exports: { './registry': './registry.ts' } }, files: { 'registry.ts': "export const registry: string[] = ['REGISTRY_MARKER'];\n" } },
        app: {
          manifest: { name: '@x/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@x/core': '1.0.0', 'x-plugin': '1.0.0' } },
          files: { 'main.ts': "import { registry } from '@x/core/registry';\nimport 'x-plugin';\nconsole.log(registry, 'APP_MARKER');\n" },
        },
      },
      {
        'core.json': JSON.stringify({ packages: ['core', 'app'], preview: '@x/app/main' }),
        'node_modules/x-plugin/package.json': JSON.stringify({ name: 'x-plugin', version: '1.0.0', type: 'module', exports: './index.js', peerDependencies: { '@x/core': '1.0.0' } }),
        'node_modules/x-plugin/index.js': "import { registry } from '@x/core/registry';\nregistry.push('plugin');\n",
      },
    );
    const other = await serve(local, { cdnOrigin: 'local' });
    const answer = await other.get('/preview/bundled/');
    expect(answer.status, answer.text).to.equal(200);
    const { imports, code } = readPage(answer.text);
    expect(imports['x-plugin']).to.match(/^\/cdn\/x-plugin@1\.0\.0\?v=/);
    expect(imports['@x/core/registry']).to.match(/^\/m\/@x\/core@1\.0\.0\/modules\/registry\?.*&v=/);
    const script = (await other.get(code)).text;
    expect(script).to.include('APP_MARKER').and.to.not.include('REGISTRY_MARKER');
  });

  it("joins a sheet another sheet @imports by its /m/ address where the @import is, not above the sheets before it", async function () {
    const local = inlineWorkspace(
      {
        theme: {
          manifest: { name: '@x/theme', version: '1.0.0', type: 'module', exports: { './green': './green.ts', './theme': './theme.ts', './own': './own.ts' } },
          files: { 'green.ts': "import './green.css';\n", 'green.css': '.green-marker { color: green; }\n', 'theme.ts': "import './theme.css';\n", 'theme.css': '@import url(/m/@x/theme@1.0.0/styles/green);\n.theme-marker { color: blue; }\n', 'own.ts': "import './own.css';\n", 'own.css': '.own-marker { color: red; }\n' },
        },
        app: { manifest: { name: '@x/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@x/theme': '1.0.0' } }, files: { 'main.ts': "import '@x/theme/own';\nimport '@x/theme/theme';\n" } },
      },
      { 'core.json': JSON.stringify({ packages: ['theme', 'app'], preview: '@x/app/main' }) },
    );
    const other = await serve(local);
    const answer = await other.get('/preview/bundled/');
    expect(answer.status, answer.text).to.equal(200);
    const sheet = (await other.get(readPage(answer.text).styles)).text;
    expect(sheet).to.not.include('@import');
    const at = (marker: string) => sheet.indexOf(marker);
    expect([at('.own-marker'), at('.green-marker'), at('.theme-marker')].every((place) => place >= 0), sheet).to.equal(true);
    expect(at('.own-marker')).to.be.below(at('.green-marker'));
    expect(at('.green-marker')).to.be.below(at('.theme-marker'));
    // A change of the imported sheet alone is a new joined sheet: never the old rules as current.
    write(local, 'theme/green.css', '.green-marker { color: lime; }\n');
    await waitFor(async () => (await other.get(readPage((await other.get('/preview/bundled/')).text).styles)).text.includes('lime'), { timeout: 30_000, what: 'the joined sheet with the edited imported sheet' });
  });

  it('warns on the bundled page, naming it, of a joined module that awaits at its top level; /preview/ runs it in the order the browser does', async function () {
    const local = inlineWorkspace(
      {
        app: {
          manifest: { name: '@x/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts', './config': './config.ts', './widget': './widget.ts' } },
          files: {
            'main.ts': "import '@x/app/config';\nimport '@x/app/widget';\n",
            'config.ts': "export const config = await Promise.resolve('CONFIG');\n",
            'widget.ts': "export const load = async () => await Promise.resolve('WIDGET');\n",
          },
        },
      },
      { 'core.json': JSON.stringify({ packages: ['app'], preview: '@x/app/main' }) },
    );
    const other = await serve(local);
    const warningsOf = (html: string) => (JSON.parse(/<script type="application\/json" id="core-warnings">([\s\S]*?)<\/script>/.exec(html)![1]!) as { kind: string; module?: string }[]).map(({ kind, module }) => [kind, module]);
    const bundled = await other.get('/preview/bundled/');
    expect(bundled.status, bundled.text).to.equal(200);
    expect(warningsOf(bundled.text)).to.deep.equal([['PREVIEW_BUNDLED_AWAIT', '@x/app@1.0.0/config']]);
    const plain = await other.get('/preview/');
    expect(warningsOf(plain.text)).to.deep.equal([]);
  });

  it('joins the bundle of each change ahead of the next page request, once a bundled page was asked for', async function () {
    // Seen from outside by what is kept: the last 4 bundles. With nothing but edits after the
    // first page, the first bundle is pushed out only if the service joined the others itself.
    const local = fixtureWorkspace('basic');
    const other = await serve(local);
    const first = readPage((await other.get('/preview/bundled/')).text).code;
    expect((await other.get(first)).status).to.equal(200);
    for (let edit = 1; edit <= 4; edit++) {
      write(local, 'packages/app/main/helper.ts', `export const HELPER_MARKER = 'EDIT_${edit}';\n\nexport const greet = (): string => \`Hello from \${HELPER_MARKER}\`;\n`);
      await other.report(); // the builds settled: what the service joins ahead from
    }
    await waitFor(async () => (await other.get(first)).status === 404, { what: 'the first bundle to be pushed out by the ones joined ahead' });
    const latest = readPage((await other.get('/preview/bundled/')).text).code;
    expect((await other.get(latest)).text).to.include('EDIT_4');
  });
});

describe('the bundled preview across a restart', function () {
  // The join's files live in a directory named after the process, in the user's own (README "The bundled preview").
  const joinDirectories = () =>
    ['/dev/shm', os.tmpdir()].map((base) => path.join(base, `core-join-${process.getuid!()}`)).flatMap((own) => (fs.existsSync(own) ? fs.readdirSync(own).filter((name) => name.startsWith(`${process.pid}-`)).map((name) => path.join(own, name)) : []));

  it('answers the page the last start joined, from the build cache, without joining it again', async function () {
    const root = fixtureWorkspace('basic');
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-page-cache-'));
    const first = await serve(root, { cache });
    const joined = readPage((await first.get('/preview/bundled/')).text);
    const joinedCode = (await first.get(joined.code)).text;
    await waitFor(() => fs.existsSync(path.join(cache, 'pages')) && fs.readdirSync(path.join(cache, 'pages')).some((name) => name.endsWith('.page')), { what: 'the joined page saved' });
    await first.close();
    const before = joinDirectories();

    const restarted = await serve(root, { cache });
    const page = readPage((await restarted.get('/preview/bundled/')).text);
    expect(page.code, 'the same bytes, the same address').to.equal(joined.code);
    expect((await restarted.get(page.code)).text).to.equal(joinedCode);
    expect(joinDirectories(), 'nothing was written to join').to.deep.equal(before);
    // A change is joined as ever: the saved page is only ever the one of the same outputs.
    write(root, 'packages/app/main/helper.ts', `export const HELPER_MARKER = 'AFTER_RESTART';\n\nexport const greet = (): string => \`Hello from \${HELPER_MARKER}\`;\n`);
    const edited = readPage((await restarted.get('/preview/bundled/')).text);
    expect((await restarted.get(edited.code)).text).to.include('AFTER_RESTART');
    await restarted.close();
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it('never answers a saved page under the name of another: a page file copied over another is joined again', async function () {
    const root = fixtureWorkspace('basic');
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-page-cache-'));
    const pagesDir = path.join(cache, 'pages');
    /** A run that serves the bundled page, then stops once it is saved: the page files then. */
    const serveOnce = async (): Promise<string[]> => {
      const known = fs.existsSync(pagesDir) ? fs.readdirSync(pagesDir).length : 0;
      const service = await serve(root, { cache });
      const page = readPage((await service.get('/preview/bundled/')).text);
      await service.get(page.code);
      await waitFor(() => fs.existsSync(pagesDir) && fs.readdirSync(pagesDir).filter((name) => name.endsWith('.page')).length > known, { what: 'the joined page saved' });
      await service.close();
      return fs.readdirSync(pagesDir).filter((name) => name.endsWith('.page'));
    };
    const [first] = await serveOnce();
    write(root, 'packages/lib/format/internal/pad.ts', "export const pad = (n: number, width: number): string => `SECOND_PAGE ${String(n).padStart(width, '0')}`;\n");
    const second = (await serveOnce()).find((name) => name !== first)!;
    // The first state's page, whole and hashing to what its header says, under the second's name.
    fs.copyFileSync(path.join(pagesDir, first!), path.join(pagesDir, second));

    const restarted = await serve(root, { cache });
    const page = readPage((await restarted.get('/preview/bundled/')).text);
    const code = (await restarted.get(page.code)).text;
    await restarted.close();
    expect(code).to.include('SECOND_PAGE').and.not.include('LIB_PAD_MARKER');
    fs.rmSync(cache, { recursive: true, force: true });
  });
});
