// What the watcher may walk, on a real temporary directory with symbolic links.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { createWatchScope } from '../../src/streams/watch-scope.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('createWatchScope', () => {
  it('admits the workspace, not a link leading out of it, nor a dangling link', () => {
    const root = tempWorkspace({ 'app/index.ts': '' });
    fs.symlinkSync('/', path.join(root, 'app/rootlink'));
    fs.symlinkSync(path.join(root, 'missing'), path.join(root, 'app/dangling'));
    const scope = createWatchScope(root);
    const ignored = (relative: string) => scope.ignored(path.join(root, relative));
    expect(['.', 'app', 'app/index.ts', 'app/rootlink', 'app/dangling'].map(ignored)).to.deep.equal([false, false, false, true, true]);
    expect(ignored('../elsewhere')).to.equal(true);
  });

  it('walks each directory once: a loop is not walked, a second path to a directory is its alias', () => {
    const root = tempWorkspace({ 'app/real/index.ts': '' });
    fs.symlinkSync('..', path.join(root, 'app/real/loop'));
    fs.symlinkSync('real', path.join(root, 'app/same'));
    const scope = createWatchScope(root);
    const ignored = (relative: string) => scope.ignored(path.join(root, relative));
    expect(['.', 'app', 'app/real', 'app/real/loop', 'app/same'].map(ignored)).to.deep.equal([false, false, false, true, true]);
    expect(scope.aliases('app/real/index.ts')).to.deep.equal(['app/same/index.ts']);
    expect(scope.aliases('app/real')).to.deep.equal(['app/same']);
    expect(scope.aliases('app/other.ts')).to.deep.equal([]);
    // Removed, the directory may be walked again under another path.
    scope.forget(path.join(root, 'app/real'), true);
    expect(scope.aliases('app/real/index.ts')).to.deep.equal([]);
    expect(ignored('app/same')).to.equal(false);
  });

  it('admits no more than its limit, and says so once', () => {
    const root = tempWorkspace({ 'a.ts': '', 'b.ts': '', 'c.ts': '', 'd.ts': '' });
    const warnings: number[] = [];
    const scope = createWatchScope(root, { limit: 3, onLimit: (limit) => void warnings.push(limit) });
    expect(['.', 'a.ts', 'b.ts', 'c.ts', 'd.ts'].map((relative) => scope.ignored(path.join(root, relative)))).to.deep.equal([false, false, false, true, true]);
    expect(warnings).to.deep.equal([3]);
    expect(scope.count).to.equal(3);
  });
});
