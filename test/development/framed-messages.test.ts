// The overlay's code frames (README "Code frames"): an `invalid` message gets the lines around
// each place when it is sent, only while the file holds what the module's build read.
import { expect } from 'chai';
import { createMessageFramer } from '../../src/development/framed-messages.js';
import { SOURCE_CHANGED } from '../../src/io/source-frames.js';
import { moduleLabel, type PushMessage } from '../../src/protocol/push.js';
import { BUILT_LINE, FRAMED_FILE, FRAMED_MODULE, framedWorkspace, rebuiltState, SAVED_LINE, SAVED_TEXT } from '../helpers/framed-state.js';

const invalid: PushMessage = {
  type: 'invalid',
  module: moduleLabel(FRAMED_MODULE),
  diagnostics: [{ kind: 'BUNDLE_ERROR', message: 'Could not resolve "./nope.js"', file: FRAMED_FILE, line: 2, column: 8 }],
};
const framesOf = (message: PushMessage) => (message.type === 'invalid' ? message.diagnostics.map((d) => d.frame) : []);

describe('createMessageFramer', function () {
  it("frames an invalid message's place from the file its build read", async function () {
    const { root, state } = framedWorkspace();
    const [frame] = framesOf(await createMessageFramer(root)(invalid, state));
    expect(frame).to.include(`> 2 | ${BUILT_LINE}`);
  });

  it('says the file changed, and shows none of its new lines, when it was saved after that build', async function () {
    const { root, state } = framedWorkspace(SAVED_TEXT);
    const framed = await createMessageFramer(root)(invalid, state);
    expect(framesOf(framed)).to.deep.equal([SOURCE_CHANGED]);
    expect(JSON.stringify(framed)).to.not.include(SAVED_LINE);
  });

  it("judges a message against its own build's read, not a later build's that read the new lines", async function () {
    const { root, state } = framedWorkspace(SAVED_TEXT);
    const later = rebuiltState(state);
    const framer = createMessageFramer(root);
    const framed = await framer(invalid, state);
    expect(framesOf(framed)).to.deep.equal([SOURCE_CHANGED]);
    expect(JSON.stringify(framed)).to.not.include(SAVED_LINE);
    // The later build's own message, framed against its own state, shows the lines it read.
    const [frame] = framesOf(await framer({ ...invalid, diagnostics: [{ kind: 'BUNDLE_ERROR', message: 'Expected ";"', file: FRAMED_FILE, line: 3, column: 1 }] }, later));
    expect(frame).to.include(`  2 | ${SAVED_LINE}`);
  });
});

