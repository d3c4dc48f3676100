// Stylesheet modules from a CDN origin (README "Stylesheet modules"): a CDN answers a published
// `.css` file as itself, so the preview links it and its import maps to an empty module, for an
// installed package and for a workspace package left out of development alike.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('stylesheet modules from a CDN origin', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app', 'packages/tokens'], preview: '@kit/app/main' }),
      '.core/selection.json': json({ packages: ['@kit/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@kit/tokens': '^2.0.0', fakecss: '3.0.0', fakelib: '1.0.0' } }),
      'packages/app/main/index.ts': "import '@kit/tokens/light.css';\nimport 'fakecss/theme.css';\nimport { x } from 'fakelib';\nimport './index.css';\nconsole.log(x);\n",
      'packages/app/main/index.css': '.main { color: rgb(4, 5, 6); }\n',
      'packages/tokens/package.json': json({ name: '@kit/tokens', version: '2.0.0', exports: { './light.css': './light.css' } }),
      'packages/tokens/light.css': '.tokens { color: rgb(1, 2, 3); }\n',
    });
    service = await serve(root, { cdnOrigin: 'https://cdn.test' });
  });
  after(async function () {
    await service?.close();
  });

  it('links each from the CDN and maps its import to an empty module; code still maps to the CDN', async function () {
    const preview = (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[]; imports: Record<string, string>; stylesheets: unknown[] }>();
    expect(preview.diagnostics).to.deep.equal([]);
    expect(preview.imports).to.include({ '@kit/tokens/light.css': 'data:text/javascript,', 'fakecss/theme.css': 'data:text/javascript,', fakelib: 'https://cdn.test/fakelib@1.0.0' });
    expect(preview.stylesheets).to.have.deep.members([
      { specifier: '@kit/tokens/light.css', href: 'https://cdn.test/@kit/tokens@2.0.0/light.css' },
      { specifier: 'fakecss/theme.css', href: 'https://cdn.test/fakecss@3.0.0/theme.css' },
    ]);
    for (const page of ['/preview/', '/preview/bundled/']) {
      const html = (await service.get(page)).text;
      expect(html, page).to.include('<link rel="stylesheet" href="https://cdn.test/fakecss@3.0.0/theme.css" data-core-cdn-styles="fakecss/theme.css">');
      expect(html, page).to.include('<link rel="stylesheet" href="https://cdn.test/@kit/tokens@2.0.0/light.css" data-core-cdn-styles="@kit/tokens/light.css">');
      // The cascade (README "Preview and stylesheet push"): the CDN's sheets the module imports before its own, on
      // the bundled page before its joined sheet (README "The bundled preview").
      const sheets = [...html.matchAll(/<link rel="stylesheet" [^>]*data-core-(styles|bundle|cdn-styles)=/g)].map((match) => match[1]);
      expect(sheets, page).to.deep.equal(['cdn-styles', 'cdn-styles', page === '/preview/' ? 'styles' : 'bundle']);
    }
  });
});
