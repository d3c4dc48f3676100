// The build cache's index (README "The build cache"): written with its checksum last, read back
// only when every byte is as written, and each part checked for its shape before use.
import { expect } from 'chai';
import fc from 'fast-check';
import { contentHash } from '../../src/outputs/content-hash.js';
import { CACHE_FORMAT, indexText, isCacheEntry, isOutputPack, isWorkspaceModel, isWorkspaceSnapshot, parseIndex, type CacheEntry, type CacheIndex } from '../../src/io/cache-index.js';
import { isPlainRelative } from '../../src/io/file-hashes.js';
import { moduleModel, workspaceModel } from '../helpers/models.js';

const identity = { service: '1.0.0', esbuild: '0.28.2', bundlers: 'bundlers-code' };
const root = '/w';
const expected = { identity, root, file: 'builds.json' };
const hashOf = (text: string) => contentHash(text);

const entry: CacheEntry = {
  module: '@t/app/one',
  variant: 'browser.development',
  fingerprint: '[]',
  bundler: '["@core-js/packages/bundlers/ts",null]',
  boundaries: 'b',
  record: {
    outputs: { code: { hash: hashOf('code'), size: 4 }, styles: null },
    imports: [{ specifier: '@t/app/two', file: 'app/one/index.ts', line: 1, column: 20 }],
    inputs: { 'app/one/index.ts': hashOf('source'), 'app/tsconfig.json': null },
  },
  signatures: { 'app/one/index.ts': [hashOf('source'), 12, 40, 1000.5, 1000.5, 1200] },
};
const model = workspaceModel([moduleModel('one')], { sources: { 'core.json': hashOf('core'), 'app/package.json': hashOf('package'), 'app/one/': hashOf('listing'), '.core/selection.json': null } });
const index: CacheIndex = {
  format: CACHE_FORMAT,
  identity,
  root,
  entries: [entry],
  packs: [{ file: '0123456789abcdef.pack', at: { [hashOf('code')]: 0 } }],
  workspace: { reader: 'reader-code', model, signatures: { 'core.json': [hashOf('core'), 1, 2, 3, 4, 5] }, links: { realPaths: {}, leaves: {} } },
};

describe('parseIndex', () => {
  it('reads back what indexText wrote, and the checksum apart', () => {
    const text = indexText(index);
    const { checksum } = JSON.parse(text) as { checksum: string };
    expect(parseIndex(text, expected)).to.deep.equal({ index, checksum });
  });

  it('finds any one character changed, cut off or added a damage, never an index', () => {
    const text = indexText(index);
    fc.assert(
      fc.property(fc.nat(text.length - 1), fc.constantFrom('a', '0', '"', '}', ' ', 'é', ''), (at, replacement) => {
        const changed = text.slice(0, at) + replacement + text.slice(at + 1);
        fc.pre(changed !== text);
        const parsed = parseIndex(changed, expected);
        expect(parsed).to.include({ damaged: true });
      }),
      { numRuns: 300 },
    );
    expect(parseIndex(text.slice(0, -1), expected)).to.include({ damaged: true });
    expect(parseIndex(`${text} `, expected)).to.include({ damaged: true });
  });

  it('says why an index written whole is not this service\'s, and calls none of it a damage', () => {
    const other = (change: Partial<CacheIndex>) => parseIndex(indexText({ ...index, ...change }), expected);
    expect(other({ identity: { ...identity, esbuild: '0.0.1' } })).to.deep.equal({ ignored: 'the cache was written by @core-js/packages 1.0.0 with esbuild 0.0.1', damaged: false });
    expect(other({ identity: { ...identity, bundlers: 'other' } })).to.deep.equal({ ignored: 'the cache was written by other code of the built-in bundlers', damaged: false });
    expect(other({ root: '/elsewhere' })).to.deep.equal({ ignored: 'the cache belongs to another workspace (/elsewhere)', damaged: false });
    expect(parseIndex(JSON.stringify({ format: 3, entries: [] }), expected)).to.deep.equal({ ignored: 'builds.json is of another format', damaged: false });
    expect(other({ format: CACHE_FORMAT + 1 } as never)).to.deep.equal({ ignored: 'builds.json is of another format', damaged: false });
    // The format before links were saved with the model: sealed as this one is, a miss all the same.
    expect(other({ format: 4 } as never)).to.deep.equal({ ignored: 'builds.json is of another format', damaged: false });
    expect(parseIndex(JSON.stringify({ entries: [] }), expected)).to.deep.equal({ ignored: 'builds.json has no format', damaged: true });
    expect(parseIndex(JSON.stringify(index), expected)).to.include({ damaged: true }); // this format, its checksum gone
    expect(parseIndex(indexText({ ...index, entries: 'none' } as never), expected)).to.deep.equal({ ignored: 'builds.json lacks its identity, root, entries or packs', damaged: true });
  });
});

