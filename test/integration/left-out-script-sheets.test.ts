// The stylesheet a script module of a workspace package left out of development imports (README
// "The local CDN", "Preview and stylesheet push"): its CDN address answers its code only, so the
// preview links its production sheet, which the local CDN answers at `?styles` with the bytes of
// `/m/...?env=production`, at its place in the cascade (before the sheet of the module importing
// it, on the bundled page too, before the part of its joined sheet holding it); a CDN origin of its own has no address
// for it, and the preview says so (a PREVIEW_STYLESHEET_UNLINKED warning) rather than drop it.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

/** `warned`: the entry's own code also warns (a duplicate key), so the preview derived from the state has warnings of its own. */
function workspace(warned = false): string {
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/tokens': '1.0.0' } },
        files: {
          'main.ts': `import '@demo/tokens/js';\nimport '@demo/tokens/plain';\nimport '@demo/tokens/light.css';\nimport './main.css';\nexport const main = 1;\n${warned ? 'export const twice = { a: 1, a: 2 };\n' : ''}`,
          'main.css': '.main { color: rgb(0, 0, 9); }\n',
        },
      },
      'packages/tokens': {
        manifest: { name: '@demo/tokens', version: '1.0.0', type: 'module', exports: { './js': './js/index.ts', './plain': './plain.ts', './light.css': './light.css' } },
        files: {
          'js/index.ts': "import './js.css';\nexport const tokens = 1;\n",
          'js/js.css': '.probe {\n  color: rgb(1, 2, 3);\n}\n',
          'plain.ts': 'export const plain = 1;\n',
          'light.css': '.light { color: rgb(4, 5, 6); }\n',
        },
      },
    },
    {
      'core.json': JSON.stringify({ packages: ['packages/app', 'packages/tokens'], preview: '@demo/app/main' }),
      '.core/selection.json': JSON.stringify({ packages: ['@demo/app'] }),
    },
  );
}

interface EntryReport {
  diagnostics: unknown[];
  warnings?: { kind: string; module?: string; message: string }[];
  stylesheets?: { specifier: string; href: string }[];
}

/** The kinds of the page's stylesheet links, in order, and the CDN ones' addresses. */
const linksOf = (html: string) => [...html.matchAll(/<link rel="stylesheet" href="([^"]+)" data-core-(styles|bundle|cdn-styles)=/g)].map((match) => (match[2] === 'cdn-styles' ? match[1]! : match[2]!));

describe('the sheet of a script module of a package left out of development', function () {
  it('is linked from the local CDN at ?styles, redirected to its production stylesheet, before its importer\'s sheet (the bundled page\'s joined sheet too)', async function () {
    const service = await serve(workspace(), { cdnOrigin: 'local' });
    try {
      const preview = (await service.get('/preview/entry.json')).json<EntryReport>();
      expect(preview.diagnostics).to.deep.equal([]);
      expect(preview.warnings).to.equal(undefined);
      // The script module without a sheet gets no link.
      expect(preview.stylesheets).to.deep.equal([
        { specifier: '@demo/tokens/js', href: '/cdn/@demo/tokens@1.0.0/js?styles' },
        { specifier: '@demo/tokens/light.css', href: '/cdn/@demo/tokens@1.0.0/light.css?styles' },
      ]);
      const redirect = await service.get('/cdn/@demo/tokens@1.0.0/js?styles');
      expect(redirect.status).to.equal(302);
      expect(redirect.headers.location).to.equal('/m/@demo/tokens@1.0.0/styles/js?env=production');
      const sheet = await service.get(redirect.headers.location!);
      const production = await service.get('/m/@demo/tokens@1.0.0/styles/js?env=production');
      expect(sheet.status).to.equal(200);
      expect(sheet.headers['content-type']).to.equal('text/css; charset=utf-8');
      expect(sheet.text).to.include('.probe{color:#010203}');
      expect(sheet.text).to.equal(production.text);
      expect(sheet.headers.etag).to.equal(production.headers.etag);
      for (const page of ['/preview/', '/preview/bundled/']) {
        const html = (await service.get(page)).text;
        const cdn = ['/cdn/@demo/tokens@1.0.0/js?styles', '/cdn/@demo/tokens@1.0.0/light.css?styles'];
        expect(linksOf(html), page).to.deep.equal([...cdn, page === '/preview/' ? 'styles' : 'bundle']);
        expect(html, page).to.include('data-core-cdn-styles="@demo/tokens/js"');
      }
    } finally {
      await service.close();
    }
  });

  it('is named by a warning under a CDN origin of its own, which answers the code only', async function () {
    const service = await serve(workspace(true), { cdnOrigin: 'https://cdn.test' });
    try {
      const preview = (await service.get('/preview/entry.json')).json<EntryReport>();
      expect(preview.diagnostics).to.deep.equal([]);
      expect(preview.stylesheets).to.deep.equal([{ specifier: '@demo/tokens/light.css', href: 'https://cdn.test/@demo/tokens@1.0.0/light.css' }]);
      const expected = [
        { kind: 'BUNDLE_WARNING', module: '@demo/app/main' },
        { kind: 'PREVIEW_STYLESHEET_UNLINKED', module: '@demo/tokens/js' },
      ];
      expect(preview.warnings?.map(({ kind, module }) => ({ kind, module }))).to.deep.equal(expected);
      expect(preview.warnings![1]!.message).to.include('https://cdn.test/@demo/tokens@1.0.0/js');
      // Asked again from the same state (the preview derived from it is kept): told once still.
      const again = (await service.get('/preview/entry.json')).json<EntryReport>();
      expect(again.warnings?.map(({ kind, module }) => ({ kind, module }))).to.deep.equal(expected);
      for (const page of ['/preview/', '/preview/bundled/']) {
        const html = (await service.get(page)).text;
        const warnings = JSON.parse(html.match(/<script type="application\/json" id="core-warnings">(.*?)<\/script>/s)![1]!) as { kind: string; module: string }[];
        expect(warnings.map(({ kind, module }) => ({ kind, module })), page).to.deep.equal([
          { kind: 'BUNDLE_WARNING', module: '@demo/app@1.0.0/main' },
          { kind: 'PREVIEW_STYLESHEET_UNLINKED', module: '@demo/tokens@1.0.0/js' },
        ]);
      }
    } finally {
      await service.close();
    }
  });
});
