// A file of the build cache that is not a regular file (README "The build cache", "Damage"; README
// "Files that are not files"): `core run` starts, never waiting on it, serves the bytes a start
// without the cache serves, says the damage in one line, and a later write replaces it. Each start
// is a child process: a start that waits on a FIFO (blocked in a synchronous open, deaf to signals)
// fails the test by `startCore`'s wait for its URL and is killed, and a read of a device that never
// ends is killed with it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { killAllCores, runCore, startCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';

const MAIN = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
const FORMAT = `/m/@acme/lib@1.2.0/modules/format?${DEV}`;

/** Puts what `shape` names at `file`, in place of what is there; returns what to undo after the test (a socket's listener). */
type Shape = (file: string) => Promise<() => void>;

const shapes: [string, string, Shape][] = [
  ['a FIFO (named pipe)', 'a FIFO', async (file) => (execFileSync('mkfifo', [file]), () => {})],
  // Never followed: what it leads to is not asked (a device never ends, a file elsewhere is not the cache's).
  ['a symbolic link', 'a symbolic link to /dev/zero', async (file) => (fs.symlinkSync('/dev/zero', file), () => {})],
  [
    'a socket',
    'a socket',
    (file) =>
      new Promise((resolve) => {
        const server = net.createServer();
        server.listen(file, () => resolve(() => server.close()));
      }),
  ],
];

