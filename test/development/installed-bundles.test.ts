// The local CDN's kept bundles (README "The local CDN"): one per key, shared while building,
// a failure not kept, one that no longer holds built again (never answered again), and no more
// bytes than the bound, the least recently served dropped first.
import { expect } from 'chai';
import { BUILDS_PER_ANSWER, createInstalledBundles, keptBytes, UnsettledBundleError, type KeptBundle } from '../../src/development/installed-bundles.js';
import { UNVERIFIED } from '../../src/store/events.js';

const bundleOf = (bytes: number): KeptBundle => ({ code: new Uint8Array(bytes), imports: [], sheetImports: [], inputs: [], joined: [], ignoredImports: [], recorded: {} });
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

  it('judges a build it joined as a kept bundle: one that read a file written meanwhile is built again, for the joiner too', async function () {
    const bundles = createInstalledBundles(1000);
    // What a build begun before a patch records: the patched file unverified (hashInputs).
    const stale: KeptBundle = { ...bundleOf(3), inputs: ['a.js'], recorded: { 'a.js': UNVERIFIED } };
    const fresh: KeptBundle = { ...bundleOf(4), inputs: ['a.js'], recorded: { 'a.js': 'hash-after' } };
    const holds = (kept: KeptBundle) => kept.recorded['a.js'] !== UNVERIFIED;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const given: (KeptBundle | undefined)[] = [];
    const build = async (previous: KeptBundle | undefined) => {
      given.push(previous);
      if (given.length === 1) return (await gate, stale);
      return fresh;
    };
    const first = bundles.get('k', build, holds);
    // Made after the patch, while the build begun before it runs.
    const joiner = bundles.get('k', async () => { throw new Error('a joiner starts no build of its own while one runs'); }, holds);
    release();
    const [a, b] = await Promise.all([first, joiner]);
    expect(a, 'the first request').to.equal(fresh);
    expect(b, 'the joiner').to.equal(fresh);
    expect(given, 'the rebuild is given the unverified bundle, whose inputs it hashes first').to.deep.equal([undefined, stale]);
    expect(bundles.kept()).to.deep.include({ count: 1, builds: 2 });
  });

  it(`gives up after ${BUILDS_PER_ANSWER} builds that never hold, with UnsettledBundleError, and tries again at the next request`, async function () {
    const bundles = createInstalledBundles(1000);
    let builds = 0;
    const changing = async () => ((builds += 1), bundleOf(builds));
    const failed = await bundles.get('k', changing, () => false).then(() => null, (error: unknown) => error);
    expect(failed).to.be.instanceOf(UnsettledBundleError);
    expect(builds).to.equal(BUILDS_PER_ANSWER);
    const settled = await bundles.get('k', changing, always);
    expect(settled.code.byteLength, 'the last build, kept, judged again: it holds now').to.equal(BUILDS_PER_ANSWER);
    expect(builds).to.equal(BUILDS_PER_ANSWER);
  });

  it('releases a key when it is neither kept nor building: dropped from the bound, stale, or failed; not when rebuilt', async function () {
    const released: string[] = [];
    const bundles = createInstalledBundles(250, (key) => released.push(key));
    await bundles.get('a', async () => bundleOf(100), always);
    await bundles.get('b', async () => bundleOf(100), always);
    await bundles.get('a', async () => bundleOf(100), () => false).catch(() => {});
    expect(released, 'a stale bundle rebuilt is not released').to.deep.equal([]);
    await bundles.get('c', async () => bundleOf(100), always);
    expect(released, 'the least recently served, dropped from the bound').to.deep.equal(['b']);
    expect(bundles.has((key) => key === 'b')).to.equal(false);
    expect(bundles.has((key) => key === 'c')).to.equal(true);
    await bundles.get('d', () => Promise.reject(new Error('broken')), always).catch(() => {});
    expect(released).to.deep.equal(['b', 'd']);
    await bundles.get('huge', async () => bundleOf(1000), always);
    expect(released, 'too large to keep').to.deep.equal(['b', 'd', 'huge']);
  });

  it('counts what a bundle records against the bound, not its code alone', async function () {
    const inputs = Array.from({ length: 200 }, (_, index) => `lib/module-${index}.js`);
    const recorded = Object.fromEntries(inputs.map((input) => [input, 'x'.repeat(22)]));
    const small: KeptBundle = { code: new Uint8Array(10), imports: ['lit'], sheetImports: [], inputs, joined: inputs, ignoredImports: [], recorded };
    expect(keptBytes(small)).to.be.above(2 * inputs.join('').length * 2);
    const bundles = createInstalledBundles(keptBytes(small) * 2 - 1);
    await bundles.get('a', async () => small, always);
    await bundles.get('b', async () => ({ ...small }), always);
    expect(bundles.kept().count, 'two such bundles exceed a bound their code alone never would').to.equal(1);
  });
});
