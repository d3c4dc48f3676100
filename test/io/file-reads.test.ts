// The one gate of a file read, shared by the reads behind file hashes and the code frames
// (README "Links and large trees", "Code frames"): a file inside the workspace, by its real path.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createConfinedPaths } from '../../src/io/confined-paths.js';
import { readConfinedFile } from '../../src/io/file-reads.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('readConfinedFile', function () {
  it("gives a file's bytes and hash; says what it found instead for a directory, a gone file and a link out of the workspace", function () {
    const root = tempWorkspace({ 'app/main.ts': 'export const x = 1;\n' });
    const outside = tempWorkspace({ 'secret.ts': 'export const secret = 1;\n' });
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'app/linked.ts'));
    const paths = createConfinedPaths(root);
    const read = readConfinedFile(paths, 'app/main.ts');
    expect(typeof read === 'string' ? read : { text: read.bytes.toString('utf8'), hash: read.hash, isFile: read.stats.isFile() }).to.deep.equal({
      text: 'export const x = 1;\n',
      hash: contentHash('export const x = 1;\n'),
      isFile: true,
    });
    expect(readConfinedFile(paths, 'app')).to.equal('not-a-file');
    expect(readConfinedFile(paths, 'app/gone.ts')).to.equal('not-a-file');
    expect(readConfinedFile(paths, 'app/linked.ts')).to.equal('outside');
  });
});
