// What the watcher may walk, on a real temporary directory with symbolic links.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { createWatchScope } from '../../src/io/watch-scope.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('createWatchScope', () => {
  it('admits the workspace, not a link leading out of it, nor a dangling link', () => {
    const root = tempWorkspace({ 'app/index.ts': '' });
    fs.symlinkSync('/', path.join(root, 'app/rootlink'));
    fs.symlinkSync(path.join(root, 'missing'), path.join(root, 'app/dangling'));
    const scope = createWatchScope(root);
    const ignored = (relative: string) => scope.ignored(path.join(root, relative));
    // A plain file is seen through its directory's watcher, never watched on its own.
    expect(['.', 'app', 'app/index.ts', 'app/rootlink', 'app/dangling'].map(ignored)).to.deep.equal([false, false, true, true, true]);
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
    const root = tempWorkspace({ 'a/x.ts': '', 'b/x.ts': '', 'c/x.ts': '', 'd/x.ts': '' });
    const warnings: number[] = [];
    const scope = createWatchScope(root, { limit: 3, onLimit: (limit) => void warnings.push(limit) });
    expect(['.', 'a', 'b', 'c', 'd'].map((relative) => scope.ignored(path.join(root, relative)))).to.deep.equal([false, false, false, true, true]);
    expect(warnings).to.deep.equal([3]);
    expect(scope.count).to.equal(3);
  });

  it('watches a link to a file itself, and counts it; a plain file neither', () => {
    const root = tempWorkspace({ 'app/index.ts': '', 'common/shared.ts': '' });
    fs.symlinkSync('../common/shared.ts', path.join(root, 'app/shared.ts'));
    const scope = createWatchScope(root);
    const ignored = (relative: string) => scope.ignored(path.join(root, relative));
    expect(['.', 'app', 'app/index.ts', 'app/shared.ts'].map(ignored)).to.deep.equal([false, false, true, false]);
    expect(scope.count).to.equal(3);
  });

  it('takes the word of a walk for a plain file, and looks at anything else itself', () => {
    const root = tempWorkspace({ 'app/index.ts': '' });
    fs.symlinkSync('/', path.join(root, 'app/rootlink'));
    const scope = createWatchScope(root);
    const file = { isFile: () => true };
    const notFile = { isFile: () => false };
    // Taken on its word: no second look (a path that is not there is otherwise decided again later).
    expect(scope.ignored(path.join(root, 'app/not-there.ts'), file)).to.equal(true);
    expect(scope.ignored(path.join(root, 'app/not-there.ts'))).to.equal(false);
    // Stats that followed a link cannot admit it: the link is looked at here, and leaves.
    expect(scope.ignored(path.join(root, 'app/rootlink'), notFile)).to.equal(true);
    expect(scope.ignored(path.join(root, 'app'), notFile)).to.equal(false);
    expect(scope.count).to.equal(1);
  });

  it('decides a path again when a removed file comes back as a directory', () => {
    const root = tempWorkspace({ 'app/thing': '' });
    const scope = createWatchScope(root);
    expect(scope.ignored(path.join(root, 'app/thing'))).to.equal(true);
    fs.rmSync(path.join(root, 'app/thing'));
    fs.mkdirSync(path.join(root, 'app/thing'));
    expect(scope.ignored(path.join(root, 'app/thing'))).to.equal(false);
  });
});
