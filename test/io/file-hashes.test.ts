// Content hashes of files and directory listings, on a real temporary directory.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { contentHash } from '../../src/outputs/content-hash.js';
import { absentFromRecordedListing, COARSE_TIMESTAMP_MS, createFileHashes, createGranularity, nextWatchSequence, RACY_MS, stampAsRead } from '../../src/io/file-hashes.js';
import { LINK_TARGET } from '../../src/bundlers/types.js';
import { coarseStat } from '../helpers/coarse-stat.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { spyOnFileReads } from '../helpers/file-reads-spy.js';

const MTIME = new Date('2020-01-01T00:00:00.000Z');

/** Writes `text` and sets the file's mtime to MTIME, as a write within one timestamp tick would leave it. */
function writeAtMtime(file: string, text: string) {
  fs.writeFileSync(file, text);
  fs.utimesSync(file, MTIME, MTIME);
}

describe('createFileHashes', () => {
  it('hashes the content of a file', () => {
    const root = tempWorkspace({ 'core.json': '{"packages": []}' });
    expect(createFileHashes(root).hash('core.json')).to.equal(contentHash('{"packages": []}'));
  });

  it('hashes the sorted listing of a directory named with a trailing slash, marking subdirectories', () => {
    const root = tempWorkspace({ 'app/b.ts': '', 'app/a/module.json': '{}', 'top.txt': '' });
    const hashes = createFileHashes(root);
    expect(hashes.hash('app/')).to.equal(contentHash('a/\nb.ts'));
    expect(hashes.hash('./')).to.equal(contentHash('app/\ntop.txt'));
    expect(hashes.listDir('app')).to.deep.include({ entries: [{ name: 'a', directory: true }, { name: 'b.ts', directory: false }], hash: contentHash('a/\nb.ts') });
  });

  it('follows a link to a directory inside the workspace, and no link leading out of it', () => {
    const root = tempWorkspace({ 'app/real/index.ts': 'x', 'elsewhere.txt': '' });
    const outside = tempWorkspace({ 'secret.ts': 'secret' });
    fs.symlinkSync('/', path.join(root, 'app/rootlink'));
    fs.symlinkSync(outside, path.join(root, 'app/outside'));
    fs.symlinkSync('real', path.join(root, 'app/inside'));
    fs.symlinkSync('..', path.join(root, 'app/loop'));
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'app/secret.ts'));
    const hashes = createFileHashes(root);
    expect(hashes.listDir('app')!.entries).to.deep.equal([
      { name: 'inside', directory: true, link: true },
      { name: 'loop', directory: true, link: true },
      { name: 'outside', directory: false, link: true },
      { name: 'real', directory: true },
      { name: 'rootlink', directory: false, link: true },
      { name: 'secret.ts', directory: false, link: true },
    ]);
    expect(hashes.listDir('app/inside')!.id).to.equal(hashes.listDir('app/real')!.id);
    expect(hashes.listDir('app/loop')!.id).to.equal(hashes.listDir('.')!.id);
    expect(hashes.listDir('app/rootlink')).to.equal(null);
    expect(hashes.readText('app/secret.ts')).to.equal(null);
    expect(hashes.readText('app/inside/index.ts')).to.include({ text: 'x' });
    expect([hashes.leaves('app/rootlink'), hashes.leaves('app/outside'), hashes.leaves('app/inside'), hashes.leaves('app/missing')]).to.deep.equal([true, true, false, false]);
  });

  it('gives the text of the hash its last read took while those bytes are kept, with no stat, and nothing for another hash', () => {
    const root = tempWorkspace({ 'a.ts': 'first' });
    const stats: string[] = [];
    const hashes = createFileHashes(root, Date.now, { stat: (absolute) => (stats.push(absolute), fs.statSync(absolute, { throwIfNoEntry: false })) });
    const first = hashes.hash('a.ts')!;
    fs.writeFileSync(path.join(root, 'a.ts'), 'second');
    stats.length = 0;
    // The text of the hash recorded, whatever the disk holds since.
    expect(hashes.keptText!('a.ts', first)).to.equal('first');
    expect(hashes.keptText!('a.ts', contentHash('second'))).to.equal(undefined);
    expect(hashes.keptText!('never-read.ts', first)).to.equal(undefined);
    expect(stats).to.deep.equal([]);
  });

  it('answers null for what is absent, and for a file named as a directory or the reverse', () => {
    const root = tempWorkspace({ 'app/index.ts': 'x' });
    const hashes = createFileHashes(root);
    expect(hashes.hash('missing.json')).to.equal(null);
    expect(hashes.hash('missing/')).to.equal(null);
    expect(hashes.hash('app/index.ts/')).to.equal(null);
    expect(hashes.hash('app')).to.equal(null);
    expect(hashes.hash('app/index.ts/deeper')).to.equal(null);
    expect(hashes.readText('missing.json')).to.equal(null);
    expect(hashes.listDir('missing')).to.equal(null);
  });

  it('remembers what each stamp confirmed and the watch sequence it began at, except for a file with other hard links', () => {
    const root = tempWorkspace({ 'a.ts': 'a', 'linked.ts': 'l', 'dir/b.ts': 'b' });
    const hashes = createFileHashes(root);
    expect(hashes.confirmed('a.ts'), 'never stamped').to.equal(undefined);
    const first = nextWatchSequence();
    hashes.hash('a.ts');
    hashes.hash('gone.ts');
    hashes.hash('dir/');
    for (const [relative, hash] of [['a.ts', contentHash('a')], ['gone.ts', null], ['dir/', contentHash('b.ts')]] as const) {
      expect(hashes.confirmed(relative), relative).to.include({ hash, seq: first });
    }
    // A notice meanwhile: the next stamp records the new count.
    const second = nextWatchSequence();
    fs.writeFileSync(path.join(root, 'a.ts'), 'A');
    hashes.hash('a.ts');
    expect(hashes.confirmed('a.ts')).to.include({ hash: contentHash('A'), seq: second });
    // Read for a build, not stamped: not confirmed.
    hashes.readText('dir/b.ts');
    expect(hashes.confirmed('dir/b.ts')).to.equal(undefined);
    // A write through the other name is noticed in that name's directory, not in this one's.
    fs.linkSync(path.join(root, 'linked.ts'), path.join(root, 'dir/other-name.ts'));
    hashes.hash('linked.ts');
    expect(hashes.confirmed('linked.ts')).to.equal(undefined);
  });

  it('reads text with its hash', () => {
    const root = tempWorkspace({ 'a.json': '{"é": 1}' });
    expect(createFileHashes(root).readText('a.json')).to.deep.equal({ text: '{"é": 1}', hash: contentHash('{"é": 1}') });
  });

  it('sees a file that appears, changes and vanishes', () => {
    const root = tempWorkspace();
    const hashes = createFileHashes(root);
    const file = path.join(root, 'a.ts');
    expect(hashes.hash('a.ts')).to.equal(null);
    fs.writeFileSync(file, 'one');
    expect(hashes.hash('a.ts')).to.equal(contentHash('one'));
    fs.writeFileSync(file, 'three');
    expect(hashes.hash('a.ts')).to.equal(contentHash('three'));
    fs.rmSync(file);
    expect(hashes.hash('a.ts')).to.equal(null);
  });

  it('sees a file added to a directory', () => {
    const root = tempWorkspace({ 'app/a.ts': '' });
    const hashes = createFileHashes(root);
    const before = hashes.hash('app/');
    fs.writeFileSync(path.join(root, 'app/module.json'), '{}');
    expect(hashes.hash('app/')).to.equal(contentHash('a.ts\nmodule.json')).and.not.equal(before);
  });

  it('reports the mtime and the ctime with the hash, 0 when absent', () => {
    const root = tempWorkspace();
    writeAtMtime(path.join(root, 'a.ts'), 'x');
    const hashes = createFileHashes(root);
    const { ctimeMs } = fs.statSync(path.join(root, 'a.ts'));
    expect(hashes.stamp('a.ts')).to.deep.equal({ hash: contentHash('x'), mtimeMs: MTIME.getTime(), ctimeMs });
    expect(hashes.stamp('b.ts')).to.deep.equal({ hash: null, mtimeMs: 0, ctimeMs: 0 });
  });

  it('reads the same while the process runs in the workspace (paths relative to it) and from elsewhere, a path not plainly normal included', () => {
    const root = fs.realpathSync(tempWorkspace({ 'core.json': '{}', 'app/index.ts': 'x', 'app/lib/a.ts': 'y' }));
    fs.symlinkSync('/', path.join(root, 'app/rootlink'));
    const look = () => {
      const hashes = createFileHashes(root);
      return [hashes.hash('core.json'), hashes.hash('app/'), hashes.hash('./'), hashes.hash('app/lib/../index.ts'), hashes.hash('app//index.ts'), hashes.readText('app/lib/a.ts'), hashes.listDir('app')?.entries.length, hashes.leaves('app/rootlink'), hashes.leaves('app/lib'), hashes.realPath('app/lib/a.ts')];
    };
    const elsewhere = look();
    expect(elsewhere.slice(0, 6)).to.deep.equal([contentHash('{}'), contentHash('index.ts\nlib/\nrootlink\0>'), contentHash('app/\ncore.json'), contentHash('x'), contentHash('x'), { text: 'y', hash: contentHash('y') }]);
    expect(elsewhere.slice(6)).to.deep.equal([3, true, false, 'app/lib/a.ts']);
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(look()).to.deep.equal(elsewhere);
    } finally {
      process.chdir(cwd);
    }
  });

  describe('the racy rule', () => {
    it('still sees a rewrite of the same size within the same mtime tick', () => {
      const root = tempWorkspace();
      const file = path.join(root, 'a.ts');
      // Hashed within a tick of its modification: the stat cannot be trusted later.
      const hashes = createFileHashes(root, () => MTIME.getTime() + 1);
      writeAtMtime(file, 'aaa');
      expect(hashes.hash('a.ts')).to.equal(contentHash('aaa'));
      writeAtMtime(file, 'bbb');
      expect(fs.statSync(file).mtimeMs).to.equal(MTIME.getTime());
      expect(hashes.hash('a.ts')).to.equal(contentHash('bbb'));
    });

    it('gives a build the bytes it last read while the stat is unchanged, racy or not, confirming nothing: the next stamp reads again', () => {
      const root = tempWorkspace();
      const file = path.join(root, 'a.ts');
      const hashes = createFileHashes(root, () => MTIME.getTime() + 1);
      writeAtMtime(file, 'aaa');
      const stamped = nextWatchSequence();
      expect(hashes.hash('a.ts')).to.equal(contentHash('aaa'));
      const reads: string[] = [];
      const restore = spyOnFileReads((file) => reads.push(file));
      try {
        nextWatchSequence();
        const recalled = hashes.recall('a.ts');
        expect(recalled.hash).to.equal(contentHash('aaa'));
        expect(Buffer.from(recalled.bytes!).toString()).to.equal('aaa');
        expect(reads, 'taken as last read').to.deep.equal([]);
        expect(hashes.confirmed('a.ts'), 'still the stamp that read it').to.include({ seq: stamped });
        expect(hashes.hash('a.ts')).to.equal(contentHash('aaa'));
        expect(reads, 'a stamp reads a racy file again').to.have.length(1);
        writeAtMtime(file, 'bbbb');
        expect(Buffer.from(hashes.recall('a.ts').bytes!).toString(), 'a changed stat is read').to.equal('bbbb');
        expect(reads).to.have.length(2);
      } finally {
        restore();
      }
    });

    it('trusts a stat only when all of it is unchanged, ctime included', () => {
      const root = tempWorkspace();
      const file = path.join(root, 'a.ts');
      const hashes = createFileHashes(root, () => Date.now() + RACY_MS + 1000);
      writeAtMtime(file, 'aaa');
      expect(hashes.hash('a.ts')).to.equal(contentHash('aaa'));
      // Same inode, size and mtime, but the write moved the ctime (which no one can set
      // back; chmod moves it too): a later tick of the kernel clock, then the rewrite is seen.
      const tick = Date.now() + 20;
      while (Date.now() < tick);
      writeAtMtime(file, 'bbb');
      expect(fs.statSync(file).mtimeMs).to.equal(MTIME.getTime());
      expect(hashes.hash('a.ts')).to.equal(contentHash('bbb'));
      // A different size is seen from the stat alone.
      writeAtMtime(file, 'bbbb');
      expect(hashes.hash('a.ts')).to.equal(contentHash('bbbb'));
    });
  });

  describe('on a file system of whole seconds', () => {
    // Two saves of the same size within one second: the stat after the second is the stat after the first.
    const S = MTIME.getTime();

    it('reads again a file hashed within a second of its change, so the second save is seen', () => {
      const root = tempWorkspace();
      const file = path.join(root, 'a.ts');
      const hashes = createFileHashes(root, () => S + 300, { stat: coarseStat });
      writeAtMtime(file, 'aaa');
      expect(hashes.hash('a.ts')).to.equal(contentHash('aaa'));
      writeAtMtime(file, 'bbb');
      expect(hashes.hash('a.ts')).to.equal(contentHash('bbb'));
      expect(hashes.granularityMs()).to.equal(COARSE_TIMESTAMP_MS);
    });

    it('lets a restart adopt no hash taken within a second of the file\'s change', () => {
      const root = tempWorkspace();
      const file = path.join(root, 'a.ts');
      writeAtMtime(file, 'aaa');
      const before = createFileHashes(root, () => S + 300, { stat: coarseStat });
      before.hash('a.ts');
      const signature = before.signature('a.ts')!;
      writeAtMtime(file, 'bbb');
      const restarted = createFileHashes(root, () => S + 60_000, { stat: coarseStat });
      expect(restarted.adopt('a.ts', signature)).to.equal(false);
      expect(restarted.hash('a.ts')).to.equal(contentHash('bbb'));
      // Hashed more than a second after its change: adopted as before.
      const settled = createFileHashes(root, () => S + COARSE_TIMESTAMP_MS + RACY_MS + 1, { stat: coarseStat });
      settled.hash('a.ts');
      expect(createFileHashes(root, Date.now, { stat: coarseStat }).adopt('a.ts', settled.signature('a.ts')!)).to.equal(true);
    });

    it('reads a file of several names at every stamp, and lets no restart adopt its hash', () => {
      const root = tempWorkspace();
      const file = path.join(root, 'a.ts');
      writeAtMtime(file, 'aaa');
      fs.linkSync(file, path.join(root, 'b.ts'));
      // Long after the change: a stat of one name alone would be trusted.
      const hashes = createFileHashes(root, () => S + 60_000, { stat: coarseStat });
      expect(hashes.hash('a.ts')).to.equal(contentHash('aaa'));
      const signature = hashes.signature('a.ts')!;
      writeAtMtime(path.join(root, 'b.ts'), 'bbb');
      expect(hashes.hash('a.ts')).to.equal(contentHash('bbb'));
      expect(createFileHashes(root, () => S + 60_000, { stat: coarseStat }).adopt('a.ts', signature)).to.equal(false);
    });

    it('takes the granularity from the ctimes seen on each device, or as given', () => {
      const stats = (dev: number, ctimeMs: number) => ({ dev, ctimeMs, mtimeMs: ctimeMs }) as fs.Stats;
      const observed = createGranularity();
      expect(observed(stats(1, 5000))).to.equal(COARSE_TIMESTAMP_MS);
      expect(observed(stats(1, 5000.25))).to.equal(0);
      expect(observed(stats(1, 6000)), 'a device seen fine stays fine').to.equal(0);
      expect(observed(stats(2, 6000))).to.equal(COARSE_TIMESTAMP_MS);
      expect(createGranularity(1000)(stats(1, 5000.25))).to.equal(1000);
      const given = createFileHashes(tempWorkspace({ 'a.ts': 'a' }), Date.now, { granularityMs: 2000 });
      given.hash('a.ts');
      expect(given.granularityMs()).to.equal(2000);
    });
  });

  describe('reads ahead on a worker thread', () => {
    /** Past the racy window of a write just made: the ctime (set by the write) older than RACY_MS. */
    const pastRacyWindow = () => {
      const until = Date.now() + RACY_MS + 20;
      while (Date.now() < until);
    };

    /** The main thread's reads of files while `run` runs. */
    async function mainReads(run: () => Promise<void> | void): Promise<string[]> {
      const reads: string[] = [];
      const restore = spyOnFileReads((file) => reads.push(path.basename(file)));
      try {
        await run();
      } finally {
        restore();
      }
      return reads;
    }

    it('takes a file read by the worker when its stat is the one it was read under, reading nothing itself', async () => {
      const root = tempWorkspace({ 'a.ts': 'export const a = 1;\n', 'b.css': 'b {}\n' });
      pastRacyWindow();
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
      try {
        await hashes.readAhead!(['a.ts', 'b.css']);
        const seq = nextWatchSequence();
        const reads = await mainReads(() => {
          expect(hashes.stamp('a.ts').hash).to.equal(contentHash('export const a = 1;\n'));
          expect(hashes.hash('b.css')).to.equal(contentHash('b {}\n'));
        });
        expect(reads).to.deep.equal([]);
        // As a stamp's own read: confirmed from the stamp on, for the watcher's silence to keep.
        expect(hashes.confirmed('a.ts')).to.deep.include({ hash: contentHash('export const a = 1;\n'), seq });
      } finally {
        await hashes.close!();
      }
    });

    it('reads again a file changed since the worker read it, and one the worker read within a tick of its change', async () => {
      const root = tempWorkspace({ 'a.ts': 'aaa', 'racy.ts': 'rrr' });
      // Its mtime ahead of the clock: any read now is within the tick of its last change.
      const later = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(root, 'racy.ts'), later, later);
      pastRacyWindow();
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
      try {
        await hashes.readAhead!(['a.ts', 'racy.ts']);
        fs.writeFileSync(path.join(root, 'a.ts'), 'bbb');
        const reads = await mainReads(() => {
          expect(hashes.hash('a.ts')).to.equal(contentHash('bbb'));
          expect(hashes.hash('racy.ts')).to.equal(contentHash('rrr'));
        });
        expect(reads.sort()).to.deep.equal(['a.ts', 'racy.ts']);
      } finally {
        await hashes.close!();
      }
    });

    it('takes a listing made by the worker when the directory\'s stat is the one it was listed under; its names then prove a file absent', async () => {
      const root = tempWorkspace({ 'pkg/a.ts': 'a\n', 'pkg/sub/b.ts': 'b\n', 'other/c.ts': 'c\n' });
      pastRacyWindow();
      const expected = createFileHashes(root, Date.now, { granularityMs: 0 });
      const [pkg, other] = [expected.listDir('pkg')!.hash, expected.listDir('other')!.hash];
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
      const readdirSync = fs.readdirSync;
      const listed: string[] = [];
      // Only this workspace's listings: a service an earlier test left running may walk its own meanwhile.
      const listing = (directory: string) => {
        if (directory.startsWith(root + path.sep)) listed.push(path.basename(directory));
      };
      fs.readdirSync = ((...args: Parameters<typeof fs.readdirSync>) => (listing(String(args[0])), readdirSync(...args))) as typeof fs.readdirSync;
      try {
        await hashes.readAhead!(['pkg/', 'other/']);
        fs.writeFileSync(path.join(root, 'other/d.ts'), 'd\n');
        expect(hashes.stamp('pkg/').hash).to.equal(pkg);
        expect(listed).to.deep.equal([]);
        expect(hashes.absentFromListing!('pkg/module.json', pkg)).to.equal(true);
        expect(hashes.absentFromListing!('pkg/A.TS', pkg)).to.equal(false);
        // Changed since the worker listed it: listed again here.
        expect(hashes.stamp('other/').hash).to.not.equal(other);
        expect(listed).to.deep.equal(['other']);
      } finally {
        fs.readdirSync = readdirSync;
        await hashes.close!();
      }
    });

    it('takeAhead takes a file as the worker read it, with no stat here, confirmed from when it was asked; a write after it is seen by the next stamp', async () => {
      const root = tempWorkspace({ 'a.ts': 'aaa', 'racy.ts': 'rrr', 'dir/b.ts': 'b' });
      const later = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(root, 'racy.ts'), later, later);
      pastRacyWindow();
      const stats: string[] = [];
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0, stat: (absolute) => (stats.push(path.basename(absolute)), fs.statSync(absolute, { throwIfNoEntry: false })) });
      try {
        const asked = nextWatchSequence();
        await hashes.readAhead!(['a.ts', 'racy.ts', 'dir/']);
        // A notice after the worker was asked: what it read is not vouched for past it.
        nextWatchSequence();
        expect(hashes.takeAhead!('a.ts')).to.equal(contentHash('aaa'));
        expect(hashes.confirmed('a.ts')).to.deep.include({ hash: contentHash('aaa'), seq: asked });
        // Read within its write's tick, a listing, nothing read: a stamp's to take.
        expect([hashes.takeAhead!('racy.ts'), hashes.takeAhead!('dir/'), hashes.takeAhead!('gone.ts')]).to.deep.equal([undefined, undefined, undefined]);
        expect(stats, 'nothing stat-ed').to.deep.equal([]);
        // Stamped here while the worker reads it: the stamp's read stands, the worker's is not taken over it.
        const reading = hashes.readAhead!(['dir/b.ts']);
        expect(hashes.stamp('dir/b.ts').hash).to.equal(contentHash('b'));
        await reading;
        expect(hashes.takeAhead!('dir/b.ts')).to.equal(undefined);
        stats.length = 0;
        // Changed since that read (the restore's verdict then stands as of the read): the next stamp, the first check's, sees it.
        fs.writeFileSync(path.join(root, 'a.ts'), 'changed');
        expect(hashes.stamp('a.ts').hash).to.equal(contentHash('changed'));
      } finally {
        await hashes.close!();
      }
    });

    it('takeAhead does not take a read over a later stamp that found the file absent', async () => {
      const root = tempWorkspace({ 'a.ts': 'aaa' });
      pastRacyWindow();
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
      try {
        await hashes.readAhead!(['a.ts']);
        fs.rmSync(path.join(root, 'a.ts'));
        expect(hashes.stamp('a.ts').hash).to.equal(null);
        expect(hashes.takeAhead!('a.ts')).to.equal(undefined);
        expect(hashes.confirmed('a.ts')).to.deep.include({ hash: null });
      } finally {
        await hashes.close!();
      }
    });

    it('stampAsRead takes the worker\'s read with no stat, and stamps a file it did not read', async () => {
      const root = tempWorkspace({ 'a.ts': 'aaa', 'b.ts': 'bbb' });
      pastRacyWindow();
      const stats: string[] = [];
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0, stat: (absolute) => (stats.push(path.basename(absolute)), fs.statSync(absolute, { throwIfNoEntry: false })) });
      try {
        await hashes.readAhead!(['a.ts']);
        expect([stampAsRead(hashes, 'a.ts'), stampAsRead(hashes, 'b.ts'), stampAsRead(hashes, 'gone.ts')]).to.deep.equal([contentHash('aaa'), contentHash('bbb'), null]);
        expect(stats, 'stat-ed here: only what the worker did not read').to.deep.equal(['b.ts', 'gone.ts']);
      } finally {
        await hashes.close!();
      }
    });

    it('gives the answers of a reader without the worker: a file changed or removed since it was read, a link, files under directories linked inside and outside, and once the worker is gone', async () => {
      const outside = tempWorkspace({ 'deep/secret.ts': 'secret' });
      const root = tempWorkspace({ 'a.ts': 'aaa', 'b.ts': 'bbb', 'gone.ts': 'ggg', 'dir/sub/d.ts': 'ddd', 'kept.ts': 'kkk' });
      fs.symlinkSync(path.join(root, 'a.ts'), path.join(root, 'link.ts'));
      fs.symlinkSync(path.join(root, 'dir'), path.join(root, 'within'));
      fs.symlinkSync(outside, path.join(root, 'away'));
      pastRacyWindow();
      const names = ['a.ts', 'b.ts', 'gone.ts', 'link.ts', 'within/sub/d.ts', 'dir/sub/d.ts', 'away/deep/secret.ts', 'kept.ts'];
      const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
      try {
        await hashes.readAhead!(names);
        // Nothing read out of the workspace to take, even with no stat here.
        expect(hashes.takeAhead!('away/deep/secret.ts')).to.equal(undefined);
        fs.writeFileSync(path.join(root, 'b.ts'), 'changed');
        fs.rmSync(path.join(root, 'gone.ts'));
        const plain = createFileHashes(root, Date.now, { granularityMs: 0 });
        const expected = Object.fromEntries(names.map((name) => [name, plain.hash(name)]));
        expect(expected).to.deep.include({ 'b.ts': contentHash('changed'), 'gone.ts': null, 'within/sub/d.ts': contentHash('ddd'), 'away/deep/secret.ts': null });
        expect(Object.fromEntries(names.map((name) => [name, hashes.hash(name)]))).to.deep.equal(expected);
        // The worker gone (closed, or failed): what it did not read is read here, with the same answers.
        await hashes.close!();
        fs.writeFileSync(path.join(root, 'kept.ts'), 'k2');
        await hashes.readAhead!(['kept.ts']);
        expect(hashes.hash('kept.ts')).to.equal(contentHash('k2'));
      } finally {
        await hashes.close!();
      }
    });

    it('does nothing unless asked for: the main thread reads', async () => {
      const root = tempWorkspace({ 'a.ts': 'aaa' });
      pastRacyWindow();
      const hashes = createFileHashes(root, Date.now, { granularityMs: 0 });
      await hashes.readAhead!(['a.ts']);
      expect(await mainReads(() => void hashes.hash('a.ts'))).to.deep.equal(['a.ts']);
    });
  });

  describe('signature and adopt (the build cache\'s proof that a file is unchanged)', () => {
    it('takes a recorded hash for a file whose stat is the recorded one, without reading it', () => {
      const root = tempWorkspace({ 'a.ts': 'export const a = 1;\n' });
      fs.utimesSync(path.join(root, 'a.ts'), MTIME, MTIME);
      // Read well after its last change (ctime included): a hash to be trusted later.
      const first = createFileHashes(root, () => Date.now() + 10_000);
      expect(first.signature('a.ts')).to.equal(null);
      first.hash('a.ts');
      const signature = first.signature('a.ts');
      expect(signature![0]).to.equal(contentHash('export const a = 1;\n'));
      // Another reader (the next start) adopts it; the hash it then answers is the recorded one,
      // even for a signature naming other content: it was not read.
      const next = createFileHashes(root);
      const forged = ['forged-hash', ...signature!.slice(1)] as unknown as typeof signature & object;
      expect(next.adopt('a.ts', forged)).to.equal(true);
      expect(next.hash('a.ts')).to.equal('forged-hash');
    });

    it('refuses a file changed since, or one whose hash was taken within a tick of its change', () => {
      const root = tempWorkspace({ 'a.ts': 'export const a = 1;\n' });
      fs.utimesSync(path.join(root, 'a.ts'), MTIME, MTIME);
      const reader = createFileHashes(root, () => Date.now() + 10_000);
      reader.hash('a.ts');
      const signature = reader.signature('a.ts')!;
      fs.writeFileSync(path.join(root, 'a.ts'), 'export const a = 22;\n');
      expect(createFileHashes(root).adopt('a.ts', signature)).to.equal(false);
      const racy = createFileHashes(root, () => fs.statSync(path.join(root, 'a.ts')).mtimeMs + RACY_MS / 2);
      racy.hash('a.ts');
      expect(createFileHashes(root).adopt('a.ts', racy.signature('a.ts')!)).to.equal(false);
      expect(createFileHashes(root).adopt('gone.ts', signature)).to.equal(false);
    });
  });

  describe('absentFromListing', () => {
    // A build records where a link leads (`LINK_TARGET`) absent when it led nowhere: no listing names that path, so none proves it absent.
    it("proves by a recorded listing a file absent, never where a link leads", () => {
      const root = tempWorkspace({ 'app/index.ts': '', 'shared/x.ts': '' });
      fs.symlinkSync(path.join(root, 'shared/x.ts'), path.join(root, 'app/x'));
      const hashes = createFileHashes(root);
      const recorded = { 'app/': hashes.hash('app/') };
      expect(absentFromRecordedListing(recorded, 'app/tsconfig.json', hashes)).to.equal(true);
      expect(absentFromRecordedListing(recorded, 'app/index.ts', hashes)).to.equal(false);
      expect(absentFromRecordedListing(recorded, `app/x${LINK_TARGET}`, hashes), 'where app/x leads').to.equal(false);
      expect(absentFromRecordedListing(recorded, `app/y${LINK_TARGET}`, hashes), 'where app/y would lead').to.equal(false);
    });

    it('tells a name absent from the listing of that hash it read, and nothing of another hash or a name it holds but for its case', () => {
      const root = tempWorkspace({ 'app/index.ts': '', 'app/README.md': '' });
      const hashes = createFileHashes(root);
      const listed = hashes.hash('app/')!;
      expect(hashes.absentFromListing!('app/tsconfig.json', listed)).to.equal(true);
      expect(hashes.absentFromListing!('app/index.ts', listed)).to.equal(false);
      expect(hashes.absentFromListing!('app/readme.md', listed)).to.equal(false);
      expect(hashes.absentFromListing!('app/tsconfig.json', contentHash('index.ts'))).to.equal(false);
      expect(hashes.absentFromListing!('other/tsconfig.json', listed)).to.equal(false);
    });

    it('tells nothing of a listing holding a name beyond ASCII, nor of a name beyond it', () => {
      const root = tempWorkspace({ 'app/index.ts': '', 'app/caf\u00e9.ts': '', 'lib/index.ts': '' });
      const hashes = createFileHashes(root);
      expect(hashes.absentFromListing!('app/tsconfig.json', hashes.hash('app/')!)).to.equal(false);
      expect(hashes.absentFromListing!('lib/caf\u00e9.ts', hashes.hash('lib/')!)).to.equal(false);
      expect(hashes.absentFromListing!('lib/tsconfig.json', hashes.hash('lib/')!)).to.equal(true);
    });

    it('tells nothing of a name beyond ASCII in NFC or NFD, present or absent, nor by a listing holding one', () => {
      const nfd = 'cafe\u0301.ts';
      const nfc = 'caf\u00e9.ts';
      const root = tempWorkspace({ [`app/${nfd}`]: '', 'app/index.ts': '', 'lib/index.ts': '' });
      const hashes = createFileHashes(root);
      const app = hashes.hash('app/')!;
      for (const name of [nfd, nfc, 'tsconfig.json']) expect(hashes.absentFromListing!(`app/${name}`, app), name).to.equal(false);
      const lib = hashes.hash('lib/')!;
      for (const name of [nfd, nfc]) expect(hashes.absentFromListing!(`lib/${name}`, lib), name).to.equal(false);
      expect(hashes.absentFromListing!('lib/tsconfig.json', lib)).to.equal(true);
    });
  });
});
