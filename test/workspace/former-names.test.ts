// The names each package directory has had in a run, and which of them an import is warned of
// (src/workspace/former-names.ts, README "Workspaces"): only a name no package has now, whose
// directory is still in the workspace under another name, and only where the package table
// calls the import outside.
import { expect } from 'chai';
import type { PackageModel, UnreadPackage } from '../../src/workspace/model.js';
import { formerNames, formerNameWarnings, withNamesSeen } from '../../src/workspace/former-names.js';
import { fold, moduleModel, started, workspaceModel } from '../helpers/models.js';

const pkg = (name: string, dir: string): PackageModel => ({ name, version: '1.0.0', dir, dependencies: {} });

describe('the former names of workspace packages', () => {
  it('keeps the names seen unchanged, the same object, when a read renames nothing', () => {
    const seen = withNamesSeen(undefined, [pkg('@t/a', 'a'), pkg('@t/b', 'b')]);
    expect(seen).to.deep.equal({ a: ['@t/a'], b: ['@t/b'] });
    expect(withNamesSeen(seen, [pkg('@t/a', 'a'), pkg('@t/b', 'b')])).to.equal(seen);
  });

  it('knows a renamed package by its old name, and forgets none of the names a directory had', () => {
    let seen = withNamesSeen(undefined, [pkg('@t/old', 'lib')]);
    seen = withNamesSeen(seen, [pkg('@t/mid', 'lib')]);
    seen = withNamesSeen(seen, [pkg('@t/new', 'lib')]);
    const workspace = workspaceModel([], { packages: [pkg('@t/new', 'lib')] });
    expect([...formerNames(workspace, seen)]).to.deep.equal([
      ['@t/old', { dir: 'lib', current: '@t/new' }],
      ['@t/mid', { dir: 'lib', current: '@t/new' }],
    ]);
  });

  it('calls no name former that a package has now (two packages swapping names), nor one whose directory left the workspace', () => {
    const seen = withNamesSeen(withNamesSeen(undefined, [pkg('@t/a', 'a'), pkg('@t/b', 'b'), pkg('@t/gone', 'gone')]), [pkg('@t/b', 'a'), pkg('@t/a', 'b')]);
    const workspace = workspaceModel([], { packages: [pkg('@t/b', 'a'), pkg('@t/a', 'b')] });
    expect(formerNames(workspace, seen).size).to.equal(0);
  });

  it('warns of an import of a former name at its place, not of one a package.json not read may own', () => {
    const seen = withNamesSeen(withNamesSeen(undefined, [pkg('@t/app', 'app'), pkg('@t/old', 'lib')]), [pkg('@t/new', 'lib')]);
    const app: PackageModel = { ...pkg('@t/app', 'app'), dependencies: { '@t/old': '1.0.0' } };
    const main = moduleModel('main', { package: '@t/app' });
    const imports = [{ specifier: '@t/old/util', file: 'app/main.ts', line: 3, column: 8 }, { specifier: 'lit', file: 'app/main.ts', line: 4, column: 8 }];
    const read = workspaceModel([main], { packages: [app, pkg('@t/new', 'lib')] });
    const warnings = formerNameWarnings(main, imports, read, seen);
    expect(warnings.map((warning) => [warning.kind, warning.file, warning.line, warning.column])).to.deep.equal([['IMPORT_OF_FORMER_NAME', 'app/main.ts', 3, 8]]);
    expect(warnings[0]!.message).to.include('lib/package.json wrote earlier').and.include('import "@t/new/util"');
    expect(formerNameWarnings(main, imports, read, seen), 'judged once').to.equal(warnings);
    const unread: UnreadPackage = { dir: 'other', file: 'other/package.json', name: null, version: null };
    expect(formerNameWarnings(main, imports, { ...read, unreadPackages: [unread] }, seen)).to.deep.equal([]);
  });

  it('is kept by the store across the reads of one run, and forgotten by the next run', () => {
    const before = workspaceModel([], { packages: [pkg('@t/old', 'lib')] });
    const after = workspaceModel([], { packages: [pkg('@t/new', 'lib')] });
    const renamed = fold([started, { type: 'workspace.read', workspace: before }, { type: 'workspace.read', workspace: after }]);
    expect(renamed.packageNamesSeen).to.deep.equal({ lib: ['@t/old', '@t/new'] });
    expect(fold([started, { type: 'workspace.read', workspace: after }], renamed).packageNamesSeen).to.deep.equal({ lib: ['@t/new'] });
  });
});
