// `exports` patterns against Node's own resolver: generated packages with built `.js` files are
// written to a temporary node_modules, every subpath Node resolves to a code file is asked of
// `require.resolve`, and the workspace must publish exactly those subpaths, from the built files
// and, once the built files are removed, from their sources.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { exportsKeyFor } from '../../src/workspace/source-finder.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { memoryReader } from '../helpers/memory-reader.js';
import { removeTemporaryDirs, tempWorkspace } from '../helpers/workspace.js';

interface Generated {
  manifest: { name: string; exports: Record<string, string | null> } & Record<string, unknown>;
  /** Sources and tsconfig, present in a source checkout. */
  sources: Record<string, string>;
  /** What a build writes: removed for the source checkout. */
  built: Record<string, string>;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
// What a workspace publishes as a module: code, and a stylesheet, which stands for itself (README "Stylesheet modules").
const CODE = /\.[cm]?js$/;
const PUBLISHED = /\.(?:[cm]?js|css)$/;

const PACKAGES: Generated[] = [
  {
    // A target without extension after `*`, spanning directories, through outDir/rootDir.
    manifest: { name: '@gen/components', version: '1.0.0', exports: { '.': './dist/index.js', './components/*': './dist/components/*' } },
    sources: {
      'tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src' } }),
      'src/index.ts': 'export const root = 1;\n',
      'src/components/card.ts': 'export const card = 1;\n',
      'src/components/button/button.ts': 'export const button = 1;\n',
      'src/components/button/filled/filled-button.tsx': 'export const filled = 1;\n',
    },
    built: {
      'dist/index.js': 'export const root = 1;\n',
      'dist/components/card.js': 'export const card = 1;\n',
      'dist/components/card.d.ts': 'export declare const card = 1;\n',
      'dist/components/button/button.js': 'export const button = 1;\n',
      'dist/components/button/filled/filled-button.js': 'export const filled = 1;\n',
      'dist/components/button/styles.css': ':host {}\n',
    },
  },
  {
    // Sources beside built files and plain `.js` files in one directory; a null key excludes.
    manifest: { name: '@gen/mixed', version: '1.0.0', exports: { './*.js': './lib/*.js', './internal/*': null } },
    sources: {
      'lib/a.ts': 'export const a = 1;\n',
      'lib/deep/b.ts': 'export const b = 1;\n',
      'lib/plain.js': 'export const plain = 1;\n',
      'lib/internal/secret.ts': 'export const secret = 1;\n',
    },
    built: {
      'lib/a.js': 'export const a = 1;\n',
      'lib/deep/b.js': 'export const b = 1;\n',
      'lib/internal/secret.js': 'export const secret = 1;\n',
    },
  },
  {
    // An exact key beside a pattern that matches it, and a prefix with part of a name.
    manifest: {
      name: '@gen/features',
      version: '1.0.0',
      exports: { './features/*.js': './out/features/*.js', './features/special.js': './out/special-impl.js', './lib-*': './out/lib-*.mjs' },
      scripts: { build: 'tsc -p tsconfig.build.json' },
    },
    sources: {
      'tsconfig.build.json': json({ compilerOptions: { outDir: 'out', rootDir: 'source' } }),
      'source/features/one.ts': 'export const one = 1;\n',
      'source/features/sub/two.ts': 'export const two = 1;\n',
      'source/features/special.ts': 'export const shadowed = 1;\n',
      'source/special-impl.ts': 'export const special = 1;\n',
      'source/lib-alpha.mts': 'export const alpha = 1;\n',
    },
    built: {
      'out/features/one.js': 'export const one = 1;\n',
      'out/features/sub/two.js': 'export const two = 1;\n',
      'out/features/special.js': 'export const shadowed = 1;\n',
      'out/special-impl.js': 'export const special = 1;\n',
      'out/lib-alpha.mjs': 'export const alpha = 1;\n',
    },
  },
];

/** Specifiers worth asking Node: every file through every string target of every key, and plain paths. */
function candidates(pkg: Generated): string[] {
  const { name, exports } = pkg.manifest;
  const found = new Set<string>();
  const files = Object.keys({ ...pkg.sources, ...pkg.built });
  for (const file of files) {
    found.add(`${name}/${file}`);
    found.add(`${name}/${file.replace(/\.[^./]+$/, '')}`);
    for (const [key, target] of Object.entries(exports)) {
      if (target === null) continue;
      if (!key.includes('*')) {
        found.add(key === '.' ? name : `${name}/${key.slice(2)}`);
        continue;
      }
      const [targetPrefix, targetSuffix] = target.split('*') as [string, string];
      const [keyPrefix, keySuffix] = key.slice(2).split('*') as [string, string];
      const relative = `./${file}`;
      if (relative.startsWith(targetPrefix) && relative.endsWith(targetSuffix) && relative.length > targetPrefix.length + targetSuffix.length) {
        found.add(`${name}/${keyPrefix}${relative.slice(targetPrefix.length, relative.length - targetSuffix.length)}${keySuffix}`);
      }
    }
  }
  return [...found].sort();
}

