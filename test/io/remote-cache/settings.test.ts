// Where the team's remote cache is and how it is trusted (README "A team's remote cache"):
// core.json's remoteCache, the address overridden by CORE_REMOTE_CACHE, a credential only from
// CORE_REMOTE_CACHE_HEADER.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { remoteCacheSettings } from '../../../src/io/remote-cache/settings.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const workspaceWith = (remoteCache?: object) => tempWorkspace({ 'core.json': JSON.stringify({ packages: [], ...(remoteCache ? { remoteCache } : {}) }) });

describe('remoteCacheSettings', () => {
  it('none unless core.json or CORE_REMOTE_CACHE names one; "off" turns a declared one off', () => {
    expect(remoteCacheSettings(workspaceWith(), {})).to.deep.equal({ settings: null });
    expect(remoteCacheSettings(workspaceWith({ url: 'https://cache.test' }), { CORE_REMOTE_CACHE: 'off' })).to.deep.equal({ settings: null });
  });

  it('asks under the instance, at the address the environment gives over core.json\'s, with the header', () => {
    const root = workspaceWith({ url: 'https://cache.test/bazel', instance: 'web/main' });
    expect(remoteCacheSettings(root, {}).settings!.base.href).to.equal('https://cache.test/bazel/web/main/');
    const { settings } = remoteCacheSettings(root, { CORE_REMOTE_CACHE: 'http://127.0.0.1:9090', CORE_REMOTE_CACHE_HEADER: 'Authorization: Bearer abc' });
    expect(settings!.base.href).to.equal('http://127.0.0.1:9090/web/main/');
    expect(settings!.header).to.deep.equal(['Authorization', 'Bearer abc']);
  });

  it('takes an Ed25519 public key as PEM or base64 DER, and says why another cannot be used', () => {
    const { publicKey } = crypto.generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    for (const text of [pem, der]) expect(remoteCacheSettings(workspaceWith({ url: 'https://cache.test', publicKey: text }), {}).settings!.publicKey!.equals(publicKey)).to.equal(true);
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(remoteCacheSettings(workspaceWith({ url: 'https://cache.test', publicKey: rsa }), {}).problem).to.contain('is not an Ed25519 public key');
  });

  it('asks nothing when core.json holds a remoteCache it cannot read, whatever the environment says: its public key may be in it', () => {
    const { publicKey } = crypto.generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    // The manifest is broken elsewhere (packages is no list): its publicKey must not be dropped silently.
    const root = tempWorkspace({ 'core.json': JSON.stringify({ packages: 'nope', remoteCache: { url: 'https://cache.test', publicKey: pem } }) });
    const read = remoteCacheSettings(root, { CORE_REMOTE_CACHE: 'http://127.0.0.1:9090' });
    expect(read.settings).to.equal(null);
    expect(read.problem).to.contain('"remoteCache" cannot be read');
  });

  it('refuses an address with a credential, another scheme, or a header that is not "Name: value"', () => {
    const root = workspaceWith();
    const withCredential = remoteCacheSettings(root, { CORE_REMOTE_CACHE: 'https://me:secret@cache.test' }).problem;
    expect(withCredential).to.contain('without a credential');
    // The message goes to the terminal and CI's log: the credential it refuses is not in it.
    expect(withCredential).to.contain('"https://…@cache.test"').and.not.contain('secret');
    expect(remoteCacheSettings(root, { CORE_REMOTE_CACHE: 'file:///tmp/cache' }).problem).to.contain('http or https');
    expect(remoteCacheSettings(root, { CORE_REMOTE_CACHE: 'https://cache.test', CORE_REMOTE_CACHE_HEADER: 'Bearer abc' }).problem).to.equal('CORE_REMOTE_CACHE_HEADER must be "Name: value"');
  });

  it('refuses an address with a query string or a fragment, which its requests would drop, without showing what they hold', () => {
    const root = workspaceWith();
    for (const [url, shown] of [
      ['https://cache.test/x?token=1', 'https://cache.test/x?…'],
      ['https://cache.test/x/?', 'https://cache.test/x/?…'],
      ['http://cache.test#token=1', 'http://cache.test#…'],
    ] as const) {
      const read = remoteCacheSettings(root, { CORE_REMOTE_CACHE: url });
      expect(read.settings, url).to.equal(null);
      expect(read.problem, url).to.equal(
        `CORE_REMOTE_CACHE must hold no query string or fragment: the team cache's addresses are its path and what follows it, so they would be dropped; give a token in CORE_REMOTE_CACHE_HEADER; it is "${shown}"`,
      );
    }
  });
});
