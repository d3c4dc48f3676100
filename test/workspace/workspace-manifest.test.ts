// core.json: the package directories of the workspace and the default preview entry.
import { expect } from 'chai';
import { parseWorkspaceManifest } from '../../src/workspace/workspace-manifest.js';

const parse = (value: unknown) => parseWorkspaceManifest(JSON.stringify(value));

describe('parseWorkspaceManifest', () => {
  it('reads the package directories, normalized, and the preview entry', () => {
    const result = parse({ packages: ['packages/app', './packages/lib/'], preview: '@acme/app/main' });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value).to.deep.equal({ packages: ['packages/app', 'packages/lib'], preview: '@acme/app/main' });
  });

  it('has no preview entry unless one is given', () => {
    expect(parse({ packages: [] }).value).to.deep.equal({ packages: [], preview: null });
  });

  it('tolerates $schema and members it does not know', () => {
    const result = parse({ $schema: 'https://example.test/core.schema.json', packages: ['app'], comment: 'mine' });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value!.packages).to.deep.equal(['app']);
  });

  it('reports a $schema that is not an address, and keeps the packages', () => {
    const result = parse({ $schema: 3, packages: ['app'] });
    expect(result.value!.packages).to.deep.equal(['app']);
    expect(result.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', 'core.json']]);
    expect(result.diagnostics[0]!.message).to.contain('"$schema" must be the address of a JSON Schema; it is a number');
  });

  it('refuses text that is not JSON, pointing at the line and column', () => {
    const result = parseWorkspaceManifest('{\n  "packages": [\n    "app",,\n  ]\n}');
    expect(result.value).to.equal(null);
    expect(result.diagnostics).to.have.length(1);
    expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'core.json', line: 3, column: 11 });
    expect(result.diagnostics[0]!.message).to.contain('core.json is not valid JSON');
  });

  it('points at the end of a manifest cut short', () => {
    const result = parseWorkspaceManifest('{\n  "packages": ["app"]\n');
    expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'core.json', line: 3, column: 1 });
  });

  it('points at line 1, column 1 of an empty manifest', () => {
    expect(parseWorkspaceManifest('').diagnostics[0]).to.include({ line: 1, column: 1 });
  });

  it('reads a manifest saved with a byte order mark, and counts columns without it', () => {
    expect(parseWorkspaceManifest('\ufeff{"packages": ["app"]}').value!.packages).to.deep.equal(['app']);
    expect(parseWorkspaceManifest('\ufeff{"packages" ["app"]}').diagnostics[0]).to.include({ line: 1, column: 13 });
  });

  it('names the file it was given', () => {
    expect(parseWorkspaceManifest('[]', 'sub/core.json').diagnostics[0]).to.include({ file: 'sub/core.json' });
  });

  it('refuses a manifest that is not an object', () => {
    for (const value of [[], 'app', 3, null]) {
      const result = parse(value);
      expect(result.value, JSON.stringify(value)).to.equal(null);
      expect(result.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'core.json' });
      expect(result.diagnostics[0]!.message).to.contain('must hold an object');
    }
  });

  it('says a missing packages member is missing', () => {
    expect(parse({ preview: '@acme/app/main' }).diagnostics[0]!.message).to.equal('core.json: "packages" must be an array of package directories; it is missing');
  });

  it('refuses a manifest whose packages is not an array', () => {
    for (const packages of [undefined, 'app', { app: true }]) {
      const result = parse({ packages });
      expect(result.value).to.equal(null);
      expect(result.diagnostics[0]!.message).to.contain('"packages" must be an array');
    }
  });

  it('skips each bad package entry with its own diagnostic and keeps the good ones', () => {
    const result = parse({ packages: ['app', 3, '', '/abs', '../outside', 'a/../../b', './app', 'lib'] });
    expect(result.value!.packages).to.deep.equal(['app', 'lib']);
    const messages = result.diagnostics.map((d) => d.message);
    expect(messages).to.have.length(6);
    expect(messages[0]).to.contain('packages[1] must be a directory name; it is a number');
    expect(messages[1]).to.contain('packages[2] must be a directory name');
    expect(messages[2]).to.contain('packages[3] "/abs" must be a directory inside the workspace');
    expect(messages[3]).to.contain('packages[4] "../outside" must be a directory inside the workspace');
    expect(messages[4]).to.contain('packages[5] "a/../../b" must be a directory inside the workspace');
    expect(messages[5]).to.contain('packages[6] "./app" is listed twice');
    for (const found of result.diagnostics) expect(found).to.include({ kind: 'MANIFEST_INVALID', file: 'core.json' });
  });

  it('reports a preview that is not a specifier and keeps the packages', () => {
    for (const preview of ['', 3, null, ['@a/b/c']]) {
      const result = parse({ packages: ['app'], preview });
      expect(result.value).to.deep.equal({ packages: ['app'], preview: null });
      expect(result.diagnostics).to.have.length(1);
      expect(result.diagnostics[0]!.message).to.contain('"preview" must be a module specifier');
    }
  });

  it('judges by core.schema.json: a `..` segment is refused even when it stays inside, and a blank key or an address that does not parse as the service adds', () => {
    expect(parse({ packages: ['packages/../app'] }).diagnostics.map((d) => d.message)).to.deep.equal(['core.json: packages[0] "packages/../app" must be a directory inside the workspace']);
    for (const [remoteCache, says] of [
      [{ url: 'https://' }, '.url must be an http or https address; it is "https://"'],
      [{ url: 'https://cache.test', publicKey: '  ' }, '.publicKey must be an Ed25519 public key'],
    ] as const) {
      const result = parse({ packages: [], remoteCache });
      expect(result.value, JSON.stringify(remoteCache)).to.deep.equal({ packages: [], preview: null });
      expect(result.diagnostics.map((d) => d.message), JSON.stringify(remoteCache)).to.have.length(1);
      expect(result.diagnostics[0]!.message).to.contain(`"remoteCache" ${says}`);
    }
  });

  it('reads the team remote cache: its address, instance and public key (README "A team\'s remote cache")', () => {
    const remoteCache = { url: 'https://cache.example.test/bazel', instance: 'main/web', publicKey: 'MCowBQYDK2VwAyEA' };
    const result = parse({ packages: [], remoteCache });
    expect(result.diagnostics).to.deep.equal([]);
    expect(result.value).to.deep.equal({ packages: [], preview: null, remoteCache });
  });

  it('refuses a remote cache that is not http(s), holds a credential, or names an instance outside its path', () => {
    for (const [remoteCache, says] of [
      ['https://cache.test', 'must be an object'],
      [{ url: 'ftp://cache.test' }, '.url must be an http or https address'],
      [{ url: 'https://user:secret@cache.test' }, '.url must not hold a credential: give it in CORE_REMOTE_CACHE_HEADER'],
      [{ url: 'https://cache.test/x?token=1' }, '.url must hold no query string or fragment: the team cache\'s addresses are its path and what follows it, so they would be dropped; give a token in CORE_REMOTE_CACHE_HEADER; it is "https://cache.test/x?…"'],
      [{ url: 'https://cache.test#x' }, '.url must hold no query string or fragment'],
      [{ url: 'https://cache.test', instance: '../other' }, '.instance must be a path'],
      [{ url: 'https://cache.test', instance: '/abs' }, '.instance must be a path'],
      [{ url: 'https://cache.test', publicKey: 3 }, '.publicKey must be an Ed25519 public key'],
    ] as const) {
      const result = parse({ packages: [], remoteCache });
      expect(result.value, JSON.stringify(remoteCache)).to.deep.equal({ packages: [], preview: null });
      expect(result.diagnostics.map((d) => d.kind)).to.deep.equal(['MANIFEST_INVALID']);
      expect(result.diagnostics[0]!.message).to.contain(`"remoteCache" ${says}`);
    }
  });
});
