// A workspace package renamed while another still imports it by its old name (README
// "Workspaces"): by npm's rule the old name is a package from outside, which the preview maps to
// the CDN. The service read the old name earlier in this run, so the import is warned of, at its
// place, with the name to write instead; the warning goes once the import names the package as
// it is now called. A service started after the rename never read the old name: /state says
// nothing, but the preview warns of an import no copy is installed for when a workspace package's
// directory is named as it (or when the local CDN, which serves installed copies only, maps it).
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const CDN = 'https://cdn.test';
const LIB_JSON = 'packages/lib/package.json';
const APP_JSON = 'packages/app/package.json';
const MAIN = 'packages/app/main/index.ts';
const libManifest = { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' } };
const appManifest = { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' } };

function workspace(): string {
  const root = inlineWorkspace({
    'packages/app': { manifest: appManifest, files: { 'main/index.ts': "// the app\nimport { a } from '@p/lib/util';\ndocument.body.textContent = a;\n" } },
    'packages/lib': { manifest: libManifest, files: { 'util/index.ts': "export const a = 'mine';\n" } },
  });
  fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app', 'packages/lib'], preview: '@p/app/main' }));
  return root;
}

type Warning = { kind: string; file?: string; line?: number; column?: number; message: string; module?: string };
const told = (warnings: Warning[] | undefined) => (warnings ?? []).map((warning) => `${warning.kind} ${warning.file}:${warning.line}:${warning.column}`);

describe('an import of a workspace package by the name it had before a rename', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: CDN });
  });
  after(() => service?.close());

  const main = async () => (await service.report()).modules.find((module) => module.specifier === '@p/app/main') as { status: string; warnings?: Warning[] } | undefined;

  it('warns of nothing while the name is the package\'s', async function () {
    expect(await main()).to.include({ status: 'valid' }).and.not.have.property('warnings');
  });

  it('warns at the import once the package is renamed, naming the new name; the preview lists it', async function () {
    writeFile(root, LIB_JSON, JSON.stringify({ ...libManifest, name: '@p/core' }));
    const report = await service.report();
    expect(report.modules.map((module) => module.specifier)).to.include('@p/core/util');
    const importer = (await main())!;
    expect(importer.status).to.equal('valid');
    expect(told(importer.warnings)).to.deep.equal([`IMPORT_OF_FORMER_NAME ${MAIN}:2:19`]);
    expect(importer.warnings![0]!.message).to.include(`${LIB_JSON} wrote earlier`).and.include('import "@p/core/util"').and.include('declare "@p/core"');
    const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; warnings?: Warning[] }>();
    expect(entry.imports['@p/lib/util']).to.equal(`${CDN}/@p/lib@1.0.0/util`);
    expect(told(entry.warnings)).to.deep.equal([`IMPORT_OF_FORMER_NAME ${MAIN}:2:19`]);
  });

  it('says no more once the import names the package as it is now called', async function () {
    writeFile(root, APP_JSON, JSON.stringify({ ...appManifest, dependencies: { '@p/core': '1.0.0' } }));
    writeFile(root, MAIN, "// the app\nimport { a } from '@p/core/util';\ndocument.body.textContent = a;\n");
    await service.report();
    expect(await main()).to.include({ status: 'valid' }).and.not.have.property('warnings');
  });

  it('in a run started after the rename, which never read the old name: the preview warns while no copy of the old name is installed, naming the package whose directory it names', async function () {
    writeFile(root, APP_JSON, JSON.stringify(appManifest));
    writeFile(root, MAIN, "// the app\nimport { a } from '@p/lib/util';\ndocument.body.textContent = a;\n");
    await service.report();
    expect(told((await main())!.warnings)).to.deep.equal([`IMPORT_OF_FORMER_NAME ${MAIN}:2:19`]);
    await service.close();
    service = await serve(root, { cdnOrigin: CDN });
    expect(await main()).to.include({ status: 'valid' }).and.not.have.property('warnings');
    const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; warnings?: Warning[] }>();
    expect(entry.imports['@p/lib/util']).to.equal(`${CDN}/@p/lib@1.0.0/util`);
    expect(told(entry.warnings)).to.deep.equal([`PREVIEW_OUTSIDE_NOT_INSTALLED ${MAIN}:2:19`]);
    expect(entry.warnings![0]).to.include({ module: '@p/app/main' });
    expect(entry.warnings![0]!.message).to.include(`${CDN} has published`).and.include('packages/lib holds @p/core').and.include('import "@p/core/util"');
    // A copy installed under the name is what the user chose: npm's rule, no warning.
    writeFile(root, 'node_modules/@p/lib/package.json', JSON.stringify({ name: '@p/lib', version: '1.0.0' }));
    const installed = (await service.get('/preview/entry.json')).json<{ warnings?: Warning[] }>();
    expect(installed.warnings).to.equal(undefined);
  });
});