/** Specifier to package-relative file, for each candidate Node resolves to a code file. */
function resolvedByNode(pkg: Generated): Record<string, string> {
  const root = tempWorkspace({ 'index.js': '' });
  const dir = path.join(root, 'node_modules', pkg.manifest.name);
  for (const [file, text] of Object.entries({ 'package.json': json(pkg.manifest), ...pkg.sources, ...pkg.built })) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const require = createRequire(path.join(root, 'index.js'));
  const resolved: Record<string, string> = {};
  for (const specifier of candidates(pkg)) {
    let file: string;
    try {
      file = require.resolve(specifier);
    } catch {
      continue;
    }
    if (PUBLISHED.test(file)) resolved[specifier] = path.relative(fs.realpathSync(dir), fs.realpathSync(file)).split(path.sep).join('/');
  }
  return resolved;
}

/** Specifier to package-relative entry, as the workspace publishes the package. */
function published(pkg: Generated, withBuilt: boolean): { modules: Record<string, string>; warnings: string[] } {
  const files: Record<string, string> = { 'core.json': json({ packages: ['packages/gen'] }), 'packages/gen/package.json': json(pkg.manifest) };
  for (const [file, text] of Object.entries({ ...pkg.sources, ...(withBuilt ? pkg.built : {}) })) files[`packages/gen/${file}`] = text;
  const model = readWorkspace(memoryReader(files));
  const modules: Record<string, string> = {};
  for (const module of model.modules) {
    expect(module.diagnostics, module.specifier).to.deep.equal([]);
    modules[module.specifier] = module.entry!.slice('packages/gen/'.length);
  }
  return { modules, warnings: (model.warnings ?? []).map((w) => w.kind) };
}

