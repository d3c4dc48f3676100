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
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

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
    expect(root.scripts.start).to.match(/CORE_SERVICE_EXTENSIONS=@core-js\/packages\/development .*core run$/);
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
    expect(refused.stderr).to.equal(`core init: ${path.join(parent, 'taken')} is not empty (it holds file.txt): core init writes only into an empty or new directory\n`);
    expect(fs.readdirSync(path.join(parent, 'taken'))).to.deep.equal(['file.txt']);
    expect((await runCore(parent, ['init', 'a', 'b'])).code).to.equal(2);
  });

  it('prints its help', async () => {
    const help = await runCore(tempWorkspace(), ['init', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('Usage: core init [DIR]');
  });
});
