// The JSON Schemas in schemas/ and the service's manifest parsers judge the same manifests
// alike: each case of the corpus states its verdict, and ajv (draft 2020-12) and the parser
// must both reach it. The parsers judge by validators compiled from the schemas at build time
// (scripts/compile-schemas.js): each verdict of the schema is also the compiled validator's, so
// a validator left behind by a changed schema shows here. The few rules a schema cannot state
// exactly are listed apart, each with both verdicts, so a change to either side shows here.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { TEMPLATE_DIR } from '../../src/init/init-workspace.js';
import { validate as compiledCore } from '../../src/workspace/generated/core-schema.js';
import { validate as compiledModule } from '../../src/workspace/generated/module-schema.js';
import { validate as compiledPackage } from '../../src/workspace/generated/package-schema.js';
import { parseModuleManifest } from '../../src/workspace/module-manifest.js';
import { parsePackageManifest } from '../../src/workspace/package-manifest.js';
import { parseWorkspaceManifest } from '../../src/workspace/workspace-manifest.js';
import { PROJECT_DIR } from '../helpers/workspace.js';

type Case = [description: string, manifest: unknown, valid: boolean];

// Strict, so a keyword ajv does not know fails here; union types are plain JSON Schema.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const schema = (name: string): ValidateFunction => ajv.compile(JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, 'schemas', `${name}.schema.json`), 'utf8')));
const manifests = {
  core: { validate: schema('core'), compiled: compiledCore as (data: unknown) => boolean, parse: (text: string) => parseWorkspaceManifest(text, 'core.json') },
  package: { validate: schema('package'), compiled: compiledPackage as (data: unknown) => boolean, parse: (text: string) => parsePackageManifest(text, 'package.json') },
  module: { validate: schema('module'), compiled: compiledModule as (data: unknown) => boolean, parse: (text: string) => parseModuleManifest(text, 'module.json') },
};
type Kind = keyof typeof manifests;

// A package.json's `core.define` and `core.bundler` problems are told on its modules, kept apart
// from the manifest's own diagnostics (README "Workspaces"): refused all the same.
const parserSays = (kind: Kind, manifest: unknown) => {
  const { diagnostics, value } = manifests[kind].parse(JSON.stringify(manifest));
  const toldOnModules = value && 'bundlerProblems' in value ? [...value.defineProblems, ...value.bundlerProblems] : [];
  return diagnostics.length === 0 && toldOnModules.length === 0;
};
const schemaSays = (kind: Kind, manifest: unknown) => {
  const verdict = manifests[kind].validate(manifest) === true;
  expect(manifests[kind].compiled(manifest), `the validator compiled from ${kind}.schema.json`).to.equal(verdict);
  return verdict;
};

const PACKAGE = { name: '@acme/app', version: '1.0.0' };

