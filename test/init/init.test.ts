// `core init`: the template workspace, written into an empty directory and nowhere else,
// ready for `core run`.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { DirectoryNotEmpty, initWorkspace, TEMPLATE_DIR } from '../../src/init/init-workspace.js';
import { renderTemplate, TEMPLATE_NAME, TEMPLATE_VERSION, workspaceName } from '../../src/init/render-template.js';
import { VERSION } from '../../src/version.js';
import { installCore } from '../dist/installed.js';
import { runCore } from '../dist/run-core.js';
import { nextSteps } from '../../src/cli/init.js';
import { serve } from '../helpers/service.js';
import { PROJECT_DIR, tempWorkspace } from '../helpers/workspace.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { spawn, spawnSync } from 'node:child_process';

const TEMPLATE_FILES = ['.gitignore', 'README.md', 'core.json', 'package.json', 'packages/app/main/index.ts', 'packages/app/main/module.json', 'packages/app/package.json'];
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('workspaceName', () => {
  it('makes a package scope and custom element prefix of a directory name', () => {
    expect(workspaceName('my-site')).to.equal('my-site');
    expect(workspaceName('My Site!')).to.equal('my-site');
    expect(workspaceName('2024_Shop.v2')).to.equal('shop-v2');
    expect(workspaceName('---')).to.equal('my-workspace');
    expect(workspaceName('')).to.equal('my-workspace');
    expect(workspaceName('x'.repeat(80))).to.have.length(50);
  });

  it('takes the marks off letters and spells the others in Latin letters, never dropping a letter', () => {
    expect(workspaceName('ünïcode')).to.equal('unicode');
    expect(workspaceName('Café Crème')).to.equal('cafe-creme');
    expect(workspaceName('Straße')).to.equal('strasse');
    expect(workspaceName('Øresund')).to.equal('oresund');
    expect(workspaceName('日本')).to.equal('my-workspace');
  });
});

describe('renderTemplate', () => {
  it('puts the name and the version in, and restores .gitignore, which npm would not ship', () => {
    const files = renderTemplate(
      [
        { path: 'gitignore', text: 'dist/\n' },
        { path: `packages/${TEMPLATE_NAME}/package.json`, text: `{"name": "@${TEMPLATE_NAME}/app", "core": "^${TEMPLATE_VERSION}"}` },
      ],
      { name: 'shop', version: '1.2.3' },
    );
    expect(files).to.deep.equal([
      { path: '.gitignore', text: 'dist/\n' },
      { path: 'packages/shop/package.json', text: '{"name": "@shop/app", "core": "^1.2.3"}' },
    ]);
  });
});

