// The development extension over HTTP (README "Preview and stylesheet push", README "The command line"): /preview/entry.json (entry choice,
// import map, sources, versions of outside packages, the development selection), the
// /preview/ page, and the runtime under /u/.
import { expect } from 'chai';
import { expectError, findDiagnostic } from '../helpers/answers.js';
import { editJson, remove, write } from '../helpers/edit.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import type { Preview } from '../../src/development/preview.js';
import type { Report } from '../../src/store/selectors.js';

type Served = Awaited<ReturnType<typeof serve>>;

const devCode = (pkg: string, subpath: string) => `/m/${pkg}/modules/${subpath}?${DEV}`;
const devStyles = (pkg: string, subpath: string) => `/m/${pkg}/styles/${subpath}?${DEV}`;

// Built outputs are named by content hash (`&v=<hash>`, the ETag): checked, then left out of
// the comparisons, which are about which address each specifier maps to.
const HASH_TOKEN = /&v=([A-Za-z0-9_-]{22})$/;
async function withoutTokens(service: Served, preview: Preview): Promise<Preview> {
  const strip = async (address: string | null) => {
    if (address === null || !address.startsWith('/m/')) return address;
    const token = HASH_TOKEN.exec(address);
    // Only what is built is named by hash; a module whose build failed has no content to name.
    const answer = await service.get(address);
    if (token !== null && answer.status === 200) expect(answer.headers.etag).to.equal(`"${token[1]}"`);
    if (token !== null && answer.status !== 200) expect(answer.json().code, address).to.equal('BUILD_FAILED');
    if (token === null) expect(answer.status, `${address} is not built, or it would name its content by hash`).to.not.equal(200);
    return address.replace(HASH_TOKEN, '');
  };
  const imports: Record<string, string> = {};
  for (const [specifier, address] of Object.entries(preview.imports)) imports[specifier] = (await strip(address))!;
  const modules = [];
  for (const module of preview.modules) modules.push({ ...module, code: (await strip(module.code))!, styles: await strip(module.styles) });
  return { ...preview, imports, modules };
}

async function entryJson(service: Served, query = '', keepTokens = false): Promise<Preview> {
  const answer = await service.get(`/preview/entry.json${query}`);
  expect(answer.status, answer.text).to.equal(200);
  expect(answer.headers['content-type']).to.match(/^application\/json/);
  return keepTokens ? answer.json<Preview>() : withoutTokens(service, answer.json<Preview>());
}

const unescapeHtml = (text: string) => text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The parts of the preview page a browser acts on. */
function parsePage(html: string) {
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  expect(importMap, 'an import map').to.not.equal(null);
  const links = [...html.matchAll(/<link\b([^>]*)>/g)]
    .map((m) => m[1]!)
    .filter((attributes) => /\bdata-core-styles=/.test(attributes))
    .map((attributes) => ({
      rel: /\brel="([^"]*)"/.exec(attributes)?.[1],
      href: unescapeHtml(/\bhref="([^"]*)"/.exec(attributes)?.[1] ?? ''),
      module: unescapeHtml(/\bdata-core-styles="([^"]*)"/.exec(attributes)?.[1] ?? ''),
    }));
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attributes: m[1]!, body: m[2]! }));
  const head = /<head>([\s\S]*)<\/head>/.exec(html)?.[1] ?? '';
  return { imports: (JSON.parse(importMap![1]!) as { imports: Record<string, string> }).imports, links, scripts, head };
}

