// The local CDN's bundle of an installed export keeps the entry files of the package's other
// exports external, as their bare specifiers, which the preview's import map names (README "The
// local CDN"): each file of the package is in one bundle, so it runs once on the page.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { sharedExportsWorkspace } from '../helpers/shared-exports-workspace.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

type Entry = { diagnostics: unknown[]; warnings?: Array<{ kind: string; module?: string; message: string }>; imports: Record<string, string> };

describe("the local CDN and an installed package's exports that import one another", function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(sharedExportsWorkspace(), { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  const code = async (address: string) => {
    const answer = await service.get(address);
    expect(answer.status, `${address}: ${answer.text}`).to.equal(200);
    return answer.text;
  };

  it('imports the root export from a subpath by its bare name, a relative import of its entry file', async function () {
    const widgets = await code('/cdn/regpkg@1.0.0/widgets');
    expect(widgets).to.match(/from\s*"regpkg"/);
    expect(widgets, 'the root export is not copied in').not.to.include('"index"');
  });

  it('does so for an `#imports` import and one by the package name, and keeps them apart from the export being built', async function () {
    const directive = await code('/cdn/regpkg@1.0.0/directive.js');
    expect(directive).to.match(/from\s*"regpkg"/);
    expect(directive).to.match(/from\s*"regpkg\/widgets"/);
    expect(directive).not.to.include('"index"');
    expect(await code('/cdn/regpkg@1.0.0'), 'the root export is its own code').to.include('"index"');
  });

  it('names a file a pattern export matches by the subpath the pattern gives it', async function () {
    const styleMap = await code('/cdn/regpkg@1.0.0/directives/style-map.js');
    expect(styleMap).to.match(/from\s*"regpkg\/directives\/class-map\.js"/);
    expect(styleMap).to.match(/from\s*"regpkg\/widgets"/);
    expect(styleMap, 'class-map.js is its own export').not.to.include('"class-map"');
    const classMap = await code('/cdn/regpkg@1.0.0/directives/class-map.js');
    expect(classMap).to.match(/from\s*"regpkg\/directive\.js"/);
    expect(classMap).not.to.include('"directive"');
  });

  it("maps every export the bundles import, at the copy's version and the hash of its bytes", async function () {
    const entry = (await service.get('/preview/entry.json')).json<Entry>();
    expect(entry.diagnostics).to.deep.equal([]);
    expect(entry.warnings ?? [], 'no file is in two bundles').to.deep.equal([]);
    const expected = ['', '/widgets', '/directive.js', '/directives/class-map.js', '/directives/style-map.js'];
    for (const subpath of expected) {
      const specifier = `regpkg${subpath}`;
      const [plain, hash] = (entry.imports[specifier] ?? '').split('?v=');
      expect(plain, specifier).to.equal(`/cdn/regpkg@1.0.0${subpath}`);
      expect((await service.get(plain!)).headers.etag, `${specifier}: v is the ETag of its plain address`).to.equal(`"${hash}"`);
    }
  });
});

describe("the local CDN and a file no export names that two of a page's exports import", function () {
  it('is a PREVIEW_CDN_FILE_TWICE warning naming the file and both exports; a file of another package is not', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@tw/app/main' }),
      'packages/app/package.json': json({ name: '@tw/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { twin: '1.0.0', other: '1.0.0' } }),
      'packages/app/main/index.ts': "import { a } from 'twin/a';\nimport { b } from 'twin/b';\nimport { c } from 'other';\nconsole.log(a, b, c);\n",
      'node_modules/twin/package.json': json({ name: 'twin', version: '1.0.0', type: 'module', exports: { './a': './a.js', './b': './b.js' } }),
      'node_modules/twin/a.js': "import { count } from './lib/shared.js';\nexport const a = count();\n",
      'node_modules/twin/b.js': "import { count } from './lib/shared.js';\nexport const b = count();\n",
      'node_modules/twin/lib/shared.js': 'let n = 0;\nexport const count = () => ++n;\n',
      'node_modules/other/package.json': json({ name: 'other', version: '1.0.0', type: 'module', exports: { '.': './index.js' } }),
      'node_modules/other/index.js': "import { count } from './lib/shared.js';\nexport const c = count();\n",
      'node_modules/other/lib/shared.js': 'let n = 0;\nexport const count = () => ++n;\n',
    });
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<Entry>();
      expect(entry.diagnostics).to.deep.equal([]);
      const warnings = entry.warnings ?? [];
      expect(warnings.map(({ kind }) => kind)).to.deep.equal(['PREVIEW_CDN_FILE_TWICE']);
      expect(['twin/a', 'twin/b']).to.include(warnings[0]!.module);
      expect(warnings[0]!.message).to.include('twin/a').and.to.include('twin/b').and.to.include("twin's file lib/shared.js");
    } finally {
      await service.close();
    }
  });
});
