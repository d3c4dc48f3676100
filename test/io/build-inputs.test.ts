// `inputsHold` (src/io/build-inputs.ts): a record of `hashInputs` judged against the disk by the
// stamp's one rule, as the local CDN judges a kept bundle (README "The local CDN"): an
// unchanged file costs a stat and no read, a path recorded absent costs no stat of its own when
// its directory's listing proves it, a rewrite the stat cannot show (the same size, the mtime
// put back) is still caught by the ctime, and a file of several names is read every time.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { hashInputs, inputsBefore, inputsHold } from '../../src/io/build-inputs.js';
import { UNVERIFIED } from '../../src/store/events.js';
import { tempWorkspace } from '../helpers/workspace.js';

const PAST = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
/**
 * The reader's clock, seconds after the package was written: its reads are out of the window in
 * which a file's stat cannot vouch for what was read (README "Addresses"), as a package's
 * installed well before it is served are.
 */
const later = () => Date.now() + 5_000;

function packageDir(): string {
  const dir = tempWorkspace({ 'index.js': "export * from './lib/a';\n", 'lib/a.js': 'export const a = 1;\n' });
  for (const file of ['index.js', 'lib/a.js']) fs.utimesSync(path.join(dir, file), PAST, PAST);
  return dir;
}

const INPUTS = ['index.js', 'lib/a.js', 'lib/a', 'lib/a.jsx', 'lib/package.json'];

/** What `run` stats and reads, by absolute path. */
function counting<T>(run: () => T, stats: string[]): { result: T; reads: string[] } {
  const reads: string[] = [];
  const readFileSync = fs.readFileSync;
  fs.readFileSync = ((file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    reads.push(String(file));
    return (readFileSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.readFileSync;
  stats.length = 0;
  try {
    return { result: run(), reads };
  } finally {
    fs.readFileSync = readFileSync;
  }
}

describe('inputsHold', function () {
  it('holds for unchanged inputs with a stat per file and per directory listing, and no read', function () {
    const dir = packageDir();
    const stats: string[] = [];
    const files = createFileHashes(dir, later, { keptContents: 0, stat: (file) => (stats.push(file), fs.statSync(file, { throwIfNoEntry: false })) });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), Date.now());
    expect(recorded['lib/a']).to.equal(null);
    expect(inputsHold(files, recorded)).to.equal(true);
    const { result, reads } = counting(() => inputsHold(files, recorded), stats);
    expect(result).to.equal(true);
    expect(reads, 'nothing read').to.deep.equal([]);
    // index.js, lib/a.js, and lib/'s listing, which proves the three absent paths absent.
    expect(stats.map((file) => path.relative(dir, file)).sort()).to.deep.equal(['index.js', 'lib', 'lib/a.js']);
  });

  it('does not hold once a file is rewritten at the same size with its mtime put back', function () {
    const dir = packageDir();
    const files = createFileHashes(dir, later, { keptContents: 0 });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), Date.now());
    const file = path.join(dir, 'lib/a.js');
    fs.writeFileSync(file, 'export const a = 2;\n');
    fs.utimesSync(file, PAST, PAST);
    expect(inputsHold(files, recorded)).to.equal(false);
  });

  it('does not hold once a file is made where one was recorded absent', function () {
    const dir = packageDir();
    const files = createFileHashes(dir, later, { keptContents: 0 });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), Date.now());
    expect(inputsHold(files, recorded)).to.equal(true);
    fs.writeFileSync(path.join(dir, 'lib/a.jsx'), 'export const a = 3;\n');
    expect(inputsHold(files, recorded)).to.equal(false);
  });

  it('reads a file of several names at every check, and never holds an unverified input', function () {
    const dir = packageDir();
    fs.linkSync(path.join(dir, 'lib/a.js'), path.join(dir, 'other-name.js'));
    const stats: string[] = [];
    const files = createFileHashes(dir, later, { keptContents: 0, stat: (file) => (stats.push(file), fs.statSync(file, { throwIfNoEntry: false })) });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), Date.now());
    const { result, reads } = counting(() => inputsHold(files, recorded), stats);
    expect(result).to.equal(true);
    expect(reads.map((file) => path.relative(dir, file))).to.deep.equal(['lib/a.js']);
    expect(inputsHold(files, { ...recorded, 'index.js': UNVERIFIED })).to.equal(false);
  });
});