describe('the preview (development extension)', function () {
  let root: string;
  let service: Served;

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  describe('GET /preview/entry.json', function () {
    it('lists the entry package modules and the modules they reach, with the import map for every bare specifier', async function () {
      const preview = await entryJson(service);
      expect(preview.entry).to.equal('@acme/app/main');
      expect(preview.diagnostics).to.deep.equal([]);
      expect(preview.imports).to.deep.equal({
        '@acme/app/main': devCode('@acme/app@1.0.0', 'main'),
        '@acme/app/templates': devCode('@acme/app@1.0.0', 'templates'),
        '@acme/lib/format': devCode('@acme/lib@1.2.0', 'format'),
        lit: 'https://cdn.test/lit@3.1.0',
      });
      expect(preview.modules).to.deep.equal([
        // The cascade's order: the entry, which imports its own sheet before the library (whose
        // sheet would come after it), then the package's module it never imports.
        { specifier: '@acme/app/main', package: '@acme/app', version: '1.0.0', subpath: 'main', source: 'package', code: devCode('@acme/app@1.0.0', 'main'), styles: devStyles('@acme/app@1.0.0', 'main') },
        { specifier: '@acme/lib/format', package: '@acme/lib', version: '1.2.0', subpath: 'format', source: 'environment', code: devCode('@acme/lib@1.2.0', 'format'), styles: null },
        { specifier: '@acme/app/templates', package: '@acme/app', version: '1.0.0', subpath: 'templates', source: 'package', code: devCode('@acme/app@1.0.0', 'templates'), styles: null },
      ]);
    });

    it('lists in loads what the page loads: the entry and what it imports, not a module of its package it never imports', async function () {
      const preview = await entryJson(service, '', true);
      // templates (and lit, which only templates imports) are listed and mapped, but never loaded.
      expect(preview.loads).to.deep.equal(['@acme/app/main', '@acme/lib/format']);
      const page = (await service.get('/preview/')).text;
      const preloads = [...page.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((match) => match[1]!.replace(/&amp;/g, '&'));
      expect(preloads).to.deep.equal([preview.imports['@acme/app/main'], preview.imports['@acme/lib/format']]);
    });

    it('gives every listed module an address that answers', async function () {
      const preview = await entryJson(service);
      for (const module of preview.modules) {
        expect((await service.get(module.code)).status, module.code).to.equal(200);
        if (module.styles) expect((await service.get(module.styles)).status, module.styles).to.equal(200);
      }
    });

    it('takes ?entry first, then core.json "preview", then the first web module of the first package', async function () {
      const local = await serve(fixtureWorkspace('basic'));
      try {
        expect((await entryJson(local)).entry).to.equal('@acme/app/main');
        write(local.root, 'core.json', JSON.stringify({ packages: ['packages/lib', 'packages/app'] }));
        const libFirst = await entryJson(local);
        expect(libFirst.entry, 'the first web module of the first package').to.equal('@acme/lib/format');
        expect(libFirst.modules.filter((m) => m.source === 'package').map((m) => m.specifier), 'web modules of the entry package').to.deep.equal(['@acme/lib/format', '@acme/lib/widgets/badge']);
        write(local.root, 'core.json', JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@acme/app/templates' }));
        expect((await entryJson(local)).entry, 'core.json "preview"').to.equal('@acme/app/templates');
        expect((await entryJson(local, '?entry=@acme/lib/widgets/badge')).entry, '?entry').to.equal('@acme/lib/widgets/badge');
      } finally {
        await local.close();
      }
    });

    it('refuses an entry that is not a public module, or does not run in browsers', async function () {
      expectError(await service.get('/preview/entry.json?entry=@acme/app/nothing'), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['@acme/app/nothing'] });
      expectError(await service.get('/preview/entry.json?entry=@acme/lib/server'), { status: 404, code: 'CONDITIONAL_NOT_FOUND', mentions: ['@acme/lib/server'] });
      expectError(await service.get('/preview/?entry=@acme/lib/server'), { status: 404, code: 'CONDITIONAL_NOT_FOUND', mentions: ['@acme/lib/server'] });
    });

    it('answers a browser asking a page it cannot make with a page naming the code, the reason and the fix', async function () {
      const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
      for (const address of ['/preview/', '/preview/bundled/']) {
        const page = await service.get(`${address}?entry=@acme/lib/server`, browser);
        expect(page.status, address).to.equal(404);
        expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(page.text).to.include('<code>CONDITIONAL_NOT_FOUND</code>').and.to.include('@acme/lib/server does not run in browsers');
        expect(page.text).to.include('To fix: add the platform to <code>platforms</code> in module.json');
        expect(page.text).to.include('<a href="/">the dashboard</a>');
        const missing = await service.get(`${address}?entry=%3Cimg%3E`, browser);
        expect(missing.status).to.equal(404);
        expect(missing.text, 'what was asked is escaped').to.include('&lt;img&gt;').and.not.include('<img>');
      }
    });

    it('reports the diagnostics of listed modules', async function () {
      const broken = await serve(fixtureWorkspace('errors'));
      try {
        const preview = await entryJson(broken, '?entry=@bad/app/ok');
        expect(preview.modules.map((m) => m.specifier)).to.include.members(['@bad/app/ok', '@bad/app/badcss', '@bad/app/builtin']);
        const kinds = preview.diagnostics.map((d) => d.kind);
        expect(kinds).to.include.members(['BUNDLE_ERROR', 'PREVIEW_BUILTIN', 'DEPENDENCY_NOT_DECLARED', 'DEPENDENCY_INCOMPATIBLE']);
        expect(findDiagnostic(preview.diagnostics, 'PREVIEW_BUILTIN')).to.include({ module: '@bad/app/builtin', file: 'packages/app/builtin/index.ts' });
      } finally {
        await broken.close();
      }
    });
  });

  describe('versions of packages outside the workspace', function () {
    it('reports PREVIEW_VERSION_UNRESOLVED for a range with no installed copy, then uses the installed version', async function () {
      const local = await serve(fixtureWorkspace('basic'));
      try {
        editJson(local.root, 'packages/app/package.json', (json) => (json.dependencies.lit = '^3.0.0'));
        const unresolved = await entryJson(local);
        const problem = findDiagnostic(unresolved.diagnostics, 'PREVIEW_VERSION_UNRESOLVED');
        expect(problem.message).to.include('lit');
        expect(problem.file).to.equal('packages/app/package.json');
        expect(unresolved.imports).not.to.have.property('lit');

        write(local.root, 'node_modules/lit/package.json', JSON.stringify({ name: 'lit', version: '3.2.1' }));
        const installed = await entryJson(local);
        expect(installed.diagnostics).to.deep.equal([]);
        expect(installed.imports.lit).to.equal('https://cdn.test/lit@3.2.1');

        editJson(local.root, 'packages/app/package.json', (json) => (json.dependencies.lit = '3.1.4'));
        expect((await entryJson(local)).imports.lit, 'an exact declared version comes first').to.equal('https://cdn.test/lit@3.1.4');
      } finally {
        await local.close();
      }
    });
  });

  describe('the development selection (.core/selection.json)', function () {
    afterEach(function () {
      remove(root, '.core');
    });

    it('maps a workspace package left out of the selection to the CDN at its package.json version', async function () {
      write(root, '.core/selection.json', JSON.stringify({ packages: ['@acme/app'] }));
      const preview = await entryJson(service);
      expect(preview.imports['@acme/lib/format']).to.equal('https://cdn.test/@acme/lib@1.2.0/format');
      expect(preview.imports['@acme/app/main']).to.equal(devCode('@acme/app@1.0.0', 'main'));
      expect(preview.modules.find((m) => m.specifier === '@acme/lib/format')).to.include({ source: 'environment', code: 'https://cdn.test/@acme/lib@1.2.0/format', styles: null });
      expect(preview.diagnostics).to.deep.equal([]);

      remove(root, '.core');
      expect((await entryJson(service)).imports['@acme/lib/format'], 'every package in development again').to.equal(devCode('@acme/lib@1.2.0', 'format'));
    });

    it('reports a broken selection file and keeps every package in development', async function () {
      write(root, '.core/selection.json', '{"packages": "@acme/app"}');
      const report = (await service.get('/state')).json<Report>();
      expect(findDiagnostic(report.diagnostics, 'MANIFEST_INVALID').file).to.equal('.core/selection.json');
      expect((await entryJson(service)).imports['@acme/lib/format']).to.equal(devCode('@acme/lib@1.2.0', 'format'));
    });
  });

  describe('GET /preview/', function () {
    it('is an HTML page whose import map is the one of entry.json', async function () {
      const answer = await service.get('/preview/');
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-type']).to.match(/^text\/html/);
      const page = parsePage(answer.text);
      expect(page.imports).to.deep.equal((await entryJson(service, '', true)).imports);
    });

    it('links each listed stylesheet with data-core-styles, loads the /u/ runtime and imports the entry, calling nothing', async function () {
      const example = await serve(exampleWorkspace());
      try {
        const page = parsePage((await example.get('/preview/')).text);
        const preview = await entryJson(example, '', true);
        expect(preview.entry).to.equal('@demo/shop/storefront');
        expect(page.links).to.deep.equal(
          preview.modules.filter((m) => m.styles !== null).map((m) => ({ rel: 'stylesheet', href: m.styles!, module: `${m.package}@${m.version}/${m.subpath}` })),
        );
        expect(page.links.map((l) => l.module)).to.have.members(['@demo/shop@0.4.0/storefront', '@demo/ui@1.1.0/badge']);
        for (const link of page.links) {
          const sheet = await example.get(link.href);
          expect(sheet.status, link.href).to.equal(200);
          expect(sheet.headers['content-type']).to.match(/^text\/css/);
        }
        const runtime = page.scripts.find((s) => /\bsrc="\/u\//.test(s.attributes));
        expect(runtime, 'a runtime script under /u/').to.not.equal(undefined);
        expect(runtime!.attributes).to.match(/\btype="module"/);
        const src = unescapeHtml(/\bsrc="([^"]+)"/.exec(runtime!.attributes)![1]!);
        expect((await example.get(src)).body.equals((await example.get('/u/runtime.js')).body)).to.equal(true);
        const entry = page.scripts.filter((s) => /\btype="module"/.test(s.attributes) && !/\bsrc=/.test(s.attributes));
        expect(entry.map((s) => s.body.trim())).to.deep.equal(['import "@demo/shop/storefront";']);
        expect(page.head.indexOf('type="importmap"')).to.be.below(page.head.indexOf('import "@demo/shop/storefront"'));
      } finally {
        await example.close();
      }
    });

    it('redirects /preview to /preview/, keeping the query', async function () {
      const answer = await service.get('/preview?entry=@acme/app/templates');
      expect(answer.status).to.be.oneOf([301, 302, 307, 308]);
      expect(answer.headers.location).to.equal('/preview/?entry=@acme/app/templates');
    });
  });

  describe('GET /u/runtime.js', function () {
    it('serves the runtime as JavaScript with an ETag and no wildcard CORS header', async function () {
      const answer = await service.get('/u/runtime.js');
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-type']).to.equal('text/javascript; charset=utf-8');
      expect(answer.headers.etag).to.match(/^"[^"]+"$/);
      expect(answer.headers).not.to.have.property('access-control-allow-origin');
      expect(answer.text).to.include('/events');
      expect(answer.text).to.include('data-core-styles');
      expect((await service.get('/u/runtime.js', { 'if-none-match': answer.headers.etag! })).status).to.equal(304);
      expectError(await service.get('/u/other.js'), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['/u/other.js'] });
    });
  });

  describe('without the development extension', function () {
    it('serves /m/ and /state only: the preview and runtime answer 404', async function () {
      const bare = await serve(fixtureWorkspace('basic'), { extensions: [] });
      try {
        expect(bare.extensions).to.deep.equal([]);
        expect((await bare.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
        expect((await bare.get('/state')).status).to.equal(200);
        for (const address of ['/preview/', '/preview/entry.json']) {
          expectError(await bare.get(address), { status: 404, code: 'PREVIEW_NOT_LOADED', mentions: [address] });
        }
        expectError(await bare.get('/u/runtime.js'), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['/u/runtime.js'] });
      } finally {
        await bare.close();
      }
    });

    it('loads the extension by specifier, as CORE_SERVICE_EXTENSIONS does', async function () {
      const named = await serve(fixtureWorkspace('basic'), { extensions: ['@core-js/packages/development'] });
      try {
        expect(named.extensions).to.deep.equal(['@core-js/packages/development']);
        expect((await named.get('/preview/entry.json')).status).to.equal(200);
      } finally {
        await named.close();
      }
    });
  });
});

