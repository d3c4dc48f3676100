// The package table of the workspace index (src/workspace/workspace-index.ts): the one answer to
// whose package a bare import names, which no other layer combines itself (README "Workspaces").
import { expect } from 'chai';
import type { PackageModel, UnreadPackage } from '../../src/workspace/model.js';
import { indexWorkspace } from '../../src/workspace/workspace-index.js';
import { moduleModel, workspaceModel } from '../helpers/models.js';

describe('the package table of the workspace index', () => {
  const named: UnreadPackage = { dir: 'lib', file: 'lib/package.json', name: '@t/lib', version: '1.0.0' };
  const unnamed: UnreadPackage = { dir: 'other', file: 'other/package.json', name: null, version: null };
  const app: PackageModel = { name: '@t/app', version: '1.0.0', dir: 'app', dependencies: { events: '3.3.0' } };
  const read = workspaceModel([moduleModel('main')], { packages: [app] });

  it('tells a package of the model, one whose file writes the name, and one outside', () => {
    const table = indexWorkspace({ ...read, unreadPackages: [named] }).packageTable;
    expect(table.someUnread).to.equal(true);
    expect(table.ofName('@t/app')).to.deep.equal({ kind: 'model', package: app });
    expect(table.ofName('@t/lib')).to.deep.equal({ kind: 'unread', package: named, named: true });
    expect(table.ofName('lit')).to.deep.equal({ kind: 'outside' });
  });

  it('gives a name outside the model to a package whose name cannot be read, and a name one writes to that one', () => {
    const table = indexWorkspace({ ...read, unreadPackages: [unnamed, named] }).packageTable;
    expect(table.ofName('lit')).to.deep.equal({ kind: 'unread', package: unnamed, named: false });
    expect(table.ofName('@t/lib')).to.deep.equal({ kind: 'unread', package: named, named: true });
    expect(table.ofName('@t/app')).to.deep.equal({ kind: 'model', package: app });
  });

  it('calls every name of the model or outside with every manifest read', () => {
    const table = indexWorkspace(read).packageTable;
    expect(table.someUnread).to.equal(false);
    expect(table.ofName('@t/app').kind).to.equal('model');
    expect(table.ofName('@t/lib').kind).to.equal('outside');
    expect(table.ofImport('@t/app', '@t/lib/a')).to.deep.equal({ kind: 'outside' });
  });

  it('answers an import by its package, and names no package for a relative import or a built-in the importer does not declare', () => {
    const table = indexWorkspace({ ...read, unreadPackages: [unnamed, named] }).packageTable;
    expect(table.ofImport('@t/app', '@t/lib/deep/a.js')).to.deep.equal({ kind: 'unread', package: named, named: true });
    expect(table.ofImport('@t/app', '@t/app/main')).to.deep.equal({ kind: 'model', package: app });
    expect(table.ofImport('@t/app', 'lit/decorators.js')).to.deep.equal({ kind: 'unread', package: unnamed, named: false });
    expect(table.ofImport('@t/app', './local.js')).to.equal(null);
    expect(table.ofImport('@t/app', 'fs')).to.equal(null);
    expect(table.ofImport('@t/app', 'node:events')).to.equal(null);
    // `events` declared is the npm package; a package that does not declare it imports the built-in.
    expect(table.ofImport('@t/app', 'events')).to.deep.equal({ kind: 'unread', package: unnamed, named: false });
    expect(table.ofImport('@t/gone', 'events')).to.equal(null);
  });

  it('is built anew for a model whose unread packages change while its packages and modules stay', () => {
    const one = { ...read, unreadPackages: [named] };
    expect(indexWorkspace(one).packageTable.ofName('lit').kind).to.equal('outside');
    const both = { ...one, unreadPackages: [unnamed, named] };
    expect(indexWorkspace(both).packageTable.ofName('lit').kind).to.equal('unread');
    expect(indexWorkspace(read).packageTable.someUnread).to.equal(false);
    // The same lists give the index built before.
    expect(indexWorkspace({ ...both })).to.equal(indexWorkspace(both));
  });
});
