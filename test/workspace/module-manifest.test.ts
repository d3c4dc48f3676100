// module.json: platforms, entry, assets, subpath and bundler of one module.
import { expect } from 'chai';
import { isSubpath, parseModuleManifest } from '../../src/workspace/module-manifest.js';

const FILE = 'packages/app/badge/module.json';
const parse = (value: unknown) => parseModuleManifest(JSON.stringify(value), FILE);
const EMPTY = { platforms: null, entry: null, assets: [], subpath: null, bundler: null };

describe('parseModuleManifest', () => {
  it('reads every member', () => {
    const result = parse({ platforms: ['node', 'web'], entry: './index.ts', assets: ['logo.svg', 'img/a.png'], subpath: './widgets/badge', bundler: 'esbuild' });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value).to.deep.equal({ platforms: ['node', 'web'], entry: 'index.ts', assets: ['logo.svg', 'img/a.png'], subpath: 'widgets/badge', bundler: 'esbuild' });
  });

  it('leaves absent members unset: an empty manifest is valid', () => {
    expect(parse({})).to.deep.equal({ value: EMPTY, diagnostics: [] });
  });

  it('tolerates $schema and members it does not know', () => {
    expect(parse({ $schema: 'https://example.test/module.schema.json', description: 'a badge', entry: 'index.ts' }).diagnostics).to.deep.equal([]);
  });

  it('drops repeated platforms and assets', () => {
    const result = parse({ platforms: ['web', 'web'], assets: ['a.svg', './a.svg'] });
    expect(result.value!.platforms).to.deep.equal(['web']);
    expect(result.value!.assets).to.deep.equal(['a.svg']);
  });

  it('reports each bad member as MANIFEST_INVALID naming the file, and still yields a manifest', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ $schema: false }, '"$schema" must be the address of a JSON Schema; it is a boolean'],
      [{ platforms: 'web' }, '"platforms" must be a non-empty array'],
      [{ platforms: [] }, '"platforms" must be a non-empty array'],
      [{ platforms: ['web', 'deno'] }, '"platforms" may hold "web" and "node" only; it holds "deno"'],
      [{ platforms: [1] }, '"platforms" may hold "web" and "node" only; it holds a number'],
      [{ entry: 3 }, '"entry" must be a file in the module\'s directory'],
      [{ entry: '../index.ts' }, '"entry" must be a file in the module\'s directory'],
      [{ entry: '/abs/index.ts' }, '"entry" must be a file in the module\'s directory'],
      [{ entry: '.' }, '"entry" must be a file in the module\'s directory'],
      [{ entry: 'src/../index.ts' }, '"entry" must be a file in the module\'s directory such as "index.ts"; it is a string "src/../index.ts"'],
      [{ assets: 'logo.svg' }, '"assets" must be an array of file names'],
      [{ assets: ['../secret.txt'] }, '"assets" must hold file names inside the module\'s directory; it holds "../secret.txt"'],
      [{ assets: ['C:\\\\secret.txt'] }, '"assets" must hold file names inside the module\'s directory'],
      [{ assets: [null] }, '"assets" must hold file names inside the module\'s directory; it holds null'],
      [{ subpath: 'widgets/../badge' }, '"subpath" must be a subpath'],
      [{ subpath: '/badge' }, '"subpath" must be a subpath'],
      [{ subpath: '' }, '"subpath" must be a subpath'],
      [{ subpath: 3 }, '"subpath" must be a subpath such as "widgets/badge"; it is a number'],
      [{ bundler: '' }, '"bundler" must be a bundler name'],
      [{ bundler: { name: 'ts' } }, '"bundler" must be a bundler name'],
    ];
    for (const [member, message] of cases) {
      const result = parse(member);
      expect(result.diagnostics, JSON.stringify(member)).to.have.length(1);
      expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: FILE });
      expect(result.diagnostics[0]!.message, JSON.stringify(member)).to.contain(`${FILE}: ${message}`);
      expect(result.value).to.be.an('object');
    }
  });

  it('keeps the good platforms and assets beside a bad one', () => {
    const result = parse({ platforms: ['deno', 'node'], assets: ['a.svg', '../b.svg'] });
    expect(result.value!.platforms).to.deep.equal(['node']);
    expect(result.value!.assets).to.deep.equal(['a.svg']);
    expect(result.diagnostics).to.have.length(2);
  });

  it('points at the line and column of a JSON syntax error, and yields an empty manifest', () => {
    const result = parseModuleManifest('{\n  "entry": "index.ts",\n  "assets": [\'logo.svg\']\n}', FILE);
    expect(result.value).to.deep.equal(EMPTY);
    expect(result.diagnostics).to.have.length(1);
    expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: FILE, line: 3, column: 14 });
  });

  it('refuses a manifest that is not an object', () => {
    const result = parse(['web']);
    expect(result.value).to.deep.equal(EMPTY);
    expect(result.diagnostics[0]!.message).to.contain(`${FILE} must hold an object; it holds an array`);
  });
});

describe('isSubpath', () => {
  it('accepts plain segments separated by slashes', () => {
    for (const subpath of ['main', 'widgets/badge', 'a.b/c-d_e~f', 'v1.2']) expect(isSubpath(subpath), subpath).to.equal(true);
  });

  it('refuses empty, dot and dot-dot segments, leading dots, slashes at either end and odd characters', () => {
    for (const subpath of ['', '.', '..', 'a/../b', 'a/./b', '.hidden', '/a', 'a/', 'a//b', 'a b', 'a\\b', 'a%2fb', 'a?b']) {
      expect(isSubpath(subpath), subpath).to.equal(false);
    }
  });
});