const CORPUS: Record<Kind, Case[]> = {
  core: [
    ['packages and a preview', { packages: ['packages/app', 'packages/lib'], preview: '@acme/app/main' }, true],
    ['a $schema', { $schema: './node_modules/@core-js/packages/schemas/core.schema.json', packages: [] }, true],
    ['no packages', { packages: [] }, true],
    ['the workspace itself as a package', { packages: ['.'] }, true],
    ['directories written with ./ and a trailing slash', { packages: ['./packages/app/'] }, true],
    ['backslashes', { packages: ['packages\\app'] }, true],
    ['members it does not know', { packages: ['a'], comment: 'kept for people' }, true],
    ['a $schema that is not a string', { $schema: 1, packages: [] }, false],
    ['no packages member', {}, false],
    ['packages as a string', { packages: 'packages/app' }, false],
    ['packages as an object', { packages: { app: 'packages/app' } }, false],
    ['a package directory that is not a string', { packages: [1] }, false],
    ['an empty package directory', { packages: [''] }, false],
    ['a blank package directory', { packages: ['  '] }, false],
    ['an absolute directory', { packages: ['/srv/app'] }, false],
    ['a Windows absolute directory', { packages: ['C:\\app'] }, false],
    ['a directory with a backslash root', { packages: ['\\app'] }, false],
    ['a directory outside the workspace', { packages: ['../app'] }, false],
    ['a directory climbing out through backslashes', { packages: ['a\\..\\..\\b'] }, false],
    ['the parent directory', { packages: ['..'] }, false],
    ['a `..` segment that stays inside', { packages: ['packages/../app'] }, false],
    ['a directory listed twice', { packages: ['a', 'a'] }, false],
    ['an empty preview', { packages: [], preview: '' }, false],
    ['a preview that is not a string', { packages: [], preview: ['@acme/app/main'] }, false],
    ['an array', [], false],
    ['a string', 'packages', false],
    ['null', null, false],
  ],
  package: [
    ['a name and a version', PACKAGE, true],
    ['everything the service reads', {
      ...PACKAGE,
      $schema: '../../node_modules/@core-js/packages/schemas/package.schema.json',
      private: true,
      description: 'An app.',
      exports: { './main': './main/index.ts', './hidden': null, '.': { types: './index.d.ts', default: './index.js' } },
      dependencies: { '@acme/lib': 'workspace:^', lit: '3.1.0' },
      core: { modules: '.', bundler: 'esbuild' },
      bundlers: { ts: '@core-js/packages/bundlers/ts', esbuild: { specifier: '@core-js/packages/bundlers/esbuild', processors: { bundle: { compiler: 'esbuild' } } } },
    }, true],
    ['npm members the service does not read', { ...PACKAGE, scripts: { start: 'core run' }, license: 'MIT', type: 'module', devDependencies: { x: 1 } }, true],
    ['an unscoped name', { ...PACKAGE, name: 'app' }, true],
    ['a prerelease with build metadata', { ...PACKAGE, version: '1.0.0-rc.1+build.5' }, true],
    ['an empty dependencies object', { ...PACKAGE, dependencies: {} }, true],
    ['peer and optional dependencies', { ...PACKAGE, peerDependencies: { lit: '^3.0.0' }, optionalDependencies: { fsevents: '^2.3.0' } }, true],
    ['nested export conditions', { ...PACKAGE, exports: { './a': { node: './a.node.js', import: { browser: './a.ts' } } } }, true],
    ['a condition that leads nowhere before one that leads to a file', { ...PACKAGE, exports: { './a': { source: { types: './a.d.ts' }, default: './a.js' } } }, true],
    ['export conditions the service does not read (no module)', { ...PACKAGE, exports: { './a': { node: './a.js', types: './a.d.ts' } } }, true],
    ['a fallback array (no module)', { ...PACKAGE, exports: { './a': ['./a.ts'] } }, true],
    ['a bundler object without processors', { ...PACKAGE, bundlers: { mine: { specifier: './bundler.js' } } }, true],
    ['processors without bundle', { ...PACKAGE, bundlers: { mine: { specifier: './bundler.js', processors: { other: 1 } } } }, true],
    ['a bundle processor without compiler', { ...PACKAGE, bundlers: { mine: { specifier: './bundler.js', processors: { bundle: {} } } } }, true],
    ['core members it does not know', { ...PACKAGE, core: { extra: true } }, true],
    ['no name', { version: '1.0.0' }, false],
    ['no version', { name: '@acme/app' }, false],
    ['a name with capitals', { ...PACKAGE, name: '@Acme/App' }, false],
    ['a name with a space', { ...PACKAGE, name: '@acme/my app' }, false],
    ['a name starting with a dot', { ...PACKAGE, name: '.app' }, false],
    ['a scope without a name', { ...PACKAGE, name: '@acme/' }, false],
    ['a name longer than 214 characters', { ...PACKAGE, name: `@acme/${'a'.repeat(210)}` }, false],
    ['a version range', { ...PACKAGE, version: '^1.0.0' }, false],
    ['a version with two parts', { ...PACKAGE, version: '1.0' }, false],
    ['a version with a leading zero', { ...PACKAGE, version: '01.0.0' }, false],
    ['a version with a leading v', { ...PACKAGE, version: 'v1.0.0' }, false],
    ['a version with spaces around it', { ...PACKAGE, version: ' 1.0.0 ' }, false],
    ['a prerelease with a leading zero', { ...PACKAGE, version: '1.0.0-01' }, false],
    ['a version that is a number', { ...PACKAGE, version: 1 }, false],
    ['a $schema that is not a string', { ...PACKAGE, $schema: true }, false],
    ['private as a string', { ...PACKAGE, private: 'true' }, false],
    ['a description that is not a string', { ...PACKAGE, description: ['x'] }, false],
    ['exports as a string (the root)', { ...PACKAGE, exports: './index.ts' }, true],
    ['exports as an array (the root)', { ...PACKAGE, exports: ['./index.ts'] }, true],
    ['exports as a number', { ...PACKAGE, exports: 3 }, false],
    ['exports mixing "./" keys with conditions', { ...PACKAGE, exports: { '.': './a.js', import: './b.js' } }, false],
    ['a condition of the root that is a number', { ...PACKAGE, exports: { import: 3 } }, false],
    ['an export target that is a number', { ...PACKAGE, exports: { './a': 1 } }, false],
    ['an export target that is a boolean', { ...PACKAGE, exports: { './a': false } }, false],
    ['dependencies as an array', { ...PACKAGE, dependencies: ['lit'] }, false],
    ['a dependency range that is a number', { ...PACKAGE, dependencies: { lit: 3 } }, false],
    ['a peer dependency range that is a number', { ...PACKAGE, peerDependencies: { lit: 3 } }, false],
    ['optionalDependencies as an array', { ...PACKAGE, optionalDependencies: ['fsevents'] }, false],
    ['core as a string', { ...PACKAGE, core: 'ts' }, false],
    ['an empty core.modules', { ...PACKAGE, core: { modules: '' } }, false],
    ['core.bundler that is not a string', { ...PACKAGE, core: { bundler: ['ts'] } }, false],
    ['bundlers as an array', { ...PACKAGE, bundlers: ['ts'] }, false],
    ['an empty bundler specifier', { ...PACKAGE, bundlers: { ts: '' } }, false],
    ['a bundler object without specifier', { ...PACKAGE, bundlers: { ts: { processors: {} } } }, false],
    ['a bundler object with an empty specifier', { ...PACKAGE, bundlers: { ts: { specifier: '' } } }, false],
    ['processors that are not an object', { ...PACKAGE, bundlers: { ts: { specifier: 'x', processors: 'esbuild' } } }, false],
    ['a bundle processor that is not an object', { ...PACKAGE, bundlers: { ts: { specifier: 'x', processors: { bundle: 'esbuild' } } } }, false],
    ['a compiler that is not a string', { ...PACKAGE, bundlers: { ts: { specifier: 'x', processors: { bundle: { compiler: 1 } } } } }, false],
    ['a bundler that is a number', { ...PACKAGE, bundlers: { ts: 1 } }, false],
    ['an array', [PACKAGE], false],
  ],
  module: [
    ['nothing at all', {}, true],
    ['everything', { $schema: '../../../node_modules/@core-js/packages/schemas/module.schema.json', platforms: ['node', 'web'], entry: 'index.ts', assets: ['logo.svg', 'icons/star.svg'], subpath: 'widgets/badge', bundler: 'esbuild' }, true],
    ['a platform listed twice', { platforms: ['web', 'web'] }, true],
    ['an entry written with ./', { entry: './index.ts' }, true],
    ['an entry in a subdirectory', { entry: 'src/index.ts' }, true],
    ['a hidden file as an asset', { assets: ['.well-known'] }, true],
    ['no assets', { assets: [] }, true],
    ['a subpath written with ./', { subpath: './widgets/badge' }, true],
    ['a subpath with dots, tildes and underscores', { subpath: 'a.b/~c/_d' }, true],
    ['members it does not know', { platforms: ['web'], note: 'x' }, true],
    ['a $schema that is not a string', { $schema: {} }, false],
    ['no platforms', { platforms: [] }, false],
    ['platforms as a string', { platforms: 'web' }, false],
    ['an unknown platform', { platforms: ['web', 'deno'] }, false],
    ['a platform that is not a string', { platforms: [1] }, false],
    ['an entry that is not a string', { entry: 1 }, false],
    ['an empty entry', { entry: '' }, false],
    ['the module directory as entry', { entry: '.' }, false],
    ['the module directory as entry, with a slash', { entry: './' }, false],
    ['an absolute entry', { entry: '/index.ts' }, false],
    ['an entry on a Windows drive', { entry: 'C:index.ts' }, false],
    ['an entry outside the module', { entry: '../index.ts' }, false],
    ['a directory that resolves to the module directory', { entry: 'src/..' }, false],
    ['an entry with a `..` segment that stays inside', { entry: 'src/../index.ts' }, false],
    ['assets as a string', { assets: 'logo.svg' }, false],
    ['an asset that is not a string', { assets: [null] }, false],
    ['an asset outside the module', { assets: ['../secret.svg'] }, false],
    ['an absolute asset', { assets: ['/etc/passwd'] }, false],
    ['a subpath with an empty segment', { subpath: 'a//b' }, false],
    ['a subpath with a parent segment', { subpath: 'a/../b' }, false],
    ['a subpath starting with a slash', { subpath: '/a' }, false],
    ['a subpath starting with a dot', { subpath: '.a' }, false],
    ['a subpath with a space', { subpath: 'a b' }, false],
    ['an empty subpath', { subpath: '' }, false],
    ['an empty bundler', { bundler: '' }, false],
    ['a bundler that is not a string', { bundler: { name: 'ts' } }, false],
    ['an array', [], false],
  ],
};

