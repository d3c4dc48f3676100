// A directory import (`'../reg'`, `'../reg/'`) that esbuild resolves to another public module's
// entry (its folder's index) is an import of that module, as its file's name is (README "Bundling
// real code"): kept external as the module's public specifier, with MODULE_BOUNDARY_CROSSED,
// never bundled as a copy of that module's state. So is an alias esbuild resolves to that entry.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { awaitedWalk, serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const REGISTRY = 'export const reg: string[] = [];\n';

async function crossingsOf(files: Record<string, string>, importers: string[]) {
  const service = await serve(tempWorkspace(files));
  try {
    const report = await service.report();
    const seen: Record<string, unknown> = {};
    for (const subpath of importers) {
      const module = report.modules.find((m) => m.specifier === `@p/a/${subpath}`)!;
      const code = (await service.get(`/m/@p/a@1.0.0/modules/${subpath}`)).text;
      seen[subpath] = {
        status: module.status,
        warnings: (module.warnings ?? []).map((warning) => warning.kind),
        external: /from\s*"@p\/a\/reg"/.test(code),
        copied: /=\s*\[\]/.test(code),
      };
    }
    return seen;
  } finally {
    await service.close();
  }
}

const kept = { status: 'valid', warnings: ['MODULE_BOUNDARY_CROSSED'], external: true, copied: false };

describe('a directory import of another public module\'s entry', function () {
  it('is kept external, with a warning, in each spelling: the folder, the folder with a slash, its index by name', async function () {
    const spellings = { folder: '../reg', slash: '../reg/', named: '../reg/index.js', bare: '../reg/index' };
    const files: Record<string, string> = {
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', exports: Object.fromEntries([['./reg', './src/reg/index.ts'], ...Object.keys(spellings).map((name) => [`./${name}`, `./src/${name}/index.ts`])]) }),
      'packages/a/src/reg/index.ts': REGISTRY,
    };
    for (const [name, spelling] of Object.entries(spellings)) files[`packages/a/src/${name}/index.ts`] = `import { reg } from '${spelling}';\nreg.push('${name}');\nexport {};\n`;
    const seen = await crossingsOf(files, Object.keys(spellings));
    expect(seen).to.deep.equal(Object.fromEntries(Object.keys(spellings).map((name) => [name, kept])));
  });

  it('is kept external in the layout of module.json folders, from `..` and `./` spellings', async function () {
    const seen = await crossingsOf(
      {
        'core.json': json({ packages: ['packages/a'] }),
        'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
        'packages/a/src/reg/module.json': json({ entry: 'index.ts' }),
        'packages/a/src/reg/index.ts': REGISTRY,
        'packages/a/src/one/module.json': json({ entry: 'index.ts' }),
        'packages/a/src/one/index.ts': "import { reg } from '../reg';\nreg.push('one');\nexport {};\n",
        'packages/a/src/two/module.json': json({ entry: 'index.ts' }),
        'packages/a/src/two/index.ts': "import { reg } from './../reg/';\nreg.push('two');\nexport {};\n",
      },
      ['one', 'two'],
    );
    expect(seen).to.deep.equal({ one: kept, two: kept });
  });

  it('is kept external through a tsconfig `paths` alias and a package.json `imports` alias, by name or by folder', async function () {
    const spellings = { pathsFile: '@/reg/index', pathsFolder: '@/reg', hashFolder: '#reg' };
    const files: Record<string, string> = {
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, imports: { '#reg': './src/reg/index.ts' } }),
      'packages/a/tsconfig.json': json({ compilerOptions: { baseUrl: '.', paths: { '@/*': ['./src/*'] } } }),
      'packages/a/src/reg/module.json': json({ entry: 'index.ts' }),
      'packages/a/src/reg/index.ts': REGISTRY,
    };
    for (const [name, spelling] of Object.entries(spellings)) {
      files[`packages/a/src/${name}/module.json`] = json({ entry: 'index.ts' });
      files[`packages/a/src/${name}/index.ts`] = `import { reg } from '${spelling}';\nreg.push('${name}');\nexport {};\n`;
    }
    const seen = await crossingsOf(files, Object.keys(spellings));
    expect(seen).to.deep.equal(Object.fromEntries(Object.keys(spellings).map((name) => [name, kept])));
  });

  it('is kept external through a tsconfig `baseUrl` spelling, which reads as a package name', async function () {
    const spellings = { folder: 'src/reg', file: 'src/reg/index', named: 'src/reg/index.js', fromTop: 'reg' };
    const files: Record<string, string> = {
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', exports: Object.fromEntries([['./reg', './src/reg/index.ts'], ...Object.keys(spellings).map((name) => [`./${name}`, `./src/${name}/index.ts`])]) }),
      'packages/a/tsconfig.json': json({ compilerOptions: { baseUrl: '.' } }),
      'packages/a/src/reg/index.ts': REGISTRY,
      // A nearer tsconfig of the importer's own: `reg` from the folder of the sources.
      'packages/a/src/fromTop/tsconfig.json': json({ compilerOptions: { baseUrl: '..' } }),
    };
    for (const [name, spelling] of Object.entries(spellings)) files[`packages/a/src/${name}/index.ts`] = `import { reg } from '${spelling}';\nreg.push('${name}');\nexport {};\n`;
    const seen = await crossingsOf(files, Object.keys(spellings));
    expect(seen).to.deep.equal(Object.fromEntries(Object.keys(spellings).map((name) => [name, kept])));
  });

  it("is kept external where a folder's package.json names the entry (`main`, `module`), by the folder's name from anywhere", async function () {
    const files: Record<string, string> = {
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({
        name: '@p/a',
        version: '1.0.0',
        type: 'module',
        exports: { './reg': './src/reg/lib/index.ts', './modular': './src/modular/dist/entry.ts', './one': './src/one.ts', './two': './src/deep/two.ts', './three': './src/three.ts' },
      }),
      'packages/a/src/reg/package.json': json({ main: 'lib/index.ts' }),
      'packages/a/src/reg/lib/index.ts': REGISTRY,
      'packages/a/src/modular/package.json': json({ module: './dist/entry.ts' }),
      'packages/a/src/modular/dist/entry.ts': REGISTRY,
      'packages/a/src/one.ts': "import { reg } from './reg';\nreg.push('one');\nexport {};\n",
      'packages/a/src/deep/two.ts': "import { reg } from '../reg/';\nreg.push('two');\n",
      'packages/a/src/three.ts': "import { reg } from './modular';\nreg.push('three');\nexport {};\n",
    };
    const seen = await crossingsOf(files, ['one', 'two', 'three']);
    expect(seen).to.deep.equal({ one: kept, two: kept, three: { ...kept, external: false } });
    const service = await serve(tempWorkspace(files));
    try {
      expect((await service.get('/m/@p/a@1.0.0/modules/three')).text).to.match(/from\s*"@p\/a\/modular"/);
    } finally {
      await service.close();
    }
  });

  it('is kept external with a query or a fragment after the name, which esbuild reads as no part of it; a Vite query is not', async function () {
    const spellings = { query: '../reg/index.ts?v=2', fragment: '../reg#x', both: '../reg/index?v=2#x' };
    const files: Record<string, string> = {
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', exports: Object.fromEntries([['./reg', './src/reg/index.ts'], ['./raw', './src/raw/index.ts'], ...Object.keys(spellings).map((name) => [`./${name}`, `./src/${name}/index.ts`])]) }),
      'packages/a/tsconfig.json': json({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } }),
      'packages/a/src/reg/index.ts': REGISTRY,
      'packages/a/src/raw/index.ts': "import text from '../reg/index.ts?raw';\nconsole.log(text);\n",
    };
    for (const [name, spelling] of Object.entries(spellings)) files[`packages/a/src/${name}/index.ts`] = `import { reg } from '${spelling}';\nreg.push('${name}');\nexport {};\n`;
    const seen = await crossingsOf(files, [...Object.keys(spellings), 'raw']);
    expect(seen).to.deep.equal({ ...Object.fromEntries(Object.keys(spellings).map((name) => [name, kept])), raw: { status: 'invalid', warnings: [], external: false, copied: false } });
  });

  it('is bundled where the folder holds a file of the same name that esbuild takes first (`reg.ts` beside `reg/`)', async function () {
    const seen = await crossingsOf(
      {
        'core.json': json({ packages: ['packages/a'] }),
        'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', exports: { './reg': './src/reg/index.ts', './one': './src/one.ts' } }),
        'packages/a/src/reg/index.ts': REGISTRY,
        'packages/a/src/reg.ts': 'export const reg: string[] = [];\n',
        'packages/a/src/one.ts': "import { reg } from './reg';\nreg.push('one');\nexport {};\n",
      },
      ['one'],
    );
    expect(seen).to.deep.equal({ one: { status: 'valid', warnings: [], external: false, copied: true } });
  });

  it('builds the importer again when a file is added at an earlier target of the `paths` entry that reached the entry', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', exports: { './reg': './src/reg/index.ts', './one': './src/one.ts' } }),
      'packages/a/tsconfig.json': json({ compilerOptions: { paths: { '@/*': ['./overrides/*', './src/*'] } } }),
      'packages/a/src/reg/index.ts': REGISTRY,
      'packages/a/src/one.ts': "import { reg } from '@/reg';\nreg.push('one');\nexport {};\n",
    });
    const service = await serve(root);
    try {
      const code = async () => (await service.get('/m/@p/a@1.0.0/modules/one')).text;
      expect(await code()).to.match(/from\s*"@p\/a\/reg"/);
      fs.mkdirSync(path.join(root, 'packages/a/overrides'));
      fs.writeFileSync(path.join(root, 'packages/a/overrides/reg.ts'), "export const reg = ['OVERRIDE'];\n");
      expect(await code(), 'overrides/reg.ts, the first target').to.include('OVERRIDE').and.not.match(/from\s*"@p\/a\/reg"/);
    } finally {
      await service.close();
    }
  });
});

