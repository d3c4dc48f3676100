// The remote cache's entries (README "A team's remote cache"): signed over the payload's very
// bytes, and refused when unsigned, signed by another key, or not JSON.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { openEntry, REMOTE_FORMAT, sealEntry, workspaceKey } from '../../../src/io/remote-cache/entries.js';

const payload = { format: REMOTE_FORMAT, key: 'b'.repeat(64), modules: { ['c'.repeat(64)]: 'd'.repeat(64) } } as const;

describe('sealEntry and openEntry', () => {
  const signer = crypto.generateKeyPairSync('ed25519');

  it('opens what it sealed, signed or not when no key is configured', () => {
    expect(openEntry(sealEntry(payload, signer.privateKey), signer.publicKey)).to.deep.equal({ payload });
    expect(openEntry(sealEntry(payload, null), null)).to.deep.equal({ payload });
  });

  it('with a key configured: unsigned, another signer, or a changed payload is refused', () => {
    const other = crypto.generateKeyPairSync('ed25519');
    expect(openEntry(sealEntry(payload, null), signer.publicKey)).to.deep.equal({ problem: 'unsigned' });
    expect(openEntry(sealEntry(payload, other.privateKey), signer.publicKey)).to.deep.equal({ problem: 'bad-signature' });
    const sealed = JSON.parse(sealEntry(payload, signer.privateKey).toString()) as { payload: string; signature: string };
    const changed = Buffer.from(JSON.stringify({ ...sealed, payload: sealed.payload.replace('"b', '"e') }));
    expect(openEntry(changed, signer.publicKey)).to.deep.equal({ problem: 'bad-signature' });
  });

  it('bytes that are not JSON, or not an envelope, are refused', () => {
    expect(openEntry(Buffer.from('{"payload'), null)).to.deep.equal({ problem: 'not-json' });
    expect(openEntry(Buffer.from('{"payload": 3}'), null)).to.deep.equal({ problem: 'wrong-shape' });
  });
});

describe('workspaceKey', () => {
  it('is the same whatever the order of the module keys', () => {
    expect(workspaceKey(['1', '2'])).to.equal(workspaceKey(['2', '1'])).and.to.match(/^[0-9a-f]{64}$/);
  });
});