// Where the schema is stricter or looser than the parser, because JSON Schema cannot state the
// parser's rule: normalizing paths before comparing them, resolving `..`, and numbers past 2^53.
// The parsers judge by the schemas, so they differ only where a parser adds a rule.
const DIFFERENCES: [Kind, string, unknown, { schema: boolean; parser: boolean }][] = [
  ['core', 'the same directory written two ways', { packages: ['packages/app', './packages/app'] }, { schema: true, parser: false }],
  ['package', 'a version whose major is beyond 2^53', { ...PACKAGE, version: '99999999999999999.0.0' }, { schema: true, parser: false }],
];

describe('the manifest schemas', () => {
  for (const [kind, cases] of Object.entries(CORPUS) as [Kind, Case[]][]) {
    describe(`${kind}.schema.json and the ${kind} manifest parser`, () => {
      for (const [description, manifest, valid] of cases) {
        it(`${valid ? 'accept' : 'refuse'} ${description}`, () => {
          expect({ schema: schemaSays(kind, manifest), parser: parserSays(kind, manifest) }).to.deep.equal({ schema: valid, parser: valid });
        });
      }
    });
  }

  describe('where they cannot agree', () => {
    for (const [kind, description, manifest, verdicts] of DIFFERENCES) {
      it(`${kind}: ${description} (schema ${verdicts.schema ? 'accepts' : 'refuses'}, parser ${verdicts.parser ? 'accepts' : 'refuses'})`, () => {
        expect({ schema: schemaSays(kind, manifest), parser: parserSays(kind, manifest) }).to.deep.equal(verdicts);
      });
    }
  });

  it('validate the manifests of the template, which name them in $schema', () => {
    const files: [Kind, string][] = [['core', 'core.json'], ['package', 'packages/app/package.json'], ['module', 'packages/app/main/module.json']];
    for (const [kind, file] of files) {
      const manifest = JSON.parse(fs.readFileSync(path.join(TEMPLATE_DIR, file), 'utf8'));
      expect(manifest.$schema, file).to.equal(`${'../'.repeat(file.split('/').length - 1) || './'}node_modules/@core-js/packages/schemas/${kind}.schema.json`);
      expect({ file, schema: schemaSays(kind, manifest), parser: parserSays(kind, manifest) }).to.deep.equal({ file, schema: true, parser: true });
    }
  });

  it('are shipped and exported as @core-js/packages/schemas/*', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8'));
    expect(pkg.files).to.include('schemas');
    expect(pkg.exports['./schemas/*']).to.equal('./schemas/*');
    for (const kind of Object.keys(manifests)) expect(JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, 'schemas', `${kind}.schema.json`), 'utf8')).$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
  });
});

describe('the compiled validators', () => {
  it('say what they were made from, and are made again when that is not what is here now, whatever the times', async () => {
    const { isStale, generatedFile, sourceStamp } = (await import(path.resolve(import.meta.dirname, '..', '..', 'scripts', 'compile-schemas.js'))) as {
      isStale: (kind: string) => boolean;
      generatedFile: (kind: string) => string;
      sourceStamp: (kind: string) => string;
    };
    const file = generatedFile('module');
    const made = fs.readFileSync(file, 'utf8');
    expect(made).to.include(`\n${sourceStamp('module')}\n`);
    expect(isStale('module')).to.equal(false);
    try {
      fs.writeFileSync(file, made.replace(sourceStamp('module'), '// Made from: an older schema'));
      const later = new Date(Date.now() + 60_000);
      fs.utimesSync(file, later, later); // newer than every source, and still not what a build would make
      expect(isStale('module')).to.equal(true);
    } finally {
      fs.writeFileSync(file, made);
    }
  });
});
