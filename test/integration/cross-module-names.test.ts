// Names imported across public modules, on a real service (README "Bundling real code"): a name
// the other module's code does not export, a default it does not have, a name two modules it
// re-exports whole both give, a TypeScript type re-exported by name: each importer is invalid at
// its import; fixing the import makes it valid without a restart, and a restart from the build
// cache reports the same; `core dist` refuses them as /state does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { CoreEvent } from '../../src/store/events.js';
import type { ModuleReport } from '../../src/store/selectors.js';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import { write } from '../helpers/edit.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

const workspace = () =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/a', 'packages/b'] }),
    'packages/a/package.json': json({
      name: '@p/a',
      version: '1.0.0',
      exports: { './main': './main/index.ts', './lib': './lib/index.ts', './defmix': './defmix/index.ts', './star': './star/index.ts', './reexp': './reexp/index.ts', './typed': './typed/index.ts', './fine': './fine/index.ts' },
      dependencies: { '@p/b': '^1.0.0' },
    }),
    'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', exports: { './util': './util/index.ts', './x': './x/index.ts', './types': './types/index.ts' } }),
    'packages/b/util/index.ts': "export const hello = () => 'hello';\nexport const shared = 1;\n",
    'packages/b/x/index.ts': 'export const shared = 2;\nexport const only = 3;\n',
    'packages/b/types/index.ts': 'export interface Shape { n: number }\nexport const make = (n: number): Shape => ({ n });\n',
    'packages/a/lib/index.ts': "export const libv = 'lib';\n",
    'packages/a/main/index.ts': "import { libv, missing } from '@p/a/lib';\ndocument.body.dataset.ok = String(libv) + String(missing);\n",
    'packages/a/defmix/index.ts': "import def, { hello } from '@p/b/util';\ndocument.body.dataset.ok = String(def) + hello();\n",
    'packages/a/star/index.ts': "export * from '@p/b/util';\nexport * from '@p/b/x';\n",
    'packages/a/reexp/index.ts': "// the name both give\nimport { shared } from '@p/a/star';\ndocument.body.dataset.ok = String(shared);\n",
    'packages/a/typed/index.ts': "export { Shape, make } from '@p/b/types';\n",
    'packages/a/fine/index.ts': "import { hello, only } from '@p/a/star';\nexport { make } from '@p/b/types';\nexport type { Shape } from '@p/b/types';\ndocument.body.dataset.ok = hello() + only;\n",
  });

const byName = (modules: ModuleReport[]) => new Map(modules.map((module) => [module.specifier, module]));
const placeOf = (module: ModuleReport | undefined) => module?.diagnostics.map(({ kind, file, line }) => ({ kind, file, line }));

