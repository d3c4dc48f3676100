// Two failures a page met with nothing said (README "Bundling real code", "Exports and sources"):
// a declared worker importing what the browser cannot load (an undeclared sibling, a bare
// specifier) is a module warning in /state and the preview's entry.json, gone once the worker is
// fixed; a file a `*` pattern cannot publish is a top-level warning naming it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('warnings about names the browser or the service cannot serve', function () {
  let root: string;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/app', 'packages/lib'], preview: '@p/app/main' }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0' } }),
      'packages/app/main/module.json': json({ entry: 'index.ts', assets: ['w1.js', 'w3.js'] }),
      'packages/app/main/index.ts': "export const workers = [new Worker(new URL('./w1.js', import.meta.url), { type: 'module' }), new Worker(new URL('./w3.js', import.meta.url), { type: 'module' })];\n",
      'packages/app/main/w1.js': "import { h } from './helper1.js';\npostMessage(h);\n",
      'packages/app/main/helper1.js': "export const h = 'h1';\n",
      'packages/app/main/w3.js': "import { a } from '@p/lib/parts/one';\npostMessage(a);\n",
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './parts/*': './src/parts/*.ts' } }),
      'packages/lib/src/parts/one.ts': 'export const a = 1;\n',
      'packages/lib/src/parts/über.ts': "export const u = 'u';\n",
    });
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  it('lists a worker\'s unserved imports as warnings of its module, which stays valid, in /state and entry.json', async function () {
    const report = await service.report();
    const main = report.modules.find((m) => m.specifier === '@p/app/main')!;
    expect(main.status).to.equal('valid');
    expect((main.warnings ?? []).map((w) => [w.kind, w.file])).to.deep.equal([
      ['ASSET_IMPORT_UNSERVED', 'packages/app/main/w1.js'],
      ['ASSET_IMPORT_UNSERVED', 'packages/app/main/w3.js'],
    ]);
    const entry = (await service.get('/preview/entry.json')).json<{ warnings?: { kind: string; file: string }[] }>();
    expect((entry.warnings ?? []).map((w) => [w.kind, w.file])).to.deep.equal([
      ['ASSET_IMPORT_UNSERVED', 'packages/app/main/w1.js'],
      ['ASSET_IMPORT_UNSERVED', 'packages/app/main/w3.js'],
    ]);
  });

  it('lists each file a `*` pattern cannot publish as a top-level warning', async function () {
    const state = (await service.get('/state')).json<{ warnings?: { kind: string; message: string }[] }>();
    expect((state.warnings ?? []).map((w) => w.kind)).to.deep.equal(['EXPORTS_NAME_UNPUBLISHABLE']);
    expect(state.warnings![0]!.message).to.contain('matches packages/lib/src/parts/über.ts, but its subpath "parts/über" is not one this service can publish');
  });

  it('drops a worker\'s warning once the worker alone is edited to import a declared asset', async function () {
    fs.writeFileSync(path.join(root, 'packages/app/main/w3.js'), "import { h } from './w1.js';\npostMessage(h);\n");
    await waitFor(async () => {
      const main = (await service.report()).modules.find((m) => m.specifier === '@p/app/main')!;
      return (main.warnings ?? []).map((w) => w.file).join() === 'packages/app/main/w1.js';
    }, { what: 'the warning about w3.js to go' });
  });
});