describe('initWorkspace', () => {
  it('writes the template with the directory name, package version 0.1.0 and a devDependency on this package', () => {
    const dir = path.join(tempWorkspace(), 'my-site');
    const result = initWorkspace(dir);
    expect(result).to.deep.equal({ dir, name: 'my-site', files: TEMPLATE_FILES });
    expect(readJson(path.join(dir, 'core.json'))).to.deep.equal({
      $schema: './node_modules/@core-js/packages/schemas/core.schema.json',
      packages: ['packages/app'],
      preview: '@my-site/app/main',
    });
    const root = readJson(path.join(dir, 'package.json'));
    expect(root.devDependencies).to.deep.equal({ '@core-js/packages': `^${VERSION}` });
    expect(root.scripts.start).to.equal('core run --dev --cdn local');
    const pkg = readJson(path.join(dir, 'packages/app/package.json'));
    expect(pkg).to.include({ name: '@my-site/app', version: '0.1.0' });
    expect(pkg.exports).to.deep.equal({ './main': './main/index.ts' });
    const code = fs.readFileSync(path.join(dir, 'packages/app/main/index.ts'), 'utf8');
    expect(code).to.include("customElements.define('my-site-greeting'");
    expect(code).not.to.match(/from ['"]/); // no framework: the module imports nothing
    expect(code).not.to.include('.css');
    for (const file of result.files) expect(fs.readFileSync(path.join(dir, file), 'utf8'), file).not.to.include(TEMPLATE_NAME);
  });

  it('writes into an existing empty directory, or one holding only .git', () => {
    const dir = tempWorkspace();
    fs.mkdirSync(path.join(dir, '.git'));
    expect(initWorkspace(dir).files).to.deep.equal(TEMPLATE_FILES);
  });

  it('refuses a directory that holds anything, and writes nothing', () => {
    const dir = tempWorkspace({ 'notes.txt': 'mine' });
    expect(() => initWorkspace(dir)).to.throw(DirectoryNotEmpty, /is not empty \(it holds notes\.txt\)/);
    expect(fs.readdirSync(dir)).to.deep.equal(['notes.txt']);
  });

  it('ships every template file it reads (package.json "files" holds template/)', () => {
    const pkg = readJson(path.join(TEMPLATE_DIR, '..', 'package.json'));
    expect(pkg.files).to.include('template');
    expect(fs.existsSync(path.join(TEMPLATE_DIR, '.gitignore'))).to.equal(false);
  });

  it('makes a workspace whose /state shows every module valid', async () => {
    const dir = installCore(initWorkspace(path.join(tempWorkspace(), 'demo')).dir);
    const service = await serve(dir);
    const report = await service.report();
    expect(report.diagnostics).to.deep.equal([]);
    expect(report.modules.map((m) => [m.specifier, m.status, m.diagnostics])).to.deep.equal([['@demo/app/main', 'valid', []]]);
    const state = (await service.get('/state')).json();
    expect(state.modules.map((m: { status: string }) => m.status)).to.deep.equal(['valid']);
  });
});

describe('core init', () => {
  it('creates the workspace in the current directory by default', async () => {
    const dir = tempWorkspace();
    const run = await runCore(dir, ['init']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include(`created the workspace ${workspaceName(path.basename(dir))} in .`);
    expect(fs.existsSync(path.join(dir, 'core.json'))).to.equal(true);
  });

  it('exits 1 with a clear message on a non-empty directory, and 2 on two directories', async () => {
    const parent = tempWorkspace({ 'taken/file.txt': 'x' });
    const refused = await runCore(parent, ['init', 'taken']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal(`core init: ${path.join(parent, 'taken')} is not empty (it holds file.txt): name a new or empty directory, such as core init my-site\n`);
    expect(fs.readdirSync(path.join(parent, 'taken'))).to.deep.equal(['file.txt']);
    expect((await runCore(parent, ['init', 'a', 'b'])).code).to.equal(2);
  });

  it('exits 1 in one line when DIR is a file', async () => {
    const parent = tempWorkspace({ afile: 'x' });
    const refused = await runCore(parent, ['init', 'afile']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal(`core init: ${path.join(parent, 'afile')} is a file, not a directory: name a new or empty directory for the workspace\n`);
  });

  it('prints the steps in the order they work, and they work as printed with no registry reachable', async function () {
    this.timeout(120_000);
    const parent = tempWorkspace();
    const created = await runCore(parent, ['init', 'ünïcode']);
    expect(created.code, created.stderr).to.equal(0);
    const dir = path.join(parent, 'ünïcode');
    expect(readJson(path.join(dir, 'packages/app/package.json')).name).to.equal('@unicode/app');
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).to.include('npm install --save-dev /path/to/packages');
    // The lines under "Next:", as a person would paste them (a `#` starts the shell's comment).
    const steps = created.stdout.split('Next:\n')[1]!.split('\n').filter((line) => line.startsWith('  ')).map((line) => line.trim());
    expect(steps[0]!.replace(/'/g, '')).to.equal(`cd ${path.basename(dir)}`);
    // This test runs from a clone, which is on no registry: installing it comes before npm start.
    expect(steps[1]).to.match(new RegExp(`^npm install --save-dev ${PROJECT_DIR.replace(/[\\/]+$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+#`));
    expect(steps.at(-1)).to.match(/^npm start\s+#/);
    // No registry answers: a refused port, so any request fails at once instead of hanging.
    const env = { ...process.env, NODE_OPTIONS: '', npm_config_registry: 'http://127.0.0.1:9/', npm_config_update_notifier: 'false' };
    const install = spawnSync(steps.slice(0, -1).join(' && '), { cwd: parent, shell: true, encoding: 'utf8', env });
    expect(install.status, install.stderr).to.equal(0);
    expect(readJson(path.join(dir, 'package.json')).devDependencies['@core-js/packages']).to.match(/^file:/);
    // npm start, on a free port: the printed step with --port 0 passed on to the script.
    const child = spawn(`${steps.at(-1)!.replace(/\s+#.*$/, '')} -- --port 0`, { cwd: dir, shell: true, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    try {
      const url = await waitFor(() => /^\s*(http:\/\/[^\s/]+\/)\s*$/m.exec(out)?.[1], { what: 'the URL of npm start', timeout: 30_000 });
      const state = await get(url, '/state');
      expect(state.json().modules.map((m: { specifier: string; status: string }) => [m.specifier, m.status])).to.deep.equal([['@unicode/app/main', 'valid']]);
      // The template's start script loads the development extension: the preview is served.
      expect((await get(url, '/preview/')).status).to.equal(200);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('prints `npm install` first where this package came from a registry', () => {
    expect(nextSteps('site', '/home/me/site/node_modules/@core-js/packages')).to.deep.equal(['cd site', 'npm install', 'npm start    # the preview at http://127.0.0.1:4800/preview/']);
    expect(nextSteps('', '/srv/clone/packages')[0]).to.match(/^npm install --save-dev \/srv\/clone\/packages\s+#/);
  });

  it('prints its help', async () => {
    const help = await runCore(tempWorkspace(), ['init', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('Usage: core init [DIR]');
  });
});
