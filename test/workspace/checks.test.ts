// The dependency, platform and built-in checks over the bare imports a build found.
import { expect } from 'chai';
import { checkImports, type ImportRecord } from '../../src/workspace/checks.js';
import type { ModuleModel, Platform, WorkspaceModel } from '../../src/workspace/model.js';
import { indexWorkspace } from '../../src/workspace/workspace-index.js';

function module(specifier: string, version: string, platforms: Platform[] = ['web']): ModuleModel {
  const [scope, name, ...rest] = specifier.split('/');
  const subpath = rest.join('/');
  return {
    specifier,
    package: `${scope}/${name}`,
    version,
    subpath,
    dir: `${name}/${subpath}`,
    entry: `${name}/${subpath}/index.ts`,
    platforms,
    bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' },
    assets: [],
    diagnostics: [],
  };
}

// @t/app 1.0.0 (web module main, node module server) and @t/lib 2.1.0 (web module format, node module fs-tools).
function workspace(dependencies: Record<string, string> = { '@t/lib': '^2.0.0' }): WorkspaceModel {
  return {
    preview: null,
    packages: [
      { name: '@t/app', version: '1.0.0', dir: 'app', dependencies },
      { name: '@t/lib', version: '2.1.0', dir: 'lib', dependencies: {} },
    ],
    modules: [module('@t/app/main', '1.0.0'), module('@t/app/server', '1.0.0', ['node']), module('@t/lib/format', '2.1.0'), module('@t/lib/fs-tools', '2.1.0', ['node'])],
    selection: null,
    diagnostics: [],
    sources: {},
  };
}

const at = (specifier: string, line = 1): ImportRecord => ({ specifier, file: 'app/main/index.ts', line, column: 8 });
const check = (imports: ImportRecord[], model = workspace(), importer = model.modules[0]!) => checkImports(importer, imports, model);
const kinds = (imports: ImportRecord[], model = workspace(), importer?: ModuleModel) => check(imports, model, importer).map((d) => d.kind);