describe('isCacheEntry', () => {
  it('takes an entry as written, and none with a member missing or of another type', () => {
    expect(isCacheEntry(entry)).to.equal(true);
    const without = ({ signatures: _signatures, ...rest }: CacheEntry) => rest;
    expect(isCacheEntry(without(entry))).to.equal(true);
    const broken: unknown[] = [
      null,
      'an entry',
      { ...entry, fingerprint: undefined },
      { ...entry, record: { ...entry.record, outputs: { code: entry.record.outputs.code } } },
      { ...entry, record: { ...entry.record, outputs: { code: { hash: 'short', size: 4 }, styles: null } } },
      { ...entry, record: { ...entry.record, outputs: { code: { hash: hashOf('code'), size: -1 }, styles: null } } },
      { ...entry, record: { ...entry.record, imports: 'none' } },
      { ...entry, record: { ...entry.record, inputs: { 'app/one/index.ts': '?' } } },
      { ...entry, record: { ...entry.record, warnings: [{ kind: 'NO_SUCH_KIND', message: 'm' }] } },
      { ...entry, signatures: { 'app/one/index.ts': [hashOf('source'), 12, 40] } },
      // What it only depends on: a list of its own inputs, nothing else.
      { ...entry, record: { ...entry.record, resolution: 'app/one/index.ts' } },
      { ...entry, record: { ...entry.record, resolution: ['app/one/elsewhere.ts'] } },
    ];
    for (const value of broken) expect(isCacheEntry(value), JSON.stringify(value)).to.equal(false);
    expect(isCacheEntry({ ...entry, record: { ...entry.record, resolution: Object.keys(entry.record.inputs) } })).to.equal(true);
  });

  it("takes the link names' namespaces exported (README \"Bundling real code\"), and none of another shape", () => {
    const withNamespaces = (namespaces: unknown) => ({ ...entry, record: { ...entry.record, links: { exports: ['ns'], namespaces } } });
    expect(isCacheEntry(withNamespaces([{ name: 'ns', specifier: '@p/c/c' }]))).to.equal(true);
    for (const namespaces of ['ns', [{ name: 'ns' }], [{ name: 1, specifier: '@p/c/c' }]]) expect(isCacheEntry(withNamespaces(namespaces)), JSON.stringify(namespaces)).to.equal(false);
  });

  it('takes an import marked a literal import() (README "The bundled preview"), and no other mark', () => {
    const withImport = (dynamic: unknown) => ({ ...entry, record: { ...entry.record, imports: [{ ...entry.record.imports[0]!, dynamic }] } });
    expect(isCacheEntry(withImport(true))).to.equal(true);
    for (const dynamic of [false, 'yes', 1, null]) expect(isCacheEntry(withImport(dynamic)), JSON.stringify(dynamic)).to.equal(false);
  });
});

