// The one rule of code frames (README "Code frames"): lines only from a file the build or the read
// that reported the diagnostic read, and only while it still holds what was read.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { framedSource, readHashOf, sourceFrames, SOURCE_CHANGED } from '../../src/io/source-frames.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { BUILT_LINE, BUILT_TEXT, FRAMED_FILE, FRAMED_MODULE, framedWorkspace, SAVED_LINE, SAVED_TEXT } from '../helpers/framed-state.js';
import { tempWorkspace } from '../helpers/workspace.js';

const place = (module: string | null, file = FRAMED_FILE) => ({ module, diagnostic: { file, line: 2, column: 8 } });

describe('readHashOf', function () {
  it("is the hash the reporting module's build read, else the workspace read's, else null", function () {
    const { state } = framedWorkspace();
    expect(readHashOf(state, FRAMED_MODULE.specifier, FRAMED_FILE)).to.equal(contentHash(BUILT_TEXT));
    expect(readHashOf(state, FRAMED_MODULE.specifier, 'app/package.json')).to.equal('package-1');
    expect(readHashOf(state, null, 'app/package.json')).to.equal('package-1');
    // The workspace's read did not read the module's entry: a diagnostic of no module has no frame from it.
    expect(readHashOf(state, null, FRAMED_FILE)).to.equal(null);
    expect(readHashOf(state, FRAMED_MODULE.specifier, 'app/one/other.ts')).to.equal(null);
  });
});

describe('framedSource', function () {
  it('gives the lines while the file hashes as read, and says changed once it does not or is gone', function () {
    const { root } = framedWorkspace();
    expect(framedSource(root, FRAMED_FILE, contentHash(BUILT_TEXT))).to.deep.equal(BUILT_TEXT.split('\n'));
    expect(framedSource(root, FRAMED_FILE, contentHash(SAVED_TEXT))).to.equal('changed');
    fs.rmSync(path.join(root, FRAMED_FILE));
    expect(framedSource(root, FRAMED_FILE, contentHash(BUILT_TEXT))).to.equal('changed');
  });

  it('reads nothing the service did not read, nor outside the workspace', function () {
    const { root } = framedWorkspace();
    expect(framedSource(root, FRAMED_FILE, null)).to.equal(null);
    const outside = tempWorkspace({ 'secret.ts': BUILT_TEXT });
    expect(framedSource(root, `../${path.basename(outside)}/secret.ts`, contentHash(BUILT_TEXT))).to.equal(null);
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'app/one/linked.ts'));
    expect(framedSource(root, 'app/one/linked.ts', contentHash(BUILT_TEXT))).to.equal(null);
  });
});

describe('sourceFrames', function () {
  it('frames a place whose file holds what its build read', function () {
    const { root, state } = framedWorkspace();
    const frame = sourceFrames(root, state, [place(FRAMED_MODULE.specifier)])[`${FRAMED_FILE}:2`];
    expect(frame).to.equal(`  1 | export const kept = 1;\n> 2 | ${BUILT_LINE}\n    |        ^\n  3 | export const after = 2;`);
  });

  it('says the file changed, and shows none of its new lines, once it was saved after the build', function () {
    const { root, state } = framedWorkspace(SAVED_TEXT);
    const frames = sourceFrames(root, state, [place(FRAMED_MODULE.specifier)]);
    expect(frames).to.deep.equal({ [`${FRAMED_FILE}:2`]: SOURCE_CHANGED });
    expect(JSON.stringify(frames)).to.not.include(SAVED_LINE);
  });

  it('frames no place of a file the reporting build or read did not read', function () {
    const { root, state } = framedWorkspace();
    expect(sourceFrames(root, state, [place(null), place(FRAMED_MODULE.specifier, 'app/one/other.ts')])).to.deep.equal({});
  });
});
