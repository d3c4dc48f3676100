// Compiled outputs kept by content hash.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { contentHash, contentHashOfSha256 } from '../../src/outputs/content-hash.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createOutputCache', () => {
  it('keeps an output under the hash of its content, and answers its size', () => {
    const cache = createOutputCache();
    const ref = cache.put(bytes('export const a = 1;\n'));
    expect(ref).to.deep.equal({ hash: contentHash('export const a = 1;\n'), size: 20 });
    expect(cache.get(ref.hash)!.toString('utf8')).to.equal('export const a = 1;\n');
  });

  it('keeps just the bytes of a view into a larger buffer', () => {
    const whole = bytes('xxABCxx');
    const ref = createOutputCache().put(whole.subarray(2, 5));
    expect(ref).to.deep.equal({ hash: contentHash('ABC'), size: 3 });
  });

  it('keeps an adopted view as it is, sharing the memory of the buffer it views, and copies what is put', () => {
    const pack = Buffer.alloc(10, 'xxABCxxDEF'); // memory of its own (Buffer.from may share Node's pool)
    const cache = createOutputCache();
    const adopted = cache.adopt(pack.subarray(2, 5));
    const put = cache.put(pack.subarray(7, 10));
    expect(adopted).to.deep.equal({ hash: contentHash('ABC'), size: 3 });
    expect(cache.get(adopted.hash)!.buffer).to.equal(pack.buffer);
    expect(cache.get(put.hash)!.buffer).to.not.equal(pack.buffer);
    expect(cache.get(put.hash)!.toString()).to.equal('DEF');
  });

  it('adopts bytes under the content hash its caller checked, without hashing them again', () => {
    const cache = createOutputCache();
    const pack = Buffer.from('xxABCxx');
    const adopted = cache.adoptChecked(pack.subarray(2, 5), contentHash('ABC'));
    expect(adopted).to.deep.equal({ hash: contentHash('ABC'), size: 3 });
    expect(cache.get(contentHash('ABC'))!.buffer).to.equal(pack.buffer);
    // The hash given names the key: the caller vouches for it (a team cache's blob checked against its name).
    const other = cache.adoptChecked(Buffer.from('DEF'), contentHash('GHI'));
    expect(other.hash).to.equal(contentHash('GHI'));
  });

  it('keeps one copy of content put twice', () => {
    const cache = createOutputCache();
    const first = cache.put(bytes('same'));
    const second = cache.put(bytes('same'));
    expect(second).to.deep.equal(first);
    expect(cache.size).to.equal(1);
  });

  it('answers undefined for a hash it does not hold', () => {
    expect(createOutputCache().get('nothing')).to.equal(undefined);
  });

  it('forgets the outputs not kept, and says how many', () => {
    const cache = createOutputCache();
    const a = cache.put(bytes('a'));
    const b = cache.put(bytes('b'));
    const c = cache.put(bytes('c'));
    expect(cache.retain(new Set([b.hash, 'unknown']))).to.equal(2);
    expect(cache.size).to.equal(1);
    expect(cache.get(a.hash)).to.equal(undefined);
    expect(cache.get(b.hash)!.toString()).to.equal('b');
    expect(cache.get(c.hash)).to.equal(undefined);
    expect(cache.retain(new Set([b.hash]))).to.equal(0);
  });
});

describe('contentHashOfSha256', () => {
  it('is the content hash of the bytes whose SHA-256 the digest is', () => {
    for (const text of ['', 'export const a = 1;', 'x'.repeat(100_000)]) expect(contentHashOfSha256(createHash('sha256').update(text).digest('hex'))).to.equal(contentHash(Buffer.from(text)));
  });

  it('maps every digit of the digest as base64url does', () => {
    // 500 digests: each of the 16 digits at each of the 33 places that make the 22 characters.
    for (let index = 0; index < 500; index++) {
      const digest = createHash('sha256').update(String(index)).digest();
      expect(contentHashOfSha256(digest.toString('hex')), digest.toString('hex')).to.equal(digest.toString('base64url').slice(0, 22));
    }
  });
});
