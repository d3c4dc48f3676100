// The one-shot commands of `core`: help and version, and `core select` (README "The command line"), which a
// running service picks up before its next answer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { killAllCores, runCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { PROJECT_DIR, tempWorkspace } from '../helpers/workspace.js';
import type { Preview } from '../../src/development/preview.js';

const VERSION = (JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { version: string }).version;

describe('core help and version', function () {
  after(async function () {
    await killAllCores();
  });

  it('core --help lists every command and exits 0', async function () {
    const result = await runCore(['--help'], { cwd: tempWorkspace() });
    expect(result.code).to.equal(0);
    for (const command of ['run', 'select', 'replay', 'dist', 'init']) expect(result.stdout).to.match(new RegExp(`core ${command}\\b`));
    expect(result.stdout).to.include('--version');
  });

  it('core run --help prints the options of run and exits 0, outside a workspace too', async function () {
    const result = await runCore(['run', '--help'], { cwd: tempWorkspace() });
    expect(result.code).to.equal(0);
    expect(result.stdout).to.include('Usage: core run');
    for (const option of ['--port', '--host', '--allowed-host', '--record', 'CORE_SERVICE_EXTENSIONS', 'CORE_CDN_ORIGIN']) expect(result.stdout).to.include(option);
  });

  it('core --version prints the version of the package', async function () {
    const result = await runCore(['--version'], { cwd: tempWorkspace() });
    expect(result.code).to.equal(0);
    expect(result.stdout).to.equal(`${VERSION}\n`);
  });

  it('exits 2 on an unknown command in one line, naming it and the commands', async function () {
    const result = await runCore(['frobnicate'], { cwd: tempWorkspace() });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.equal('core: unknown command "frobnicate" (core --help lists the commands: run, select, replay, dist, init, cache)\n');
    expect(result.stdout).to.equal('');
  });

  it('names the command a typo most likely meant', async function () {
    expect((await runCore(['rnu'], { cwd: tempWorkspace() })).stderr).to.include('did you mean "core run"?');
    expect((await runCore(['dis'], { cwd: tempWorkspace() })).stderr).to.include('did you mean "core dist"?');
  });

  it('says what the README says of DIR, cache push, the exit codes, the page of dist and the watch limit', async function () {
    const cwd = tempWorkspace();
    const top = (await runCore(['--help'], { cwd })).stdout;
    expect(top).to.match(/core run +serve the workspace in DIR \(default: the current directory\)/);
    expect(top).to.match(/core cache +.*\(push\)/);
    expect(top).to.include('1 failure (an invalid module in dist, a port in use, an unreadable log)');
    expect((await runCore(['dist', '--help'], { cwd })).stdout).to.match(/DIR\/index\.html +the page of the preview entry/);
    expect((await runCore(['run', '--help'], { cwd })).stdout).to.match(/CORE_WATCH_LIMIT +the most directories the watcher watches \(default 50000\)/);
  });

  it("core run --help's usage line names every option", async function () {
    const usageLines = (await runCore(['run', '--help'], { cwd: tempWorkspace() })).stdout.split('\n\n')[0]!;
    for (const option of ['[DIR]', '--dev', '--port', '--strict-port', '--host', '--allowed-host', '--record', '--cdn', '--log-level', '--no-cache']) expect(usageLines, option).to.include(option);
  });
});

