// The workspace's pack of the team cache: what goes in comes out, by digest; anything that is not
// a whole pack is no pack, and one over the bound is not written.
import { expect } from 'chai';
import { MAX_PACK_BYTES, readPack, writePack } from '../../../src/io/remote-cache/pack.js';

const digest = (n: number) => n.toString(16).padStart(64, '0');

describe('the team cache pack', () => {
  it('gives back every part by its digest', () => {
    const parts = new Map([
      [digest(1), Buffer.from('first')],
      [digest(2), Buffer.alloc(0)],
      [digest(3), Buffer.from([0, 255, 10])],
    ]);
    expect(readPack(writePack(parts)!)).to.deep.equal(parts);
  });

  it('is no pack when cut short, longer than its index says, or with an index that is not one', () => {
    const pack = writePack(new Map([[digest(1), Buffer.from('first')]]))!;
    expect(readPack(pack.subarray(0, pack.length - 1))).to.equal(null);
    expect(readPack(Buffer.concat([pack, Buffer.from('x')]))).to.equal(null);
    expect(readPack(Buffer.from([0, 0, 0, 9, ...Buffer.from('not json!')]))).to.equal(null);
    expect(readPack(Buffer.from([0, 0, 0, 2, ...Buffer.from('{}')]))).to.equal(null);
    expect(readPack(Buffer.from([255, 255, 255, 255]))).to.equal(null);
  });

  it('is not written past its bound, which the client can still take', () => {
    expect(writePack(new Map([[digest(1), Buffer.alloc(MAX_PACK_BYTES)]]))).to.equal(null);
  });
});