describe('isWorkspaceModel', () => {
  it('takes the model as read, and none of another shape', () => {
    expect(isWorkspaceModel(model)).to.equal(true);
    expect(isWorkspaceModel({ ...model, packages: [{ ...model.packages[0], dir: '.' }], modules: [{ ...model.modules[0], dir: '', entry: null, assets: ['./logo.svg'] }] })).to.equal(true);
    expect(isWorkspaceSnapshot(index.workspace)).to.equal(true);
    expect(isWorkspaceModel({ ...model, unreadPackages: [{ dir: 'lib', file: 'lib/package.json', name: '@t/lib', version: null }] })).to.equal(true);
    const broken: unknown[] = [
      { ...model, modules: [{ ...model.modules[0], platforms: 'web' }] },
      { ...model, modules: [{ ...model.modules[0], entry: 3 }] },
      { ...model, modules: [{ ...model.modules[0], bundler: null }] },
      { ...model, packages: [{ name: '@t/app' }] },
      { ...model, selection: 'all' },
      { ...model, diagnostics: [null] },
      { ...model, sources: { 'core.json': 3 } },
      // Paths the service would read or import outside the workspace (README "The build cache").
      { ...model, packages: [{ ...model.packages[0], dir: '../elsewhere' }] },
      { ...model, packages: [{ ...model.packages[0], dir: '/etc' }] },
      { ...model, modules: [{ ...model.modules[0], dir: '../../x' }] },
      { ...model, modules: [{ ...model.modules[0], dir: '/abs/one' }] },
      { ...model, modules: [{ ...model.modules[0], entry: 'app/../../evil.js' }] },
      { ...model, modules: [{ ...model.modules[0], entry: '/tmp/evil.js' }] },
      { ...model, modules: [{ ...model.modules[0], assets: ['app/one/logo.svg', '../secret'] }] },
      { ...model, modules: [{ ...model.modules[0], assets: ['/etc/passwd'] }] },
      { ...model, unreadPackages: [{ dir: 'lib', file: 'lib/package.json', name: 3, version: null }] },
      { ...model, unreadPackages: [{ dir: '../lib', file: '../lib/package.json', name: null, version: null }] },
      { ...model, unreadPackages: {} },
    ];
    for (const value of broken) expect(isWorkspaceModel(value), JSON.stringify(value)).to.equal(false);
    expect(isWorkspaceSnapshot({ ...index.workspace, signatures: { 'core.json': 'stat' } })).to.equal(false);
    const links = (realPaths: object, leaves: object = {}) => ({ ...index.workspace, links: { realPaths, leaves } });
    expect(isWorkspaceSnapshot(links({ 'packages/shared': 'common/shared', 'packages/gone': null }, { 'packages/app': false }))).to.equal(true);
    const badLinks: unknown[] = [
      { ...index.workspace, links: undefined },
      links({ 'packages/app': '../elsewhere' }),
      links({ '/etc': 'etc' }),
      links({ 'packages/app': 3 }),
      links({}, { 'packages/app': 'no' }),
      links({}, { '../up': true }),
    ];
    for (const value of badLinks) expect(isWorkspaceSnapshot(value), JSON.stringify(value)).to.equal(false);
  });
});

describe('isPlainRelative', () => {
  it('refuses a `..` segment, an absolute path, `//` and a backslash, and takes a name holding `..`', () => {
    for (const plain of ['', 'a', 'a/b.js', 'dir/', 'a..b/x.js', 'a/b..js', '..a/x', 'a/..b', 'a/b../c', '...', './x', 'a/./b']) expect(isPlainRelative(plain), plain).to.equal(true);
    for (const refused of ['..', '../x', 'a/..', 'a/../b', 'a/../', '/etc/passwd', 'a//b', 'a\\b']) expect(isPlainRelative(refused), refused).to.equal(false);
  });

  it('lets a model take a file whose name holds `..`, and still refuses one that climbs', () => {
    const named = { ...model, modules: [{ ...model.modules[0], dir: 'app/v1..2', entry: 'app/v1..2/index..ts', assets: ['app/v1..2/logo..svg'] }] };
    expect(isWorkspaceModel(named)).to.equal(true);
    expect(isWorkspaceModel({ ...model, modules: [{ ...model.modules[0], entry: 'app/v1..2/../../evil.js' }] })).to.equal(false);
  });
});

describe('isOutputPack', () => {
  it('takes a pack of a pack\'s name whose places are offsets', () => {
    expect(isOutputPack(index.packs[0])).to.equal(true);
    expect(isOutputPack({ file: '../builds.json', at: {} })).to.equal(false);
    expect(isOutputPack({ file: '0123456789abcdef.pack', at: { x: -1 } })).to.equal(false);
  });
});
