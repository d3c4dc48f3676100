// A workspace package whose package.json cannot be taken into the model (README "Workspaces"):
// an import of it by another workspace module stays the workspace's. The preview maps it to an
// address of the service that answers the manifest's problem, never to the CDN; `/state` names
// it in the importer's `invalidImports`; `core dist` neither lists it as external nor writes a
// page that would load it; the fixed manifest heals all of it without a restart.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const CDN = 'https://cdn.test';
const LIB_JSON = 'packages/lib/package.json';
const libManifest = { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' }, core: { modules: '.' } };
const goodLib = JSON.stringify(libManifest);

function workspace(lib: string = goodLib): string {
  const root = inlineWorkspace({
    'packages/app': {
      manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0', lit: '3.1.0' }, core: { modules: '.' } },
      files: { 'main/index.ts': "import { a } from '@p/lib/util';\nimport { html } from 'lit';\ndocument.body.dataset.ok = a + typeof html;\n" },
    },
    'packages/lib': { manifest: libManifest, files: { 'util/index.ts': "export const a = 'mine';\n" } },
  });
  writeFile(root, LIB_JSON, lib);
  fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app', 'packages/lib'], preview: '@p/app/main' }));
  return root;
}

// Three ways a package drops out of the model: a save cut short after its name, an identity
// the schema refuses, and a save cut short before its name (no name to recognise it by).
const shapes = [
  { label: 'not JSON after its name', text: goodLib.slice(0, -1), version: '1.0.0', named: true },
  { label: 'a version that is not semver', text: JSON.stringify({ ...libManifest, version: 'one' }), version: 'one', named: true },
  { label: 'not JSON before its name', text: '{"version": "1.0.0", "na', version: 'unread', named: false },
];

describe('an import of a workspace package whose package.json cannot be taken', () => {
  for (const shape of shapes) {
    describe(`package.json ${shape.label}`, () => {
      let service: Awaited<ReturnType<typeof serve>>;
      let root: string;

      before(async () => {
        root = workspace();
        service = await serve(root, { cdnOrigin: CDN });
        writeFile(root, LIB_JSON, shape.text);
      });
      after(() => service?.close());

      it('maps it to an address of the service, never to the CDN, while a package outside the workspace keeps its CDN address', async () => {
        const entry = (await service.get('/preview/entry.json')).json();
        expect(entry.imports['@p/lib/util']).to.equal(`/m/@p/lib@${shape.version}/modules/util?target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false`);
        // With no name to tell it by, no name outside the workspace is sent to a CDN either.
        expect(entry.imports.lit).to.equal(shape.named ? `${CDN}/lit@3.1.0` : '/m/lit@unread/modules/@root?target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false');
        expect(entry.diagnostics.map((problem: { kind: string; file: string }) => `${problem.kind} ${problem.file}`)).to.deep.equal([`MANIFEST_INVALID ${LIB_JSON}`]);
      });

      it("answers that address with the manifest's problem", async () => {
        const entry = (await service.get('/preview/entry.json')).json();
        const answer = await service.get(entry.imports['@p/lib/util']);
        expect(answer.status).to.equal(shape.named ? 422 : 404);
        const body = answer.json();
        expect(body.code).to.equal(shape.named ? 'BUILD_FAILED' : 'OUTPUT_NOT_AVAILABLE');
        expect(body.message).to.include(LIB_JSON).and.include('sent to a CDN');
        expect(body.diagnostics.map((problem: { kind: string; file: string }) => `${problem.kind} ${problem.file}`)).to.deep.equal([`MANIFEST_INVALID ${LIB_JSON}`]);
      });

      it('lists the import in the importer\'s invalidImports on /state', async () => {
        const report = await service.report();
        const main = report.modules.find((module) => module.specifier === '@p/app/main')!;
        expect(main.status).to.equal('valid');
        expect(main.invalidImports).to.deep.equal(shape.named ? ['@p/lib/util'] : ['@p/lib/util', 'lit']);
      });

      it('heals once the package.json is fixed, without a restart', async () => {
        writeFile(root, LIB_JSON, goodLib);
        const report = await service.report();
        expect(report.modules.map((module) => [module.specifier, module.status, module.invalidImports])).to.deep.equal([
          ['@p/app/main', 'valid', undefined],
          ['@p/lib/util', 'valid', undefined],
        ]);
        const entry = (await service.get('/preview/entry.json')).json();
        expect(entry.imports['@p/lib/util']).to.match(/^\/m\/@p\/lib@1\.0\.0\/modules\/util\?.*&v=/);
        expect(entry.imports.lit).to.equal(`${CDN}/lit@3.1.0`);
        expect((await service.get(entry.imports['@p/lib/util'])).status).to.equal(200);
      });
    });
  }

  it('has core dist neither list it as external nor write a page that loads it', async () => {
    const root = workspace(goodLib.slice(0, -1));
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out, parallelism: 1 });
    expect(result.ok).to.equal(false);
    expect(result.manifest.external.map((external) => external.specifier)).to.deep.equal(['lit']);
    expect(result.page.written).to.equal(false);
    expect(result.page.written ? null : result.page.reason).to.include('@p/lib/util').and.include(LIB_JSON);
    expect(fs.existsSync(path.join(out, 'index.html'))).to.equal(false);
  });
});
