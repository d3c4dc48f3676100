// What the bundlers derive from a file they read beside esbuild is read again only when the file
// changed (`unchangedReads`, src/regular-files.ts): a stylesheet's edit reads neither its module's
// code nor its configs (ARCHITECTURE.md "One stylesheet edit"), and no change is ever missed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { unchangedReads } from '../src/regular-files.js';
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
});