describe('a tsconfig `baseUrl` spelling kept as another module\'s import', function () {
  it('builds the importer again when a file is made where esbuild looks before the folder (`src/reg.ts` beside `src/reg/`)', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', exports: { './reg': './src/reg/index.ts', './one': './src/one.ts' } }),
      'packages/a/tsconfig.json': json({ compilerOptions: { baseUrl: '.' } }),
      'packages/a/src/reg/index.ts': REGISTRY,
      // No named export list: the import is kept as written, not through the other entry's names.
      'packages/a/src/one.ts': "import { reg } from 'src/reg';\nreg.push('one');\n",
    });
    // Once the watcher is up, as under `core run`: it vouches for the places no build depends on.
    const walk = awaitedWalk();
    const service = await serve(root, { effectDeps: walk.deps });
    try {
      const code = async () => (await service.get('/m/@p/a@1.0.0/modules/one')).text;
      expect(await code()).to.match(/from\s*"@p\/a\/reg"/);
      await walk.walked;
      fs.writeFileSync(path.join(root, 'packages/a/src/reg.ts'), "export const reg = ['BESIDE'];\n");
      expect(await code(), 'src/reg.ts, which esbuild takes first').to.include('BESIDE').and.not.match(/from\s*"@p\/a\/reg"/);
    } finally {
      await service.close();
    }
  });
});
