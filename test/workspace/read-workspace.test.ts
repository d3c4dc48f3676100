// Deriving the workspace model from its manifests, over files declared as a map.
import { expect } from 'chai';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { knownIdentities } from '../../src/workspace/known-identity.js';
import { LINK_TARGET } from '../../src/workspace/paths.js';
import { hashOf, memoryReader } from '../helpers/memory-reader.js';

const json = (value: unknown) => JSON.stringify(value);
const TS = '@core-js/packages/bundlers/ts';
const ESBUILD = '@core-js/packages/bundlers/esbuild';

/** A workspace of the packages given (directory to package.json value) plus other files. */
function files(packages: Record<string, Record<string, unknown>>, extra: Record<string, string> = {}, core: Record<string, unknown> = {}): Record<string, string> {
  const all: Record<string, string> = { 'core.json': json({ packages: Object.keys(packages), ...core }) };
  for (const [dir, manifest] of Object.entries(packages)) all[`${dir}/package.json`] = json({ version: '1.0.0', ...manifest });
  return { ...all, ...extra };
}

const read = (...args: Parameters<typeof files>) => readWorkspace(memoryReader(files(...args)));

describe('readWorkspace', () => {
  it('publishes a module for each exports entry whose target is a source file, the root (".") as the package name', () => {
    const model = read({
      'packages/app': {
        name: '@acme/app',
        exports: { '.': './index.ts', './main': './main/index.ts', './widgets/badge': './src/badge/badge.tsx', './data': './data.json', './types': './types.d.ts', './*': './src/*.ts' },
        dependencies: { lit: '3.1.0' },
      },
    });
    expect(model.diagnostics).to.deep.equal([]);
    // The JSON key publishes no module: it is kept for its importers' errors, and warned of (README "Exports and sources").
    expect(model.packages).to.deep.equal([{ name: '@acme/app', version: '1.0.0', dir: 'packages/app', dependencies: { lit: '3.1.0' }, dataExports: { data: './data.json' } }]);
    expect(model.warnings?.filter((w) => w.kind === 'EXPORTS_NAME_UNPUBLISHABLE').map((w) => [w.kind, w.message.slice(0, w.message.indexOf(' is JSON'))])).to.deep.equal([['EXPORTS_NAME_UNPUBLISHABLE', 'packages/app/package.json: exports["./data"] -> "./data.json"']]);
    expect(model.modules).to.deep.equal([
      {
        specifier: '@acme/app',
        package: '@acme/app',
        version: '1.0.0',
        subpath: '@root',
        dir: 'packages/app',
        entry: 'packages/app/index.ts',
        platforms: ['web'],
        bundler: { name: 'ts', specifier: TS },
        assets: [],
        diagnostics: [],
      },
      {
        specifier: '@acme/app/main',
        package: '@acme/app',
        version: '1.0.0',
        subpath: 'main',
        dir: 'packages/app/main',
        entry: 'packages/app/main/index.ts',
        platforms: ['web'],
        bundler: { name: 'ts', specifier: TS },
        assets: [],
        diagnostics: [],
      },
      {
        specifier: '@acme/app/widgets/badge',
        package: '@acme/app',
        version: '1.0.0',
        subpath: 'widgets/badge',
        dir: 'packages/app/src/badge',
        entry: 'packages/app/src/badge/badge.tsx',
        platforms: ['web'],
        bundler: { name: 'ts', specifier: TS },
        assets: [],
        diagnostics: [],
      },
    ]);
  });

  it('gives a name two packages write to neither: both are unread by that name, each told of the other', () => {
    const model = read({ first: { name: '@acme/app', exports: { './a': './a.ts' } }, second: { name: '@acme/app', version: '2.0.0', exports: { './b': './b.ts' } }, other: { name: '@acme/other', exports: { './c': './c.ts' } } });
    expect(model.packages.map((p) => p.dir)).to.deep.equal(['other']);
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/other/c']);
    expect(model.unreadPackages).to.deep.equal([
      { dir: 'first', file: 'first/package.json', name: '@acme/app', version: '1.0.0' },
      { dir: 'second', file: 'second/package.json', name: '@acme/app', version: '2.0.0' },
    ]);
    expect(model.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
      ['MANIFEST_INVALID', 'first/package.json', 'first/package.json: the package name "@acme/app" is also written by second/package.json (core.json lists both); none of them is served under that name and every import of it is invalid until one of them is renamed'],
      ['MANIFEST_INVALID', 'second/package.json', 'second/package.json: the package name "@acme/app" is also written by first/package.json (core.json lists both); none of them is served under that name and every import of it is invalid until one of them is renamed'],
    ]);
  });

  it('takes a listed directory and a link to it (one real path) as one directory listed twice, not two packages of one name', () => {
    const declared = files({ 'packages/lib': { name: '@acme/lib', exports: { './a': './a.ts' } }, 'packages/lib2': { name: '@acme/lib', exports: { './a': './a.ts' } } }, { 'packages/lib/a.ts': '', 'packages/lib2/a.ts': '' });
    // packages/lib2 is a link to packages/lib: the same files, one directory.
    const reader = { ...memoryReader(declared), realPath: (path: string) => path.replace(/^packages\/lib2(?=\/|$)/, 'packages/lib'), linkHash: (path: string) => hashOf(`->${path}`) };
    const model = readWorkspace(reader);
    expect(model.packages.map((p) => [p.name, p.dir])).to.deep.equal([['@acme/lib', 'packages/lib']]);
    expect(model.unreadPackages).to.equal(undefined);
    expect(model.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
      ['MANIFEST_INVALID', 'core.json', 'core.json: packages[1] "packages/lib2" is listed twice: it and packages[0] "packages/lib" are one directory (packages/lib), one of them reached through a symbolic link'],
    ]);
    // Where the link leads is an input: retargeted, it may be another package.
    expect(model.sources).to.have.property(`packages/lib2${LINK_TARGET}`, hashOf('->packages/lib2'));
  });

  it('keeps a name contested by a package whose package.json breaks before its name: its last good read holds the name until it is read again', () => {
    const dup = { name: '@acme/dup', exports: { './x': './x.ts' } };
    const declared = files({ b: dup, c: dup }, { 'b/x.ts': '', 'c/x.ts': '' });
    const contested = readWorkspace(memoryReader(declared));
    expect(contested.packages).to.deep.equal([]);
    // b mid-save: no name can be read from it now.
    const broken = { ...declared, 'b/package.json': '{ broken' };
    const whileBroken = readWorkspace(memoryReader(broken), [], knownIdentities(contested));
    expect(whileBroken.packages, 'c is not handed the name b wrote a moment ago').to.deep.equal([]);
    expect(whileBroken.unreadPackages).to.deep.equal([
      { dir: 'b', file: 'b/package.json', name: null, version: null, lastReadName: '@acme/dup' },
      { dir: 'c', file: 'c/package.json', name: '@acme/dup', version: '1.0.0' },
    ]);
    expect(whileBroken.diagnostics.find((d) => d.file === 'c/package.json')!.message).to.equal(
      'c/package.json: the package name "@acme/dup" is also written by b/package.json (unreadable now; it wrote the name at its last read) (core.json lists both); none of them is served under that name and every import of it is invalid until one of them is renamed',
    );
    // A later read while b is still broken (another file saved) keeps the contest.
    const again = readWorkspace(memoryReader(broken), [], knownIdentities(whileBroken));
    expect(again.packages).to.deep.equal([]);
    // Read again under another name: the contest ends and c has its name.
    const renamed = readWorkspace(memoryReader({ ...declared, 'b/package.json': json({ ...dup, name: '@acme/b', version: '1.0.0' }) }), [], knownIdentities(again));
    expect(renamed.packages.map((p) => [p.name, p.dir])).to.deep.equal([
      ['@acme/b', 'b'],
      ['@acme/dup', 'c'],
    ]);
  });

  it('contests a name a package.json broken after its name still writes', () => {
    const dup = { name: '@acme/dup', exports: { './x': './x.ts' } };
    const model = readWorkspace(memoryReader({ ...files({ b: dup, c: dup }, { 'b/x.ts': '', 'c/x.ts': '' }), 'b/package.json': '{ "name": "@acme/dup", "version": "1.0.0", broken' }));
    expect(model.packages).to.deep.equal([]);
    expect(model.unreadPackages!.map((p) => [p.dir, p.name])).to.deep.equal([
      ['b', '@acme/dup'],
      ['c', '@acme/dup'],
    ]);
  });

  it('warns about a package that publishes no module, saying how to declare one', () => {
    const model = read({ app: { name: '@acme/app', exports: { './main': './main/index.ts' } }, empty: { name: '@acme/empty' } });
    expect(model.diagnostics).to.deep.equal([]);
    expect(model.warnings).to.have.length(1);
    expect(model.warnings![0]).to.include({ kind: 'NO_PUBLIC_MODULE', file: 'empty/package.json' });
    expect(model.warnings![0]!.message).to.include('"exports"').and.include('a file of it is also a module once a workspace module imports it ("@acme/empty/<file>.js")');
  });

  it('publishes a stylesheet target of `exports` that exists as a module of its own (patterns too), so a CSS-only package warns of nothing but its JSON key', () => {
    const model = read(
      { tokens: { name: '@acme/tokens', exports: { './themes/*.css': './src/themes/*.css', './reset.css': { style: './reset.css' }, './gone.css': './gone.css', './data': './data.json' } } },
      { 'tokens/src/themes/light.css': '', 'tokens/src/themes/dark.css': '', 'tokens/reset.css': '', 'tokens/data.json': '{}' },
    );
    expect(model.diagnostics).to.deep.equal([]);
    // The JSON key is no module of this service, and said so (README "Exports and sources"); the stylesheets, present or not, are silent.
    expect(model.warnings?.map((w) => [w.kind, w.file])).to.deep.equal([['EXPORTS_NAME_UNPUBLISHABLE', 'tokens/package.json']]);
    expect(model.modules.map((m) => [m.specifier, m.dir, m.entry])).to.deep.equal([
      ['@acme/tokens/reset.css', 'tokens', 'tokens/reset.css'],
      ['@acme/tokens/themes/dark.css', 'tokens/src/themes', 'tokens/src/themes/dark.css'],
      ['@acme/tokens/themes/light.css', 'tokens/src/themes', 'tokens/src/themes/light.css'],
    ]);
  });

  it('keeps each file a `*` pattern maps to JSON as the exact key\'s target is kept: a warning naming it at the package, and the key for its importers', () => {
    const model = read(
      { lib: { name: '@acme/lib', exports: { './x': './x.ts', './data': './data.json', './*.json': './cfg/*.json', './*': './src/*.ts' } } },
      { 'lib/x.ts': '', 'lib/data.json': '{}', 'lib/cfg/conf.json': '{}', 'lib/cfg/deep/more.json': '{}', 'lib/src/y.ts': '' },
    );
    expect(model.diagnostics).to.deep.equal([]);
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/lib/x', '@acme/lib/y']);
    expect(model.packages[0]!.dataExports).to.deep.equal({ data: './data.json', 'conf.json': './cfg/conf.json', 'deep/more.json': './cfg/deep/more.json' });
    expect(model.packages[0]!.dataExportKeys).to.deep.equal({ 'conf.json': './*.json', 'deep/more.json': './*.json' });
    expect(model.warnings?.map((w) => [w.kind, w.message.slice(0, w.message.indexOf(': Node'))])).to.deep.equal([
      ['EXPORTS_NAME_UNPUBLISHABLE', 'lib/package.json: exports["./data"] -> "./data.json" is JSON'],
      ['EXPORTS_NAME_UNPUBLISHABLE', 'lib/package.json: exports["./*.json"] -> "./cfg/conf.json" is JSON'],
      ['EXPORTS_NAME_UNPUBLISHABLE', 'lib/package.json: exports["./*.json"] -> "./cfg/deep/more.json" is JSON'],
    ]);
  });

  it('reports core.modules naming no directory', () => {
    const model = read({ app: { name: '@acme/app', core: { modules: 'components' } } });
    expect(model.diagnostics.map((d) => d.message)).to.deep.equal(['app/package.json: core.modules "components" names no directory of the package (app/components does not exist)']);
  });

  it('lists a module invalid when a declared asset does not exist', () => {
    const model = read(
      { app: { name: '@acme/app', exports: { './main': './main/index.ts' } } },
      { 'app/main/index.ts': 'export {}', 'app/main/logo.svg': '<svg/>', 'app/main/module.json': json({ assets: ['logo.svg', 'gone.png'] }) },
    );
    expect(model.modules[0]!.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
      ['MANIFEST_INVALID', 'app/main/module.json', 'app/main/module.json: "assets" declares "gone.png", but app/main/gone.png does not exist: add the file or remove it from "assets"'],
    ]);
  });

  it('refuses an exports target outside the package', () => {
    const model = read({ app: { name: '@acme/app', exports: { './main': '../other/index.ts' } } });
    expect(model.modules).to.deep.equal([]);
    expect(model.diagnostics).to.have.length(1);
    expect(model.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/package.json' });
    expect(model.diagnostics[0]!.message).to.contain('exports["./main"] must map to a file of the package; it maps to "../other/index.ts"');
  });

  it('adds a module.json beside an exports target to that module', () => {
    const model = read(
      { app: { name: '@acme/app', exports: { './main': './main/index.ts' } } },
      { 'app/main/module.json': json({ platforms: ['node', 'web'], assets: ['logo.svg'], bundler: 'esbuild', entry: 'ignored.ts' }), 'app/main/logo.svg': '<svg/>' },
    );
    expect(model.modules).to.have.length(1);
    expect(model.modules[0]).to.deep.include({
      specifier: '@acme/app/main',
      entry: 'app/main/index.ts',
      platforms: ['node', 'web'],
      assets: ['logo.svg'],
      bundler: { name: 'esbuild', specifier: ESBUILD },
      diagnostics: [],
    });
  });

  it('lists an exports module invalid when the module.json beside it is broken', () => {
    const model = read({ app: { name: '@acme/app', exports: { './main': './main/index.ts' } } }, { 'app/main/module.json': '{"platforms": ["web",]}' });
    expect(model.modules).to.have.length(1);
    expect(model.modules[0]!.diagnostics).to.have.length(1);
    expect(model.modules[0]!.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/main/module.json', line: 1, column: 22 });
    expect(model.diagnostics).to.deep.equal([]);
  });

  it('declares manifest-only modules under core.modules, the subpath from the directory', () => {
    const model = read(
      { app: { name: '@acme/app', core: { modules: 'src' } } },
      {
        'app/src/main/module.json': json({ entry: 'index.ts' }),
        'app/src/main/index.ts': '',
        'app/src/widgets/badge/module.json': json({ entry: './badge.ts', assets: ['star.svg'], platforms: ['web', 'node'] }),
        'app/src/widgets/badge/star.svg': '<svg/>',
        'app/elsewhere/module.json': json({ entry: 'index.ts' }),
      },
    );
    expect(model.diagnostics).to.deep.equal([]);
    expect(model.modules.map((m) => [m.specifier, m.dir, m.entry])).to.deep.equal([
      ['@acme/app/main', 'app/src/main', 'app/src/main/index.ts'],
      ['@acme/app/widgets/badge', 'app/src/widgets/badge', 'app/src/widgets/badge/badge.ts'],
    ]);
    expect(model.modules[1]).to.deep.include({ assets: ['star.svg'], platforms: ['web', 'node'], diagnostics: [] });
  });

  it('takes the subpath of a manifest-only module from its subpath member', () => {
    const model = read({ app: { name: '@acme/app', core: { modules: '.' } } }, { 'app/src/b/module.json': json({ entry: 'index.ts', subpath: 'ui/badge' }) });
    expect(model.modules.map((m) => [m.specifier, m.dir])).to.deep.equal([['@acme/app/ui/badge', 'app/src/b']]);
  });

  it('lists a manifest-only module without entry invalid', () => {
    const model = read({ app: { name: '@acme/app', core: { modules: '.' } } }, { 'app/main/module.json': json({ platforms: ['web'] }) });
    const [module] = model.modules;
    expect(module).to.deep.include({ specifier: '@acme/app/main', entry: null });
    expect(module!.diagnostics).to.have.length(1);
    expect(module!.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/main/module.json' });
    expect(module!.diagnostics[0]!.message).to.contain('"entry" is required');
  });

  it('lists a manifest-only module with a broken manifest invalid rather than dropping it', () => {
    const model = read({ app: { name: '@acme/app', core: { modules: '.' } } }, { 'app/main/module.json': '{ entry: "index.ts" }' });
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/app/main']);
    expect(model.modules[0]!.diagnostics.map((d) => [d.kind, d.file, d.line, d.column])).to.deep.equal([['MANIFEST_INVALID', 'app/main/module.json', 1, 3]]);
  });

  it('needs a subpath for a module.json at the top of core.modules', () => {
    const model = read({ app: { name: '@acme/app', core: { modules: 'src' } } }, { 'app/src/module.json': json({ entry: 'index.ts' }) });
    expect(model.modules).to.have.length(1);
    expect(model.modules[0]!.diagnostics.map((d) => d.message)).to.deep.equal(['app/src/module.json: a module.json at the top of core.modules needs a "subpath"']);
  });

  it('refuses core.modules outside the package', () => {
    const model = read({ app: { name: '@acme/app', core: { modules: '../other' } } }, { 'other/x/module.json': json({ entry: 'index.ts' }) });
    expect(model.modules).to.deep.equal([]);
    expect(model.diagnostics.map((d) => [d.file, d.message])).to.deep.equal([['app/package.json', 'app/package.json: core.modules must be a directory inside the package; it is "../other"']]);
  });

  it('skips node_modules and dot-directories when searching for module.json', () => {
    const model = read(
      { app: { name: '@acme/app', core: { modules: '.' } } },
      {
        'app/main/module.json': json({ entry: 'index.ts' }),
        'app/node_modules/dep/module.json': json({ entry: 'index.ts' }),
        'app/main/node_modules/dep/module.json': json({ entry: 'index.ts' }),
        'app/.cache/x/module.json': json({ entry: 'index.ts' }),
      },
    );
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/app/main']);
  });

  it('does not search into a directory holding its own package.json: another package', () => {
    const model = readWorkspace(
      memoryReader({
        'core.json': json({ packages: ['.', 'packages/lib'] }),
        'package.json': json({ name: '@acme/root', version: '1.0.0', core: { modules: '.' } }),
        'root-widget/module.json': json({ entry: 'index.ts' }),
        'packages/lib/package.json': json({ name: '@acme/lib', version: '1.0.0', core: { modules: '.' } }),
        'packages/lib/format/module.json': json({ entry: 'index.ts' }),
      }),
    );
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/root/root-widget', '@acme/lib/format']);
  });

  it('reports a second declaration of one subpath and keeps the first', () => {
    const model = read(
      { app: { name: '@acme/app', exports: { './main': './main/index.ts' }, core: { modules: 'src' } } },
      { 'app/src/other/module.json': json({ entry: 'index.ts', subpath: 'main' }) },
    );
    expect(model.modules.map((m) => m.dir)).to.deep.equal(['app/main']);
    expect(model.diagnostics).to.have.length(1);
    expect(model.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/src/other/module.json' });
    expect(model.diagnostics[0]!.message).to.contain('declares the module "@acme/app/main" again; it is already declared in app/main');
  });

  describe('a package without exports', () => {
    const open = () =>
      files(
        { 'packages/app': { name: '@acme/app', exports: { './main': './main/index.ts' } }, 'packages/open': { name: '@acme/open', main: 'index.js' }, 'packages/closed': { name: '@acme/closed', exports: { '.': './index.ts' } } },
        {
          'packages/app/main/index.ts': 'export {}',
          'packages/open/index.ts': 'export {}',
          'packages/open/index.d.ts': 'export {}',
          'packages/open/button/filled-button.ts': 'export {}',
          'packages/open/plain/util.js': 'export {}',
          'packages/open/node_modules/dep/index.js': 'export {}',
          'packages/closed/index.ts': 'export {}',
          'packages/closed/x.ts': 'export {}',
        },
      );

    it('publishes a deep import that names a file, or the source it is built from, as Node resolves it, and nothing else up front', () => {
      const deep = ['@acme/open/button/filled-button.js', '@acme/open/plain/util.js', '@acme/open/missing.js', '@acme/open/index.d.ts', '@acme/open/node_modules/dep/index.js', '@acme/open/../app/main/index.ts', '@acme/closed/x.ts', '@acme/open'];
      const model = readWorkspace(memoryReader(open()), deep);
      expect(model.modules.map((m) => [m.specifier, m.entry, m.diagnostics.length])).to.deep.equal([
        ['@acme/app/main', 'packages/app/main/index.ts', 0],
        ['@acme/open', 'packages/open/index.ts', 0],
        ['@acme/open/button/filled-button.js', 'packages/open/button/filled-button.ts', 0],
        ['@acme/open/plain/util.js', 'packages/open/plain/util.js', 0],
        ['@acme/closed', 'packages/closed/index.ts', 0],
      ]);
      expect(model.packages.map((p) => p.withoutExports ?? false)).to.deep.equal([false, true, false]);
      expect(readWorkspace(memoryReader(open())).modules.map((m) => m.specifier)).to.deep.equal(['@acme/app/main', '@acme/open', '@acme/closed']);
    });
  });

  describe('the tsconfig that maps outputs to sources', () => {
    it('reads outDir from tsconfig.build.json, for a package whose main names tsc output', () => {
      const model = read(
        { 'packages/lib': { name: '@acme/lib', main: 'lib/index.js', types: 'lib/index.d.ts' } },
        { 'packages/lib/tsconfig.json': json({ compilerOptions: { strict: true } }), 'packages/lib/tsconfig.build.json': json({ extends: './tsconfig.json', compilerOptions: { outDir: 'lib', rootDir: 'src' } }), 'packages/lib/src/index.ts': 'export {}' },
      );
      expect(model.modules.map((m) => [m.specifier, m.entry, m.diagnostics])).to.deep.equal([['@acme/lib', 'packages/lib/src/index.ts', []]]);
    });

    it('reads outDir from the tsconfig that tsc -p of the build script names', () => {
      const model = read(
        { 'packages/lib': { name: '@acme/lib', exports: { '.': './build/index.js' }, scripts: { build: 'tsc -p config/tsconfig.lib.json' } } },
        { 'packages/lib/config/tsconfig.lib.json': json({ compilerOptions: { outDir: '../build', rootDir: '../source' } }), 'packages/lib/source/index.ts': 'export {}' },
      );
      expect(model.modules.map((m) => m.entry)).to.deep.equal(['packages/lib/source/index.ts']);
    });

    it('says what is wrong with a broken tsconfig.build.json when the root maps to no source', () => {
      const model = read({ 'packages/lib': { name: '@acme/lib', main: 'lib/index.js' } }, { 'packages/lib/tsconfig.build.json': '{ "compilerOptions": { "outDir": "lib", ', 'packages/lib/src/index.ts': 'export {}' });
      const [message] = model.modules[0]!.diagnostics.map((d) => d.message);
      expect(message).to.contain('tsconfig read: packages/lib/tsconfig.build.json; packages/lib/tsconfig.build.json is not valid JSON');
    });

    it('takes the project tsc -p names over tsconfig.build.json, though it is the package tsconfig.json', () => {
      const model = read(
        { 'packages/lib': { name: '@acme/lib', main: 'out/index.js', scripts: { build: 'tsc -p .' } } },
        {
          'packages/lib/tsconfig.json': json({ compilerOptions: { outDir: 'out', rootDir: 'source' } }),
          'packages/lib/tsconfig.build.json': json({ compilerOptions: { outDir: 'out', rootDir: 'other' } }),
          'packages/lib/source/index.ts': 'export {}',
          'packages/lib/other/index.ts': 'export {}',
        },
      );
      expect(model.modules.map((m) => m.entry)).to.deep.equal(['packages/lib/source/index.ts']);
    });

    it('takes the nearest tsconfig above a package that has none, as tsc and the builds do: a monorepo root whose paths name each source', () => {
      const model = read(
        { 'packages/a': { name: '@acme/a', main: 'dist/index.cjs', module: 'dist/index.mjs' }, 'packages/b': { name: '@acme/b', exports: { '.': { import: './dist/b.mjs' } } } },
        {
          'tsconfig.json': json({ compilerOptions: { paths: { '@acme/a': ['./packages/a/src/index.ts'], '@acme/*': ['./packages/*/src/main.ts'] } } }),
          'packages/a/src/index.ts': 'export {}',
          'packages/b/src/main.ts': 'export {}',
        },
      );
      expect(model.modules.map((m) => [m.entry, m.diagnostics])).to.deep.equal([
        ['packages/a/src/index.ts', []],
        ['packages/b/src/main.ts', []],
      ]);
    });

    it('names the member a root without exports comes from, and the tsconfig read, when it maps to no source', () => {
      const model = read({ 'packages/lib': { name: '@acme/lib', main: 'lib/index.js' } }, { 'packages/lib/tsconfig.json': json({ compilerOptions: {} }), 'packages/lib/index.ts': 'export {}' });
      const [message] = model.modules[0]!.diagnostics.map((d) => d.message);
      expect(message).to.contain('"main" -> "./lib/index.js" names no source').and.contain('tsconfig read: packages/lib/tsconfig.json');
      expect(message).to.contain('set "outDir" and "rootDir" in packages/lib/tsconfig.json');
      expect(message).to.not.contain('exports["."]');
    });

    it('advises a "source" condition for an exports key, and says when no tsconfig applies', () => {
      const model = read({ 'packages/lib': { name: '@acme/lib', exports: { './x': './dist/x.js' } } });
      const [message] = model.modules[0]!.diagnostics.map((d) => d.message);
      expect(message).to.contain('exports["./x"] -> "./dist/x.js" names no source').and.contain('no tsconfig.json applies to the package');
      expect(message).to.contain('add a "source" condition').and.contain('add packages/lib/tsconfig.json whose "outDir"');
      const withSource = read({ 'packages/lib': { name: '@acme/lib', exports: { './x': { source: './src/gone.js', default: './dist/x.js' } } } });
      expect(withSource.modules[0]!.diagnostics[0]!.message).to.contain('point the "source" condition of exports["./x"] at the entry file').and.not.contain('add a "source"');
    });

    it("advises a tsconfig of the package's own, extending the shared one above it, rather than editing that one", () => {
      const model = read({ 'packages/lib': { name: '@acme/lib', module: 'dist/lib.mjs' } }, { 'tsconfig.json': json({ compilerOptions: { strict: true } }) });
      const [message] = model.modules[0]!.diagnostics.map((d) => d.message);
      expect(message).to.contain('"module" -> "./dist/lib.mjs" names no source').and.contain('tsconfig read: tsconfig.json');
      expect(message).to.contain('add packages/lib/tsconfig.json (extending ../../tsconfig.json) whose "outDir" and "rootDir" map it to the source');
    });
  });

  describe('bundlers', () => {
    const bundlerOf = (pkg: Record<string, unknown>, module: Record<string, unknown> = {}) => {
      const model = read({ app: { name: '@acme/app', core: { modules: '.', ...(pkg.core as object) }, bundlers: pkg.bundlers } }, { 'app/main/module.json': json({ entry: 'index.ts', ...module }) });
      return model.modules[0]!;
    };

    it('defaults to the built-in ts', () => {
      expect(bundlerOf({}).bundler).to.deep.equal({ name: 'ts', specifier: TS });
    });

    it('takes core.bundler when the module selects none', () => {
      expect(bundlerOf({ core: { bundler: 'esbuild' } }).bundler).to.deep.equal({ name: 'esbuild', specifier: ESBUILD });
    });

    it('takes the bundler the module selects over core.bundler', () => {
      expect(bundlerOf({ core: { bundler: 'esbuild' } }, { bundler: 'ts' }).bundler).to.deep.equal({ name: 'ts', specifier: TS });
    });

    it('resolves a name registered as a specifier string (form 1)', () => {
      expect(bundlerOf({ bundlers: { mine: '@acme/bundler' } }, { bundler: 'mine' }).bundler).to.deep.equal({ name: 'mine', specifier: '@acme/bundler' });
    });

    it('resolves a name registered as an object with processors (form 2)', () => {
      const processors = { bundle: { compiler: 'esbuild' } };
      expect(bundlerOf({ bundlers: { full: { specifier: ESBUILD, processors } } }, { bundler: 'full' }).bundler).to.deep.equal({ name: 'full', specifier: ESBUILD, processors });
    });

    it('lets the registry override a built-in name', () => {
      expect(bundlerOf({ bundlers: { ts: '@acme/own-ts' } }).bundler).to.deep.equal({ name: 'ts', specifier: '@acme/own-ts' });
    });

    it('lists a module whose bundler is not registered invalid, naming its module.json', () => {
      const module = bundlerOf({}, { bundler: 'webpack' });
      expect(module.bundler).to.deep.equal({ name: 'webpack', specifier: '' });
      expect(module.diagnostics).to.have.length(1);
      expect(module.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/main/module.json' });
      expect(module.diagnostics[0]!.message).to.contain('the bundler "webpack" is not registered');
    });

    it('names package.json for an unknown core.bundler of an exports module without module.json', () => {
      const model = read({ app: { name: '@acme/app', exports: { './main': './main/index.ts' }, core: { bundler: 'rollup' } } });
      expect(model.modules[0]!.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/package.json' });
    });

    // Built by `ts` instead, the module would be `valid` while not the one its manifests ask for,
    // as a module.json `bundler` the schema refuses already makes its module invalid.
    it('lists the modules a core.bundler the schema refuses would build invalid, and not those with a bundler of their own', () => {
      const model = read(
        { app: { name: '@acme/app', exports: { './main': './main/index.ts' }, core: { modules: 'own', bundler: 5 } } },
        { 'app/own/solo/module.json': json({ entry: 'index.ts', bundler: 'esbuild' }), 'app/own/solo/index.ts': '' },
      );
      const main = model.modules.find((module) => module.subpath === 'main')!;
      const solo = model.modules.find((module) => module.subpath === 'solo')!;
      expect(main.diagnostics).to.have.length(1);
      expect(main.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'app/package.json' });
      expect(main.diagnostics[0]!.message).to.contain('core.bundler must be a bundler name');
      expect(solo.diagnostics).to.deep.equal([]);
      expect(model.diagnostics).to.deep.equal([]);
    });

    it('tells a core.bundler the schema refuses at the top level when every module has a bundler of its own', () => {
      const model = read({ app: { name: '@acme/app', core: { modules: '.', bundler: ['ts'] } } }, { 'app/main/module.json': json({ entry: 'index.ts', bundler: 'ts' }) });
      expect(model.modules[0]!.diagnostics).to.deep.equal([]);
      expect(model.diagnostics).to.have.length(1);
      expect(model.diagnostics[0]!.message).to.contain('core.bundler must be a bundler name');
    });
  });

  it('lists modules in the order of packages, then by subpath', () => {
    const model = read({
      b: { name: '@acme/b', exports: { './z': './z.ts', './a': './a.ts' } },
      a: { name: '@acme/a', exports: { './m': './m.ts' } },
    });
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/b/a', '@acme/b/z', '@acme/a/m']);
  });

  it('reads the preview entry of core.json', () => {
    expect(read({ app: { name: '@acme/app' } }, {}, { preview: '@acme/app/main' }).preview).to.equal('@acme/app/main');
  });

  it('reports a package directory without package.json on core.json and reads the others', () => {
    const model = readWorkspace(memoryReader({ ...files({ app: { name: '@acme/app', exports: { './main': './main.ts' } } }), 'core.json': json({ packages: ['app', 'missing'] }) }));
    expect(model.packages.map((p) => p.name)).to.deep.equal(['@acme/app']);
    expect(model.diagnostics).to.have.length(1);
    expect(model.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'core.json' });
    expect(model.diagnostics[0]!.message).to.contain('"missing", which has no package.json');
  });

  it('reports a broken package.json at the top level and reads the other packages', () => {
    const model = readWorkspace(memoryReader({ ...files({ app: { name: '@acme/app', exports: { './main': './main.ts' } } }), 'core.json': json({ packages: ['app', 'bad'] }), 'bad/package.json': '{"name": "@acme/bad",' }));
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@acme/app/main']);
    expect(model.diagnostics.map((d) => [d.kind, d.file, d.line, d.column])).to.deep.equal([['MANIFEST_INVALID', 'bad/package.json', 1, 22]]);
  });

  it('keeps the directory and the readable name of each package.json it cannot take, a missing one without a name known, and both of a name two write', () => {
    const model = readWorkspace(
      memoryReader({
        ...files({ app: { name: '@acme/app', exports: { './main': './main.ts' } }, twice: { name: '@acme/app' } }),
        'core.json': json({ packages: ['app', 'cut', 'unnamed', 'semver', 'missing', 'twice'] }),
        'cut/package.json': '{"name": "@acme/cut", "version": "2.0.0", "exports": {"./a": "./a.ts"}',
        'unnamed/package.json': '{"version": "1.0.0", "na',
        'semver/package.json': json({ name: '@acme/semver', version: 'one' }),
      }),
    );
    expect(model.packages.map((p) => p.name)).to.deep.equal([]);
    expect(model.unreadPackages).to.deep.equal([
      { dir: 'app', file: 'app/package.json', name: '@acme/app', version: '1.0.0' },
      { dir: 'cut', file: 'cut/package.json', name: '@acme/cut', version: '2.0.0' },
      { dir: 'unnamed', file: 'unnamed/package.json', name: null, version: '1.0.0' },
      { dir: 'semver', file: 'semver/package.json', name: '@acme/semver', version: 'one' },
      { dir: 'missing', file: 'missing/package.json', name: null, version: null, absent: true },
      { dir: 'twice', file: 'twice/package.json', name: '@acme/app', version: '1.0.0' },
    ]);
    expect(read({ app: { name: '@acme/app', exports: { './main': './main.ts' } } })).to.not.have.property('unreadPackages');
  });

  describe('a listed directory without package.json (README "Workspaces")', () => {
    const app = { app: { name: '@acme/app', exports: { './main': './main.ts' } } };
    const workspace = (extra: Record<string, string> = {}) => memoryReader({ ...files(app), 'core.json': json({ packages: ['app', 'packages/lib'] }), ...extra });
    const absentOf = (model: ReturnType<typeof readWorkspace>) => model.unreadPackages?.find((pkg) => pkg.dir === 'packages/lib');

    it('is unread by the name and version an earlier model knew it by, before any lockfile', () => {
      const lockfile = json({ packages: { 'packages/lib': { name: '@acme/other', version: '9.0.0' } } });
      const model = readWorkspace(workspace({ 'package-lock.json': lockfile }), [], new Map([['packages/lib', { name: '@acme/lib', version: '1.0.0' }]]));
      expect(absentOf(model)).to.deep.equal({ dir: 'packages/lib', file: 'packages/lib/package.json', name: '@acme/lib', version: '1.0.0', absent: true });
      expect(model.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', 'core.json']]);
    });

    it("is unread by the name of npm's lockfile: its entry of the directory, else the node_modules link to it, the hidden lockfile after package-lock.json", () => {
      const entry = readWorkspace(workspace({ 'package-lock.json': json({ packages: { 'packages/lib': { name: '@acme/lib', version: '1.2.0' } } }) }));
      expect(absentOf(entry)).to.include({ name: '@acme/lib', version: '1.2.0' });
      expect(entry.sources).to.have.property('package-lock.json', hashOf(json({ packages: { 'packages/lib': { name: '@acme/lib', version: '1.2.0' } } })));
      const link = readWorkspace(workspace({ 'node_modules/.package-lock.json': json({ packages: { 'node_modules/@acme/lib': { resolved: 'packages/lib', link: true }, 'node_modules/@acme/app': { resolved: 'app', link: true } } }) }));
      expect(absentOf(link)).to.include({ name: '@acme/lib', version: null });
    });

    it('is unread without a name when none is known, a lockfile is not JSON, or names another directory only', () => {
      expect(absentOf(readWorkspace(workspace()))).to.include({ name: null, absent: true });
      expect(absentOf(readWorkspace(workspace({ 'package-lock.json': '{"packages": {' })))).to.include({ name: null });
      const other = json({ packages: { 'packages/other': { name: '@acme/lib' }, 'node_modules/@acme/lib': { resolved: 'packages/other', link: true }, 'packages/lib': { name: '../../x' } } });
      expect(absentOf(readWorkspace(workspace({ 'package-lock.json': other })))).to.include({ name: null });
    });

    it('reads no lockfile reached through a link leaving the workspace', () => {
      const leaving = workspace({ 'package-lock.json': json({ packages: { 'packages/lib': { name: '@acme/lib' } } }) });
      const model = readWorkspace({ ...leaving, leaves: (path) => path === 'package-lock.json' });
      expect(absentOf(model)).to.include({ name: null });
      expect(model.sources).to.not.have.property('package-lock.json');
    });

    it('is read as a package again once its package.json is back', () => {
      const back = readWorkspace(workspace({ 'packages/lib/package.json': json({ name: '@acme/lib', version: '1.0.0' }) }), [], new Map([['packages/lib', { name: '@acme/lib', version: '1.0.0' }]]));
      expect(back.packages.map((p) => p.name)).to.deep.equal(['@acme/app', '@acme/lib']);
      expect(back).to.not.have.property('unreadPackages');
    });
  });

  it('reports a missing or broken core.json and declares nothing', () => {
    const missing = readWorkspace(memoryReader({}));
    expect(missing.modules).to.deep.equal([]);
    expect(missing.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', 'core.json']]);
    const broken = readWorkspace(memoryReader({ 'core.json': '{"packages": ' }));
    expect(broken.diagnostics.map((d) => [d.file, d.line, d.column])).to.deep.equal([['core.json', 1, 14]]);
  });

  describe('selection', () => {
    it('is null, every package in development, without .core/selection.json', () => {
      expect(read({ app: { name: '@acme/app' } }).selection).to.equal(null);
    });

    it('reads the selected packages of .core/selection.json', () => {
      const model = read({ app: { name: '@acme/app' }, kit: { name: '@acme/kit' } }, { '.core/selection.json': json({ packages: ['@acme/app', '@acme/app', '@acme/kit'] }) });
      expect(model.selection).to.deep.equal(['@acme/app', '@acme/kit']);
      expect(model.diagnostics).to.deep.equal([]);
    });

    it('reports a selection naming no package of the workspace, which `core select` refuses, and selects every package', () => {
      const model = read({ app: { name: '@acme/app' } }, { '.core/selection.json': json({ packages: ['@acme/app', 'lit', '@acme/old'] }) });
      expect(model.selection).to.equal(null);
      expect(model.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
        [
          'MANIFEST_INVALID',
          '.core/selection.json',
          '.core/selection.json selects "lit", "@acme/old", which are no packages of the workspace (its packages: @acme/app; renamed since it was selected?), a name `core select` refuses: every package is in development until the selection names packages of the workspace only; run `core select <package>...` again, or `core select --all`',
        ],
      ]);
    });

    it('takes the name of a package whose package.json cannot be read now as the workspace\'s', () => {
      const model = read({ app: { name: '@acme/app' }, kit: { name: '@acme/kit', version: 7 } }, { '.core/selection.json': json({ packages: ['@acme/kit'] }) });
      expect(model.selection).to.deep.equal(['@acme/kit']);
      expect(model.diagnostics.map((d) => d.file)).to.not.include('.core/selection.json');
    });

    it('reports a selection that is a directory as one, never read as absent, and selects every package', () => {
      const model = read({ app: { name: '@acme/app' } }, { '.core/selection.json/x': '' });
      expect(model.selection).to.equal(null);
      expect(model.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
        [
          'MANIFEST_INVALID',
          '.core/selection.json',
          '".core/selection.json" is a directory, not a regular file: the selection is read from a regular file of the workspace only, so every package is in development until it is one; `core select --all` removes it (a directory only while empty) and `core select <package>...` replaces it',
        ],
      ]);
    });

    it('reports a selection file of the wrong shape and selects every package', () => {
      for (const text of ['{', json(['@acme/app']), json({ packages: ['Not A Name'] })]) {
        const model = read({ app: { name: '@acme/app' } }, { '.core/selection.json': text });
        expect(model.selection, text).to.equal(null);
        expect(model.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', '.core/selection.json']]);
      }
    });
  });

  describe('sources', () => {
    it('records every file read with its hash and every directory searched, absent ones as null', () => {
      const workspace = files(
        { app: { name: '@acme/app', exports: { './main': './main/index.ts' }, core: { modules: 'src' } } },
        { 'app/main/index.ts': 'export {}', 'app/src/badge/module.json': json({ entry: 'index.ts' }) },
      );
      const model = readWorkspace(memoryReader(workspace));
      const reader = memoryReader(workspace);
      expect(model.sources).to.deep.equal({
        'core.json': hashOf(workspace['core.json']!),
        'app/package.json': hashOf(workspace['app/package.json']!),
        'app/src/': reader.listDir('app/src')!.hash,
        'app/src/badge/': reader.listDir('app/src/badge')!.hash,
        'app/src/badge/module.json': hashOf(workspace['app/src/badge/module.json']!),
        'app/main/': reader.listDir('app/main')!.hash,
        'app/tsconfig.json': null,
        'tsconfig.json': null,
        'app/tsconfig.build.json': null,
        'app/main/module.json': null,
        '.core/selection.json': null,
        // The listing tells a selection that is there but no file (README "Files that are not files").
        '.core/': null,
      });
    });

    it('records the workspace root as ./ when a package is the workspace itself', () => {
      const model = readWorkspace(memoryReader({ 'core.json': json({ packages: ['.'] }), 'package.json': json({ name: '@acme/app', version: '1.0.0', core: { modules: '.' } }) }));
      expect(model.sources).to.have.property('./');
      expect(model.sources).to.have.property('package.json');
    });

    it('changes the hash of a directory listing when a module.json appears', () => {
      const before = read({ app: { name: '@acme/app', core: { modules: '.' } } }, { 'app/main/index.ts': '' });
      const after = read({ app: { name: '@acme/app', core: { modules: '.' } } }, { 'app/main/index.ts': '', 'app/main/module.json': json({ entry: 'index.ts' }) });
      expect(after.sources['app/main/']).to.be.a('string').and.not.equal(before.sources['app/main/']);
    });
  });
});

describe('readWorkspace, tsconfig files shared by packages', () => {
  it('loads a config every package finds, and the one it extends, once in a read', () => {
    const packages: Record<string, Record<string, unknown>> = {};
    const extra: Record<string, string> = {
      'tsconfig.json': json({ extends: './tsconfig.base.json' }),
      'tsconfig.base.json': '{ // shared by every package\n "compilerOptions": { "strict": true, }, }',
    };
    for (const name of ['a', 'b', 'c']) {
      packages[`packages/${name}`] = { name: `@acme/${name}`, exports: { '.': './index.ts' } };
      extra[`packages/${name}/index.ts`] = 'export {};';
    }
    const disk = memoryReader(files(packages, extra));
    const model = readWorkspace(disk);
    expect(model.modules.map((module) => module.entry)).to.deep.equal(['packages/a/index.ts', 'packages/b/index.ts', 'packages/c/index.ts']);
    expect(model.sources).to.have.property('tsconfig.base.json', hashOf(extra['tsconfig.base.json']!));
    expect(disk.asked.filter((path) => path === 'tsconfig.base.json')).to.have.length(1);
  });
});

describe('readWorkspace, a module.json that is no file', () => {
  it('under core.modules, a directory named module.json declares its module invalid, told as a directory (README "Files that are not files")', () => {
    const model = read({ 'packages/app': { name: '@acme/app', core: { modules: 'modules' } } }, { 'packages/app/modules/a/index.ts': 'export {};', 'packages/app/modules/a/module.json/x.txt': 'x' });
    expect(model.modules.map((m) => [m.specifier, m.diagnostics.map((d) => [d.kind, d.file, d.message])])).to.deep.equal([
      [
        '@acme/app/a',
        [['MANIFEST_INVALID', 'packages/app/modules/a/module.json', '"packages/app/modules/a/module.json" is a directory, not a regular file: a manifest is read from a regular file only; put a regular file there']],
      ],
    ]);
  });
});

describe('readWorkspace, core.define', () => {
  it('a bad value lists every module of its package invalid at the package.json; a package without modules tells it at the top level', () => {
    const model = read({
      'packages/app': { name: '@acme/app', exports: { './a': './a/index.ts', './b': './b/index.ts' }, core: { define: { __X__: 'foo bar' } } },
      'packages/none': { name: '@acme/none', core: { define: { __Y__: 1 } } },
    }, { 'packages/app/a/index.ts': 'export {};', 'packages/app/b/index.ts': 'export {};' });
    expect(model.modules.map((m) => [m.specifier, m.diagnostics.map((d) => [d.kind, d.file])])).to.deep.equal([
      ['@acme/app/a', [['MANIFEST_INVALID', 'packages/app/package.json']]],
      ['@acme/app/b', [['MANIFEST_INVALID', 'packages/app/package.json']]],
    ]);
    expect(model.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
      ['MANIFEST_INVALID', 'packages/none/package.json', 'packages/none/package.json: core.define["__Y__"] must name an identifier (or a dotted one) and give a JavaScript expression as a string'],
    ]);
  });
});
