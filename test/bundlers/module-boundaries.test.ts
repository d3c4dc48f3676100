// Which relative imports the module-boundaries plugin asks JavaScript about
// (src/bundlers/plugins/module-boundaries.ts): every one that can reach an entry, and no other.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type * as esbuild from 'esbuild';
import { CROSSED, entryImportFilter, exportedNames, moduleBoundariesPlugin } from '../../src/bundlers/plugins/module-boundaries.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { removeTemporaryDirs, tempWorkspace } from '../helpers/workspace.js';

const stem = (file: string) => file.replace(/\.(?:d\.)?[cm]?[jt]sx?$/, '');

describe('entryImportFilter', () => {
  const entries = ['/ws/packages/lit/src/index.ts', '/ws/packages/lit/src/reactive-element.ts', '/ws/packages/ui/src/button.min.js'];
  const filter = entryImportFilter(entries.map(stem));

  it('passes the relative imports that name an entry, with or without an extension, and those naming a directory', () => {
    const passed = ['./index.js', '../src/index', './reactive-element.js', './reactive-element.ts', '../../lit/src/reactive-element.d.ts', './button.min.mjs', '.', '..', './', '../lib/', './lib/.', './lib/..', '../src', '../../lit/src'];
    expect(passed.filter((specifier) => !filter.test(specifier))).to.deep.equal([]);
  });

  it('keeps every other import in Go: helpers, stylesheets, bare and absolute specifiers', () => {
    const kept = ['./helper.js', './h1.ts', './style.css', './index.css', './indexes.js', './my-index.ts', './button.js', 'index', 'lit', '@lit/reactive-element', '/ws/packages/lit/src/index.ts', 'https://cdn.example/index.js'];
    expect(kept.filter((specifier) => filter.test(specifier))).to.deep.equal([]);
  });

  it("passes the relative imports naming the directory of an `index` entry, which esbuild resolves to that index", () => {
    expect(['../src', '../../lit/src', './src', '../lit/src/'].filter((specifier) => !filter.test(specifier))).to.deep.equal([]);
    expect(['./ui', '../lit', './srcs', './my-src'].filter((specifier) => filter.test(specifier))).to.deep.equal([]);
  });

  it('passes an alias no package name could be (`@/`, `~/`, `#`, `$`) whose last segment names an entry or its directory, and no package', () => {
    expect(['@/src/index', '@/lit/src', '~/lit/src/', '#src', '#lib/reactive-element.js', '$lib/index'].filter((specifier) => !filter.test(specifier))).to.deep.equal([]);
    expect(['@/src/helper', '#helper', 'src/index', 'lit/src', '@scope/src', '@lit/index', 'node:src'].filter((specifier) => filter.test(specifier))).to.deep.equal([]);
  });

  it('passes, given the folders on the way to the entries inside their packages, a folder naming one and a `baseUrl` spelling beginning with one; no package name', () => {
    const withFolders = entryImportFilter([...entries.map(stem), '/ws/packages/lit/src/reg/lib/index'], ['src', 'reg', 'lib']);
    expect(['./reg', '../reg/', './src/reg', 'src/reg', 'src/reg/', 'src/reg/index.js', 'src', 'reg', 'src/reactive-element.js', 'src/x/lib'].filter((specifier) => !withFolders.test(specifier))).to.deep.equal([]);
    expect(['lit', 'lit/src', 'lit/reg', 'index', 'reactive-element', 'lit-html', 'src/helper.js', 'regs', 'node:src', '@lit/reg', '@scope/src/index'].filter((specifier) => withFolders.test(specifier))).to.deep.equal([]);
  });

  it('passes a query or a fragment after a name that passes (esbuild reads it as no part of the file name), and no other', () => {
    expect(['./index.js?v=2', '../src?x', '../src/#x', '@/src/index?v=1', '#src#x'].filter((specifier) => !filter.test(specifier))).to.deep.equal([]);
    expect(['./helper.js?v=2', './index.css?inline', 'lit?x'].filter((specifier) => filter.test(specifier))).to.deep.equal([]);
  });

  it('passes every relative import that resolves to an entry by name, from any directory', () => {
    const byStem = new Set(entries.map(stem));
    const importers = ['/ws/packages/lit/src', '/ws/packages/lit/src/decorators', '/ws/packages/ui/src/deep/er'];
    const names = ['index', 'index.js', 'index.d.ts', 'reactive-element.js', 'button.min', 'button.min.cjs', 'other.js', 'src', 'src/', '.', '..', ''];
    const prefixes = ['./', '../', '../../', './x/../', '../../lit/src/', '../../../lit/src/', '../../lit/'];
    for (const importer of importers) {
      for (const prefix of prefixes) {
        for (const name of names) {
          const specifier = name === '' ? prefix : `${prefix}${name}`;
          const named = path.resolve(importer, specifier);
          if (byStem.has(stem(named)) || byStem.has(path.join(named, 'index'))) expect(filter.test(specifier), `${specifier} from ${importer}`).to.equal(true);
        }
      }
    }
  });
});

