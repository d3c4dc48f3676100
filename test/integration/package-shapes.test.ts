// Every way real packages publish, served by a real service: an extensionless `*` target spanning
// directories, sources beside plain `.js` files, a package without `exports` imported deeply
// (its outDir in tsconfig.build.json), a package whose sources only a monorepo root's tsconfig
// `paths` names, and a plugin that declares its host in `peerDependencies`.
import { expect } from 'chai';
import { serve, stopAll } from '../helpers/service.js';
import { removeTemporaryDirs, tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

function shapesWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/components', 'packages/mixed', 'packages/open', 'packages/geo', 'packages/host', 'packages/plugin'], preview: '@shape/app/main' }),
    'tsconfig.json': json({ compilerOptions: { paths: { '@shape/geo': ['./packages/geo/src/index.ts'] } } }),
    'packages/components/package.json': json({ name: '@shape/components', version: '1.0.0', exports: { './components/*': './dist/components/*' } }),
    'packages/components/tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src' } }),
    'packages/components/src/components/button/button.ts': "export const button = 'components-button';\n",
    'packages/mixed/package.json': json({ name: '@shape/mixed', version: '1.0.0', exports: { './*.js': './lib/*.js' } }),
    'packages/mixed/lib/typed.ts': "export const typed = 'mixed-typed';\n",
    'packages/mixed/lib/plain.js': "export const plain = 'mixed-plain';\n",
    'packages/open/package.json': json({ name: '@shape/open', version: '1.0.0', main: 'lib/index.js', scripts: { build: 'tsc -p tsconfig.build.json' } }),
    'packages/open/tsconfig.build.json': json({ compilerOptions: { outDir: 'lib', rootDir: 'src' } }),
    'packages/open/src/index.ts': "export const open = 'open-root';\n",
    'packages/open/src/button/filled-button.ts': "export const filled = 'open-filled-button';\n",
    'packages/open/src/extra/direct.ts': "export const direct = 'open-direct';\n",
    'packages/geo/package.json': json({ name: '@shape/geo', version: '1.0.0', module: 'dist/geo.mjs', main: 'dist/geo.cjs' }),
    'packages/geo/src/index.ts': "export const geo = 'geo-source';\n",
    'packages/host/package.json': json({ name: '@shape/host', version: '2.1.0', exports: { '.': './index.ts' } }),
    'packages/host/index.ts': "export const host = 'host';\n",
    'packages/plugin/package.json': json({ name: '@shape/plugin', version: '1.0.0', exports: { '.': './index.ts' }, peerDependencies: { '@shape/host': '^2.0.0' } }),
    'packages/plugin/index.ts': "import { host } from '@shape/host';\nexport const plugin = `${host}-plugin`;\n",
    'packages/app/package.json': json({
      name: '@shape/app',
      version: '1.0.0',
      exports: { './main': './main/index.ts' },
      dependencies: { '@shape/components': '*', '@shape/mixed': '*', '@shape/open': '*', '@shape/geo': '*', '@shape/plugin': '*' },
    }),
    'packages/app/main/index.ts': [
      "import { button } from '@shape/components/components/button/button.js';",
      "import { typed } from '@shape/mixed/typed.js';",
      "import { plain } from '@shape/mixed/plain.js';",
      "import { open } from '@shape/open';",
      "import { filled } from '@shape/open/lib/button/filled-button.js';",
      "import { geo } from '@shape/geo';",
      "import { plugin } from '@shape/plugin';",
      'export const all = [button, typed, plain, open, filled, geo, plugin];',
      '',
    ].join('\n'),
  });
}

describe('every way real packages publish', function () {
  this.timeout(60_000);
  after(async () => {
    await stopAll();
    removeTemporaryDirs();
  });

  it('lists a module of each shape valid, the deep import of a package without exports on demand, and serves each', async function () {
    const service = await serve(shapesWorkspace());
    const report = await service.report();
    expect(report.diagnostics).to.deep.equal([]);
    expect(report.warnings ?? []).to.deep.equal([]);
    expect(report.modules.map((m) => [m.specifier, m.status, m.diagnostics])).to.deep.equal([
      ['@shape/app/main', 'valid', []],
      ['@shape/components/components/button/button.js', 'valid', []],
      ['@shape/mixed/plain.js', 'valid', []],
      ['@shape/mixed/typed.js', 'valid', []],
      ['@shape/open', 'valid', []],
      ['@shape/open/lib/button/filled-button.js', 'valid', []],
      ['@shape/geo', 'valid', []],
      ['@shape/host', 'valid', []],
      ['@shape/plugin', 'valid', []],
    ]);
    const served: [string, string][] = [
      ['components@1.0.0/modules/components/button/button.js', 'components-button'],
      ['mixed@1.0.0/modules/typed.js', 'mixed-typed'],
      ['mixed@1.0.0/modules/plain.js', 'mixed-plain'],
      ['open@1.0.0/modules/@root', 'open-root'],
      ['open@1.0.0/modules/lib/button/filled-button.js', 'open-filled-button'],
      ['geo@1.0.0/modules/@root', 'geo-source'],
      ['plugin@1.0.0/modules/@root', '"@shape/host"'],
    ];
    for (const [address, marker] of served) {
      const answer = await service.get(`/m/@shape/${address}`);
      expect(answer.status, address).to.equal(200);
      expect(answer.text, address).to.include(marker);
    }
    // Asked for by address before anything imports it: found on demand, with the same checks.
    const direct = await service.get('/m/@shape/open@1.0.0/modules/lib/extra/direct.js');
    expect(direct.status).to.equal(200);
    expect(direct.text).to.include('open-direct');
    expect((await service.report()).modules.find((m) => m.specifier === '@shape/open/lib/extra/direct.js')).to.include({ status: 'valid' });
    const wrongVersion = await service.get('/m/@shape/open@9.9.9/modules/lib/extra/other.js');
    expect(wrongVersion.status).to.equal(404);
    expect(service.internals.store.getState().deepImports).to.not.include('@shape/open/lib/extra/other.js');
    const missing = await service.get('/m/@shape/open@1.0.0/modules/lib/extra/missing.js');
    expect(missing.status).to.equal(404);
    expect(missing.text).to.include('OUTPUT_NOT_AVAILABLE');
    const entry = await service.get('/preview/entry.json');
    const { imports, diagnostics } = JSON.parse(entry.text) as { imports: Record<string, string>; diagnostics: unknown[] };
    expect(diagnostics).to.deep.equal([]);
    expect(imports['@shape/open/lib/button/filled-button.js']).to.match(/^\/m\/@shape\/open@1\.0\.0\/modules\/lib\/button\/filled-button\.js\?/);
  });
});
