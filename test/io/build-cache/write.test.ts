// The build cache's write when nothing changed (README "The build cache"): the index on disk
// already says it, so nothing is packed or written; any change, a stat included, is written.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createOutputCache } from '../../../src/outputs/output-cache.js';
import { contentHash } from '../../../src/outputs/content-hash.js';
import { createOutputPacks } from '../../../src/io/build-cache/output-packs.js';
import { CacheNotWritten, createCacheWriter, type SavedBuild } from '../../../src/io/build-cache/write.js';
import { ABANDONED_MS } from '../../../src/io/build-cache/write-atomically.js';
import { parseIndex } from '../../../src/io/cache-index.js';
import { createFileHashes, type FileSignature } from '../../../src/io/file-hashes.js';
import type { BuildRecord } from '../../../src/store/state.js';
import { moduleModel, workspaceModel } from '../../helpers/models.js';
import { tempWorkspace } from '../../helpers/workspace.js';

describe('createCacheWriter', () => {
  const identity = { service: 'test', esbuild: 'test', bundlers: 'test' };
  const one = moduleModel('one');
  const input = one.entry!;
  const inputHash = contentHash('source');
  const workspace = workspaceModel([one], { sources: { 'core.json': contentHash('core') } });

  /** A writer in a new cache directory; the stats it is told each file was hashed with are `signatures`, the packs it makes counted. */
  function writerOf(of?: { root: string; dir: string }, now?: () => number) {
    const root = of?.root ?? tempWorkspace();
    const dir = of?.dir ?? tempWorkspace();
    const signatures = new Map<string, FileSignature>([
      [input, [inputHash, 1, 6, 1000, 1000, 2000]],
      ['core.json', [contentHash('core'), 2, 4, 1000, 1000, 2000]],
    ]);
    const hashes = { ...createFileHashes(root), signature: (relative: string) => signatures.get(relative) ?? null };
    const outputs = createOutputCache();
    const real = createOutputPacks(path.join(dir, 'outputs'));
    let packed = 0;
    const packs = { ...real, pack: (needed: ReadonlyMap<string, Buffer>) => ((packed += 1), real.pack(needed)) };
    const indexFile = path.join(dir, 'builds.json');
    const writer = createCacheWriter({ dir, indexFile, identity, workspaceRoot: root, reader: 'reader', hashes, outputs, packs, links: new WeakMap([[workspace.sources, { realPaths: {}, leaves: {} }]]), ...(now ? { now } : {}) });
    const record: BuildRecord = { build: 1, outputs: { code: outputs.put(Buffer.from('code')), styles: null }, errors: [], imports: [], inputs: { [input]: inputHash } };
    const builds: SavedBuild[] = [{ module: one.specifier, variant: 'browser.development', record }];
    const indexStat = () => {
      const stats = fs.statSync(indexFile);
      return [stats.ino, stats.mtimeMs];
    };
    const index = () => {
      const parsed = parseIndex(fs.readFileSync(indexFile, 'utf8'), { identity, root: root, file: indexFile });
      if (!('index' in parsed)) throw new Error(parsed.ignored);
      return parsed;
    };
    return { root, dir, writer, builds, record, outputs, signatures, indexStat, index, packed: () => packed, outputsDir: path.join(dir, 'outputs') };
  }

  it('packs and writes nothing when the builds, their inputs\' stats and the model are those it last wrote', async () => {
    const { writer, builds, indexStat, packed } = writerOf();
    await writer.write(builds, workspace);
    expect(packed()).to.equal(1);
    const before = indexStat();
    await writer.write(builds, workspace);
    expect(packed()).to.equal(1);
    expect(indexStat()).to.deep.equal(before);
  });

  it('packs and writes nothing for the builds of the index it read at start', async () => {
    const first = writerOf();
    await first.writer.write(first.builds, workspace);
    // A restart: the index read back, its entry's parts restored as the state keeps them.
    const { index, checksum } = first.index();
    const restored = index.entries[0]!.record;
    const record: BuildRecord = { build: 0, errors: [], ...restored };
    const next = writerOf(first);
    next.writer.readAtStart({ ...index, workspace: { ...index.workspace!, model: workspace } }, checksum);
    const before = next.indexStat();
    await next.writer.write([{ ...first.builds[0]!, record }], workspace);
    expect(next.packed()).to.equal(0);
    expect(next.indexStat()).to.deep.equal(before);
  });

  it('writes again an index read at start that names a pack by a path of another shape, and never looks at that path', async () => {
    const first = writerOf();
    await first.writer.write(first.builds, workspace);
    const { index, checksum } = first.index();
    const record: BuildRecord = { build: 0, errors: [], ...index.entries[0]!.record };
    // A file that exists beside the packs' directory: named as a pack, it would count as one still there.
    fs.writeFileSync(path.join(first.dir, 'x'), 'not a pack');
    const next = writerOf(first);
    next.writer.readAtStart({ ...index, packs: [...index.packs, { file: '../x', at: {} }], workspace: { ...index.workspace!, model: workspace } }, checksum);
    await next.writer.write([{ ...first.builds[0]!, record }], workspace);
    expect(next.packed(), 'the whole write, not "unchanged"').to.equal(1);
    expect(next.index().index.packs.map((pack) => pack.file)).to.not.include('../x');
  });

  it('writes the index again when it was removed', async () => {
    const { dir, writer, builds, index } = writerOf();
    await writer.write(builds, workspace);
    const written = index().checksum;
    fs.rmSync(path.join(dir, 'builds.json'));
    await writer.write(builds, workspace);
    expect(index().checksum).to.equal(written);
  });

  it('writes an input seen with another stat (its content the same), so the next start proves it by that stat', async () => {
    const { writer, builds, signatures, index } = writerOf();
    await writer.write(builds, workspace);
    const touched: FileSignature = [inputHash, 1, 6, 5000, 5000, 6000];
    signatures.set(input, touched);
    await writer.write(builds, workspace);
    expect(index().index.entries[0]!.signatures).to.deep.equal({ [input]: touched });
  });

  it('writes the outputs again when their pack is gone', async () => {
    const { writer, builds, outputsDir, index, packed } = writerOf();
    await writer.write(builds, workspace);
    for (const name of fs.readdirSync(outputsDir)) fs.rmSync(path.join(outputsDir, name));
    await writer.write(builds, workspace);
    expect(packed()).to.equal(2);
    expect(fs.readdirSync(outputsDir)).to.deep.equal(index().index.packs.map((pack) => pack.file));
  });

  it('packs again and writes the index again when a pack it named was removed after its check, before its index was renamed into place', async () => {
    const { writer, builds, record, outputs, outputsDir, index } = writerOf();
    await writer.write(builds, workspace);
    const [reused] = fs.readdirSync(outputsDir);
    // A second variant, of new outputs: the write names the first pack again, beside a new one.
    const more: SavedBuild[] = [...builds, { ...builds[0]!, variant: 'node.development', record: { ...record, build: 2, outputs: { code: outputs.put(Buffer.from('node code')), styles: null } } }];
    const realWriteFile = fs.promises.writeFile;
    // Another service sharing the cache removes it just before this index is written.
    fs.promises.writeFile = (async (file: fs.PathLike, ...rest: unknown[]) => {
      if (String(file).includes('builds.json.')) fs.rmSync(path.join(outputsDir, reused!), { force: true });
      return (realWriteFile as (...args: unknown[]) => Promise<void>)(file, ...rest);
    }) as typeof fs.promises.writeFile;
    try {
      await writer.write(more, workspace);
    } finally {
      fs.promises.writeFile = realWriteFile;
    }
    const { packs, entries } = index().index;
    expect(packs.map((pack) => pack.file).filter((file) => !fs.existsSync(path.join(outputsDir, file)))).to.deep.equal([]);
    expect(entries.map((entry) => packs.some((pack) => Object.hasOwn(pack.at, entry.record.outputs.code.hash)))).to.deep.equal([true, true]);
  });

  it('gives up, saying the cache was not written, when its packs are removed before every write of its index', async () => {
    const { writer, builds, outputsDir, packed } = writerOf();
    const realWriteFile = fs.promises.writeFile;
    fs.promises.writeFile = (async (file: fs.PathLike, ...rest: unknown[]) => {
      if (String(file).includes('builds.json.')) for (const name of fs.readdirSync(outputsDir)) fs.rmSync(path.join(outputsDir, name));
      return (realWriteFile as (...args: unknown[]) => Promise<void>)(file, ...rest);
    }) as typeof fs.promises.writeFile;
    const failed = await writer.write(builds, workspace).then(
      () => null,
      (error: unknown) => error,
    );
    fs.promises.writeFile = realWriteFile;
    expect(failed).to.be.instanceOf(CacheNotWritten);
    expect(packed(), 'the first write and 3 more').to.equal(4);
  });

  it('compares the text of a build made again with the same outputs, and leaves the same index as it is', async () => {
    const { writer, builds, record, indexStat, packed } = writerOf();
    await writer.write(builds, workspace);
    const before = indexStat();
    await writer.write([{ ...builds[0]!, record: { ...record, build: 2, inputs: { ...record.inputs } } }], workspace);
    expect(packed()).to.equal(2);
    expect(indexStat()).to.deep.equal(before);
  });

  describe("a temporary file of the index that a write killed before its rename left (older than 10 min by the clock, counted from its last write)", () => {
    /** A cache directory holding such a file, written `sinceWritten` ms before the writer's clock, and another service's temporary file of another name. */
    async function leftThenWritten(sinceWritten: number) {
      const dir = tempWorkspace();
      const left = path.join(dir, 'builds.json.4242.0123abcd.tmp');
      fs.writeFileSync(left, '{"half an index');
      fs.writeFileSync(path.join(dir, 'notes.json.4242.0123abcd.tmp'), 'not the index');
      const written = fs.statSync(left).mtimeMs;
      const { writer, builds } = writerOf({ root: tempWorkspace(), dir }, () => written + sinceWritten);
      await writer.write(builds, workspace);
      return fs.readdirSync(dir).sort();
    }

    it('is removed by the first write of a run once ABANDONED_MS have passed', async () => {
      expect(await leftThenWritten(ABANDONED_MS + 1_000)).to.deep.equal(['builds.json', 'notes.json.4242.0123abcd.tmp', 'outputs']);
    });
    it("is kept while younger: another service's write under way", async () => {
      expect(await leftThenWritten(ABANDONED_MS - 1_000)).to.deep.equal(['builds.json', 'builds.json.4242.0123abcd.tmp', 'notes.json.4242.0123abcd.tmp', 'outputs']);
    });
  });
});