describe('checkImports', () => {
  it('judges a module once for a workspace read again with only new hashes of what it read, and again when its packages change', () => {
    const model = workspace({});
    const imports = [at('@t/lib/format')];
    const first = check(imports, model);
    expect(first.map((d) => d.kind)).to.deep.equal(['DEPENDENCY_NOT_DECLARED']);
    // What the store makes of a read that found the same model: the sources replaced, the rest kept.
    const reread: WorkspaceModel = { ...model, sources: { 'core.json': 'another-hash' } };
    expect(check(imports, reread, model.modules[0]), 'the same judgement, not made again').to.equal(first);
    const declared: WorkspaceModel = { ...model, packages: workspace().packages };
    expect(check(imports, declared, model.modules[0])).to.deep.equal([]);
  });

  it('indexes a workspace read again with only new hashes once, and again when its modules change', () => {
    const model = workspace();
    const index = indexWorkspace(model);
    expect(indexWorkspace({ ...model, sources: { 'core.json': 'another-hash' } })).to.equal(index);
    const fewer = indexWorkspace({ ...model, modules: model.modules.slice(1) });
    expect(fewer).to.not.equal(index);
    expect([...fewer.modules.keys()]).to.not.include('@t/app/main');
  });

  it('accepts public modules of declared, compatible workspace packages and of its own package', () => {
    expect(check([at('@t/lib/format'), at('@t/app/main')])).to.deep.equal([]);
  });

  it('accepts a declared package from outside the workspace, any subpath', () => {
    expect(check([at('lit'), at('lit/decorators.js'), at('@scope/ext/deep/file.js')], workspace({ lit: '3.1.0', '@scope/ext': '*' }))).to.deep.equal([]);
  });

  it('ignores relative, absolute and URL imports', () => {
    expect(check([at('./helper.ts'), at('/abs.js'), at('https://cdn.test/x.js'), at('#internal')])).to.deep.equal([]);
  });

  it('reports DEPENDENCY_NOT_DECLARED where the import is, for workspace and outside packages', () => {
    const found = check([at('lit', 3)], workspace({}));
    expect(found).to.have.length(1);
    expect(found[0]).to.include({ kind: 'DEPENDENCY_NOT_DECLARED', file: 'app/main/index.ts', line: 3, column: 8 });
    expect(found[0]!.message).to.contain('"lit"').and.contain('app/package.json');
    const lib = check([at('@t/lib/format')], workspace({}));
    expect(lib.map((d) => d.kind)).to.deep.equal(['DEPENDENCY_NOT_DECLARED']);
    expect(lib[0]!.message).to.contain('the workspace has version 2.1.0');
  });

  it('reports DEPENDENCY_INCOMPATIBLE when the workspace version misses the declared range', () => {
    const found = check([at('@t/lib/format')], workspace({ '@t/lib': '^1.0.0' }));
    expect(found).to.have.length(1);
    expect(found[0]).to.include({ kind: 'DEPENDENCY_INCOMPATIBLE', file: 'app/main/index.ts' });
    expect(found[0]!.message).to.contain('"^1.0.0"').and.contain('2.1.0');
  });

  it('understands workspace: ranges', () => {
    for (const range of ['workspace:*', 'workspace:^', 'workspace:~', 'workspace:^2.0.0', 'workspace:2.1.0', '*']) {
      expect(kinds([at('@t/lib/format')], workspace({ '@t/lib': range })), range).to.deep.equal([]);
    }
    for (const range of ['workspace:^3.0.0', 'workspace:2.0.0', 'not a range']) {
      expect(kinds([at('@t/lib/format')], workspace({ '@t/lib': range })), range).to.deep.equal(['DEPENDENCY_INCOMPATIBLE']);
    }
  });

  it('reports PREVIEW_BUILTIN for a browser module importing a built-in, bare or node:', () => {
    const found = check([at('fs'), at('node:fs'), at('fs/promises'), at('node:path')]);
    expect(found.map((d) => d.kind)).to.deep.equal(['PREVIEW_BUILTIN', 'PREVIEW_BUILTIN', 'PREVIEW_BUILTIN', 'PREVIEW_BUILTIN']);
    expect(found[0]!.message).to.contain('"fs"').and.contain('"platforms": ["node"]');
  });

  it('accepts built-ins in a node-only module', () => {
    const model = workspace();
    expect(check([at('fs'), at('node:fs'), at('fs/promises')], model, model.modules[1])).to.deep.equal([]);
  });

  it('takes a built-in name declared in dependencies for the npm package of that name', () => {
    expect(kinds([at('events'), at('buffer/index.js')], workspace({ '@t/lib': '^2.0.0', events: '3.3.0', buffer: '6.0.3' }))).to.deep.equal([]);
    expect(kinds([at('node:events')], workspace({ '@t/lib': '^2.0.0', events: '3.3.0' }))).to.deep.equal(['PREVIEW_BUILTIN']);
  });

  it('reports PREVIEW_BUILTIN for a module that runs on both platforms', () => {
    const model = workspace();
    const both = { ...model.modules[0]!, platforms: ['node', 'web'] as Platform[] };
    expect(kinds([at('node:fs')], model, both)).to.deep.equal(['PREVIEW_BUILTIN']);
  });

  it('reports a BUNDLE_ERROR for a subpath that is not a public module of a workspace package, listing the real ones', () => {
    const found = check([at('@t/lib/internal/helper'), at('@t/app/missing'), at('@t/lib')]);
    expect(found.map((d) => d.kind)).to.deep.equal(['BUNDLE_ERROR', 'BUNDLE_ERROR', 'BUNDLE_ERROR']);
    expect(found[0]!.message).to.contain('"@t/lib/internal/helper", which is not a public module of @t/lib; its modules are @t/lib/format, @t/lib/fs-tools');
  });

  it('says why a name with characters no subpath may hold is no public module (a `*` pattern skips its file)', () => {
    const found = check([at('@t/lib/parts/über'), at('@t/lib/internal/helper')]);
    expect(found[0]!.message).to.contain('"@t/lib/parts/über", which is not a public module of @t/lib ("parts/über" is not a subpath this service can publish: segments of letters, digits, ".", "_", "-"); its modules are');
    // A plain name that is simply not published is told only that.
    expect(found[1]!.message).to.not.contain('not a subpath this service can publish');
  });

  // Node resolves such a name through `exports`: "not a public module" would contradict the
  // manifest, so the importer hears the real reason and the fix (README "Exports and sources").
  it('says an import of a name `exports` maps to JSON is no module because the target is JSON, with what to do', () => {
    const model = workspace();
    model.packages[1] = { ...model.packages[1]!, dataExports: { data: './data/d.json', 'package.json': './package.json' } };
    const found = check([at('@t/lib/data'), at('@t/lib/package.json', 2), at('@t/lib/internal/helper', 3)], model);
    expect(found.map((d) => [d.kind, d.line])).to.deep.equal([['BUNDLE_ERROR', 1], ['BUNDLE_ERROR', 2], ['BUNDLE_ERROR', 3]]);
    expect(found[0]!.message).to.equal(
      '@t/app/main imports "@t/lib/data": exports["./data"] of lib/package.json maps it to "./data/d.json", which is JSON: Node resolves "@t/lib/data" to it, but this service publishes only code and stylesheets as modules, so the name is no public module and an import of it fails; to share the data, make this key a module that re-exports it (a source beside it with `export { default } from \'./d.json\' with { type: \'json\' }`) and import that module without { type: \'json\' }; its modules are @t/lib/format, @t/lib/fs-tools',
    );
    expect(found[1]!.message).to.contain('"@t/lib/package.json": exports["./package.json"] of lib/package.json maps it to "./package.json", which is JSON');
    expect(found[1]!.message).to.contain('to read it in a browser, re-export it (or the fields you need) from a module of @t/lib');
    // A name the manifest does not map is told only that it is no public module.
    expect(found[2]!.message).to.contain('"@t/lib/internal/helper", which is not a public module of @t/lib; its modules are');
  });

  // A module no browser runs leaves the bare import to Node, which imports JSON written with the
  // attribute { type: 'json' } (probe51b F15b): no error there, one without the attribute is told
  // (Node throws); a module a browser runs (alone or with Node) is still told, and data Node
  // cannot import either (an image) too (README "Exports and sources").
  it('lets a node-only module import a name `exports` maps to JSON, and tells one that runs in browsers', () => {
    const model = workspace();
    model.packages[1] = { ...model.packages[1]!, dataExports: { data: './data/d.json', logo: './logo.png' } };
    const server = model.modules[1]!;
    expect(check([{ ...at('@t/lib/data'), json: true }], model, server)).to.deep.equal([]);
    expect(check([at('@t/lib/data')], model, server).map((d) => d.message)).to.satisfy(
      (messages: string[]) => messages.length === 1 && messages[0]!.includes("which Node imports only with the attribute { type: 'json' }"),
    );
    expect(check([at('@t/lib/logo')], model, server).map((d) => d.kind)).to.deep.equal(['BUNDLE_ERROR']);
    const both = { ...server, platforms: ['node', 'web'] as Platform[] };
    expect(check([at('@t/lib/data')], model, both).map((d) => d.message)).to.satisfy((messages: string[]) => messages.length === 1 && messages[0]!.includes('which is JSON'));
  });

  it('says an import of a name a `*` pattern maps to JSON is no module because the target is JSON, naming the pattern key', () => {
    const model = workspace();
    model.packages[1] = { ...model.packages[1]!, dataExports: { 'conf.json': './cfg/conf.json' }, dataExportKeys: { 'conf.json': './*.json' } };
    const [found] = check([at('@t/lib/conf.json')], model);
    expect(found).to.include({ kind: 'BUNDLE_ERROR' });
    expect(found!.message).to.match(/^@t\/app\/main imports "@t\/lib\/conf.json": exports\["\.\/\*\.json"\] of lib\/package.json maps it to "\.\/cfg\/conf.json", which is JSON: Node resolves "@t\/lib\/conf.json" to it/);
  });

  it('says a deep import of a package without exports names no file of it', () => {
    const model = workspace({ '@t/lib': '^2.0.0' });
    model.packages[1] = { ...model.packages[1]!, withoutExports: true };
    const [found] = check([at('@t/lib/button/missing.js')], model);
    expect(found).to.include({ kind: 'BUNDLE_ERROR' });
    expect(found!.message).to.contain('names no file of @t/lib').and.contain('lib/button/missing.js');
  });

  it('reports a BUNDLE_ERROR for a browser module importing a node-only module, of its own package or another', () => {
    const found = check([at('@t/lib/fs-tools'), at('@t/app/server')]);
    expect(found.map((d) => d.kind)).to.deep.equal(['BUNDLE_ERROR', 'BUNDLE_ERROR']);
    expect(found[0]!.message).to.contain('runs in browsers but imports "@t/lib/fs-tools", whose platforms are ["node"]');
  });

  it('lets a node-only module import node-only modules', () => {
    const model = workspace();
    expect(check([at('@t/lib/fs-tools')], model, model.modules[1])).to.deep.equal([]);
  });

  it('reports one import of one file once, and the same import in two files twice', () => {
    const twice = [at('lit', 1), at('lit', 2), { specifier: 'lit', file: 'app/main/other.ts' }];
    expect(kinds(twice, workspace({}))).to.deep.equal(['DEPENDENCY_NOT_DECLARED', 'DEPENDENCY_NOT_DECLARED']);
  });

  it('checks nothing for a module whose package is not in the workspace', () => {
    const stranger = module('@x/other/main', '1.0.0');
    expect(check([at('fs'), at('lit')], workspace(), stranger)).to.deep.equal([]);
  });
});
