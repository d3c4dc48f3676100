// Files that are not regular files where esbuild or a bundler's own read meets them (README "Files
// that are not files"): refused by what they are, never waited on.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { bundleInstalled } from '../../src/bundlers/installed-bundle.js';
import { absoluteOpened, createNonRegularFiles, esbuildFifoWaits, type FifoWaits, openCallFrom, pathFromBytes, waitsOnFifoFrom } from '../../src/bundlers/non-regular-files.js';
import { moduleBoundariesPlugin } from '../../src/bundlers/plugins/module-boundaries.js';
import { placedReads } from '../../src/bundlers/placed-reads.js';
import type { BundleResult, BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

const mkfifo = (file: string) => execFileSync('mkfifo', [file]);

const canRead = (file: string) => {
  try {
    fs.readFileSync(file);
    return true;
  } catch {
    return false;
  }
};

/**
 * Another program's reader of a FIFO, waiting in its open (`cat`). A writer's open wakes it at
 * once, in the kernel, before that open returns: so once the watchdog's work is over, a reader
 * still asleep in its open (`wait_for_partner`) was never given a writer.
 */
async function readerWaitingOn(fifo: string) {
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
  const ended = new Promise<number | null>((resolve) => reader.on('exit', resolve));
  const sleep = () => fs.readFileSync(`/proc/${reader.pid}/wchan`, 'utf8').trim();
  await waitFor(() => sleep() === 'wait_for_partner', { what: `cat waiting in the open of ${fifo}` });
  return {
    neverGivenAWriter: () => reader.exitCode === null && sleep() === 'wait_for_partner',
    stop: async () => {
      reader.kill();
      await ended;
    },
  };
}

/**
 * A writer of ours waiting in the open of a FIFO (`sh`): a reader's open (esbuild's) wakes it at
 * once, in the kernel, before that open returns, so once a build is over, a writer still asleep
 * in its open (`wait_for_partner`) means the build never opened the FIFO.
 */
async function writerWaitingOn(fifo: string) {
  const writer = spawn('sh', ['-c', 'echo > "$0"', fifo], { stdio: 'ignore' });
  const ended = new Promise<number | null>((resolve) => writer.on('exit', resolve));
  const sleep = () => fs.readFileSync(`/proc/${writer.pid}/wchan`, 'utf8').trim();
  await waitFor(() => sleep() === 'wait_for_partner', { what: `sh waiting in the open of ${fifo}` });
  return {
    neverOpenedByAReader: () => writer.exitCode === null && sleep() === 'wait_for_partner',
    stop: async () => {
      writer.kill();
      await ended;
    },
  };
}

describe('files that are not regular files, in the bundlers', function () {
  it("the local CDN's build of an installed package refuses a FIFO it imports, naming it", async function () {
    const root = tempWorkspace({ 'node_modules/pkg/package.json': '{"name":"pkg","version":"1.0.0"}', 'node_modules/pkg/index.js': "export { x } from './pipe.js';\n" });
    const packageDir = path.join(root, 'node_modules/pkg');
    mkfifo(path.join(packageDir, 'pipe.js'));
    const failure = await bundleInstalled(path.join(packageDir, 'index.js'), packageDir, { name: 'pkg', commonJsNames: () => [], exportOf: () => null, entryOf: () => null }).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).to.include('"pipe.js" is a FIFO (named pipe), not a regular file');
  });

  it("the local CDN's build refuses a FIFO package.json esbuild reads in a folder it resolves in, naming it, and ends", async function () {
    this.timeout(30_000);
    const root = tempWorkspace({ 'node_modules/pkg/package.json': '{"name":"pkg","version":"1.0.0"}', 'node_modules/pkg/index.js': "export { x } from './sub';\n", 'node_modules/pkg/sub/index.js': 'export const x = 1;\n' });
    const packageDir = path.join(root, 'node_modules/pkg');
    mkfifo(path.join(packageDir, 'sub/package.json'));
    const failure = await bundleInstalled(path.join(packageDir, 'index.js'), packageDir, { name: 'pkg', commonJsNames: () => [], exportOf: () => null, entryOf: () => null }).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).to.equal('"sub/package.json" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there');
  });

  it('the read placing a diagnostic after a build takes no text from a FIFO', function () {
    const root = tempWorkspace({ 'app/main.ts': '' });
    mkfifo(path.join(root, 'app/sheet.css'));
    expect(placedReads(root).text('app/sheet.css')).to.equal(null);
  });

  it('a build stuck on a FIFO ends, and is done again refusing it; the guard lets a regular file in its place load', async function () {
    const root = tempWorkspace({ 'packages/app/main/index.ts': "import { value } from './pipe.ts';\nexport const main = value;\n" });
    const pipe = path.join(root, 'packages/app/main/pipe.ts');
    mkfifo(pipe);
    // A short bound: the test waits for the build to end, never for a time.
    const special = createNonRegularFiles(root, 50);
    expect(special.guard(), 'no plugin while no special file is known').to.equal(null);
    let runs = 0;
    const build = () => {
      runs += 1;
      const guard = special.guard();
      return esbuild.build({ entryPoints: [path.join(root, 'packages/app/main/index.ts')], bundle: true, write: false, logLevel: 'silent', plugins: guard ? [guard] : [] }).then(
        () => null,
        (failure: esbuild.BuildFailure) => failure.errors.map((error) => error.text),
      );
    };
    const errors = await special.watched(build, () => []);
    expect(runs).to.equal(2);
    expect(errors).to.deep.equal(['"packages/app/main/pipe.ts" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there']);
    const known = special.generation();
    fs.rmSync(pipe);
    fs.writeFileSync(pipe, 'export const value = 1;\n');
    expect(await special.watched(build, () => [])).to.equal(null);
    expect(special.generation(), 'forgotten once a regular file is there').to.not.equal(known);
    expect(special.guard()).to.equal(null);
  });

  it('a build in flight whose waiting open another build released is done again, never returning the empty file', async function () {
    const root = tempWorkspace({
      'packages/app/a/index.ts': "import { value } from '../pipe.ts';\nexport const a = value;\n",
      'packages/app/b/index.ts': "import { value } from '../pipe.ts';\nexport const b = value;\n",
      'packages/other/index.ts': '',
    });
    mkfifo(path.join(root, 'packages/app/pipe.ts'));
    const special = createNonRegularFiles(root, 50);
    const runs = { a: 0, b: 0 };
    const build = (name: 'a' | 'b') => () => {
      runs[name] += 1;
      const guard = special.guard();
      return esbuild.build({ entryPoints: [path.join(root, `packages/app/${name}/index.ts`)], bundle: true, write: false, logLevel: 'silent', plugins: guard ? [guard] : [] }).then(
        (result) => ({ code: result.outputFiles[0]!.text, errors: [] as string[] }),
        (failure: esbuild.BuildFailure) => ({ code: null, errors: failure.errors.map((error) => error.text) }),
      );
    };
    const noResults = () => [];
    // The first search to learn the FIFO releases both waiting opens: the other build's too.
    const b = special.watched(build('b'), noResults);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const a = special.watched(build('a'), noResults);
    const refusal = '"packages/app/pipe.ts" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there';
    expect((await a).errors).to.deep.equal([refusal]);
    const resultOfB = await b;
    expect(resultOfB.code, 'never the empty file built as valid').to.equal(null);
    expect(resultOfB.errors).to.deep.equal([refusal]);
    expect(runs.b).to.equal(2);
  });

  it('a result that read a known special file without refusing it is built again; one refusing it is not', async function () {
    const root = tempWorkspace({ 'packages/app/main/index.ts': '' });
    mkfifo(path.join(root, 'packages/app/main/pipe.ts'));
    // No esbuild waits here: searched at every bound, as where the kernel cannot tell.
    const special = createNonRegularFiles(root, 20, () => null);
    // A run that lasts until its search has learnt the FIFO.
    await special.watched(async () => {
      while (special.guard() === null) await new Promise((resolve) => setTimeout(resolve, 10));
      return null;
    }, () => []);
    const result = (errors: { message: string }[]) => ({ specifier: 'app/main', code: null, styles: null, inputs: ['packages/app/main/index.ts', 'packages/app/main/pipe.ts'], imports: [], errors }) as unknown as BundleResult;
    let runs = 0;
    await special.watched(async () => ((runs += 1), result([])), (value) => [value]);
    expect(runs, 'read as a file: built again').to.equal(3);
    runs = 0;
    const refusal = { message: '"packages/app/main/pipe.ts" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there' };
    await special.watched(async () => ((runs += 1), result([refusal])), (value) => [value]);
    expect(runs, 'refused: once').to.equal(1);
  });

  it('a slow build that waits on no FIFO searches nothing: a FIFO another program reads is never opened, the build runs once', async function () {
    const root = tempWorkspace({ 'packages/app/main/index.ts': '' });
    mkfifo(path.join(root, 'packages/app/main/feed'));
    // Another program's reader waiting on the FIFO: an open for writing would hand it an end of file.
    const reader = spawn('cat', [path.join(root, 'packages/app/main/feed')], { stdio: ['ignore', 'pipe', 'ignore'] });
    const ended = new Promise<number | null>((resolve) => reader.on('exit', resolve));
    try {
      // What esbuild's threads wait on is told as nothing (false): read from /proc here, it would
      // be the state of whatever esbuild processes this test run holds (tsx's own, one ended and
      // not yet reaped), and a "cannot tell" of theirs rightly searches. How those words are
      // read is tested below, on esbuild itself too.
      let asked = 0;
      const special = createNonRegularFiles(root, 20, () => ((asked += 1), false));
      let runs = 0;
      let searchesDue = 0;
      // Lasts past several bounds (counted by turns of this test, not timed).
      await special.watched(async () => {
        runs += 1;
        while (searchesDue++ < 10) await new Promise((resolve) => setTimeout(resolve, 30));
        return null;
      });
      expect(asked, "esbuild's threads asked while the build outlived its bound").to.be.above(0);
      expect(runs).to.equal(1);
      expect(special.generation(), 'nothing learnt').to.equal(0);
      expect(special.guard()).to.equal(null);
    } finally {
      reader.kill();
      await ended;
    }
  });

  it("tells from where esbuild's threads sleep whether one waits in a FIFO's open, and says it does not know when the kernel hides it", function () {
    expect(waitsOnFifoFrom([['futex_wait_queue', '0', 'wait_for_partner']])).to.equal(true);
    expect(waitsOnFifoFrom([['futex_wait_queue', 'ep_poll', '0']])).to.equal(false);
    // Every thread "0": hidden (or all running), so the search runs rather than a build hanging.
    expect(waitsOnFifoFrom([['0', '0', '0']])).to.equal(null);
    expect(waitsOnFifoFrom([['futex_wait_queue'], ['0', '']])).to.equal(null);
    expect(waitsOnFifoFrom([])).to.equal(false);
  });

  it("reads the open a thread waits in from its syscall line, by processor, and says nothing of what it cannot tell", function () {
    // x86-64: openat (257), the path its second argument; a folder of -100 is the working directory.
    expect(openCallFrom('257 0xffffffffffffff9c 0x258b0e6f8420 0x80000 0x0 0x0 0x0 0x7ffd1 0x40a8ce\n', 'x64')).to.deep.equal({ pathAddress: 0x258b0e6f8420n, folderFd: null });
    expect(openCallFrom('257 0x7 0x258b0e6f8420 0x80000 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'x64')).to.deep.equal({ pathAddress: 0x258b0e6f8420n, folderFd: 7n });
    // open (2): the path is the first argument, taken in the working directory.
    expect(openCallFrom('2 0x4000a0 0x0 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'x64')).to.deep.equal({ pathAddress: 0x4000a0n, folderFd: null });
    // arm64: openat is 56; 257 there is another call.
    expect(openCallFrom('56 0xffffffffffffff9c 0x4000a0 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'arm64')).to.deep.equal({ pathAddress: 0x4000a0n, folderFd: null });
    expect(openCallFrom('257 0xffffffffffffff9c 0x4000a0 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'arm64')).to.equal(null);
    expect(openCallFrom('56 0xffffffffffffff9c 0x4000a0 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'x64'), 'fstatfs on x86-64').to.equal(null);
    // Not told: a running thread, one in no call, another call, an unknown processor, a kernel's "0", a null path.
    expect(openCallFrom('running', 'x64')).to.equal(null);
    expect(openCallFrom('-1 0x7ffd1 0x40a8ce', 'x64')).to.equal(null);
    expect(openCallFrom('202 0xc000 0x80 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'x64')).to.equal(null);
    expect(openCallFrom('257 0xffffffffffffff9c 0x4000a0 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'riscv64')).to.equal(null);
    expect(openCallFrom('0', 'x64')).to.equal(null);
    expect(openCallFrom('257 0xffffffffffffff9c 0x0 0x0 0x0 0x0 0x0 0x7ffd1 0x40a8ce', 'x64')).to.equal(null);
    expect(openCallFrom('', 'x64')).to.equal(null);
  });

  it("takes an open's path from its bytes up to the NUL, and an absolute path from a relative one and its folder", function () {
    expect(pathFromBytes(Buffer.from('/w/packages/app/pipe.ts\0garbage after'))).to.equal('/w/packages/app/pipe.ts');
    expect(pathFromBytes(Buffer.from('/w/no/nul/yet')), 'the rest not read').to.equal(null);
    expect(pathFromBytes(Buffer.from('\0'))).to.equal(null);
    expect(pathFromBytes(Buffer.concat([Buffer.from('/w/'), Buffer.from([0xff, 0xfe]), Buffer.from('\0')])), 'no UTF-8: not ours').to.equal(null);
    expect(pathFromBytes(Buffer.concat([Buffer.alloc(4096, 0x61), Buffer.from('\0')])), 'longer than PATH_MAX').to.equal(null);
    expect(pathFromBytes(Buffer.from('/w/a.ts\0').subarray(3)), 'a view into a larger buffer').to.equal('a.ts');
    expect(absoluteOpened('/w/./a/../pipe.ts', () => null)).to.equal('/w/pipe.ts');
    expect(absoluteOpened('a/pipe.ts', () => '/w')).to.equal('/w/a/pipe.ts');
    expect(absoluteOpened('a/pipe.ts', () => null), 'folder not told').to.equal(null);
  });

  it('told which FIFOs esbuild waits on, the watchdog records and releases those alone: no other FIFO of the workspace, nor one outside it, is opened', async function () {
    const outside = tempWorkspace({});
    mkfifo(path.join(outside, 'outside.fifo'));
    const root = tempWorkspace({ 'packages/app/main/index.ts': '', 'packages/tools/readme.md': '' });
    const inGraph = path.join(root, 'packages/app/main/pipe.ts');
    mkfifo(inGraph);
    mkfifo(path.join(root, 'packages/tools/feed'));
    fs.symlinkSync(path.join(outside, 'outside.fifo'), path.join(root, 'packages/app/main/linked.ts'));
    const released = await readerWaitingOn(inGraph);
    const feed = await readerWaitingOn(path.join(root, 'packages/tools/feed'));
    const outsideReader = await readerWaitingOn(path.join(outside, 'outside.fifo'));
    try {
      // A thread told waiting on the FIFO in the graph, one on a link out of the workspace, and one on a regular file.
      const special = createNonRegularFiles(root, 20, () => ({ paths: [inGraph, path.join(root, 'packages/app/main/linked.ts'), path.join(root, 'packages/tools/readme.md')] }));
      await special.watched(async () => {
        while (special.guard() === null) await new Promise((resolve) => setTimeout(resolve, 10));
      });
      expect(special.known()).to.deep.equal([{ file: 'packages/app/main/pipe.ts', kind: 'a FIFO (named pipe)' }]);
      await waitFor(() => !released.neverGivenAWriter(), { what: 'the FIFO waited on released' });
      expect(feed.neverGivenAWriter(), 'a FIFO no thread waits on').to.equal(true);
      expect(outsideReader.neverGivenAWriter(), 'a FIFO outside the workspace').to.equal(true);
    } finally {
      await Promise.all([released.stop(), feed.stop(), outsideReader.stop()]);
    }
  });

  it("on esbuild itself: the FIFO of the graph its build waits on is refused; another FIFO of the workspace, in no module's graph, is never opened", async function () {
    this.timeout(30_000);
    const root = tempWorkspace({ 'packages/app/main/index.ts': "import { value } from './pipe.ts';\nexport const main = value;\n", 'packages/tools/index.ts': '' });
    mkfifo(path.join(root, 'packages/app/main/pipe.ts'));
    const feed = path.join(root, 'packages/tools/feed');
    mkfifo(feed);
    const reader = await readerWaitingOn(feed);
    try {
      // Where the watchdog's own reads are refused, it can only search: nothing to show here.
      if (!canRead(`/proc/${process.pid}/task/${process.pid}/syscall`)) this.skip();
      // What the watchdog is told, seen by the test (never the walk's answer, true or null).
      const told: FifoWaits[] = [];
      const special = createNonRegularFiles(root, 50, () => (told.push(esbuildFifoWaits()), told.at(-1)!));
      let runs = 0;
      const build = () => {
        runs += 1;
        const guard = special.guard();
        return esbuild.build({ entryPoints: [path.join(root, 'packages/app/main/index.ts')], bundle: true, write: false, logLevel: 'silent', plugins: guard ? [guard] : [] }).then(
          () => null,
          (failure: esbuild.BuildFailure) => failure.errors.map((error) => error.text),
        );
      };
      const errors = await special.watched(build, () => []);
      expect(runs).to.equal(2);
      expect(errors).to.deep.equal(['"packages/app/main/pipe.ts" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there']);
      expect(reader.neverGivenAWriter(), "another program's reader of the other FIFO still waits").to.equal(true);
      expect(special.known().map((known) => known.file), 'no walk: the other FIFO is not even recorded').to.deep.equal(['packages/app/main/pipe.ts']);
      const toldPaths = told.flatMap((waits) => (typeof waits === 'object' && waits !== null ? [waits.paths.map((opened) => fs.realpathSync(opened))] : []));
      expect(toldPaths, 'told the path, once').to.deep.equal([[fs.realpathSync(path.join(root, 'packages/app/main/pipe.ts'))]]);
    } finally {
      await reader.stop();
    }
  });

  it("on esbuild itself: a thread waiting in a FIFO's open is told by its path, and where the call cannot be read (a processor not known) by true, so the walk runs", async function () {
    this.timeout(30_000);
    if (!canRead(`/proc/${process.pid}/task/${process.pid}/syscall`)) this.skip();
    const root = tempWorkspace({ 'main/index.ts': "import { value } from './pipe.ts';\nexport const main = value;\n" });
    const pipe = path.join(root, 'main/pipe.ts');
    mkfifo(pipe);
    const building = esbuild.build({ entryPoints: [path.join(root, 'main/index.ts')], bundle: true, write: false, logLevel: 'silent' }).then(
      () => 'built',
      () => 'failed',
    );
    try {
      const told = await waitFor(() => {
        const waits = esbuildFifoWaits();
        return typeof waits === 'object' && waits !== null && waits;
      }, { what: "esbuild's wait told by its path" });
      expect(told.paths.map((opened) => fs.realpathSync(opened))).to.deep.equal([fs.realpathSync(pipe)]);
      expect(esbuildFifoWaits('riscv64')).to.equal(true);
    } finally {
      // Released by the test (ENXIO: esbuild not in its open, nothing to release).
      try {
        fs.closeSync(fs.openSync(pipe, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // the failure above is the test's
      }
      await building;
    }
  });

  it('the search never learns nor opens a special file a link leads to outside the workspace', async function () {
    const outside = tempWorkspace({});
    const outsideFifo = path.join(outside, 'outside.fifo');
    mkfifo(outsideFifo);
    const root = tempWorkspace({ 'packages/app/main/index.ts': '' });
    fs.symlinkSync(outsideFifo, path.join(root, 'packages/app/main/linked'));
    const special = createNonRegularFiles(root, 20, () => null);
    let turns = 0;
    await special.watched(async () => {
      // Long enough for several searches, each of which looks at the link.
      while (turns++ < 10) await new Promise((resolve) => setTimeout(resolve, 30));
      return null;
    });
    expect(special.generation()).to.equal(0);
    expect(special.guard()).to.equal(null);
  });

  it('the engine: a FIFO a relative import reaches outside the package is refused, the build ends', async function () {
    this.timeout(30_000);
    const root = tempWorkspace({ 'app/main/index.ts': "import { value } from '../../shared/pipe.ts';\nexport const main = value;\n", 'app/package.json': '{"name":"@t/app"}' });
    fs.mkdirSync(path.join(root, 'shared'));
    mkfifo(path.join(root, 'shared/pipe.ts'));
    const engine = createEsbuildEngine({ root });
    try {
      const [main] = await engine.bundle([appTarget('main', { package: { name: '@t/app', dir: 'app' } })], developmentVariant('browser'));
      expect(main!.code).to.equal(null);
      expect(main!.errors.map((error) => error.message)).to.deep.equal(['"shared/pipe.ts" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there']);
    } finally {
      await engine.dispose();
    }
  });

  it('the engine: a tsconfig.json or package.json esbuild would read that is a FIFO ends its build, then refuses the module before esbuild runs', async function () {
    this.timeout(30_000);
    const root = tempWorkspace({ 'app/main/index.ts': 'export const main = 1;\n', 'app/other/index.ts': 'export const other = 2;\n' });
    mkfifo(path.join(root, 'app/main/tsconfig.json'));
    const engine = createEsbuildEngine({ root });
    try {
      const [main] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
      expect(main!.errors.map((error) => [error.message, error.file])).to.deep.equal([
        ['"app/main/tsconfig.json" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there', 'app/main/tsconfig.json'],
      ]);
      expect(main!.inputs).to.include('app/main/tsconfig.json');
      const rebuilt = await engine.rebuild(appTarget('main'), developmentVariant('browser'));
      expect(rebuilt.errors.map((error) => error.file)).to.deep.equal(['app/main/tsconfig.json']);
      // The root's package.json is read by every build.
      mkfifo(path.join(root, 'package.json'));
      const [other] = await engine.bundle([appTarget('other')], developmentVariant('browser'));
      expect(other!.errors.map((error) => error.file)).to.deep.equal(['package.json']);
      fs.rmSync(path.join(root, 'package.json'));
      const [again] = await engine.bundle([appTarget('other')], developmentVariant('browser'));
      expect(again!.errors, 'a regular file (or none) in its place builds').to.deep.equal([]);
    } finally {
      await engine.dispose();
    }
  });

  it('the engine: a special config in a folder a relative import leads into is refused in our words, and later builds never open it again; a regular file in its place builds', async function () {
    this.timeout(30_000);
    const root = tempWorkspace({
      'app/main/index.ts': "import { x } from '../../lib/x.ts';\nexport const main = x;\n",
      'app/other/index.ts': 'export const other = 2;\n',
      'lib/x.ts': 'export const x = 1;\n',
    });
    const config = path.join(root, 'lib/tsconfig.json');
    mkfifo(config);
    const refusal = [['"lib/tsconfig.json" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there', 'lib/tsconfig.json']];
    const said = (result: BundleResult) => result.errors.map((error) => [error.message, error.file]);
    const engine = createEsbuildEngine({ root });
    try {
      // esbuild waits in the config's open until the watchdog releases it; the run done again says so in our words.
      const [main, other] = await engine.bundle([appTarget('main'), appTarget('other')], developmentVariant('browser'));
      expect(said(main!)).to.deep.equal(refusal);
      expect(main!.inputs).to.include.members(['app/main/index.ts', 'lib/tsconfig.json']);
      expect(other!.errors).to.deep.equal([]);
      const writer = await writerWaitingOn(config);
      try {
        // Nothing changed but the config: refused before esbuild runs.
        expect(said(await engine.rebuild(appTarget('main'), developmentVariant('browser'), undefined, { inputs: main!.inputs, changed: [], code: null }))).to.deep.equal(refusal);
        // Its source changed (or not told): esbuild runs, and the relative import into the folder is refused before it resolves there.
        expect(said(await engine.rebuild(appTarget('main'), developmentVariant('browser'), undefined, { inputs: main!.inputs, changed: ['app/main/index.ts'], code: null }))).to.deep.equal(refusal);
        expect(said((await engine.bundle([appTarget('main')], productionVariant('browser')))[0]!)).to.deep.equal(refusal);
        expect(writer.neverOpenedByAReader(), 'no build opened the config again').to.equal(true);
      } finally {
        await writer.stop();
      }
      fs.rmSync(config);
      fs.writeFileSync(config, '{}\n');
      const fixed = await engine.rebuild(appTarget('main'), developmentVariant('browser'), undefined, { inputs: main!.inputs, changed: ['lib/tsconfig.json'], code: null });
      expect(fixed.errors, 'a regular file in its place builds').to.deep.equal([]);
      expect(fixed.code).to.not.equal(null);
    } finally {
      await engine.dispose();
    }
  });

  it('the engine: a special config in a folder a tsconfig mapping leads into (no relative import to refuse) refuses the module before esbuild runs, while its sources are unchanged', async function () {
    this.timeout(30_000);
    const root = tempWorkspace({
      'app/main/tsconfig.json': JSON.stringify({ compilerOptions: { paths: { '@lib/*': ['../../lib/*'] } } }),
      'app/main/index.ts': "import { x } from '@lib/x.ts';\nexport const main = x;\n",
      'lib/x.ts': 'export const x = 1;\n',
    });
    const config = path.join(root, 'lib/package.json');
    mkfifo(config);
    const refusal = [['"lib/package.json" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there', 'lib/package.json']];
    const said = (result: BundleResult) => result.errors.map((error) => [error.message, error.file]);
    const engine = createEsbuildEngine({ root });
    try {
      const [main] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
      expect(said(main!)).to.deep.equal(refusal);
      const writer = await writerWaitingOn(config);
      try {
        expect(said(await engine.rebuild(appTarget('main'), developmentVariant('browser'), undefined, { inputs: main!.inputs, changed: [], code: null }))).to.deep.equal(refusal);
        expect(writer.neverOpenedByAReader(), 'esbuild never ran to open it').to.equal(true);
      } finally {
        await writer.stop();
      }
    } finally {
      await engine.dispose();
    }
  });

  it("the module boundaries plugin's inner build of another module refuses a known special file too", async function () {
    this.timeout(20_000);
    const root = tempWorkspace({ 'packages/app/main/index.ts': "export { card } from '../card/card.ts';\n", 'packages/app/card/card.ts': "import { value } from './pipe.ts';\nexport const card = value;\n" });
    mkfifo(path.join(root, 'packages/app/card/pipe.ts'));
    const special = createNonRegularFiles(root, 20, () => null);
    await special.watched(async () => {
      while (special.guard() === null) await new Promise((resolve) => setTimeout(resolve, 10));
    });
    const target = { specifier: '@acme/app/main', subpath: 'main', dir: 'packages/app/main', entry: 'packages/app/main/index.ts', assets: [], platforms: ['browser'], workspace: { packages: ['@acme/app'], entries: { 'packages/app/main/index.ts': '@acme/app/main', 'packages/app/card/card.ts': '@acme/app/card' }, key: '' } } as unknown as BundleTarget;
    const outcome = await esbuild
      .build({ absWorkingDir: root, entryPoints: [path.join(root, target.entry)], bundle: true, write: false, format: 'esm', logLevel: 'silent', plugins: [special.guard()!, moduleBoundariesPlugin(root, [target])] })
      .then((result) => result.outputFiles[0]!.text, (failure: esbuild.BuildFailure) => failure.errors.map((error) => error.text));
    // The other module's names could not be read (its build refused the FIFO): imported as written.
    expect(outcome).to.contain('import { card } from "@acme/app/card";');
  });
});