describe('moduleBoundariesPlugin', () => {
  it('asks only about the relative imports that can reach an entry', () => {
    const root = '/ws';
    const target = { specifier: '@acme/app/main', subpath: 'main', dir: 'packages/app/main', entry: 'packages/app/main/index.ts', assets: [], platforms: ['browser'], workspace: { packages: ['@acme/app'], entries: { 'packages/app/main/index.ts': '@acme/app/main', 'packages/app/card/card.ts': '@acme/app/card' }, key: '' } } as unknown as BundleTarget;
    const filters: RegExp[] = [];
    moduleBoundariesPlugin(root, [target]).setup({ onStart: () => {}, onEnd: () => {}, onLoad: () => {}, onResolve: ({ filter, namespace }: { filter: RegExp; namespace?: string }) => namespace === undefined && filters.push(filter) } as unknown as esbuild.PluginBuild);
    expect(filters).to.have.length(1);
    expect(['../card/card.js', './index.js'].map((specifier) => filters[0]!.test(specifier))).to.deep.equal([true, true]);
    expect(['./helper.js', './styles.css'].map((specifier) => filters[0]!.test(specifier))).to.deep.equal([false, false]);
  });
});

describe('moduleBoundariesPlugin with tsconfig paths, links and a workspace-root baseUrl', () => {
  after(removeTemporaryDirs);

  it('asks about the imports a paths pattern reading as a package name, a link to an entry or a folder from the root may spell, and about no other bare import', () => {
    const root = tempWorkspace({
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { 'lib/*': ['packages/lib/src/*'], registry: ['packages/lib/src/store'], '@acme/ui': ['packages/lib/src/store'], '*': ['types/*'] } } }),
      'packages/lib/src/store/index.ts': 'export const store = 1;\n',
      'packages/app/main.ts': 'export {};\n',
    });
    fs.symlinkSync('store', path.join(root, 'packages/lib/src/alias'));
    const entries = { 'packages/lib/src/store/index.ts': '@acme/lib/store', 'packages/app/main.ts': '@acme/app/main' };
    const manifests = { '@acme/lib': 'packages/lib/package.json', '@acme/app': 'packages/app/package.json' };
    const target = { specifier: '@acme/app/main', subpath: 'main', dir: 'packages/app', entry: 'packages/app/main.ts', assets: [], platforms: ['browser'], workspace: { packages: ['@acme/app', '@acme/lib'], entries, manifests, key: '' } } as unknown as BundleTarget;
    const filters: RegExp[] = [];
    moduleBoundariesPlugin(root, [target]).setup({ onStart: () => {}, onEnd: () => {}, onLoad: () => {}, onResolve: ({ filter, namespace }: { filter: RegExp; namespace?: string }) => namespace === undefined && filters.push(filter) } as unknown as esbuild.PluginBuild);
    const passes = (specifier: string) => filters[0]!.test(specifier);
    expect(['lib/store', 'lib/store/index.js', 'registry', 'registry?v=2', '@acme/ui', './alias', './alias/', 'packages/lib/src/store'].filter((specifier) => !passes(specifier))).to.deep.equal([]);
    // The catch-all `*` pattern passes only an import whose last segment may name an entry: every bare import would call into the service.
    expect(['lodash', 'registry2', '@acme/uikit', 'react/jsx-runtime', 'library/x', './aliases.js'].filter(passes)).to.deep.equal([]);
  });

  // judge56: each bundled a second copy of the other module (test/browser/boundary-configs.test.ts).
  it("asks about the imports a pattern of a config nearer to a file of the package, of an installed config one extends, or a catch-all pattern may spell; no other bare import", () => {
    const root = tempWorkspace({
      'packages/lib/tsconfig.json': JSON.stringify({ compilerOptions: { strict: true } }),
      'packages/lib/src/store/index.ts': 'export const store = 1;\n',
      'packages/lib/src/deep/tsconfig.json': JSON.stringify({ compilerOptions: { paths: { 'near/*': ['../*'] } } }),
      'packages/lib/src/deep/use.ts': "import 'near/store';\n",
      'node_modules/@acme/tsconfig/base.json': JSON.stringify({ compilerOptions: { paths: { 'shared/*': ['../../../packages/lib/src/*'] } } }),
      'packages/app/tsconfig.json': JSON.stringify({ extends: '@acme/tsconfig/base.json' }),
      'packages/app/main.ts': 'export {};\n',
      'packages/cat/tsconfig.json': JSON.stringify({ compilerOptions: { paths: { '*': ['./src/*'] } } }),
      'packages/cat/src/element.ts': 'export const element = 1;\n',
    });
    const entries = { 'packages/lib/src/store/index.ts': '@acme/lib/store', 'packages/app/main.ts': '@acme/app/main', 'packages/cat/src/element.ts': '@acme/cat/element' };
    const manifests = { '@acme/lib': 'packages/lib/package.json', '@acme/app': 'packages/app/package.json', '@acme/cat': 'packages/cat/package.json' };
    const workspace = { packages: ['@acme/app', '@acme/lib', '@acme/cat'], entries, manifests, key: '' };
    const filterOf = (entry: string, dir: string): RegExp => {
      const target = { specifier: entries[entry as keyof typeof entries], subpath: 'x', dir: path.posix.dirname(entry), entry, assets: [], platforms: ['browser'], package: { name: 'x', dir }, workspace } as unknown as BundleTarget;
      const filters: RegExp[] = [];
      moduleBoundariesPlugin(root, [target]).setup({ onStart: () => {}, onEnd: () => {}, onLoad: () => {}, onResolve: ({ filter, namespace }: { filter: RegExp; namespace?: string }) => namespace === undefined && filters.push(filter) } as unknown as esbuild.PluginBuild);
      return filters[0]!;
    };
    const lib = filterOf('packages/lib/src/store/index.ts', 'packages/lib');
    expect(['near/store', 'near/store/index.js'].filter((specifier) => !lib.test(specifier))).to.deep.equal([]);
    const app = filterOf('packages/app/main.ts', 'packages/app');
    expect(['shared/store', 'shared/store/index.ts'].filter((specifier) => !app.test(specifier))).to.deep.equal([]);
    const cat = filterOf('packages/cat/src/element.ts', 'packages/cat');
    expect(['element', 'element.js', 'x/element', 'store'].filter((specifier) => !cat.test(specifier))).to.deep.equal([]);
    expect(['lodash', 'elements', 'react/jsx-runtime', 'near-store'].filter((specifier) => cat.test(specifier) || lib.test(specifier) || app.test(specifier))).to.deep.equal([]);
  });
});

