// Two listed packages that write one name after an edit (README "Workspaces"): a package renamed
// onto the name another has (a copy-paste slip). The name is handed to neither: both manifests
// are MANIFEST_INVALID naming each other, the name's importers hold it in `invalidImports`, its
// address answers 422 naming both, and a rename of either gives the name back.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const LIB_JSON = 'packages/lib/package.json';
const OTHER_JSON = 'packages/lib-b/package.json';
const lib = { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' } };
const other = { name: '@p/other', version: '1.0.0', exports: { './util': './util/index.ts' } };

interface Reported {
  diagnostics: { kind: string; file?: string; message: string }[];
  modules: { specifier: string; status: string; invalidImports?: string[] }[];
}

describe('a package renamed onto the name another listed package has', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/other': '1.0.0' } },
        files: { 'main/index.ts': "import { a } from '@p/other/util';\ndocument.body.textContent = a;\n" },
      },
      'packages/lib': { manifest: lib, files: { 'util/index.ts': "export const a = 'LIB';\n" } },
      'packages/lib-b': { manifest: other, files: { 'util/index.ts': "export const a = 'OTHER';\n" } },
    });
    service = await serve(root);
  });
  after(() => service?.close());

  const report = async () => (await service.report()) as unknown as Reported;
  const utilAnswer = () => service.get('/m/@p/other@1.0.0/modules/util');

  it('serves the name from its one package before the edit', async function () {
    const before = await report();
    expect(before.modules.find((module) => module.specifier === '@p/app/main')).to.include({ status: 'valid' }).and.not.have.property('invalidImports');
    const answer = await utilAnswer();
    expect(answer.status).to.equal(200);
    expect(answer.text).to.include('OTHER');
  });

  it('gives the name to neither: both manifests blamed, each naming the other; the importer holds the import; the address answers 422', async function () {
    writeFile(root, LIB_JSON, JSON.stringify({ ...lib, name: '@p/other' }));
    const after = await report();
    expect(after.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([
      ['MANIFEST_INVALID', LIB_JSON],
      ['MANIFEST_INVALID', OTHER_JSON],
    ]);
    expect(after.diagnostics[0]!.message).to.include(`the package name "@p/other" is also written by ${OTHER_JSON}`);
    expect(after.diagnostics[1]!.message).to.include(`the package name "@p/other" is also written by ${LIB_JSON}`);
    expect(after.modules.map((module) => module.specifier)).to.deep.equal(['@p/app/main']);
    expect(after.modules[0]!.invalidImports).to.deep.equal(['@p/other/util']);
    const answer = await utilAnswer();
    expect(answer.status).to.equal(422);
    const body = answer.json<{ code: string; diagnostics: { file: string; message: string }[] }>();
    expect(body.code).to.equal('BUILD_FAILED');
    expect(answer.text).to.not.include("'LIB'").and.not.include("'OTHER'");
    expect(body.diagnostics.map((d) => d.message).join(' ')).to.include(LIB_JSON).and.include(OTHER_JSON);
  });

  it('gives the name back to the package that keeps it once the other is renamed', async function () {
    writeFile(root, OTHER_JSON, JSON.stringify({ ...other, name: '@p/other-b' }));
    const after = await report();
    expect(after.diagnostics).to.deep.equal([]);
    expect(after.modules.find((module) => module.specifier === '@p/app/main')).to.include({ status: 'valid' }).and.not.have.property('invalidImports');
    const answer = await utilAnswer();
    expect(answer.status).to.equal(200);
    expect(answer.text).to.include('LIB');
  });
});