describe('core run on a build cache whose files are not regular files', function () {
  this.timeout(180_000);
  const made: string[] = [];
  let root: string;
  let template: string;
  /** What a start without the cache serves. */
  let reference: string[];
  const cleanups: (() => void)[] = [];
  const env = (cacheDir: string) => ({ CORE_CACHE_DIR: cacheDir });
  const index = (cacheDir: string) => path.join(cacheDir, 'builds.json');
  const cacheLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('build cache'));
  /** Each module's status and bytes. */
  const served = async (url: string) =>
    Promise.all(
      [MAIN, FORMAT].map(async (address) => {
        const { status, text } = await get(url, address);
        return `${status} ${text}`;
      }),
    );

  before(async function () {
    root = fixtureWorkspace('basic');
    template = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cli-cache-'));
    made.push(template);
    const first = await startCore(['--port', '0'], { cwd: root, env: env(template) });
    reference = await served(first.url);
    await waitFor(() => fs.existsSync(index(template)), { what: 'the cache written' });
    expect((await first.stop()).code).to.equal(0);
    expect(reference.every((answer) => answer.startsWith('200 ') && answer.length > 100)).to.equal(true);
  });
  afterEach(async () => {
    await killAllCores();
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the cache the first start wrote, in a new directory. */
  function copyOfCache(): string {
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cli-cache-'));
    made.push(cacheDir);
    fs.cpSync(template, cacheDir, { recursive: true });
    return cacheDir;
  }

  /** Starts on `cacheDir`, checks what is served and the one damage line naming `damaged`, and waits for the index written anew. */
  async function startsDamaged(cacheDir: string, damaged: RegExp) {
    const core = await startCore(['--port', '0'], { cwd: root, env: env(cacheDir) });
    expect((await get(core.url, '/state')).status).to.equal(200);
    expect(await served(core.url)).to.deep.equal(reference);
    await waitFor(() => /ready in \d+ ms/.test(core.output.stdout), { what: 'the ready line' });
    expect(core.output.stdout).to.match(/\(5 modules, 0 invalid\)/);
    // Written anew: the index a regular file again, naming packs that are regular files.
    await waitFor(
      () => {
        // Never opened before it is a regular file: a FIFO would hold this test's own process.
        const isFile = (file: string) => fs.lstatSync(file, { throwIfNoEntry: false })?.isFile() === true;
        if (!isFile(index(cacheDir))) return false;
        const { packs } = JSON.parse(fs.readFileSync(index(cacheDir), 'utf8')) as { packs: { file: string }[] };
        return packs.length > 0 && packs.every(({ file }) => isFile(path.join(cacheDir, 'outputs', file)));
      },
      { what: 'the cache written anew' },
    );
    expect((await core.stop()).code).to.equal(0);
    const told = cacheLines(core.output.stderr);
    expect(told).to.have.length(1, core.output.stderr);
    expect(told[0]).to.match(new RegExp(`^core: the build cache in ${escape(cacheDir)} is damaged \\(${damaged.source}\\); what it cannot vouch for is built again and the cache written anew$`));
  }

  /** The next start restores every module from the cache written anew, and says nothing of it. */
  async function restoresAfterward(cacheDir: string) {
    const core = await startCore(['--port', '0'], { cwd: root, env: env(cacheDir) });
    expect(await served(core.url)).to.deep.equal(reference);
    await waitFor(() => /ready in \d+ ms/.test(core.output.stdout), { what: 'the ready line' });
    expect(core.output.stdout).to.match(/\(5 modules, 5 from the build cache, 0 invalid\)/);
    expect((await core.stop()).code).to.equal(0);
    expect(cacheLines(core.output.stderr)).to.deep.equal([]);
  }

  for (const [kind, shapeName, shape] of shapes) {
    it(`builds.json made ${shapeName}: starts, serves the same bytes, says "${kind}" once, and writes a good index over it`, async () => {
      const cacheDir = copyOfCache();
      fs.rmSync(index(cacheDir));
      cleanups.push(await shape(index(cacheDir)));
      await startsDamaged(cacheDir, new RegExp(`${escape(index(cacheDir))} is ${escape(kind)}, not a regular file`));
      expect(fs.lstatSync(index(cacheDir)).isFile()).to.equal(true);
      await restoresAfterward(cacheDir);
    });

    it(`every pack made ${shapeName}: starts, serves the same bytes, says "${kind}" once, and writes a pack the index names instead`, async () => {
      const cacheDir = copyOfCache();
      const outputs = path.join(cacheDir, 'outputs');
      const packs = fs.readdirSync(outputs).filter((name) => name.endsWith('.pack'));
      expect(packs).to.not.deep.equal([]);
      for (const pack of packs) {
        fs.rmSync(path.join(outputs, pack));
        cleanups.push(await shape(path.join(outputs, pack)));
      }
      await startsDamaged(cacheDir, new RegExp(`${escape(outputs)}/[0-9a-f]{16}\\.pack is ${escape(kind)}, not a regular file`));
      await restoresAfterward(cacheDir);
    });
  }

  it('builds.json made a directory: starts, serves the same bytes, says so once, and says the index cannot be written there', async () => {
    const cacheDir = copyOfCache();
    fs.rmSync(index(cacheDir));
    fs.mkdirSync(index(cacheDir));
    const core = await startCore(['--port', '0'], { cwd: root, env: env(cacheDir) });
    expect(await served(core.url)).to.deep.equal(reference);
    await waitFor(() => cacheLines(core.output.stderr).length === 2, { what: 'the damage and the failed write said' });
    expect((await core.stop()).code).to.equal(0);
    const [damage, unwritten] = cacheLines(core.output.stderr);
    expect(damage).to.equal(`core: the build cache in ${cacheDir} is damaged (${index(cacheDir)} is a directory, not a regular file); what it cannot vouch for is built again and the cache written anew`);
    expect(unwritten).to.match(/cannot be written/);
    const shown = await runCore(['cache'], { cwd: root, env: env(cacheDir) });
    expect(shown.stdout.split('\n')[1]).to.equal('damaged: builds.json is a directory, not a regular file; core run builds every module until it is removed');
  });

  it('core cache names a builds.json that is a FIFO, and a pack that is a link, instead of saying the cache is empty', async () => {
    const cacheDir = copyOfCache();
    const [pack] = fs.readdirSync(path.join(cacheDir, 'outputs'));
    fs.rmSync(index(cacheDir));
    execFileSync('mkfifo', [index(cacheDir)]);
    fs.rmSync(path.join(cacheDir, 'outputs', pack!));
    fs.symlinkSync('/dev/zero', path.join(cacheDir, 'outputs', pack!));
    const shown = await runCore(['cache'], { cwd: root, env: env(cacheDir) });
    expect(shown.code).to.equal(0);
    const [size, ...damaged] = shown.stdout.split('\n');
    expect(size).to.match(new RegExp(`^${escape(cacheDir)}  \\d+ files?, \\d+(\\.\\d)? k?B$`));
    expect(damaged).to.deep.equal([
      'damaged: builds.json is a FIFO (named pipe), not a regular file; core run builds again what it held and writes the cache anew',
      `damaged: outputs/${pack} is a symbolic link, not a regular file; core run builds again what it held and writes the cache anew`,
      '',
    ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
