// The name and version a package.json writes before it breaks (src/workspace/unread-packages.ts),
// and which unread package an import may be of (README "Workspaces").
import { expect } from 'chai';
import type { UnreadPackage } from '../../src/workspace/model.js';
import { readableIdentity, unreadPackageOf, unreadPackageOfImport } from '../../src/workspace/unread-packages.js';
import { workspaceModel } from '../helpers/models.js';

describe('readableIdentity', () => {
  it('reads the top-level name and version written before the first syntax error', () => {
    expect(readableIdentity('{"name": "@p/lib", "version": "1.0.0", "exports": {"./a": "./a.ts"}')).to.deep.equal({ name: '@p/lib', version: '1.0.0' });
    expect(readableIdentity('\ufeff{"version": "1.0.0" "name": "@p/lib"}')).to.deep.equal({ name: null, version: '1.0.0' });
    expect(readableIdentity('{"name": "@p/li')).to.deep.equal({ name: null, version: null });
  });

  it('takes no nested member for the package name, and no value that is not a string', () => {
    expect(readableIdentity('{"author": {"name": "someone"}, "core": {"bundlers": {"name": "x"}}, "name": 3}')).to.deep.equal({ name: null, version: null });
    expect(readableIdentity('[{"name": "@p/lib"}]')).to.deep.equal({ name: null, version: null });
    expect(readableIdentity('{"name": ""}')).to.deep.equal({ name: null, version: null });
  });

  it('reads a valid manifest as JSON.parse does, the last of a member written twice', () => {
    expect(readableIdentity('{"name": "@p/a", "version": "one", "name": "@p/b"}')).to.deep.equal({ name: '@p/b', version: 'one' });
  });

  it('keeps what it read before a nesting deeper than the stack', () => {
    expect(readableIdentity(`{"name": "@p/deep", "x": ${'['.repeat(200_000)}`)).to.deep.equal({ name: '@p/deep', version: null });
  });
});

describe('unreadPackageOf', () => {
  const named: UnreadPackage = { dir: 'lib', file: 'lib/package.json', name: '@t/lib', version: '1.0.0' };
  const unnamed: UnreadPackage = { dir: 'other', file: 'other/package.json', name: null, version: null };
  const pkg = { name: '@t/app', version: '1.0.0', dir: 'app', dependencies: { events: '3.3.0' } };

  it('finds the package named, and with a package whose name cannot be read, any name outside the model', () => {
    const one = { ...workspaceModel([], { packages: [pkg] }), unreadPackages: [named] };
    expect(unreadPackageOf(one, '@t/lib')).to.equal(named);
    expect(unreadPackageOf(one, 'lit')).to.equal(null);
    expect(unreadPackageOf(one, '@t/app')).to.equal(null);
    const both = { ...one, unreadPackages: [unnamed, named] };
    expect(unreadPackageOf(both, '@t/lib')).to.equal(named);
    expect(unreadPackageOf(both, 'lit')).to.equal(unnamed);
    expect(unreadPackageOf(both, '@t/app')).to.equal(null);
    expect(unreadPackageOf(workspaceModel([], { packages: [pkg] }), 'lit')).to.equal(null);
  });

  it('leaves a built-in out unless the importer declares it as a package', () => {
    const both = { ...workspaceModel([], { packages: [pkg] }), unreadPackages: [unnamed] };
    expect(unreadPackageOfImport(both, '@t/app', 'node:fs')).to.equal(null);
    expect(unreadPackageOfImport(both, '@t/app', 'fs')).to.equal(null);
    expect(unreadPackageOfImport(both, '@t/app', 'events')).to.equal(unnamed);
    expect(unreadPackageOfImport(both, '@t/app', './local.js')).to.equal(null);
  });
});
