// Paths confined to the workspace by their real path (src/io/confined-paths.ts): within a pass of
// reads, each directory's real path is asked once, and a link swapped in meanwhile is still caught.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createConfinedPaths } from '../../src/io/confined-paths.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** A workspace of one module directory, a directory outside it, and paths counting each real path asked. */
function setUp() {
  const root = tempWorkspace({ 'core.json': '{}', 'app/one/index.ts': 'export {};', 'app/one/helper.ts': 'export {};', 'app/one/styles.css': '' });
  const outside = tempWorkspace({ 'helper.ts': 'secret', 'styles.css': 'secret' });
  const asked: string[] = [];
  const paths = createConfinedPaths(root, { realpath: (absolute) => (asked.push(path.relative(root, absolute) || '.'), fs.realpathSync.native(absolute)) });
  return { root, outside, asked, paths };
}

describe('confined paths', () => {
  it("ask each file's real path outside a pass", () => {
    const { asked, paths } = setUp();
    for (const file of ['app/one/index.ts', 'app/one/helper.ts']) expect(paths.leaves(file)).to.equal(false);
    expect(asked).to.deep.equal(['.', 'app/one/index.ts', 'app/one/helper.ts']);
  });

  it("ask a directory's real path once in a pass, for every file of it that is no link", () => {
    const { asked, paths } = setUp();
    const leaving = paths.inPass(() => ['app/one/index.ts', 'app/one/helper.ts', 'app/one/styles.css', 'core.json', 'app/one/absent.ts'].map((file) => paths.leaves(file)));
    expect(leaving).to.deep.equal([false, false, false, false, false]);
    expect(asked).to.deep.equal(['.', 'app/one', '.']);
  });

  it('find a link out of the workspace in a pass: the file itself, and a directory swapped for one during the pass', () => {
    const { root, outside, paths } = setUp();
    const leaving = paths.inPass(() => {
      const before = paths.leaves('app/one/index.ts');
      fs.rmSync(path.join(root, 'app/one/styles.css'));
      fs.symlinkSync(path.join(outside, 'styles.css'), path.join(root, 'app/one/styles.css'));
      const fileLink = paths.leaves('app/one/styles.css');
      fs.renameSync(path.join(root, 'app/one'), path.join(root, 'app/was-one'));
      fs.symlinkSync(outside, path.join(root, 'app/one'));
      return [before, fileLink, paths.leaves('app/one/helper.ts')];
    });
    expect(leaving).to.deep.equal([false, true, true]);
  });

  it("refuse, in a team start's judgement, a file read through a directory swapped for a link out during it", () => {
    const { root, outside } = setUp();
    const hashes = createFileHashes(root);
    const read = hashes.inPass!(() => {
      const first = hashes.stamp('app/one/index.ts').hash;
      fs.renameSync(path.join(root, 'app/one'), path.join(root, 'app/was-one'));
      fs.symlinkSync(outside, path.join(root, 'app/one'));
      return [first, hashes.stamp('app/one/helper.ts').hash];
    });
    expect(read[0]).to.be.a('string');
    expect(read[1], 'as good as absent').to.equal(null);
  });
});
