// createBuildCache's restoration when something fails past the index's checks (README "The build
// cache"): a miss, said once, never a start that does not finish.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { contentHash } from '../../src/outputs/content-hash.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import { fingerprintOf } from '../../src/store/reducer.js';
import { createBuildCache, INDEX_SETTLING_MS } from '../../src/io/build-cache.js';
import { CACHE_FORMAT, indexText } from '../../src/io/cache-index.js';
import { createFileHashes, RACY_MS, type FileHashes } from '../../src/io/file-hashes.js';
import { workspaceBoundaries } from '../../src/workspace/boundaries.js';
import { bundlerKey, type WorkspaceModel } from '../../src/workspace/model.js';
import { moduleModel, workspaceModel } from '../helpers/models.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('createBuildCache', () => {
  const made: string[] = [];
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  const identity = { service: 'test', esbuild: 'test', bundlers: 'test' };
  const one = moduleModel('one');

  /** The cache's entry of one build of `one` (its development variant) that read `inputs`. */
  const entryOf = (workspace: WorkspaceModel, inputs: Record<string, string | null>) => ({
    module: one.specifier,
    variant: 'browser.development',
    fingerprint: fingerprintOf(one),
    bundler: bundlerKey(one.bundler),
    boundaries: workspaceBoundaries(workspace).key,
    record: { outputs: { code: { hash: contentHash('code'), size: 4 }, styles: null }, imports: [], inputs },
  });

  /** A cache in a new directory for a new workspace, its index naming one build of `one` with `inputs`, and `workspace`. */
  function cacheOf(workspace: WorkspaceModel, inputs: Record<string, string | null>) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-root-'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    made.push(root, dir);
    fs.writeFileSync(
      path.join(dir, 'builds.json'),
      indexText({
        format: CACHE_FORMAT,
        identity,
        root: fs.realpathSync(root),
        entries: [
          entryOf(workspace, inputs),
        ],
        packs: [],
        workspace: { reader: 'reader', model: workspace, signatures: Object.fromEntries(Object.keys(workspace.sources).map((source) => [source, [workspace.sources[source]!, 1, 1, 1, 1, 1]])), links: { realPaths: {}, leaves: {} } },
      }),
    );
    return { root, dir };
  }

  it('takes a restoration that throws for a miss, says so once, and restores nothing', () => {
    const workspace = workspaceModel([one], { sources: { 'core.json': contentHash('core') } });
    const { root, dir } = cacheOf(workspace, { [one.entry!]: contentHash('source') });
    // The disk fails under the reads that check each input and source against it.
    const failing = (): never => {
      throw new Error('EIO: i/o error');
    };
    const hashes: FileHashes = { ...createFileHashes(root), stamp: failing, adopt: failing };
    const told: string[] = [];
    const cache = createBuildCache(dir, root, identity, { hashes, outputs: createOutputCache(), reader: 'reader', logger: (line) => told.push(line) });

    expect(cache.restoreWorkspace()).to.equal(null);
    expect(cache.restore(workspace)).to.deep.equal({ type: 'cache.restored', dir, builds: [], ignored: 'the cache could not be used: EIO: i/o error' });
    expect(told).to.deep.equal([`core: the build cache in ${dir} is damaged (the saved workspace model could not be used: EIO: i/o error); what it cannot vouch for is built again and the cache written anew`]);
  });

  it('never stats a path outside the workspace that an index names: a miss, not a damage', () => {
    const workspace = workspaceModel([one], { sources: { '../core.json': contentHash('core') } });
    const { root, dir } = cacheOf(workspace, { [one.entry!]: contentHash('source'), '../outside.ts': contentHash('outside') });
    const asked: string[] = [];
    const real = createFileHashes(root);
    const hashes: FileHashes = {
      ...real,
      stamp: (relative) => (asked.push(relative), real.stamp(relative)),
      adopt: (relative, signature) => (asked.push(relative), real.adopt(relative, signature)),
    };
    const told: string[] = [];
    const cache = createBuildCache(dir, root, identity, { hashes, outputs: createOutputCache(), reader: 'reader', logger: (line) => told.push(line) });
    expect(cache.restoreWorkspace()).to.equal(null);
    expect(cache.restore(workspace)).to.deep.equal({ type: 'cache.restored', dir, builds: [], stale: 1 });
    expect(asked.filter((relative) => relative.startsWith('..'))).to.deep.equal([]);
    expect(told).to.deep.equal([]);
  });
  describe('a pack named by the index read at start, gone when the packs are read', () => {
    const workspace = workspaceModel([one], { sources: { 'core.json': contentHash('core') } });
    const PACK = 'aaaaaaaaaaaaaaaa.pack';
    /** A claim of PACK by another service's tidy (src/io/build-cache/output-packs.ts): its name carries when it was made. */
    const CLAIM = `${PACK}.${Date.now()}.4242.0123abcd.tmp`;
    /** A clock for which the index just written is a minute old: its writer is long done checking its packs. */
    const aMinuteLater = () => Date.now() + 60_000;
    const realReaddirSync = fs.readdirSync;
    afterEach(() => void (fs.readdirSync = realReaddirSync));

    /**
     * A cache whose index names one build of `one`, of no inputs, its code in one pack; its index
     * read (with the model), the pack then removed, or claimed, and the start judging by `now`.
     */
    /** `sinceWritten`: the start's clock is this long after the index's mtime (negative: before it), instead of `now`. */
    function readThenRemoved({ replaceIndex = false, claimed = false, putBackWhenListed = false, claimedAgainWhenListed = false, now, sinceWritten }: { replaceIndex?: boolean; claimed?: boolean; putBackWhenListed?: boolean; claimedAgainWhenListed?: boolean; now?: () => number; sinceWritten?: number }) {
      const { root, dir } = cacheOf(workspace, {});
      const indexFile = path.join(dir, 'builds.json');
      const outputs = path.join(dir, 'outputs');
      const index = JSON.parse(fs.readFileSync(indexFile, 'utf8').replace(/\n[^\n]*$/, ''));
      fs.mkdirSync(outputs);
      fs.writeFileSync(path.join(outputs, PACK), 'code');
      fs.writeFileSync(indexFile, indexText({ ...index, packs: [{ file: PACK, at: { [contentHash('code')]: 0 } }] }));
      if (sinceWritten !== undefined) {
        const written = fs.statSync(indexFile).mtimeMs;
        now = () => written + sinceWritten;
      }
      const told: string[] = [];
      const cache = createBuildCache(dir, root, identity, { hashes: createFileHashes(root), outputs: createOutputCache(), reader: 'reader', logger: (line) => told.push(line), ...(now ? { now } : {}) });
      cache.restoreWorkspace();
      // Another service writes its index (renamed into place) and removes the pack it no longer names.
      if (replaceIndex) {
        fs.writeFileSync(`${indexFile}.new`, fs.readFileSync(indexFile));
        fs.renameSync(`${indexFile}.new`, indexFile);
      }
      // A tidy of another service takes it out of reach (its claim), to put it back once it reads the index on disk.
      if (claimed) fs.renameSync(path.join(outputs, PACK), path.join(outputs, CLAIM));
      else fs.rmSync(path.join(outputs, PACK));
      // That tidy puts it back (the index on disk names it) after the start found it missing, before the start lists the directory.
      if (putBackWhenListed) {
        fs.readdirSync = ((dirPath: fs.PathLike, ...rest: unknown[]) => {
          if (String(dirPath) === outputs && fs.existsSync(path.join(outputs, CLAIM))) fs.renameSync(path.join(outputs, CLAIM), path.join(outputs, PACK));
          const listed = (realReaddirSync as (...args: unknown[]) => unknown)(dirPath, ...rest);
          // A tidy of a third service takes it out of reach in turn, just after that listing.
          if (claimedAgainWhenListed && String(dirPath) === outputs) fs.renameSync(path.join(outputs, PACK), path.join(outputs, `${PACK}.${Date.now()}.4343.4567cdef.tmp`));
          return listed;
        }) as typeof fs.readdirSync;
      }
      return { restored: cache.restore(workspace), told };
    }

    it('is a miss, not a damage, when another index replaced the one read', () => {
      const { restored, told } = readThenRemoved({ replaceIndex: true, now: aMinuteLater });
      expect(restored).to.deep.equal({ type: 'cache.restored', dir: restored.dir, builds: [], stale: 1 });
      expect(told).to.deep.equal([]);
    });
    it("is a miss, not a damage, when another service's tidy holds it out of reach (renamed to its claim) though the index is still the one read", () => {
      const { restored, told } = readThenRemoved({ claimed: true, now: aMinuteLater });
      expect(restored).to.deep.equal({ type: 'cache.restored', dir: restored.dir, builds: [], stale: 1 });
      expect(told).to.deep.equal([]);
    });
    it("is read, and no damage, when another service's tidy puts it back after the start found it missing and before it listed the directory", () => {
      const { restored, told } = readThenRemoved({ claimed: true, putBackWhenListed: true, now: aMinuteLater });
      expect(restored.builds.map((build) => build.module)).to.deep.equal([one.specifier]);
      expect(restored).to.not.have.property('stale');
      expect(told).to.deep.equal([]);
    });
    it("is a miss, not a damage, when the listing after it was found missing holds it, put back, though another service's tidy took it again before it was read once more", () => {
      const { restored, told } = readThenRemoved({ claimed: true, putBackWhenListed: true, claimedAgainWhenListed: true, now: aMinuteLater });
      expect(restored).to.deep.equal({ type: 'cache.restored', dir: restored.dir, builds: [], stale: 1 });
      expect(told).to.deep.equal([]);
    });
    it('is a miss, not a damage, when the index read was written moments ago: its writer may be about to find the pack removed and write it again', () => {
      const { restored, told } = readThenRemoved({ sinceWritten: 1_000 });
      expect(restored).to.deep.equal({ type: 'cache.restored', dir: restored.dir, builds: [], stale: 1 });
      expect(told).to.deep.equal([]);
    });
    it('is a damage when the index read was written INDEX_SETTLING_MS ago: its writer has checked its packs by then', () => {
      const { restored, told } = readThenRemoved({ sinceWritten: INDEX_SETTLING_MS });
      expect(restored.builds).to.deep.equal([]);
      expect(told).to.have.length(1);
      expect(told[0]).to.include('is damaged (an output is missing from its pack');
    });
    it('is a damage when the index read is still the one on disk and its mtime is further ahead of the clock than a write settles in (a clock stepped back): no write just done', () => {
      const { restored, told } = readThenRemoved({ sinceWritten: -INDEX_SETTLING_MS - 60_000 });
      expect(restored.builds).to.deep.equal([]);
      expect(told).to.have.length(1);
      expect(told[0]).to.include('is damaged (an output is missing from its pack');
    });
    it('is a damage when the index read is still the one on disk, written long enough ago', () => {
      const { restored, told } = readThenRemoved({ now: aMinuteLater });
      expect(restored.builds).to.deep.equal([]);
      expect(told).to.have.length(1);
      expect(told[0]).to.include('is damaged (an output is missing from its pack');
    });
  });

  /** A cache whose hashes note each path stamped or adopted (`asked`), and an entry of `one` with these inputs. */
  function countingCache(dir: string, root: string, real: FileHashes, workspace: WorkspaceModel, inputs: Record<string, string | null>) {
    const asked: string[] = [];
    const hashes: FileHashes = {
      ...real,
      stamp: (relative) => (asked.push(relative), real.stamp(relative)),
      adopt: (relative, signature) => (asked.push(relative), real.adopt(relative, signature)),
    };
    const cache = createBuildCache(dir, root, identity, { hashes, outputs: createOutputCache(), reader: 'reader', logger: () => {} });
    return { cache, asked, entry: entryOf(workspace, inputs) };
  }

  // A team start's entries name, for each module, the tsconfig places found absent above it: the
  // workspace's read of this run proved them absent, and the restore takes that read's word.
  describe('an input recorded absent', () => {
    const tsconfig = `${one.dir}/tsconfig.json`;

    /** `listed`: the read listed the module's directory (after the file, if `onDisk`, was made) and recorded the listing. */
    function checkerOf(sources: WorkspaceModel['sources'], onDisk: boolean, listed = false) {
      const root = tempWorkspace({ [one.entry!]: 'export {};', ...(onDisk ? { [tsconfig]: '{}' } : {}) });
      const real = createFileHashes(root);
      const listing = listed ? real.listDir(one.dir)!.hash : undefined;
      const workspace = workspaceModel([one], { sources: listing === undefined ? sources : { ...sources, [`${one.dir}/`]: listing } });
      const { dir } = cacheOf(workspace, {});
      const { cache, asked, entry } = countingCache(dir, root, real, workspace, { [one.entry!]: real.hash(one.entry!), [tsconfig]: null });
      return { check: () => cache.entryChecker(workspace)(entry), asked, listing };
    }

    it('by the workspace read of this run is taken as absent, without a stat of its own', () => {
      const { check, asked } = checkerOf({ 'core.json': 'core-1', [tsconfig]: null }, false);
      expect(check()).to.equal('valid');
      expect(asked).to.deep.equal([one.entry]);
    });

    it('in a directory whose listing the read recorded, without its name, is taken as absent without a stat of its own', () => {
      const { check, asked, listing } = checkerOf({ 'core.json': 'core-1' }, false, true);
      expect(listing).to.be.a('string');
      expect(check()).to.equal('valid');
      expect(asked).to.deep.equal([one.entry]);
    });

    it('in a directory whose recorded listing holds its name is stamped: the file there makes the entry stale', () => {
      const { check, asked } = checkerOf({ 'core.json': 'core-1' }, true, true);
      expect(check()).to.equal('stale');
      expect(asked).to.include(tsconfig);
    });

    it('by no read of this run is stamped: a file there now makes the entry stale', () => {
      const { check, asked } = checkerOf({ 'core.json': 'core-1', [tsconfig]: contentHash('{}') }, true);
      expect(check()).to.equal('stale');
      expect(asked).to.include(tsconfig);
    });
  });

  it('never stats an input outside the workspace that an entry from elsewhere names, after inputs that hold', () => {
    const root = tempWorkspace({ [one.entry!]: 'export {};' });
    const real = createFileHashes(root);
    const workspace = workspaceModel([one], { sources: { 'core.json': 'core-1' } });
    const { cache, asked, entry } = countingCache(cacheOf(workspace, {}).dir, root, real, workspace, { [one.entry!]: contentHash('export {};'), '../outside.ts': contentHash('outside'), '/etc/passwd': null });
    expect(cache.entryChecker(workspace)(entry)).to.equal('stale');
    expect(asked.filter((relative) => relative !== one.entry)).to.deep.equal([]);
  });

  it("judges an entry from elsewhere (`entryChecker`) by this disk alone: stats it names that match this disk's are not taken for its inputs' hashes", () => {
    const root = tempWorkspace({ [one.entry!]: 'export {};' });
    const until = Date.now() + RACY_MS + 20; // past the racy window of the write
    while (Date.now() < until);
    const real = createFileHashes(root);
    const workspace = workspaceModel([one], { sources: { 'core.json': 'core-1' } });
    const claimed = contentHash('not what the file holds');
    const { cache, asked, entry } = countingCache(cacheOf(workspace, {}).dir, root, real, workspace, { [one.entry!]: claimed });
    const stats = fs.statSync(path.join(root, one.entry!));
    // This disk's very stat of the file, under the claimed hash: a local entry's signature would be adopted.
    const signatures = { [one.entry!]: [claimed, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs, Date.now()] as const };
    expect(cache.entryChecker(workspace)({ ...entry, signatures })).to.equal('stale');
    expect(asked).to.deep.equal([one.entry]);
    expect(real.signature(one.entry!)?.[0]).to.equal(contentHash('export {};'));
  });

  it('judges an entry from elsewhere (`entryChecker`) in one pass of reads: its directories\' real paths asked once', () => {
    const root = tempWorkspace({ [one.entry!]: 'export {};', [`${one.dir}/helper.ts`]: 'export {};' });
    const real = createFileHashes(root);
    const order: string[] = [];
    const { inPass, stamp } = real;
    real.inPass = (run) => {
      order.push('pass');
      const result = inPass!(run);
      order.push('end');
      return result;
    };
    real.stamp = (relative) => (order.push(relative), stamp(relative));
    const workspace = workspaceModel([one], { sources: { 'core.json': 'core-1' } });
    const { cache, entry } = countingCache(cacheOf(workspace, {}).dir, root, real, workspace, { [one.entry!]: contentHash('export {};'), [`${one.dir}/helper.ts`]: contentHash('export {};') });
    expect(cache.entryChecker(workspace)(entry)).to.equal('valid');
    expect(order).to.deep.equal(['pass', one.entry, `${one.dir}/helper.ts`, 'end']);
  });

  // A team start's entries' inputs are read on the worker just before their check.
  it('takes an input the read-ahead worker read as it read it, without a stamp or stat of its own (the first check before an answer stats it)', async () => {
    const root = tempWorkspace({ [one.entry!]: 'export {};' });
    const until = Date.now() + RACY_MS + 20; // past the racy window of the write
    while (Date.now() < until);
    const real = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
    const workspace = workspaceModel([one], { sources: { 'core.json': 'core-1' } });
    const { cache, asked, entry } = countingCache(cacheOf(workspace, {}).dir, root, real, workspace, { [one.entry!]: contentHash('export {};') });
    try {
      await real.readAhead!([one.entry!]);
      expect(cache.entryChecker(workspace)(entry)).to.equal('valid');
      expect(asked).to.deep.equal([]);
    } finally {
      await real.close!();
    }
  });
});
