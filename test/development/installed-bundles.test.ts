// The local CDN's kept bundles (README "The local CDN"): one per key, shared while building,
// a failure not kept, and no more bytes than the bound, the least recently served dropped first.
import { expect } from 'chai';
import { createInstalledBundles } from '../../src/development/installed-bundles.js';
import type { InstalledBundle } from '../../src/bundlers/installed-bundle.js';

const bundleOf = (bytes: number): InstalledBundle => ({ code: new Uint8Array(bytes), imports: [], inputs: [] });

describe('createInstalledBundles', function () {
  it('builds a key once, shared by requests made while it builds', async function () {
    const bundles = createInstalledBundles(1000);
    let builds = 0;
    const build = async () => (builds += 1, bundleOf(10));
    const [a, b] = await Promise.all([bundles.get('k', build), bundles.get('k', build)]);
    expect(await bundles.get('k', build)).to.equal(a);
    expect(b).to.equal(a);
    expect(builds).to.equal(1);
  });

  it('keeps no failure: the next request builds again', async function () {
    const bundles = createInstalledBundles(1000);
    let builds = 0;
    const failing = () => (builds += 1, Promise.reject(new Error('broken')));
    await bundles.get('k', failing).catch(() => {});
    await bundles.get('k', failing).catch(() => {});
    expect(builds).to.equal(2);
    expect(bundles.kept()).to.deep.equal({ count: 0, bytes: 0 });
  });

  it('holds no more bytes than its bound, dropping the least recently served', async function () {
    const bundles = createInstalledBundles(250);
    for (const key of ['a', 'b']) await bundles.get(key, async () => bundleOf(100));
    await bundles.get('a', async () => bundleOf(100)); // served again: b is now the oldest
    await bundles.get('c', async () => bundleOf(100));
    expect(bundles.kept()).to.deep.equal({ count: 2, bytes: 200 });
    let rebuilt = '';
    await bundles.get('a', async () => ((rebuilt += 'a'), bundleOf(100)));
    await bundles.get('b', async () => ((rebuilt += 'b'), bundleOf(100)));
    expect(rebuilt).to.equal('b');
    await bundles.get('huge', async () => bundleOf(1000));
    expect(bundles.kept().bytes).to.be.at.most(250);
  });
});
