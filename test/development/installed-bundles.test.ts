// The local CDN's kept bundles (README "The local CDN"): one per key, shared while building,
// a failure not kept, one that no longer holds built again (never answered again), and no more
// bytes than the bound, the least recently served dropped first.
import { expect } from 'chai';
import { createInstalledBundles, type KeptBundle } from '../../src/development/installed-bundles.js';

const bundleOf = (bytes: number): KeptBundle => ({ code: new Uint8Array(bytes), imports: [], inputs: [], recorded: {} });
const always = () => true;

describe('createInstalledBundles', function () {
  it('builds a key once, shared by requests made while it builds', async function () {
    const bundles = createInstalledBundles(1000);
    let builds = 0;
    const build = async () => (builds += 1, bundleOf(10));
    const [a, b] = await Promise.all([bundles.get('k', build, always), bundles.get('k', build, always)]);
    expect(await bundles.get('k', build, always)).to.equal(a);
    expect(b).to.equal(a);
    expect(builds).to.equal(1);
  });

  it('keeps no failure: the next request builds again', async function () {
    const bundles = createInstalledBundles(1000);
    let builds = 0;
    const failing = () => (builds += 1, Promise.reject(new Error('broken')));
    await bundles.get('k', failing, always).catch(() => {});
    await bundles.get('k', failing, always).catch(() => {});
    expect(builds).to.equal(2);
    expect(bundles.kept()).to.deep.equal({ count: 0, bytes: 0, builds: 2 });
  });

  it('holds no more bytes than its bound, dropping the least recently served', async function () {
    const bundles = createInstalledBundles(250);
    for (const key of ['a', 'b']) await bundles.get(key, async () => bundleOf(100), always);
    await bundles.get('a', async () => bundleOf(100), always); // served again: b is now the oldest
    await bundles.get('c', async () => bundleOf(100), always);
    expect(bundles.kept()).to.deep.include({ count: 2, bytes: 200 });
    let rebuilt = '';
    await bundles.get('a', async () => ((rebuilt += 'a'), bundleOf(100)), always);
    await bundles.get('b', async () => ((rebuilt += 'b'), bundleOf(100)), always);
    expect(rebuilt).to.equal('b');
    await bundles.get('huge', async () => bundleOf(1000), always);
    expect(bundles.kept().bytes).to.be.at.most(250);
  });

  it('builds again a bundle that no longer holds, given it, and never answers it again, even when that build fails', async function () {
    const bundles = createInstalledBundles(1000);
    const first = bundleOf(10);
    await bundles.get('k', async () => first, always);
    let given: KeptBundle | undefined;
    const second = bundleOf(20);
    const got = await bundles.get('k', async (previous) => ((given = previous), second), (kept) => kept !== first);
    expect(given).to.equal(first);
    expect(got).to.equal(second);
    expect(await bundles.get('k', async () => bundleOf(30), (kept) => kept !== first)).to.equal(second);
    const failed = await bundles.get('k', () => Promise.reject(new Error('broken')), () => false).then(() => null, (error: Error) => error.message);
    expect(failed).to.equal('broken');
    let builtAfter = 0;
    await bundles.get('k', async () => ((builtAfter += 1), bundleOf(40)), always);
    expect(builtAfter, 'the stale bundle was dropped when it no longer held').to.equal(1);
    expect(bundles.kept()).to.deep.equal({ count: 1, bytes: 40, builds: 4 });
  });
});