describe('exports patterns against Node', () => {
  after(removeTemporaryDirs);

  for (const pkg of PACKAGES) {
    it(`${pkg.manifest.name}: publishes every subpath Node resolves, from built files, and from sources alone`, () => {
      const node = resolvedByNode(pkg);
      expect(Object.keys(node)).to.not.be.empty;
      const built = published(pkg, true);
      expect(built.modules).to.deep.equal(node);
      expect(built.warnings).to.deep.equal([]);
      const fromSources = published(pkg, false);
      // From sources alone, a built stylesheet is not there to publish; every code module is.
      expect(Object.keys(fromSources.modules)).to.deep.equal(Object.keys(node).filter((specifier) => CODE.test(node[specifier]!)));
      for (const entry of Object.values(fromSources.modules)) expect(Object.keys(pkg.sources), entry).to.include(entry);
    });
  }

  it('names what Node resolved for the generated shapes (the oracle asked the right questions)', () => {
    expect(resolvedByNode(PACKAGES[0]!)).to.deep.equal({
      '@gen/components': 'dist/index.js',
      '@gen/components/components/button/button.js': 'dist/components/button/button.js',
      '@gen/components/components/button/filled/filled-button.js': 'dist/components/button/filled/filled-button.js',
      '@gen/components/components/button/styles.css': 'dist/components/button/styles.css',
      '@gen/components/components/card.js': 'dist/components/card.js',
    });
    expect(Object.keys(resolvedByNode(PACKAGES[1]!))).to.deep.equal(['@gen/mixed/a.js', '@gen/mixed/deep/b.js', '@gen/mixed/plain.js']);
    expect(resolvedByNode(PACKAGES[2]!)).to.deep.equal({
      '@gen/features/features/one.js': 'out/features/one.js',
      '@gen/features/features/special.js': 'out/special-impl.js',
      '@gen/features/features/sub/two.js': 'out/features/sub/two.js',
      '@gen/features/lib-alpha': 'out/lib-alpha.mjs',
    });
  });

  it('warns EXPORTS_NO_SOURCE for a pattern of code targets that matches no file, and not for one of stylesheets', () => {
    const files = {
      'core.json': json({ packages: ['packages/gen'] }),
      'packages/gen/package.json': json({ name: '@gen/empty', version: '1.0.0', exports: { './widgets/*': './dist/widgets/*.js', './themes/*': './themes/*.css', './main': './main.ts' } }),
      'packages/gen/main.ts': 'export {};\n',
    };
    const model = readWorkspace(memoryReader(files));
    expect(model.warnings?.map((w) => w.kind)).to.deep.equal(['EXPORTS_NO_SOURCE']);
    expect(model.warnings![0]!.message).to.contain('exports["./widgets/*"] -> "./dist/widgets/*.js" publishes no module');
    expect(model.warnings![0]!.file).to.equal('packages/gen/package.json');
  });

  it('warns EXPORTS_NAME_UNPUBLISHABLE for each file a pattern matches whose subpath cannot be published, and publishes the rest', () => {
    const files = {
      'core.json': json({ packages: ['packages/lib'] }),
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './parts/*': './src/parts/*.ts', './odd/*': './src/odd/*.ts' } }),
      'packages/lib/src/parts/one.ts': 'export const o = 1;\n',
      'packages/lib/src/parts/über.ts': "export const u = 'u';\n",
      'packages/lib/src/parts/a b.ts': "export const s = 's';\n",
      // A pattern whose every file is skipped is said so, not as one that matches no file.
      'packages/lib/src/odd/ñandú.ts': 'export {};\n',
    };
    const model = readWorkspace(memoryReader(files));
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@p/lib/parts/one']);
    expect(model.warnings?.map((w) => [w.kind, w.file])).to.deep.equal([
      ['EXPORTS_NAME_UNPUBLISHABLE', 'packages/lib/package.json'],
      ['EXPORTS_NAME_UNPUBLISHABLE', 'packages/lib/package.json'],
      ['EXPORTS_NAME_UNPUBLISHABLE', 'packages/lib/package.json'],
    ]);
    const messages = model.warnings!.map((w) => w.message);
    expect(messages[0]).to.contain('exports["./parts/*"] matches packages/lib/src/parts/a b.ts, but its subpath "parts/a b" is not one this service can publish');
    expect(messages[1]).to.contain('exports["./parts/*"] matches packages/lib/src/parts/über.ts, but its subpath "parts/über"');
    expect(messages[2]).to.contain('exports["./odd/*"] matches packages/lib/src/odd/ñandú.ts');
  });

  // Node resolves "@p/lib/data" through the key; this service publishes no module for data, so it
  // says so at the package, except for the conventional "./package.json" (README "Exports and sources").
  it('warns EXPORTS_NAME_UNPUBLISHABLE for an exact key naming data (JSON, an image), not for "./package.json", a stylesheet or types, and keeps each such name for its importers', () => {
    const files = {
      'core.json': json({ packages: ['packages/lib'] }),
      'packages/lib/package.json': json({
        name: '@p/lib',
        version: '1.0.0',
        exports: { './util': './util/index.ts', './data': './data/d.json', './logo': { default: './logo.svg' }, './package.json': './package.json', './theme': './theme.css', './types': { types: './types.d.ts' }, './cfg': './cfg/c.json' },
        core: { modules: '.' },
      }),
      // A module.json makes "cfg" a module after all: no warning, nothing kept for importers.
      'packages/lib/cfg/module.json': json({}),
      'packages/lib/cfg/index.ts': 'export const c = 1;\n',
      'packages/lib/cfg/c.json': '{}',
      'packages/lib/util/index.ts': "export const u = 'u';\n",
      'packages/lib/data/d.json': '{"k":"jv"}',
      'packages/lib/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/lib/theme.css': '.t { color: red; }\n',
      'packages/lib/types.d.ts': 'export declare const t: 1;\n',
    };
    const model = readWorkspace(memoryReader(files));
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@p/lib/cfg', '@p/lib/theme', '@p/lib/util']);
    expect(model.diagnostics).to.deep.equal([]);
    expect(model.warnings?.map((w) => [w.kind, w.file])).to.deep.equal([
      ['EXPORTS_NAME_UNPUBLISHABLE', 'packages/lib/package.json'],
      ['EXPORTS_NAME_UNPUBLISHABLE', 'packages/lib/package.json'],
    ]);
    const [data, logo] = model.warnings!.map((w) => w.message);
    expect(data).to.equal(
      'packages/lib/package.json: exports["./data"] -> "./data/d.json" is JSON: Node resolves "@p/lib/data" to it, but this service publishes only code and stylesheets as modules, so the name is no public module and an import of it fails; to share the data, make this key a module that re-exports it (a source beside it with `export { default } from \'./d.json\' with { type: \'json\' }`) and import that module without { type: \'json\' }',
    );
    expect(logo).to.contain('exports["./logo"] -> "./logo.svg" is neither code nor a stylesheet: Node resolves "@p/lib/logo" to it');
    expect(model.packages[0]!.dataExports).to.deep.equal({ data: './data/d.json', logo: './logo.svg', 'package.json': './package.json' });
  });
});

