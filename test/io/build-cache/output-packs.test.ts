// The build cache's packs when services share the cache (README "The build cache"): a pack no
// index names is removed, one the index on disk names is kept, whenever that index got there.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createOutputPacks } from '../../../src/io/build-cache/output-packs.js';
import { ABANDONED_MS } from '../../../src/io/build-cache/write-atomically.js';
import { tempWorkspace } from '../../helpers/workspace.js';

describe('createOutputPacks: tidy', () => {
  const realRename = fs.promises.rename;
  const realStat = fs.promises.stat;
  afterEach(() => void ((fs.promises.rename = realRename), (fs.promises.stat = realStat)));

  function cache() {
    const dir = tempWorkspace();
    const outputs = path.join(dir, 'outputs');
    fs.mkdirSync(outputs);
    const indexFile = path.join(dir, 'builds.json');
    const indexNaming = (...packs: string[]) => fs.writeFileSync(indexFile, JSON.stringify({ packs: packs.map((file) => ({ file, at: {} })) }));
    return { outputs, indexFile, indexNaming, packs: createOutputPacks(outputs) };
  }

  it("removes a pack it read that neither its own index nor the one on disk names, and keeps one another's index on disk names", async () => {
    const { outputs, indexFile, indexNaming, packs } = cache();
    for (const name of ['aaaaaaaaaaaaaaaa.pack', 'bbbbbbbbbbbbbbbb.pack']) fs.writeFileSync(path.join(outputs, name), 'bytes');
    packs.read([{ file: 'aaaaaaaaaaaaaaaa.pack', at: {} }, { file: 'bbbbbbbbbbbbbbbb.pack', at: {} }]);
    indexNaming('bbbbbbbbbbbbbbbb.pack');
    await packs.tidy([], indexFile);
    expect(fs.readdirSync(outputs)).to.deep.equal(['bbbbbbbbbbbbbbbb.pack']);
  });

  it('puts back a pack whose removal was under way when an index naming it was renamed into place', async () => {
    const { outputs, indexFile, indexNaming, packs } = cache();
    fs.writeFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), 'bytes');
    packs.read([{ file: 'aaaaaaaaaaaaaaaa.pack', at: {} }]);
    indexNaming();
    // Another service's index naming it lands just after the pack was taken out of reach.
    fs.promises.rename = (async (from: fs.PathLike, to: fs.PathLike) => {
      await realRename(from, to);
      if (String(from).endsWith('aaaaaaaaaaaaaaaa.pack')) indexNaming('aaaaaaaaaaaaaaaa.pack');
    }) as typeof fs.promises.rename;
    await packs.tidy([], indexFile);
    expect(fs.readdirSync(outputs)).to.deep.equal(['aaaaaaaaaaaaaaaa.pack']);
  });

  it("leaves alone a pack another service is removing: claimed just now by its name, though its mtime is old and the file system left its ctime at that too", async () => {
    const { outputs, indexFile, indexNaming, packs } = cache();
    indexNaming();
    const claimed = path.join(outputs, `aaaaaaaaaaaaaaaa.pack.${Date.now()}.4242.0123abcd.tmp`);
    fs.writeFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), 'bytes');
    const old = new Date(Date.now() - 60 * 60_000);
    fs.utimesSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), old, old);
    fs.renameSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), claimed);
    // A file system whose rename leaves a file's ctime (README "The build cache", "Writing"): its stat says an hour old.
    fs.promises.stat = (async (file: fs.PathLike) => {
      const stats = await realStat(file);
      return Object.assign(stats, { ctimeMs: stats.mtimeMs, ctime: stats.mtime });
    }) as typeof fs.promises.stat;
    await packs.tidy([], indexFile);
    expect(fs.readdirSync(outputs)).to.deep.equal([path.basename(claimed)]);
  });

  it("removes an older format's output (named by its content hash) and leaves every name no service writes: CORE_CACHE_DIR may name a folder of the user's", async () => {
    const { outputs, indexFile, indexNaming, packs } = cache();
    indexNaming();
    const older = 'AAAAAAAAAAAAAAAAAAAAAA';
    const users = ['keep.txt', 'notes', 'aaaaaaaaaaaaaaaa.pack.bak', 'report.tmp'];
    for (const name of [older, ...users]) fs.writeFileSync(path.join(outputs, name), 'bytes');
    const old = new Date(Date.now() - 60 * 60_000);
    for (const name of users) fs.utimesSync(path.join(outputs, name), old, old);
    await packs.tidy([], indexFile);
    expect(fs.readdirSync(outputs).sort()).to.deep.equal([...users].sort());
  });

  describe('a temporary file a killed write left (older than 10 min by the clock, counted from its last write)', () => {
    function abandonedWrite(sinceWritten: number) {
      const { outputs, indexFile, indexNaming } = cache();
      indexNaming();
      const temporary = path.join(outputs, 'bbbbbbbbbbbbbbbb.pack.4242.0123abcd.tmp');
      fs.writeFileSync(temporary, 'half a pack');
      const written = fs.statSync(temporary).mtimeMs;
      const packs = createOutputPacks(outputs, () => written + sinceWritten);
      return { outputs, tidy: () => packs.tidy([], indexFile) };
    }

    it('is removed once ABANDONED_MS have passed', async () => {
      const { outputs, tidy } = abandonedWrite(ABANDONED_MS + 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([]);
    });
    it('is kept while younger: a write under way', async () => {
      const { outputs, tidy } = abandonedWrite(ABANDONED_MS - 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal(['bbbbbbbbbbbbbbbb.pack.4242.0123abcd.tmp']);
    });
  });

  describe("a claim left by a tidy killed before it put the pack back (older than a temporary file's 10 min by the time in its name)", () => {
    function abandonedClaim(named: boolean, sinceClaimed: number) {
      const { outputs, indexFile, indexNaming } = cache();
      if (named) indexNaming('aaaaaaaaaaaaaaaa.pack');
      else indexNaming();
      const claimedAt = Date.now();
      const claim = `aaaaaaaaaaaaaaaa.pack.${claimedAt}.4242.0123abcd.tmp`;
      fs.writeFileSync(path.join(outputs, claim), 'bytes');
      const packs = createOutputPacks(outputs, () => claimedAt + sinceClaimed);
      return { outputs, claim, tidy: () => packs.tidy([], indexFile) };
    }

    it('is put back when the index on disk names its pack', async () => {
      const { outputs, tidy } = abandonedClaim(true, ABANDONED_MS + 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal(['aaaaaaaaaaaaaaaa.pack']);
      expect(fs.readFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), 'utf8')).to.equal('bytes');
    });
    it('is removed when the index on disk does not name its pack', async () => {
      const { outputs, tidy } = abandonedClaim(false, ABANDONED_MS + 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([]);
    });
    it('is left alone while younger, though the index on disk does not name its pack: its tidy may be about to put it back', async () => {
      const { outputs, claim, tidy } = abandonedClaim(false, ABANDONED_MS - 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([claim]);
    });
    it('is put back when its time is more than ABANDONED_MS ahead of the clock (a clock stepped back, another machine ahead): it would never age', async () => {
      const { outputs, tidy } = abandonedClaim(true, -ABANDONED_MS - 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal(['aaaaaaaaaaaaaaaa.pack']);
    });
    it('is left alone when its time is ahead of the clock by less than ABANDONED_MS (clocks a little apart), though the index on disk does not name its pack', async () => {
      const { outputs, claim, tidy } = abandonedClaim(false, -ABANDONED_MS + 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([claim]);
    });
  });

  describe('a claim in the earlier format, with no time in its name (<pack>.<pid>.<8 hex>.tmp): aged by the later of its mtime and ctime, decided by the index', () => {
    const EARLIER = 'aaaaaaaaaaaaaaaa.pack.4242.0123abcd.tmp';
    /** The claim, its mtime an hour ago (a pack's, kept by the rename); the clock `sinceChanged` after its ctime. */
    function earlierClaim(named: boolean, sinceChanged: number) {
      const { outputs, indexFile, indexNaming } = cache();
      if (named) indexNaming('aaaaaaaaaaaaaaaa.pack');
      else indexNaming();
      fs.writeFileSync(path.join(outputs, EARLIER), 'bytes');
      const hourAgo = new Date(Date.now() - 60 * 60_000);
      fs.utimesSync(path.join(outputs, EARLIER), hourAgo, hourAgo);
      const changed = fs.statSync(path.join(outputs, EARLIER)).ctimeMs;
      const packs = createOutputPacks(outputs, () => changed + sinceChanged);
      return { outputs, tidy: () => packs.tidy([], indexFile) };
    }

    it('is left alone while its ctime is younger than ABANDONED_MS, though its mtime is an hour old: its tidy may be about to put it back', async () => {
      const { outputs, tidy } = earlierClaim(false, ABANDONED_MS - 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([EARLIER]);
    });
    it('is put back once abandoned when the index on disk names its pack', async () => {
      const { outputs, tidy } = earlierClaim(true, ABANDONED_MS + 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal(['aaaaaaaaaaaaaaaa.pack']);
    });
    it('is removed once abandoned when the index on disk does not name its pack', async () => {
      const { outputs, tidy } = earlierClaim(false, ABANDONED_MS + 1_000);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([]);
    });
    it("makes its pack, missing at a start's read, a claimed one (a miss), not a gone one (a damage)", () => {
      const { outputs } = cache();
      fs.writeFileSync(path.join(outputs, EARLIER), 'bytes');
      const hash = 'x'.repeat(22);
      const read = createOutputPacks(outputs).read([{ file: 'aaaaaaaaaaaaaaaa.pack', at: { [hash]: 0 } }]);
      expect([...read.gone]).to.deep.equal([hash]);
      expect([...read.claimed]).to.deep.equal([hash]);
    });
  });
});
