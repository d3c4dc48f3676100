// What the bundlers derive from a file they read beside esbuild is read again only when the file
// changed (`unchangedReads`, src/regular-files.ts): a stylesheet's edit reads neither its module's
// code nor its configs (ARCHITECTURE.md "One stylesheet edit"), and no change is ever missed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { unchangedReads } from '../src/regular-files.js';
import { COARSE_TIMESTAMP_MS, RACY_MS } from '../src/unchanged-stats.js';
import { coarseStat } from './helpers/coarse-stat.js';
import { tempWorkspace } from './helpers/workspace.js';

/** Waits past the racy window (50 ms) of every file changed so far: what is read of them after is kept. */
const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, 120));

describe('unchangedReads', function () {
  let root: string;
  let derived: string[];
  let read: (absolute: string) => string | null;
  beforeEach(function () {
    root = tempWorkspace({ 'a.ts': 'declare const A: string;\n' });
    derived = [];
    read = unchangedReads((bytes) => {
      derived.push(bytes.toString('utf8'));
      return bytes.toString('utf8').toUpperCase();
    });
  });

  // A module folder replaced by a file while the service runs: a config path through it is no
  // directory (ENOTDIR), which is nothing to read, never an error thrown into the build.
  it('answers null for a path through a file, as for an absent one', function () {
    expect(read(path.join(root, 'a.ts', 'tsconfig.json'))).to.equal(null);
    expect(read(path.join(root, 'absent', 'tsconfig.json'))).to.equal(null);
    expect(derived).to.have.length(0);
  });

  it('reads a settled file once while it is unchanged', async function () {
    const file = path.join(root, 'a.ts');
    await pastRacyWindow();
    expect(read(file)).to.equal('DECLARE CONST A: STRING;\n');
    expect(read(file)).to.equal('DECLARE CONST A: STRING;\n');
    expect(derived).to.have.length(1);
  });

  it('reads again a file whose bytes changed, even to the same size and modification time', async function () {
    const file = path.join(root, 'a.ts');
    await pastRacyWindow();
    read(file);
    const { mtime, atime } = fs.statSync(file);
    fs.writeFileSync(file, 'declare const B: string;\n');
    fs.utimesSync(file, atime, mtime);
    expect(read(file)).to.equal('DECLARE CONST B: STRING;\n');
    expect(derived).to.deep.equal(['declare const A: string;\n', 'declare const B: string;\n']);
  });

  it('keeps nothing of a file read within the racy window of its change: it is read again', function () {
    const file = path.join(root, 'a.ts');
    fs.writeFileSync(file, 'declare const C: string;\n');
    read(file);
    read(file);
    expect(derived).to.have.length(2);
  });

  it('is null for an absent file, a folder and a FIFO, and never waits on the FIFO', async function () {
    expect(read(path.join(root, 'absent.ts'))).to.equal(null);
    expect(read(root)).to.equal(null);
    const fifo = path.join(root, 'pipe.ts');
    execFileSync('mkfifo', [fifo]);
    expect(read(fifo)).to.equal(null);
    // A file read, then removed: null, not what was kept.
    const file = path.join(root, 'a.ts');
    await pastRacyWindow();
    read(file);
    fs.rmSync(file);
    expect(read(file)).to.equal(null);
  });

  describe('on a file system of whole seconds, by the file hashes\' rules (README "Addresses")', function () {
    // Two saves of the same size within one second leave the same stat there: coarseStat cuts
    // both times to the second, and the writes below set the mtime to one second (MTIME).
    const MTIME = new Date('2020-01-01T00:00:00.000Z');
    const S = MTIME.getTime();
    const writeAtMtime = (file: string, text: string) => {
      fs.writeFileSync(file, text);
      fs.utimesSync(file, MTIME, MTIME);
    };
    const readAt = (now: number) => unchangedReads((bytes) => bytes.toString('utf8'), { stat: coarseStat, now: () => now });

    it('reads again a file read within the second of its change, so a same-size rewrite in that second is seen', function () {
      const file = path.join(root, 'tsconfig.json');
      // Past the 50 ms of a fine clock, within the second of a coarse one.
      const atRead = readAt(S + 300);
      writeAtMtime(file, '{"paths":{"a":["a.ts"]}}');
      expect(atRead(file)).to.equal('{"paths":{"a":["a.ts"]}}');
      writeAtMtime(file, '{"paths":{"b":["b.ts"]}}');
      expect(coarseStat(file)!.mtimeMs).to.equal(S);
      expect(atRead(file), 'the rewrite in the same second').to.equal('{"paths":{"b":["b.ts"]}}');
    });

    it('keeps what it read more than a second after the change while the stat is unchanged', function () {
      const file = path.join(root, 'tsconfig.json');
      writeAtMtime(file, '{"paths":{}}');
      const settled = unchangedReads(
        (bytes) => {
          derived.push(bytes.toString('utf8'));
          return bytes.toString('utf8');
        },
        { stat: coarseStat, now: () => S + COARSE_TIMESTAMP_MS + RACY_MS + 1 },
      );
      expect(settled(file)).to.equal('{"paths":{}}');
      expect(settled(file)).to.equal('{"paths":{}}');
      expect(derived).to.have.length(1);
    });

    it('reads a file of several names every time: an edit through its other name is seen', function () {
      const file = path.join(root, 'tsconfig.json');
      const other = path.join(root, 'shared-tsconfig.json');
      writeAtMtime(file, '{"paths":{"a":["a.ts"]}}');
      fs.linkSync(file, other);
      // Long after the change: a stat of one name alone would be trusted.
      const late = readAt(S + 60_000);
      expect(late(file)).to.equal('{"paths":{"a":["a.ts"]}}');
      writeAtMtime(other, '{"paths":{"b":["b.ts"]}}');
      expect(late(file), 'the edit through the other name').to.equal('{"paths":{"b":["b.ts"]}}');
    });
  });
});