describe('deep imports of a package without exports against Node', () => {
  after(removeTemporaryDirs);

  const pkg: Generated = {
    manifest: { name: '@gen/open', version: '1.0.0', main: 'lib/index.js', exports: {} },
    sources: {
      'tsconfig.build.json': json({ compilerOptions: { outDir: 'lib', rootDir: 'src' } }),
      'src/index.ts': 'export const root = 1;\n',
      'src/button/filled-button.ts': 'export const filled = 1;\n',
      'vendor/plain.js': 'export const plain = 1;\n',
      'vendor/notes.md': '# notes\n',
    },
    built: {
      'lib/index.js': 'export const root = 1;\n',
      'lib/button/filled-button.js': 'export const filled = 1;\n',
      'lib/button/filled-button.d.ts': 'export declare const filled = 1;\n',
    },
  };

  it('publishes, from built files and from sources alone, every deep .js import that Node\'s ESM resolver resolves', () => {
    const { exports: _none, ...manifest } = pkg.manifest;
    const root = tempWorkspace({ 'resolve.mjs': '' });
    const dir = path.join(root, 'node_modules', manifest.name);
    for (const [file, text] of Object.entries({ 'package.json': json(manifest), ...pkg.sources, ...pkg.built })) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const asked = Object.keys({ ...pkg.sources, ...pkg.built }).flatMap((file) => [`${manifest.name}/${file}`, `${manifest.name}/${file.replace(/\.ts$/, '.js')}`, `${manifest.name}/${file.replace(/\.[^./]+$/, '')}`]);
    const specifiers = [...new Set(asked)].filter((specifier) => CODE.test(specifier)).sort();
    // Node's ESM resolver, as a browser's import map would be asked: exact files only.
    fs.writeFileSync(
      path.join(root, 'resolve.mjs'),
      `const out = {};\nfor (const s of ${JSON.stringify(specifiers)}) { try { out[s] = import.meta.resolve(s); } catch {} }\nconsole.log(JSON.stringify(out));\n`,
    );
    const resolved = JSON.parse(execFileSync(process.execPath, [path.join(root, 'resolve.mjs')], { encoding: 'utf8' })) as Record<string, string>;
    const node: Record<string, string> = {};
    for (const [specifier, url] of Object.entries(resolved)) {
      const file = fileURLToPath(url);
      if (fs.existsSync(file)) node[specifier] = path.relative(fs.realpathSync(dir), fs.realpathSync(file)).split(path.sep).join('/');
    }
    expect(node).to.deep.equal({ '@gen/open/lib/button/filled-button.js': 'lib/button/filled-button.js', '@gen/open/lib/index.js': 'lib/index.js', '@gen/open/vendor/plain.js': 'vendor/plain.js' });

    const deepOf = (withBuilt: boolean) => {
      const files: Record<string, string> = { 'core.json': json({ packages: ['packages/gen'] }), 'packages/gen/package.json': json(manifest) };
      for (const [file, text] of Object.entries({ ...pkg.sources, ...(withBuilt ? pkg.built : {}) })) files[`packages/gen/${file}`] = text;
      const model = readWorkspace(memoryReader(files), specifiers);
      return Object.fromEntries(model.modules.filter((m) => m.subpath !== '@root').map((m) => [m.specifier, m.entry!.slice('packages/gen/'.length)]));
    };
    expect(deepOf(true)).to.deep.equal(node);
    expect(deepOf(false)).to.deep.equal({ '@gen/open/lib/button/filled-button.js': 'src/button/filled-button.ts', '@gen/open/lib/index.js': 'src/index.ts', '@gen/open/vendor/plain.js': 'vendor/plain.js' });
  });
});

describe('exports patterns over a real tree', () => {
  after(removeTemporaryDirs);

  it('walks a directory linked below itself once', () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/loop'] }),
      'packages/loop/package.json': json({ name: '@gen/loop', version: '1.0.0', exports: { './*': './lib/*' } }),
      'packages/loop/lib/a.js': 'export const a = 1;\n',
    });
    fs.symlinkSync(path.join(root, 'packages/loop/lib'), path.join(root, 'packages/loop/lib/again'), 'dir');
    const model = readWorkspace(createFileHashes(root));
    expect(model.modules.map((m) => m.specifier)).to.deep.equal(['@gen/loop/a.js']);
  });
});

describe('exportsKeyFor', () => {
  it('takes an exact key first, then the pattern with the longest part before "*", then the longer key', () => {
    const exports = { './a/*': ['./x/*'], './a/b/*': [], './a/*.js': ['./y/*.js'], './a/c.js': ['./c.js'] };
    expect(exportsKeyFor(exports, './a/c.js')).to.equal('./a/c.js');
    expect(exportsKeyFor(exports, './a/b/x.js')).to.equal('./a/b/*');
    expect(exportsKeyFor(exports, './a/d.js')).to.equal('./a/*.js');
    expect(exportsKeyFor(exports, './a/d.css')).to.equal('./a/*');
    expect(exportsKeyFor(exports, './b')).to.equal(null);
  });
});