describe('an import of an old name with no version to map at, in a run started after the rename', function () {
  it('keeps its PREVIEW_VERSION_UNRESOLVED error and adds the name to import instead', async function () {
    const root = workspace();
    writeFile(root, LIB_JSON, JSON.stringify({ ...libManifest, name: '@p/core' }));
    writeFile(root, APP_JSON, JSON.stringify({ ...appManifest, dependencies: { '@p/lib': '^1.0.0' } }));
    const service = await serve(root, { cdnOrigin: CDN });
    try {
      const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; diagnostics: Warning[]; warnings?: Warning[] }>();
      expect(entry.imports).to.not.have.property('@p/lib/util');
      expect(entry.diagnostics.map((problem) => problem.kind)).to.deep.equal(['PREVIEW_VERSION_UNRESOLVED']);
      expect(told(entry.warnings)).to.deep.equal([`PREVIEW_OUTSIDE_NOT_INSTALLED ${MAIN}:2:19`]);
      expect(entry.warnings![0]!.message).to.include('no version to map at').and.include('import "@p/core/util"');
    } finally {
      await service.close();
    }
  });
});

describe('an import the local CDN maps though no copy of it is installed', function () {
  it('warns at the import until a copy is installed', async function () {
    const root = inlineWorkspace({
      'packages/app': { manifest: { ...appManifest, dependencies: { fakelit: '2.0.0' } }, files: { 'main/index.ts': "import { html } from 'fakelit';\ndocument.body.textContent = html('ok');\n" } },
    });
    fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app'], preview: '@p/app/main' }));
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; diagnostics: unknown[]; warnings?: Warning[] }>();
      expect(entry.imports.fakelit).to.equal('/cdn/fakelit@2.0.0');
      expect(entry.diagnostics).to.deep.equal([]);
      expect(told(entry.warnings)).to.deep.equal([`PREVIEW_OUTSIDE_NOT_INSTALLED ${MAIN}:1:22`]);
      expect(entry.warnings![0]!.message).to.include('answers its address 404').and.include('install it');
      writeFile(root, 'node_modules/fakelit/package.json', JSON.stringify({ name: 'fakelit', version: '2.0.0', type: 'module', main: 'index.js' }));
      writeFile(root, 'node_modules/fakelit/index.js', 'export const html = (s) => s;\n');
      const installed = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; warnings?: Warning[] }>();
      expect(installed.warnings).to.equal(undefined);
      expect(installed.imports.fakelit).to.match(/^\/cdn\/fakelit@2\.0\.0\?v=/);
    } finally {
      await service.close();
    }
  });
});

// npm links each workspace package in node_modules under its name: a rename leaves
// node_modules/<old name> linked to the package's directory. That link is no install of the old
// name (the local CDN serves none of it): a run started after the rename says so, as it does with
// no link at all, naming the package the link leads to (README "Workspaces").
describe('npm\'s link of a workspace package left under its old name, in a run started after the rename', function () {
  // The directory is no longer named as the old name: only the link leads to the package.
  function renamedWithLink(): string {
    const root = workspace();
    writeFile(root, LIB_JSON, JSON.stringify({ ...libManifest, name: '@p/core' }));
    fs.renameSync(path.join(root, 'packages/lib'), path.join(root, 'packages/core-lib'));
    fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app', 'packages/core-lib'], preview: '@p/app/main' }));
    fs.mkdirSync(path.join(root, 'node_modules/@p'), { recursive: true });
    fs.symlinkSync('../../packages/core-lib', path.join(root, 'node_modules/@p/lib'));
    return root;
  }

  for (const cdnOrigin of ['local', CDN]) {
    it(`is no install: the preview warns at the import, naming the package the link leads to (${cdnOrigin === 'local' ? 'the local CDN' : 'a CDN of the web'})`, async function () {
      const service = await serve(renamedWithLink(), { cdnOrigin });
      try {
        const main = (await service.report()).modules.find((module) => module.specifier === '@p/app/main');
        expect(main).to.include({ status: 'valid' });
        const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; warnings?: Warning[] }>();
        expect(told(entry.warnings)).to.deep.equal([`PREVIEW_OUTSIDE_NOT_INSTALLED ${MAIN}:2:19`]);
        expect(entry.warnings![0]!.message)
          .to.include("node_modules/@p/lib is npm's link of that name to packages/core-lib, whose package is @p/core now")
          .and.include('import "@p/core/util" and declare "@p/core"');
        if (cdnOrigin !== 'local') return;
        // What the page's overlay shows of the failed load: the same reason, not "a copy linked from elsewhere".
        const answer = await service.get(entry.imports['@p/lib/util']!);
        expect(answer.status).to.equal(404);
        expect(answer.json<{ code: string; message: string }>()).to.include({ code: 'OUTPUT_NOT_AVAILABLE' });
        expect(answer.json<{ message: string }>().message).to.include("node_modules/@p/lib is npm's link of that name to packages/core-lib, whose package is @p/core now").and.include('import it as @p/core');
      } finally {
        await service.close();
      }
    });
  }
});
