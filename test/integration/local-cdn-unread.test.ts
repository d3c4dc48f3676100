// The local CDN while a workspace package.json cannot be taken (README "Workspaces", "The local
// CDN"): a name that package may own is never served from node_modules, neither at its /cdn/
// address nor as the import of an installed package the preview maps, though a copy is installed
// under it; once the manifest is fixed, the same addresses serve again, without a restart.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const LIB_JSON = 'packages/lib/package.json';
const goodLib = json({ name: '@p/lib', version: '1.0.0', exports: { '.': './index.ts' } });

// An installed package importing the workspace package by its name, and a stale copy of that name
// installed too (a version published long ago): the copy is not the workspace's package.
function workspace(lib: string): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/lib'], preview: '@p/app/main' }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { fakelit: '2.0.0', '@p/lib': '1.0.0' } }),
    'packages/app/main/index.ts': "import { html } from 'fakelit';\ndocument.body.textContent = html('ok');\n",
    [LIB_JSON]: lib,
    'packages/lib/index.ts': "export const a = 'workspace lib';\n",
    'node_modules/fakelit/package.json': json({ name: 'fakelit', version: '2.0.0', type: 'module', main: 'index.js' }),
    'node_modules/fakelit/index.js': "import { a } from '@p/lib';\nexport const html = (s) => a + ':' + s;\n",
    'node_modules/@p/lib/package.json': json({ name: '@p/lib', version: '0.9.0', type: 'module', main: 'index.js' }),
    'node_modules/@p/lib/index.js': "export const a = 'stale installed copy';\n",
  });
}

type Entry = { imports: Record<string, string>; diagnostics: { kind: string; file?: string }[] };

describe('the local CDN while a package.json cannot be taken', function () {
  it("maps an installed package's import of a name the unread package.json owns to the service's address of that package, never the copy installed; served once fixed", async function () {
    const root = workspace(goodLib.slice(0, -1)); // a save cut short after its name
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<Entry>();
      expect(entry.imports.fakelit).to.match(/^\/cdn\/fakelit@2\.0\.0\?v=/);
      expect(entry.imports['@p/lib']).to.equal('/m/@p/lib@1.0.0/modules/@root?target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false');
      expect(entry.diagnostics.map((problem) => `${problem.kind} ${problem.file}`)).to.deep.equal([`MANIFEST_INVALID ${LIB_JSON}`]);
      const held = await service.get(entry.imports['@p/lib']!);
      expect(held.status).to.equal(422);
      expect(held.json<{ code: string; message: string }>().code).to.equal('BUILD_FAILED');
      // Its /cdn/ address at the installed copy's version answers the same problem, not the copy.
      const installed = await service.get('/cdn/@p/lib@0.9.0');
      expect(installed.status).to.equal(422);
      expect(installed.text).to.not.include('stale installed copy');

      writeFile(root, LIB_JSON, goodLib);
      const fixed = (await service.get('/preview/entry.json')).json<Entry>();
      expect(fixed.diagnostics).to.deep.equal([]);
      expect(fixed.imports['@p/lib']).to.equal('/cdn/@p/lib@1.0.0');
      const redirect = await service.get(fixed.imports['@p/lib']!);
      expect(redirect.headers.location).to.equal('/m/@p/lib@1.0.0/modules/@root?env=production');
      const served = await service.get(redirect.headers.location!);
      expect(served.status).to.equal(200);
      expect(served.text).to.include('workspace lib').and.not.include('stale installed copy');
    } finally {
      await service.close();
    }
  });

  it('answers no installed package at its /cdn/ address while a package.json is unread before its name, naming it; served once fixed', async function () {
    const root = workspace('{"version": "1.0.0", "na'); // no name to tell the package by
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const held = await service.get('/cdn/fakelit@2.0.0');
      expect(held.status).to.equal(404);
      const body = held.json<{ code: string; message: string; diagnostics: { kind: string; file: string }[] }>();
      expect(body.code).to.equal('OUTPUT_NOT_AVAILABLE');
      expect(body.message).to.include(LIB_JSON).and.include('fakelit');
      expect(body.diagnostics.map((problem) => `${problem.kind} ${problem.file}`)).to.deep.equal([`MANIFEST_INVALID ${LIB_JSON}`]);

      writeFile(root, LIB_JSON, goodLib);
      const served = await service.get('/cdn/fakelit@2.0.0');
      expect(served.status).to.equal(200);
      expect(served.text).to.match(/from\s*"@p\/lib"/);
    } finally {
      await service.close();
    }
  });
});