describe('names imported across public modules, in /state', () => {
  const made: string[] = [];
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists each importer of a name the other module does not give invalid at its import, valid again once fixed, and the same after a restart from the build cache', async () => {
    const root = workspace();
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    made.push(root, cacheDir);
    const first = await serve(root, { cache: cacheDir, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
    let modules = byName((await first.report()).modules);
    expect(placeOf(modules.get('@p/a/main'))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/a/main/index.ts', line: 1 }]);
    expect(modules.get('@p/a/main')!.diagnostics[0]!.message).to.include('@p/a/lib does not export "missing"');
    expect(placeOf(modules.get('@p/a/defmix'))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/a/defmix/index.ts', line: 1 }]);
    expect(modules.get('@p/a/defmix')!.diagnostics[0]!.message).to.include('@p/b/util has no default export');
    expect(placeOf(modules.get('@p/a/reexp'))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/a/reexp/index.ts', line: 2 }]);
    expect(modules.get('@p/a/reexp')!.diagnostics[0]!.message).to.include('"shared" is exported by more than one module that @p/a/star re-exports whole');
    expect(placeOf(modules.get('@p/a/typed'))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/a/typed/index.ts', line: 1 }]);
    expect(modules.get('@p/a/typed')!.diagnostics[0]!.message).to.include('does not export "Shape"').and.to.include('export type { Shape } from "@p/b/types"');
    for (const valid of ['@p/a/lib', '@p/a/star', '@p/a/fine', '@p/b/util', '@p/b/x', '@p/b/types']) expect(modules.get(valid)!.status, valid).to.equal('valid');

    write(root, 'packages/a/main/index.ts', "import { libv } from '@p/a/lib';\ndocument.body.dataset.ok = String(libv);\n");
    await waitFor(async () => byName((await first.report()).modules).get('@p/a/main')!.status === 'valid', { what: '@p/a/main valid once it imports only libv' });
    modules = byName((await first.report()).modules);
    expect(modules.get('@p/a/main')!.diagnostics).to.deep.equal([]);
    const before = await first.report();
    const fixedEntry = () => {
      const index = JSON.parse(fs.readFileSync(path.join(cacheDir, 'builds.json'), 'utf8')) as { entries: { module: string; record: { links?: { imports?: { names: string[] }[] } } }[] };
      const main = index.entries.find((entry) => entry.module === '@p/a/main');
      return index.entries.length === 10 && json(main?.record.links?.imports?.[0]?.names) === json(['libv']);
    };
    await waitFor(() => fs.existsSync(path.join(cacheDir, 'builds.json')) && fixedEntry(), { what: 'the cache written after the fix' });
    await first.close();

    const second = await serve(root, { cache: cacheDir });
    const events: CoreEvent[] = [...second.internals.log.events()];
    const after = await second.report();
    expect(events.some((event) => event.type === 'cache.restored' && event.builds.length === 10)).to.equal(true);
    expect(events.filter((event) => event.type === 'build.started')).to.deep.equal([]);
    expect(after).to.deep.equal(before);
    await second.close();
  });

  it("answers each importer's addresses 422 BUILD_FAILED with the diagnostic, development and production (contract: a build with any diagnostic), and its code once the import is fixed", async () => {
    const root = workspace();
    made.push(root);
    const service = await serve(root);
    try {
      await service.report();
      for (const query of ['', '?env=production']) {
        const answer = await service.get(`/m/@p/a@1.0.0/modules/main${query}`);
        expect(answer.status, `main${query}`).to.equal(422);
        expect(answer.json().code).to.equal('BUILD_FAILED');
        expect(answer.json().diagnostics.map((diagnostic: { message: string }) => diagnostic.message).join()).to.include('@p/a/lib does not export "missing"');
      }
      expect((await service.get('/m/@p/a@1.0.0/modules/reexp')).status).to.equal(422);
      expect((await service.get('/m/@p/a@1.0.0/modules/fine')).status).to.equal(200);
      write(root, 'packages/a/main/index.ts', "import { libv } from '@p/a/lib';\ndocument.body.dataset.ok = String(libv);\n");
      await waitFor(async () => (await service.get('/m/@p/a@1.0.0/modules/main')).status === 200, { what: 'main answered once it imports only libv' });
      // The exporter changes instead: the importer, not rebuilt, is refused again.
      write(root, 'packages/a/lib/index.ts', "export const other = 'lib';\n");
      await waitFor(async () => (await service.get('/m/@p/a@1.0.0/modules/main')).status === 422, { what: 'main refused once lib no longer exports libv' });
    } finally {
      await service.close();
    }
  });

  it('makes core dist refuse the same importers, at their imports, and write none of their files', async () => {
    const root = workspace();
    const out = path.join(root, 'out');
    made.push(root);
    const result = await distribute({ root, out });
    expect(result.ok).to.equal(false);
    expect(result.invalid.map(({ module, diagnostics }) => [module.specifier, placeOf({ diagnostics } as ModuleReport)])).to.deep.equal([
      ['@p/a/defmix', [{ kind: 'BUNDLE_ERROR', file: 'packages/a/defmix/index.ts', line: 1 }]],
      ['@p/a/main', [{ kind: 'BUNDLE_ERROR', file: 'packages/a/main/index.ts', line: 1 }]],
      ['@p/a/reexp', [{ kind: 'BUNDLE_ERROR', file: 'packages/a/reexp/index.ts', line: 2 }]],
      ['@p/a/typed', [{ kind: 'BUNDLE_ERROR', file: 'packages/a/typed/index.ts', line: 1 }]],
    ]);
    expect(result.invalid.find(({ module }) => module.specifier === '@p/a/typed')!.diagnostics[0]!.message).to.include('export type { Shape }');
    const listed = result.manifest.outputs.filter((output) => output.kind === 'code').map((output) => output.module).sort();
    expect(listed).to.deep.equal(['@p/a/fine', '@p/a/lib', '@p/a/star', '@p/b/types', '@p/b/util', '@p/b/x']);
    const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.relative(out, path.join(dir, entry.name))]));
    expect(files(out).filter((file) => /(main|defmix|reexp|typed)\b/.test(file))).to.deep.equal([]);
  });
});
