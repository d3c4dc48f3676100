// Symbolic links in a workspace on disk: the module.json search follows links to directories
// inside the workspace, each directory once, and never a link leading out of it.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { inlineWorkspace, tempWorkspace } from '../helpers/workspace.js';

const pkg = (name: string) => ({ manifest: { name, version: '1.0.0', core: { modules: '.' } }, files: {} as Record<string, string> });

describe('readWorkspace on disk, with symbolic links', () => {
  it('ignores a link to / and a link loop, and finds a module behind a link inside the workspace once', () => {
    const shared = { ...pkg('@t/app'), files: { 'real/module.json': '{"entry": "index.ts"}', 'real/index.ts': 'export {};' } };
    const root = inlineWorkspace({ 'packages/app': shared, 'packages/lib': pkg('@t/lib') }, { 'elsewhere/widget/module.json': '{"entry": "index.ts"}', 'elsewhere/widget/index.ts': '' });
    fs.symlinkSync('/', path.join(root, 'packages/app/rootlink'));
    fs.symlinkSync('..', path.join(root, 'packages/app/real/loop'));
    fs.symlinkSync('../../elsewhere', path.join(root, 'packages/lib/linked'));
    fs.symlinkSync('real', path.join(root, 'packages/app/same'));
    const model = readWorkspace(createFileHashes(root));
    expect(model.diagnostics).to.deep.equal([]);
    // `real` and `same` are one directory: declared once, under the first name found.
    expect(model.modules.map((module) => module.specifier)).to.deep.equal(['@t/app/real', '@t/lib/linked/widget']);
  });

  it('says so when a package directory of core.json is a link leading out of the workspace', () => {
    const outside = tempWorkspace({ 'package.json': JSON.stringify({ name: '@t/out', version: '1.0.0' }) });
    const root = tempWorkspace({ 'core.json': JSON.stringify({ packages: ['packages/out'] }) });
    fs.mkdirSync(path.join(root, 'packages'));
    fs.symlinkSync(outside, path.join(root, 'packages/out'));
    const model = readWorkspace(createFileHashes(root));
    expect(model.packages).to.deep.equal([]);
    expect(model.diagnostics.map((diagnostic) => diagnostic.message)).to.deep.equal([
      'core.json lists the package directory "packages/out", which is a symbolic link leaving the workspace (not followed); no name of it is known (no earlier read, build cache or npm lockfile names it), so any import of a package outside the workspace may be of it and is held back, never sent to a CDN: make "packages/out" a directory inside the workspace, or remove "packages/out" from core.json\'s "packages"',
    ]);
  });

  it('says so when core.modules is a link leading out of the workspace', () => {
    const outside = tempWorkspace({ 'widget/module.json': '{"entry": "index.ts"}', 'widget/index.ts': '' });
    const root = inlineWorkspace({ 'packages/app': { manifest: { name: '@t/app', version: '1.0.0', core: { modules: 'src' } }, files: {} } });
    fs.symlinkSync(outside, path.join(root, 'packages/app/src'));
    const model = readWorkspace(createFileHashes(root));
    expect(model.modules).to.deep.equal([]);
    expect(model.diagnostics.map((diagnostic) => diagnostic.message)).to.deep.equal(['packages/app/package.json: core.modules "src" is a symbolic link leaving the workspace (not followed)']);
  });
});
