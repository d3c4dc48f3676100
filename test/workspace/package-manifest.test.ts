// package.json: identity, exports, dependencies, and the `core` and `bundlers` members.
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { isDefineValue, isPackageName, parsePackageManifest } from '../../src/workspace/package-manifest.js';

const FILE = 'packages/app/package.json';
const parse = (value: Record<string, unknown>) => parsePackageManifest(JSON.stringify(value), FILE);
const base = { name: '@acme/app', version: '1.0.0' };
const messages = (value: Record<string, unknown>) => {
  const result = parse(value);
  for (const found of result.diagnostics) expect(found).to.include({ kind: 'MANIFEST_INVALID', file: FILE });
  return result.diagnostics.map((d) => d.message);
};

describe('parsePackageManifest', () => {
  it('reads a complete manifest', () => {
    const result = parse({
      $schema: 'https://example.test/package.schema.json',
      ...base,
      private: true,
      description: 'the app',
      exports: { './main': './main/index.ts', './package.json': './package.json' },
      dependencies: { '@acme/lib': '^1.0.0', lit: '3.1.0' },
      core: { modules: 'src', bundler: 'esbuild' },
      bundlers: {
        fast: '@acme/fast-bundler',
        full: { specifier: '@core-js/packages/bundlers/esbuild', processors: { bundle: { compiler: 'esbuild' } } },
      },
      scripts: { build: 'tsc' },
      browser: { fs: false, './node.js': './web.js', buffer: 'buffer-es6' },
    });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value).to.deep.equal({
      name: '@acme/app',
      version: '1.0.0',
      exports: { './main': ['./main/index.ts'], './package.json': ['./package.json'] },
      sourceKeys: [],
      rootMembers: null,
      buildTsconfig: null,
      dependencies: { '@acme/lib': '^1.0.0', lit: '3.1.0' },
      modulesDir: 'src',
      defaultBundler: 'esbuild',
      bundlers: {
        fast: { specifier: '@acme/fast-bundler' },
        full: { specifier: '@core-js/packages/bundlers/esbuild', processors: { bundle: { compiler: 'esbuild' } } },
      },
      browserDisabled: ['fs'],
      define: {},
      defineProblems: [],
      bundlerProblems: [],
    });
  });

  it('counts peerDependencies and optionalDependencies as declared, the dependencies range winning a name declared twice', () => {
    const result = parse({ ...base, peerDependencies: { lit: '^3.0.0', '@acme/host': '^2.0.0' }, optionalDependencies: { fsevents: '^2.3.0' }, dependencies: { lit: '3.1.0' } });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value!.dependencies).to.deep.equal({ fsevents: '^2.3.0', '@acme/host': '^2.0.0', lit: '3.1.0' });
    expect(messages({ ...base, peerDependencies: { lit: 3 } })).to.deep.equal([`${FILE}: peerDependencies["lit"] must be a version range string; it is a number`]);
    expect(messages({ ...base, optionalDependencies: ['x'] })).to.deep.equal([`${FILE}: "optionalDependencies" must be an object of package names to version ranges; it is an array`]);
  });

  it('reads core.define, and names a member that is not an identifier with an expression', () => {
    const result = parse({ ...base, core: { define: { __LIB_VERSION__: '"1.2.3"', 'globalThis.DEBUG': 'false' } } });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value!.define).to.deep.equal({ __LIB_VERSION__: '"1.2.3"', 'globalThis.DEBUG': 'false' });
    // Told on the package's modules (README "Bundling real code"), not among the package's own.
    const broken = parse({ ...base, core: { define: { 'not an identifier': '1', OK: 2 } } });
    expect(broken.diagnostics).to.deep.equal([]);
    for (const found of broken.value!.defineProblems) expect(found).to.include({ kind: 'MANIFEST_INVALID', file: FILE });
    expect(broken.value!.defineProblems.map((d) => d.message)).to.deep.equal([
      `${FILE}: core.define["not an identifier"] must name an identifier (or a dotted one) and give a JavaScript expression as a string`,
      `${FILE}: core.define["OK"] must name an identifier (or a dotted one) and give a JavaScript expression as a string`,
    ]);
    // One refused member of "core" leaves its others as they are.
    const kept = parse({ ...base, core: { modules: 'src', bundler: 'esbuild', define: { 'a b': 'x', OK: '1' } } });
    expect(kept.value!.defineProblems).to.have.length(1);
    expect(kept.value).to.include({ modulesDir: 'src', defaultBundler: 'esbuild' });
    expect(kept.value!.define).to.deep.equal({ OK: '1' });
  });

  it('refuses a define value esbuild cannot substitute, at the package.json, as esbuild itself judges it', () => {
    const refused = parse({ ...base, core: { define: { __X__: 'foo bar', OK: '"1.2.3"' } } });
    expect(refused.diagnostics).to.deep.equal([]);
    expect(refused.value!.define).to.deep.equal({ OK: '"1.2.3"' });
    expect(refused.value!.defineProblems.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', FILE]]);
    expect(refused.value!.defineProblems[0]!.message).to.include('core.define["__X__"] is "foo bar", which esbuild cannot substitute');
    // Held equal to esbuild's own check, value by value, both ways.
    const values = ['foo bar', '1', '"s"', 'true', 'null', '[1,2]', '{"a":1}', 'a.b.c', 'import.meta', 'import.meta.env', 'a["b"]', '-1', '1e3', '0x1F', '0b101', '.5', '1_000', '2n',
      'été', 'undefined', 'void 0', "'x'", "'it\\'s'", 'a.b.', 'NaN', '{a:1}', ' 1 ', 'this', 'new.target', 'a?.b', 'x.default', 'window.y', '', '1 + 1', 'f()', '"unclosed', '$x._y',
      "'a\"b'", '1.', '-2n', "'it\\u0041'", 'class', 'if', 'true.x', 'this.x', 'import.x', 'a.if', 'let', 'super', '01', '-.5', '+1', '-Infinity', '[1,]', "['a']", '{"a":2n}', '[-2n]', 'x.1', ' a.b ', '\\u0061b',
      '[1,,2]', '[,]', '{}', '[]', '{"a":1,}', '{"a" 1}', '{a:1}', '[1 2]', '{"a":[1,{"b":null}]}', ' [ 1 , 2 ] ', '"a"b'];
    const esbuildTakes = (value: string) => {
      try {
        esbuild.transformSync('X', { define: { X: value } });
        return true;
      } catch {
        return false;
      }
    };
    expect(values.map((value) => [value, isDefineValue(value)])).to.deep.equal(values.map((value) => [value, esbuildTakes(value)]));
  });

  it('needs no more than a name and an exact version', () => {
    expect(parse(base)).to.deep.equal({
      value: { ...base, exports: {}, sourceKeys: [], rootMembers: [], buildTsconfig: null, dependencies: {}, modulesDir: null, defaultBundler: null, bundlers: {}, browserDisabled: [], define: {}, defineProblems: [], bundlerProblems: [] },
      diagnostics: [],
    });
  });

  it('lists the targets of a conditional exports target in the order tried: source, development, browser, import, module, default, production, node, types, then the others', () => {
    const result = parse({
      ...base,
      exports: {
        './a': { types: './a/index.d.ts', default: './dist/a.js', source: './a/index.ts' },
        './b': { node: './b/node.js', import: { browser: './b/browser.ts', default: './b/index.js' } },
        './d': null,
      },
    });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value!.exports).to.deep.equal({ './a': ['./a/index.ts', './dist/a.js', './a/index.d.ts'], './b': ['./b/browser.ts', './b/index.js', './b/node.js'], './d': [] });
  });

  it('reads every form Node accepts: a string, an array, conditions alone, and "." keys', () => {
    expect(parse({ ...base, exports: './index.ts' }).value!.exports).to.deep.equal({ '.': ['./index.ts'] });
    expect(parse({ ...base, exports: ['./a.js', './b.ts'] }).value!.exports).to.deep.equal({ '.': ['./a.js', './b.ts'] });
    expect(parse({ ...base, exports: { import: './i.js', custom: './c.js', types: './t.d.ts' } }).value!.exports).to.deep.equal({ '.': ['./i.js', './t.d.ts', './c.js'] });
    expect(parse({ ...base, exports: { '.': './index.ts', './x/*': './src/x/*.ts' } }).value!.exports).to.deep.equal({ '.': ['./index.ts'], './x/*': ['./src/x/*.ts'] });
  });

  it('takes the root from module, main, types when there is no exports', () => {
    const value = parse({ ...base, main: 'dist/index.js', module: './dist/index.mjs', types: 'dist/index.d.ts' }).value!;
    expect(value.exports).to.deep.equal({ '.': ['./dist/index.mjs', './dist/index.js', './dist/index.d.ts'] });
    expect(value.rootMembers).to.deep.equal(['module', 'main', 'types']);
  });

  it('reads the tsconfig a build script names with tsc -p, --project, -b or --build, and none from a script it cannot read plainly', () => {
    const named = (build: string) => parse({ ...base, scripts: { build } }).value!.buildTsconfig;
    expect(named('tsc -p tsconfig.build.json')).to.equal('tsconfig.build.json');
    expect(named('rimraf lib && tsc --project ./config/tsconfig.lib.json && cp x y')).to.equal('./config/tsconfig.lib.json');
    expect(named('tsc --pretty -b build')).to.equal('build');
    expect(named('tsc')).to.equal(null);
    expect(named('tsc -p $CONFIG')).to.equal(null);
    expect(named('vite build -p x')).to.equal(null);
  });

  it('refuses "./" keys mixed with conditions, as Node does', () => {
    const result = parse({ ...base, exports: { '.': './a.js', import: './b.js' } });
    expect(result.diagnostics[0]!.message).to.contain('mixes "./<subpath>" keys with conditions');
  });

  it('says which of npm\'s rules a rejected name breaks', () => {
    const cases: [string, string][] = [
      ['Acme', 'npm names are lower case'],
      ['@acme', 'a scoped name is "@scope/name", with one slash'],
      ['a b', '" " is not allowed: npm names hold only a-z, 0-9, "-", ".", "_" and "~" (they are parts of URLs)'],
      ['.hidden', 'a name cannot start with "." or "_"'],
    ];
    for (const [name, why] of cases) {
      expect(parse({ name, version: '1.0.0' }).diagnostics[0]!.message, name).to.equal(`${FILE}: "name" must be a package name such as "@acme/app"; it is "${name}": ${why}`);
    }
  });

  it('refuses a missing or malformed name, and returns no manifest', () => {
    for (const name of [undefined, 3, 'Acme', '@acme', '@acme/', 'a b', '.hidden', 'x'.repeat(215)]) {
      const result = parse({ name, version: '1.0.0' });
      expect(result.value, String(name)).to.equal(null);
      expect(result.diagnostics).to.have.length(1);
      expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: FILE });
      expect(result.diagnostics[0]!.message).to.contain('"name" must be a package name');
    }
  });

  it('refuses a version that is not exact, and returns no manifest', () => {
    for (const version of [undefined, 1, '^1.0.0', '1.0', 'latest']) {
      const result = parse({ name: '@acme/app', version });
      expect(result.value, String(version)).to.equal(null);
      expect(result.diagnostics[0]!.message).to.contain('"version" must be an exact version');
    }
  });

  it('says a missing name or version is missing', () => {
    expect(messages({})).to.deep.equal([
      `${FILE}: "name" must be a package name such as "@acme/app"; it is missing`,
      `${FILE}: "version" must be an exact version such as "1.0.0"; it is missing`,
    ]);
  });

  it('reports both a bad name and a bad version at once', () => {
    expect(messages({ name: 3, version: 'x' })).to.have.length(2);
  });

  it('reports members of the wrong type and keeps the manifest', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ $schema: {} }, '"$schema" must be the address of a JSON Schema; it is an object'],
      [{ private: 'yes' }, '"private" must be a boolean; it is a string'],
      [{ description: 3 }, '"description" must be a string; it is a number'],
      [{ exports: { './main': 3 } }, 'exports["./main"] must be a path'],
      [{ exports: 3 }, 'exports["."] must be a path such as "./main/index.ts", an object of conditions, an array or null; it is a number'],
      [{ exports: { import: true } }, 'exports["import"] must be a path such as "./main/index.ts", an object of conditions, an array or null; it is a boolean'],
      [{ dependencies: ['lit'] }, '"dependencies" must be an object'],
      [{ dependencies: { lit: 3 } }, 'dependencies["lit"] must be a version range string; it is a number'],
      [{ core: 'src' }, '"core" must be an object'],
      [{ core: { modules: '' } }, 'core.modules must be a directory of the package'],
      [{ core: { modules: 3 } }, 'core.modules must be a directory of the package'],
      [{ bundlers: ['ts'] }, '"bundlers" must be an object of bundler names'],
      [{ bundlers: { mine: '' } }, 'bundlers["mine"] must name a module specifier'],
      [{ bundlers: { mine: 3 } }, 'bundlers["mine"] must be a specifier string or an object'],
      [{ bundlers: { mine: {} } }, 'bundlers["mine"].specifier must be a module specifier'],
      [{ bundlers: { mine: { specifier: 'x', processors: [] } } }, 'bundlers["mine"].processors must be an object'],
      [{ bundlers: { mine: { specifier: 'x', processors: { bundle: 'esbuild' } } } }, 'bundlers["mine"].processors.bundle must be an object'],
      [{ bundlers: { mine: { specifier: 'x', processors: { bundle: { compiler: 1 } } } } }, 'bundlers["mine"].processors.bundle must be an object'],
    ];
    for (const [member, message] of cases) {
      const result = parse({ ...base, ...member });
      expect(result.value, JSON.stringify(member)).to.not.equal(null);
      expect(result.diagnostics, JSON.stringify(member)).to.have.length(1);
      expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: FILE });
      expect(result.diagnostics[0]!.message).to.contain(`${FILE}: ${message}`);
    }
  });

  // Told on the modules it would build (README "Workspaces"), as core.define's problems are.
  it('keeps a refused core.bundler apart, for the modules that would take it', () => {
    for (const bundler of ['', ['ts'], 5]) {
      const result = parse({ ...base, core: { bundler } });
      expect(result.diagnostics, JSON.stringify(bundler)).to.deep.equal([]);
      expect(result.value!.defaultBundler).to.equal(null);
      expect(result.value!.bundlerProblems, JSON.stringify(bundler)).to.have.length(1);
      expect(result.value!.bundlerProblems[0]).to.include({ kind: 'MANIFEST_INVALID', file: FILE });
      expect(result.value!.bundlerProblems[0]!.message).to.contain(`${FILE}: core.bundler must be a bundler name`);
    }
  });

  it('accepts declarations, fallback arrays and null (an excluded subpath: no targets)', () => {
    const result = parse({ ...base, exports: { './types': { types: './main.d.ts' }, './legacy': ['./a.js', './b.js'], './hidden': null, './main': './main/index.ts' } });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value!.exports).to.deep.equal({ './types': ['./main.d.ts'], './legacy': ['./a.js', './b.js'], './hidden': [], './main': ['./main/index.ts'] });
  });

  it('keeps the good entries of a member that has a bad one', () => {
    const result = parse({ ...base, dependencies: { lit: '3.1.0', bad: false }, bundlers: { bad: 3, good: 'x/bundler' } });
    expect(result.value!.dependencies).to.deep.equal({ lit: '3.1.0' });
    expect(result.value!.bundlers).to.deep.equal({ good: { specifier: 'x/bundler' } });
    expect(result.diagnostics).to.have.length(2);
  });

  it('points at the line and column of a JSON syntax error', () => {
    const result = parsePackageManifest('{\n  "name": "@acme/app"\n  "version": "1.0.0"\n}', FILE);
    expect(result.value).to.equal(null);
    expect(result.diagnostics).to.have.length(1);
    expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: FILE, line: 3, column: 3 });
  });

  it('refuses a manifest that is not an object', () => {
    const result = parsePackageManifest('["@acme/app"]', FILE);
    expect(result.value).to.equal(null);
    expect(result.diagnostics[0]!.message).to.contain(`${FILE} must hold an object; it holds an array`);
  });
});

describe('isPackageName', () => {
  it('accepts npm names, scoped or not', () => {
    for (const name of ['lit', '@acme/app', '@a-b/c.d_e~f', 'lodash.merge']) expect(isPackageName(name), name).to.equal(true);
  });

  it('refuses upper case, spaces, bare scopes, leading dots and names over 214 characters', () => {
    for (const name of ['Lit', 'a b', '@acme', '@acme/', '.x', '_x', `a${'b'.repeat(214)}`, '@acme/app/main']) expect(isPackageName(name), name).to.equal(false);
  });

  it('takes names like __proto__ and constructor as names, never as members of Object.prototype', () => {
    const result = parse({ ...base, dependencies: { constructor: '1.0.0' }, bundlers: JSON.parse('{"__proto__": "x/proto-bundler", "toString": "x/to-string"}') });
    expect(result.diagnostics).to.deep.equal([]);
    expect(Object.keys(result.value!.bundlers)).to.deep.equal(['__proto__', 'toString']);
    expect(result.value!.bundlers['__proto__']).to.deep.equal({ specifier: 'x/proto-bundler' });
    expect(Object.keys(result.value!.dependencies)).to.deep.equal(['constructor']);
  });
});
