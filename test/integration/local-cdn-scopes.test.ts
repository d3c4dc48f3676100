// Two versions of one installed package on the page (README "The local CDN"): an installed copy
// that loads another version of a name than the page's top level maps gets an import map scope,
// keyed by its addresses, which maps that name to the version Node gives it; the local CDN serves
// each version from where it is installed, npm's nesting and pnpm's store alike.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { nestedVersionsWorkspace, ownVersionsWorkspace, pnpmVersionsWorkspace, twiceInstalledWorkspace } from '../helpers/nested-versions-workspace.js';

type Entry = {
  diagnostics: unknown[];
  warnings?: Array<{ kind: string; module?: string; message: string }>;
  imports: Record<string, string>;
  scopes?: Record<string, Record<string, string>>;
};

const plain = (address: string | undefined) => address?.split('?')[0];
const plainScopes = (scopes: Entry['scopes']) => Object.fromEntries(Object.entries(scopes ?? {}).map(([key, map]) => [key, Object.fromEntries(Object.entries(map).map(([name, address]) => [name, plain(address)]))]));

const importMapOf = (html: string) => JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)![1]!) as { imports: Record<string, string>; scopes?: Entry['scopes'] };

for (const [layout, workspace] of [['npm nesting', nestedVersionsWorkspace], ['pnpm store', pnpmVersionsWorkspace]] as const) {
  describe(`the preview's import map scopes for installed versions (${layout})`, function () {
    let service: Awaited<ReturnType<typeof serve>>;

    before(async function () {
      service = await serve(workspace(), { cdnOrigin: 'local' });
    });
    after(async function () {
      await service?.close();
    });

    it('serves the nested version at its own address, asked before any preview met it', async function () {
      const answer = await service.get('/cdn/dep@2.0.0');
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.text).to.include('dep2');
      const deep = await service.get('/cdn/helper@2.0.0');
      expect(deep.status, deep.text).to.equal(200);
      expect(deep.text).to.include('helper2');
      expect((await service.get('/cdn/dep@1.0.0')).text).to.include('dep1');
    });

    it('maps the top level to the workspace\'s versions, and scopes each copy loading another', async function () {
      const entry = (await service.get('/preview/entry.json')).json<Entry>();
      expect(entry.diagnostics).to.deep.equal([]);
      expect(entry.warnings ?? []).to.deep.equal([]);
      expect([plain(entry.imports.dep), plain(entry.imports.helper), plain(entry.imports.other), plain(entry.imports['other/sub'])]).to.deep.equal(['/cdn/dep@1.0.0', '/cdn/helper@1.0.0', '/cdn/other@1.0.0', '/cdn/other@1.0.0/sub']);
      const otherRoot = entry.imports.other!;
      expect(plainScopes(entry.scopes), 'only where a copy loads another version: transitive, and the root export by its exact address').to.deep.equal({
        '/cdn/other@1.0.0/': { dep: '/cdn/dep@2.0.0' },
        [otherRoot]: { dep: '/cdn/dep@2.0.0' },
        '/cdn/dep@2.0.0/': { helper: '/cdn/helper@2.0.0' },
        [entry.scopes!['/cdn/other@1.0.0/']!.dep!]: { helper: '/cdn/helper@2.0.0' },
      });
      // Every scoped address names the bytes it checked, as the top level's do.
      for (const map of Object.values(entry.scopes!)) for (const address of Object.values(map)) expect(address).to.match(/\?v=[\w-]{22}$/);
      const answer = await service.get(entry.scopes!['/cdn/other@1.0.0/']!.dep!);
      expect(answer.status).to.equal(200);
      expect(answer.text).to.include('dep2');
    });

    for (const page of ['/preview/', '/preview/bundled/']) {
      it(`gives ${page}'s import map the same scopes`, async function () {
        const entry = (await service.get('/preview/entry.json')).json<Entry>();
        expect(Object.keys(entry.scopes ?? {})).to.have.length(4);
        const answer = await service.get(page);
        expect(answer.status, answer.text).to.equal(200);
        expect(importMapOf(answer.text).scopes).to.deep.equal(entry.scopes);
      });
    }
  });
}

describe('one version of an installed package installed twice, whose copies load two versions', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(twiceInstalledWorkspace(), { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  it('warns with PREVIEW_CDN_SCOPE_AMBIGUOUS naming both copies and both versions', async function () {
    const entry = (await service.get('/preview/entry.json')).json<Entry>();
    expect(entry.diagnostics).to.deep.equal([]);
    const warnings = (entry.warnings ?? []).filter((warning) => warning.kind === 'PREVIEW_CDN_SCOPE_AMBIGUOUS');
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.module).to.equal('other');
    for (const named of ['other@1.0.0', 'node_modules/other', 'node_modules/wrap/node_modules/other', '"dep"', '/cdn/dep@2.0.0', '/cdn/dep@1.0.0']) expect(warnings[0]!.message).to.include(named);
  });
});

describe('two workspace packages loading two versions of one installed package', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(ownVersionsWorkspace(), { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  it("scopes the second package's addresses to its own version, completed as the top level is", async function () {
    const entry = (await service.get('/preview/entry.json')).json<Entry>();
    expect(entry.diagnostics).to.deep.equal([]);
    expect(entry.warnings ?? []).to.deep.equal([]);
    expect(plain(entry.imports.dep)).to.equal('/cdn/dep@1.0.0');
    expect(plainScopes(entry.scopes)).to.deep.include({ '/m/@nv/lib@1.0.0/': { dep: '/cdn/dep@3.0.0' }, '/cdn/other@1.0.0/': { dep: '/cdn/dep@2.0.0' } });
    const answer = await service.get(entry.scopes!['/m/@nv/lib@1.0.0/']!.dep!);
    expect(answer.status).to.equal(200);
    expect(answer.text).to.include('dep3');
  });

  it("keeps the scoped package's module out of the bundled preview's joined script", async function () {
    const html = (await service.get('/preview/bundled/')).text;
    const map = importMapOf(html);
    expect(map.imports['@nv/lib/version']).to.match(/^\/m\/@nv\/lib@1\.0\.0\/modules\/version\?/);
    expect(map.scopes).to.have.property('/m/@nv/lib@1.0.0/');
  });
});