describe('core select', function () {
  let root: string;
  const selection = () => path.join(root, '.core', 'selection.json');

  beforeEach(function () {
    root = fixtureWorkspace('basic');
  });
  after(async function () {
    await killAllCores();
  });

  it('records the packages in development in .core/selection.json', async function () {
    const result = await runCore(['select', '@acme/app'], { cwd: root });
    expect(result.code).to.equal(0);
    expect(JSON.parse(fs.readFileSync(selection(), 'utf8'))).to.deep.equal({ packages: ['@acme/app'] });
    expect(result.stdout).to.include('@acme/app');
    expect(result.stdout, 'says which packages come from the CDN').to.include('@acme/lib');
  });

  it('--all puts every package back in development', async function () {
    expect((await runCore(['select', '@acme/lib'], { cwd: root })).code).to.equal(0);
    expect(fs.existsSync(selection())).to.equal(true);
    const result = await runCore(['select', '--all'], { cwd: root });
    expect(result.code).to.equal(0);
    expect(fs.existsSync(selection())).to.equal(false);
  });

  it('exits 2 on an unknown package, naming it and the known ones, and leaves the selection alone', async function () {
    expect((await runCore(['select', '@acme/app'], { cwd: root })).code).to.equal(0);
    const result = await runCore(['select', '@acme/nothing'], { cwd: root });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('@acme/nothing');
    expect(result.stderr).to.include('@acme/lib');
    expect(JSON.parse(fs.readFileSync(selection(), 'utf8'))).to.deep.equal({ packages: ['@acme/app'] });
  });

  it("exits 2 on a package's directory typed for its name, naming the package to type", async function () {
    const result = await runCore(['select', './packages/lib/'], { cwd: root });
    expect(result.code).to.equal(2);
    expect(result.stderr.trim().split('\n')).to.have.length(1);
    expect(result.stderr).to.include('"./packages/lib/" is the directory of @acme/lib');
    expect(fs.existsSync(selection())).to.equal(false);
  });

  it('exits 2 without package names, with --all and names together, and outside a workspace', async function () {
    expect((await runCore(['select'], { cwd: root })).code).to.equal(2);
    expect((await runCore(['select', '--all', '@acme/app'], { cwd: root })).code).to.equal(2);
    expect((await runCore(['select', '--bogus'], { cwd: root })).code).to.equal(2);
    const outside = await runCore(['select', '@acme/app'], { cwd: tempWorkspace() });
    expect(outside.code).to.equal(2);
    expect(outside.stderr).to.include('core.json');
    expect(fs.existsSync(selection())).to.equal(false);
  });

  it('--all clears a selection that is a directory, a FIFO or a link, where the service reads none; a new choice replaces one', async function () {
    const oneLine = (stderr: string) => expect(stderr.trim().split('\n'), stderr).to.have.length(1);
    fs.mkdirSync(selection(), { recursive: true });
    const all = await runCore(['select', '--all'], { cwd: root });
    expect({ code: all.code, stdout: all.stdout, stderr: all.stderr }).to.deep.equal({ code: 0, stdout: 'every workspace package is in development\n', stderr: '' });
    expect(fs.existsSync(selection()), 'the directory is gone').to.equal(false);

    fs.mkdirSync(selection());
    expect((await runCore(['select', '@acme/app'], { cwd: root })).code).to.equal(0);
    expect(JSON.parse(fs.readFileSync(selection(), 'utf8'))).to.deep.equal({ packages: ['@acme/app'] });

    fs.rmSync(selection());
    fs.symlinkSync('/dev/zero', selection());
    expect((await runCore(['select', '--all'], { cwd: root })).code).to.equal(0);
    expect(fs.existsSync('/dev/zero'), 'the link is removed, not where it leads').to.equal(true);
    expect(() => fs.lstatSync(selection())).to.throw(/ENOENT/);

    execFileSync('mkfifo', [selection()]);
    expect((await runCore(['select', '--all'], { cwd: root })).code).to.equal(0);
    expect(() => fs.lstatSync(selection())).to.throw(/ENOENT/);

    // A directory holding files is not the command's to remove: told in one line, exit 1.
    fs.mkdirSync(selection());
    fs.writeFileSync(path.join(selection(), 'notes.txt'), 'mine');
    for (const args of [['select', '--all'], ['select', '@acme/app']]) {
      const refused = await runCore(args, { cwd: root });
      expect(refused.code, args.join(' ')).to.equal(1);
      oneLine(refused.stderr);
      expect(refused.stderr).to.include('.core/selection.json is a directory holding files').and.include('remove it');
    }
    expect(fs.readFileSync(path.join(selection(), 'notes.txt'), 'utf8')).to.equal('mine');
    expect(fs.readdirSync(path.dirname(selection())).sort()).to.deep.equal(['selection.json']);

    fs.rmSync(path.dirname(selection()), { recursive: true });
    fs.writeFileSync(path.dirname(selection()), 'not a directory');
    const blocked = await runCore(['select', '@acme/app'], { cwd: root });
    expect(blocked.code).to.equal(1);
    oneLine(blocked.stderr);
    expect(blocked.stderr).to.include('.core is not a directory');
  });

  it('is picked up by a running service before its next answer', async function () {
    const service = await serve(root);
    try {
      const entry = async () => (await service.get('/preview/entry.json')).json<Preview>();
      // Built outputs are named by content hash (`&v=<hash>`): the address, not its token, is the point here.
      const address = async () => (await entry()).imports['@acme/lib/format']!.replace(/&v=[A-Za-z0-9_-]{22}$/, '');
      expect(await address()).to.equal(`/m/@acme/lib@1.2.0/modules/format?${DEV}`);
      expect((await runCore(['select', '@acme/app'], { cwd: root })).code).to.equal(0);
      expect((await entry()).imports['@acme/lib/format']).to.equal('https://cdn.test/@acme/lib@1.2.0/format');
      expect((await runCore(['select', '--all'], { cwd: root })).code).to.equal(0);
      expect(await address()).to.equal(`/m/@acme/lib@1.2.0/modules/format?${DEV}`);
    } finally {
      await service.close();
    }
  });
});
