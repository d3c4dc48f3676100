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
    const changed = Buffer.from(sealEntry(payload, signer.privateKey).toString().replace('"b', '"e'));
    expect(openEntry(changed, signer.publicKey)).to.deep.equal({ problem: 'bad-signature' });
  });

  it('is JSON whose payload member is the signed bytes themselves, parsed once', () => {
    const sealed = sealEntry(payload, signer.privateKey).toString();
    const envelope = JSON.parse(sealed) as { payload: unknown; signature: string };
    expect(envelope.payload).to.deep.equal(payload);
    expect(crypto.verify(null, Buffer.from(JSON.stringify(payload)), signer.publicKey, Buffer.from(envelope.signature, 'base64'))).to.equal(true);
    expect(JSON.parse(sealEntry(payload, null).toString())).to.deep.equal({ payload });
  });

  it('a payload whose own last member is called signature is not taken for a signed one', () => {
    const named = { ...payload, signature: 'AAAA' };
    expect(openEntry(sealEntry(named as unknown as typeof payload, null), null)).to.deep.equal({ payload: named });
    expect(openEntry(sealEntry(named as unknown as typeof payload, null), signer.publicKey)).to.deep.equal({ problem: 'unsigned' });
  });

  it('bytes that are not JSON, or not an envelope, are refused', () => {
    expect(openEntry(Buffer.from('{"payload'), null)).to.deep.equal({ problem: 'not-json' });
    expect(openEntry(Buffer.from('{"payload":{"format":'), null)).to.deep.equal({ problem: 'not-json' });
    expect(openEntry(Buffer.from('{"payload":{"a":1},"signature":"%%"}'), null)).to.deep.equal({ problem: 'not-json' });
    expect(openEntry(Buffer.from('{"payload": 3}'), null)).to.deep.equal({ problem: 'wrong-shape' });
  });
});

describe('workspaceKey', () => {
  it('is the same whatever the order of the module keys', () => {
    expect(workspaceKey(['1', '2'])).to.equal(workspaceKey(['2', '1'])).and.to.match(/^[0-9a-f]{64}$/);
  });
});
