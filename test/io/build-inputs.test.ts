// `inputsHold` (src/io/build-inputs.ts): a record of `hashInputs` judged against the disk by the
// stamp's one rule, as the local CDN judges a kept bundle (README "The local CDN"): an
// unchanged file costs a stat and no read, a path recorded absent costs no stat of its own when
// its directory's listing proves it, a rewrite the stat cannot show (the same size, the mtime
// put back) is still caught by the ctime, and a file of several names is read every time.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createFileHashes, MTIME_LAG_MS } from '../../src/io/file-hashes.js';
import { hashInputs, inputsBefore, inputsHold } from '../../src/io/build-inputs.js';
import { UNVERIFIED } from '../../src/store/events.js';
import { tempWorkspace } from '../helpers/workspace.js';

const PAST = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
/**
 * The reader's clock, seconds after the package was written: its reads are out of the window in
 * which a file's stat cannot vouch for what was read (README "Addresses"), as a package's
 * installed well before it is served are. The builds below start then too: the package's files
 * (their mtimes put back, their ctimes now) were written before them.
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
  const openSync = fs.openSync;
  // A read opens its file first (src/regular-files.ts), then reads the descriptor: both are counted by path.
  fs.readFileSync = ((file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof file !== 'number') reads.push(String(file));
    return (readFileSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.readFileSync;
  fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    reads.push(String(file));
    return (openSync as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync;
  stats.length = 0;
  try {
    return { result: run(), reads };
  } finally {
    fs.readFileSync = readFileSync;
    fs.openSync = openSync;
  }
}

describe('inputsHold', function () {
  it('holds for unchanged inputs with a stat per file and per directory listing, and no read', function () {
    const dir = packageDir();
    const stats: string[] = [];
    const files = createFileHashes(dir, later, { keptContents: 0, stat: (file) => (stats.push(file), fs.statSync(file, { throwIfNoEntry: false })) });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), later());
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
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), later());
    const file = path.join(dir, 'lib/a.js');
    fs.writeFileSync(file, 'export const a = 2;\n');
    fs.utimesSync(file, PAST, PAST);
    expect(inputsHold(files, recorded)).to.equal(false);
  });

  it('does not hold once a file is made where one was recorded absent', function () {
    const dir = packageDir();
    const files = createFileHashes(dir, later, { keptContents: 0 });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), later());
    expect(inputsHold(files, recorded)).to.equal(true);
    fs.writeFileSync(path.join(dir, 'lib/a.jsx'), 'export const a = 3;\n');
    expect(inputsHold(files, recorded)).to.equal(false);
  });

  it('reads a file of several names at every check, and never holds an unverified input', function () {
    const dir = packageDir();
    fs.linkSync(path.join(dir, 'lib/a.js'), path.join(dir, 'other-name.js'));
    const stats: string[] = [];
    const files = createFileHashes(dir, later, { keptContents: 0, stat: (file) => (stats.push(file), fs.statSync(file, { throwIfNoEntry: false })) });
    const recorded = hashInputs(files, INPUTS, inputsBefore(files, []), later());
    const { result, reads } = counting(() => inputsHold(files, recorded), stats);
    expect(result).to.equal(true);
    expect(reads.map((file) => path.relative(dir, file))).to.deep.equal(['lib/a.js']);
    expect(inputsHold(files, { ...recorded, 'index.js': UNVERIFIED })).to.equal(false);
  });
});

// The rule of `hashInputs` for a write during the build, at both kinds of input: a first-seen
// one hashed after the build, a known one taken before it. A copy that keeps times (`cp -p`,
// `rsync -a`, `touch -r`) puts the mtime back; the ctime it cannot.
describe('hashInputs, a write during the build with the mtime put back', function () {
  const rewriteKeepingTimes = (file: string, text: string) => {
    fs.writeFileSync(file, text);
    fs.utimesSync(file, PAST, PAST);
  };

  it('marks a first-seen input unverified: its ctime is after the build started', function () {
    const dir = packageDir();
    const file = path.join(dir, 'lib/a.js');
    // The build starts once the package's own writes (their ctimes) are out of its window.
    const installed = fs.statSync(file).ctimeMs;
    while (Date.now() <= installed + MTIME_LAG_MS);
    const startedAt = Date.now();
    const files = createFileHashes(dir, later, { keptContents: 0 });
    expect(hashInputs(files, ['lib/a.js'], new Map(), startedAt)['lib/a.js'], 'unwritten during the build').to.be.a('string').and.not.equal(UNVERIFIED);
    // The build reads lib/a.js (the first version), meanwhile:
    rewriteKeepingTimes(file, 'export const a = 2;\n');
    const recorded = hashInputs(files, ['lib/a.js'], new Map(), startedAt);
    expect(recorded['lib/a.js']).to.equal(UNVERIFIED);
    expect(inputsHold(files, recorded)).to.equal(false);
  });

  it('marks a known input unverified even when its content is back as before: the build may have read it truncated', function () {
    const dir = packageDir();
    const files = createFileHashes(dir, later, { keptContents: 0 });
    const previous = hashInputs(files, ['lib/a.js'], inputsBefore(files, []), later());
    const before = inputsBefore(files, [previous]);
    const file = path.join(dir, 'lib/a.js');
    rewriteKeepingTimes(file, fs.readFileSync(file, 'utf8'));
    expect(hashInputs(files, ['lib/a.js'], before, later())['lib/a.js']).to.equal(UNVERIFIED);
  });

  it('keeps the hash of an input nothing wrote during the build', function () {
    const dir = packageDir();
    const files = createFileHashes(dir, later, { keptContents: 0 });
    const previous = hashInputs(files, ['lib/a.js'], inputsBefore(files, []), later());
    expect(previous['lib/a.js']).to.be.a('string').and.not.equal(UNVERIFIED);
    expect(hashInputs(files, ['lib/a.js'], inputsBefore(files, [previous]), later())).to.deep.equal(previous);
  });
});
