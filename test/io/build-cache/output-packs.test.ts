// The build cache's packs when services share the cache (README "The build cache"): a pack no
// index names is removed, one the index on disk names is kept, whenever that index got there.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createOutputPacks } from '../../../src/io/build-cache/output-packs.js';
import { tempWorkspace } from '../../helpers/workspace.js';

describe('createOutputPacks: tidy', () => {
  const realRename = fs.promises.rename;
  afterEach(() => void (fs.promises.rename = realRename));

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

  it("leaves alone a pack another service is removing: renamed just now, though its mtime is old", async () => {
    const { outputs, indexFile, indexNaming, packs } = cache();
    indexNaming();
    const claimed = path.join(outputs, 'aaaaaaaaaaaaaaaa.pack.4242.0123abcd.tmp');
    fs.writeFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), 'bytes');
    const old = new Date(Date.now() - 60 * 60_000);
    fs.utimesSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), old, old);
    fs.renameSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), claimed);
    await packs.tidy([], indexFile);
    expect(fs.readdirSync(outputs)).to.deep.equal([path.basename(claimed)]);
  });

  describe("a claim left by a tidy killed before it put the pack back (older than a temporary file's 10 min)", () => {
    const realNow = Date.now;
    afterEach(() => void (Date.now = realNow));

    function abandonedClaim(named: boolean) {
      const { outputs, indexFile, indexNaming, packs } = cache();
      if (named) indexNaming('aaaaaaaaaaaaaaaa.pack');
      else indexNaming();
      fs.writeFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack.4242.0123abcd.tmp'), 'bytes');
      // A rename sets the ctime, which cannot be set back: the tidy runs an hour later instead.
      Date.now = () => realNow() + 60 * 60_000;
      return { outputs, tidy: () => packs.tidy([], indexFile) };
    }

    it('is put back when the index on disk names its pack', async () => {
      const { outputs, tidy } = abandonedClaim(true);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal(['aaaaaaaaaaaaaaaa.pack']);
      expect(fs.readFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), 'utf8')).to.equal('bytes');
    });
    it('is removed when the index on disk does not name its pack', async () => {
      const { outputs, tidy } = abandonedClaim(false);
      await tidy();
      expect(fs.readdirSync(outputs)).to.deep.equal([]);
    });
  });
});