describe('moduleBoundariesPlugin across the builds of a kept context', () => {
  after(removeTemporaryDirs);

  // esbuild runs on-start callbacks beside the build (a resolve may come before them) and on-end
  // callbacks after every build: what one build learnt of a file must be gone when it ends.
  it('asks for no on-start exchange, and forgets what a build read of an importer once the build ends', async () => {
    const importerText = (statement: string) => `${statement} from '../card/card.js';\n`;
    const root = tempWorkspace({ 'packages/app/main/index.ts': importerText('import { card }'), 'packages/app/card/card.ts': 'export const card = 1;\n' });
    const importer = path.join(root, 'packages/app/main/index.ts');
    const card = path.join(root, 'packages/app/card/card.ts');
    const target = { specifier: '@acme/app/main', subpath: 'main', dir: 'packages/app/main', entry: 'packages/app/main/index.ts', assets: [], platforms: ['browser'], workspace: { packages: ['@acme/app'], entries: { 'packages/app/main/index.ts': '@acme/app/main', 'packages/app/card/card.ts': '@acme/app/card' }, key: '' } } as unknown as BundleTarget;
    const starts: unknown[] = [];
    const ends: Array<(result: object) => void> = [];
    const resolvers: Array<(args: esbuild.OnResolveArgs) => Promise<esbuild.OnResolveResult | undefined>> = [];
    const build = {
      initialOptions: { plugins: [] },
      // The other module bundled alone: it exports `card` as a value.
      esbuild: { build: async () => ({ outputFiles: [{ path: path.join(root, 'out.js'), text: 'var card = 1;\nexport {\n  card\n};\n' }], metafile: { inputs: {} } }) },
      resolve: async () => ({ errors: [], path: card }),
      onStart: (callback: unknown) => starts.push(callback),
      onEnd: (callback: (result: object) => void) => ends.push(callback),
      onLoad: () => {},
      onResolve: ({ namespace }: { namespace?: string }, callback: (typeof resolvers)[number]) => namespace === undefined && resolvers.push(callback),
    } as unknown as esbuild.PluginBuild;
    moduleBoundariesPlugin(root, [target]).setup(build);
    const resolveCard = () => resolvers[0]!({ path: '../card/card.js', importer, resolveDir: path.dirname(importer), kind: 'import-statement', namespace: 'file', pluginData: undefined, with: {} });
    const endBuild = () => ends.forEach((callback) => callback({}));

    expect(starts, 'on-start callbacks').to.deep.equal([]);
    // First build: the importer lists no export, so the other module is imported as written.
    expect(await resolveCard()).to.include({ path: '@acme/app/card', external: true });
    endBuild();
    // The importer now re-exports through a named list: the next build reads it again.
    fs.writeFileSync(importer, importerText('export { card }'));
    const crossing = await resolveCard();
    expect(crossing).to.include({ namespace: CROSSED, path: 'packages/app/card/card.ts' });
    expect(crossing?.pluginData).to.contain('export { card } from "@acme/app/card"');
  });
});

describe('exportedNames', () => {
  it("reads the names of an esbuild bundle's closing export clause, renamed and quoted ones too", () => {
    const code = 'var a = 1;\nvar b = 2;\nvar export_default = 3;\nexport {\n  a,\n  b as value,\n  export_default as default,\n  a as "not-an-identifier"\n};\n';
    expect(exportedNames(code)).to.deep.equal(['a', 'value', 'default', 'not-an-identifier']);
  });

  it('finds no name in a bundle that exports nothing, and cannot know those of one that re-exports all of a bare import', () => {
    expect(exportedNames('console.log(1);\n')).to.deep.equal([]);
    expect(exportedNames('export * from "lit-html";\nvar a = 1;\nexport {\n  a\n};\n')).to.equal(null);
  });
});
