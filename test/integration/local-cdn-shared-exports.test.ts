// The local CDN's bundle of an installed export keeps the entry files of the package's other
// exports external, as their bare specifiers, which the preview's import map names (README "The
// local CDN"): each file of the package is in one bundle, so it runs once on the page.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { sharedExportsWorkspace } from '../helpers/shared-exports-workspace.js';

type Entry = { diagnostics: unknown[]; warnings: unknown[]; imports: Record<string, string> };

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
    const expected = ['', '/widgets', '/directive.js', '/directives/class-map.js', '/directives/style-map.js'];
    for (const subpath of expected) {
      const specifier = `regpkg${subpath}`;
      const [plain, hash] = (entry.imports[specifier] ?? '').split('?v=');
      expect(plain, specifier).to.equal(`/cdn/regpkg@1.0.0${subpath}`);
      expect((await service.get(plain!)).headers.etag, `${specifier}: v is the ETag of its plain address`).to.equal(`"${hash}"`);
    }
  });
});
