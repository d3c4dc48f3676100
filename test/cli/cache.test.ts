// `core run` keeps the build cache unless --no-cache; `core cache` shows where it is and
// `--clear` removes it (README "The build cache").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { killAllCores, runCore, startCore } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';

describe('core run and core cache', function () {
  let cacheDir: string;
  beforeEach(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cli-cache-'));
  });
  afterEach(() => fs.rmSync(cacheDir, { recursive: true, force: true }));
  after(() => killAllCores());

  it('keeps the cache by default: a restart says its modules come from it', async function () {
    const root = fixtureWorkspace('basic');
    const env = { CORE_CACHE_DIR: cacheDir };
    const first = await startCore(['--port', '0'], { cwd: root, env });
    expect((await get(first.url, '/state')).status).to.equal(200);
    await waitFor(() => fs.existsSync(path.join(cacheDir, 'builds.json')), { what: 'the cache written' });
    expect((await first.stop()).code).to.equal(0);

    const second = await startCore(['--port', '0'], { cwd: root, env });
    try {
      await waitFor(() => /ready in \d+ ms/.test(second.output.stdout), { what: 'the ready line' });
      expect(second.output.stdout).to.match(/ready in \d+ ms {2}\(5 modules, 5 from the build cache, 0 invalid\)/);
    } finally {
      await second.stop();
    }
    const shown = await runCore(['cache'], { cwd: root, env });
    expect(shown.code).to.equal(0);
    expect(shown.stdout).to.match(new RegExp(`^${cacheDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  \\d+ files, \\d+(\\.\\d)? k?B\\n$`));
    const cleared = await runCore(['cache', '--clear'], { cwd: root, env });
    expect(cleared.stdout).to.equal(`removed ${cacheDir}\n`);
    expect(fs.existsSync(cacheDir)).to.equal(false);
  });

  it('starts on a damaged cache, says so in one line, and writes a good one', async function () {
    const root = fixtureWorkspace('basic');
    const env = { CORE_CACHE_DIR: cacheDir };
    const index = path.join(cacheDir, 'builds.json');
    const first = await startCore(['--port', '0'], { cwd: root, env });
    await waitFor(() => fs.existsSync(index), { what: 'the cache written' });
    expect((await first.stop()).code).to.equal(0);
    const entries = (JSON.parse(fs.readFileSync(index, 'utf8')) as { entries: unknown[] }).entries;
    const damaged = fs.readFileSync(index, 'utf8').replace('"entries":[{', '"entries":[null,{');
    fs.writeFileSync(index, damaged);

    const second = await startCore(['--port', '0'], { cwd: root, env });
    expect((await get(second.url, '/state')).status).to.equal(200);
    await waitFor(() => fs.readFileSync(index, 'utf8') !== damaged, { what: 'the cache written anew' });
    expect((await second.stop()).code).to.equal(0);
    const told = second.output.stderr.split('\n').filter((line) => line.includes('build cache'));
    expect(told).to.deep.equal([`core: the build cache in ${cacheDir} is damaged (${index} was changed after it was written (its checksum differs)); what it cannot vouch for is built again and the cache written anew`]);

    const third = await startCore(['--port', '0'], { cwd: root, env });
    try {
      await waitFor(() => /ready in \d+ ms/.test(third.output.stdout), { what: 'the ready line' });
      expect(third.output.stdout).to.match(/\(5 modules, 5 from the build cache, 0 invalid\)/);
      expect(third.output.stderr).to.not.include('build cache');
    } finally {
      await third.stop();
    }
    expect((JSON.parse(fs.readFileSync(index, 'utf8')) as { entries: unknown[] }).entries).to.have.length(entries.length);
  });

  it("counts and removes only the cache's own files when CORE_CACHE_DIR names the workspace itself: every other file stays, a folder named outputs included", async function () {
    const root = fixtureWorkspace('basic');
    const env = { CORE_CACHE_DIR: '.' };
    const before = fs.readdirSync(root).sort();
    fs.mkdirSync(path.join(root, 'outputs'));
    fs.writeFileSync(path.join(root, 'outputs', 'keep.txt'), 'the user\'s');
    const core = await startCore(['--port', '0'], { cwd: root, env });
    expect((await get(core.url, '/state')).status).to.equal(200);
    await waitFor(() => fs.existsSync(path.join(root, 'builds.json')) && fs.readdirSync(path.join(root, 'outputs')).some((name) => name.endsWith('.pack')), { what: 'the cache written' });
    expect((await core.stop()).code).to.equal(0);
    const packs = fs.readdirSync(path.join(root, 'outputs')).filter((name) => name.endsWith('.pack'));

    const shown = await runCore(['cache'], { cwd: root, env });
    expect(shown.code).to.equal(0);
    const others = [...before, 'outputs/keep.txt'].sort();
    expect(shown.stdout).to.equal(`${root}  ${1 + packs.length} files, ${shown.stdout.split(', ')[1]!.split('\n')[0]}\n${others.length} entries are not the build cache's (${others.slice(0, 3).join(', ')}${others.length > 3 ? `, and ${others.length - 3} more` : ''}); --clear leaves them\n`);
    const cleared = await runCore(['cache', '--clear'], { cwd: root, env });
    expect(cleared.code).to.equal(0);
    expect(cleared.stdout).to.match(new RegExp(`^removed ${1 + packs.length} files of the build cache \\(.+\\) from ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    expect(fs.readdirSync(root).sort()).to.deep.equal([...before, 'outputs'].sort());
    expect(fs.readdirSync(path.join(root, 'outputs'))).to.deep.equal(['keep.txt']);
    expect(fs.readFileSync(path.join(root, 'core.json'), 'utf8')).to.include('packages');
  });

  it('refuses, with no stack trace and nothing removed, a CORE_CACHE_DIR that names a regular file', async function () {
    const root = fixtureWorkspace('basic');
    const file = path.join(cacheDir, 'a-file');
    fs.writeFileSync(file, 'the user\'s');
    const env = { CORE_CACHE_DIR: file };
    for (const args of [['cache'], ['cache', '--clear']]) {
      const told = await runCore(args, { cwd: root, env });
      expect(told.code, args.join(' ')).to.equal(1);
      expect(told.stderr).to.equal(`core cache: the build cache's place ${file} (CORE_CACHE_DIR) is a regular file, not a directory: nothing there is the cache's, nothing is removed, and core run keeps no build cache until it names a directory\n`);
      expect(fs.readFileSync(file, 'utf8')).to.equal("the user's");
    }
  });

  it('neither reads nor writes it with --no-cache', async function () {
    const root = fixtureWorkspace('basic');
    const core = await startCore(['--port', '0', '--no-cache'], { cwd: root, env: { CORE_CACHE_DIR: cacheDir } });
    expect((await get(core.url, '/state')).status).to.equal(200);
    expect((await core.stop()).code).to.equal(0);
    expect(fs.readdirSync(cacheDir)).to.deep.equal([]);
    expect(core.output.stdout).to.not.include('build cache');
  });
});
