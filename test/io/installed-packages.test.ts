// Installed packages as the local CDN finds them (README "The local CDN", SECURITY.md "The
// local CDN"): only a real `node_modules/<name>` directory is one, and the export names of
// CommonJS are read from the source, never by running it, its re-exports followed inside the package only.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { commonJsExportNames, entryOf, exportedAs, findInstalled, findNestedInstalled, installedCopy, installedVersion } from '../../src/io/installed-packages.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value);

describe('findInstalled', function () {
  it('finds a copy from a directory below, with its real directory', function () {
    const root = tempWorkspace({ 'node_modules/@kit/ui/package.json': json({ name: '@kit/ui', version: '3.0.0' }), 'packages/app/x.txt': '' });
    expect(findInstalled('@kit/ui', path.join(root, 'packages/app'))).to.include({ name: '@kit/ui', version: '3.0.0', dir: path.join(root, 'node_modules/@kit/ui') });
  });

  it('never joins a name npm refuses: `..` finds no package.json above node_modules', function () {
    const root = tempWorkspace({ 'package.json': json({ name: 'ws', version: '0.1.0' }), 'packages/app/package.json': json({ name: 'app', version: '1.0.0' }) });
    for (const name of ['..', '.', '../packages/app', '@kit/../..', 'Upper']) expect(findInstalled(name, path.join(root, 'packages/app')), name).to.equal(null);
  });

  it('refuses a link in node_modules to a directory that is not itself node_modules/<name>, and a manifest linked from elsewhere', function () {
    const root = tempWorkspace({
      'outside/package.json': json({ name: 'linked', version: '1.0.0' }),
      'node_modules/.store/linked/node_modules/stored/package.json': json({ name: 'stored', version: '1.0.0' }),
      'node_modules/manifest-linked/index.js': '',
    });
    fs.symlinkSync('../outside', path.join(root, 'node_modules/linked'));
    fs.symlinkSync('.store/linked/node_modules/stored', path.join(root, 'node_modules/stored'));
    fs.symlinkSync('../../outside/package.json', path.join(root, 'node_modules/manifest-linked/package.json'));
    expect(findInstalled('linked', root)).to.equal(null);
    expect(findInstalled('manifest-linked', root)).to.equal(null);
    expect(findInstalled('stored', root)?.dir).to.equal(path.join(root, 'node_modules/.store/linked/node_modules/stored')); // as pnpm installs
    expect(installedVersion('linked', root)).to.equal('1.0.0'); // a version for an import map only
    expect(installedVersion('..', root)).to.equal(null);
  });
});

// README "Workspaces": npm links a workspace package in node_modules under the name it has; a
// rename leaves that link under the old name, which is then no install of it.
describe('findNestedInstalled', function () {
  it("finds a version npm nested in another package's node_modules, a scoped one too, and pnpm's in its store, at exactly that version", function () {
    const root = tempWorkspace({
      'node_modules/dep/package.json': json({ name: 'dep', version: '1.0.0' }),
      'node_modules/@kit/other/node_modules/dep/package.json': json({ name: 'dep', version: '2.0.0' }),
      'node_modules/a/node_modules/b/node_modules/@s/deep/package.json': json({ name: '@s/deep', version: '3.0.0' }),
      'node_modules/.pnpm/@s+stored@4.0.0_peer@1.0.0/node_modules/@s/stored/package.json': json({ name: '@s/stored', version: '4.0.0' }),
    });
    expect(findNestedInstalled('dep', '2.0.0', [root])?.dir).to.equal(path.join(root, 'node_modules/@kit/other/node_modules/dep'));
    expect(findNestedInstalled('@s/deep', '3.0.0', [root])?.dir).to.equal(path.join(root, 'node_modules/a/node_modules/b/node_modules/@s/deep'));
    expect(findNestedInstalled('@s/stored', '4.0.0', [root])?.dir).to.equal(path.join(root, 'node_modules/.pnpm/@s+stored@4.0.0_peer@1.0.0/node_modules/@s/stored'));
    expect(findNestedInstalled('dep', '9.9.9', [root])).to.equal(null);
  });

  it('follows no link while looking, and finds no copy whose real directory leaves the tree', function () {
    const root = tempWorkspace({
      'outside/node_modules/dep/package.json': json({ name: 'dep', version: '5.0.0' }),
      'outside/pkg/node_modules/dep/package.json': json({ name: 'dep', version: '6.0.0' }),
      'node_modules/wrap/package.json': json({ name: 'wrap', version: '1.0.0' }),
      'node_modules/nest/package.json': json({ name: 'nest', version: '1.0.0' }),
    });
    fs.mkdirSync(path.join(root, 'node_modules/wrap/node_modules'));
    // A link named as an install, to a real node_modules/dep elsewhere; a link to a package holding one; a linked node_modules.
    fs.symlinkSync(path.join(root, 'outside/node_modules/dep'), path.join(root, 'node_modules/wrap/node_modules/dep'));
    fs.symlinkSync(path.join(root, 'outside/pkg'), path.join(root, 'node_modules/linked'));
    fs.symlinkSync(path.join(root, 'outside/pkg/node_modules'), path.join(root, 'node_modules/nest/node_modules'));
    for (const version of ['5.0.0', '6.0.0']) expect(findNestedInstalled('dep', version, [root]), version).to.equal(null);
  });
});

describe('installedCopy', function () {
  it('takes a link to a package that has another name now for no install, naming the workspace package it leads to; an alias npm installed stays one', function () {
    const root = tempWorkspace({
      'packages/lib/package.json': json({ name: '@p/new', version: '1.0.0' }),
      'elsewhere/package.json': json({ name: 'other', version: '2.0.0' }),
      'same/package.json': json({ name: 'same', version: '3.0.0' }),
      'node_modules/aliased/package.json': json({ name: 'real-name', version: '4.0.0' }),
    });
    fs.mkdirSync(path.join(root, 'node_modules/@p'));
    fs.symlinkSync('../../packages/lib', path.join(root, 'node_modules/@p/old'));
    fs.symlinkSync('../elsewhere', path.join(root, 'node_modules/stale'));
    fs.symlinkSync('../same', path.join(root, 'node_modules/same'));
    const workspace = { root, packageDirs: ['packages/lib'] };
    expect(installedCopy('@p/old', path.join(root, 'packages/lib'), workspace)).to.deep.equal({ formerNameLinkTo: 'packages/lib' });
    expect(installedCopy('stale', root, workspace)).to.deep.equal({ formerNameLinkTo: null });
    expect(installedCopy('same', root, workspace)).to.deep.equal({ version: '3.0.0' }); // npm link of a package under its own name
    expect(installedCopy('aliased', root, workspace)).to.deep.equal({ version: '4.0.0' }); // "aliased": "npm:real-name@4"
    expect(installedCopy('absent', root, workspace)).to.equal(null);
  });
});

describe('entryOf', function () {
  it("takes the file a browser object maps the entry to, as esbuild maps a file it resolves; without exports only", function () {
    const root = tempWorkspace({
      'node_modules/mapped/package.json': json({ name: 'mapped', version: '1.0.0', main: 'lib/index.js', browser: { './lib/index.js': './lib/browser.js', './lib/extra': './lib/extra-web', fs: false } }),
      'node_modules/mapped/lib/index.js': '',
      'node_modules/mapped/lib/browser.js': '',
      'node_modules/mapped/lib/extra.js': '',
      'node_modules/mapped/lib/extra-web.js': '',
      'node_modules/mapped/lib/plain.js': '',
      'node_modules/off/package.json': json({ name: 'off', version: '1.0.0', main: 'index.js', browser: { './index.js': false, './other.js': './nowhere.js' } }),
      'node_modules/off/index.js': '',
      'node_modules/exported/package.json': json({ name: 'exported', version: '1.0.0', exports: { '.': './index.js' }, browser: { './index.js': './browser.js' } }),
      'node_modules/exported/index.js': '',
      'node_modules/exported/browser.js': '',
    });
    const entry = (name: string, subpath = '') => path.relative(root, entryOf(findInstalled(name, root)!, subpath)!);
    expect(entry('mapped')).to.equal('node_modules/mapped/lib/browser.js');
    expect(entry('mapped', 'lib/extra')).to.equal('node_modules/mapped/lib/extra-web.js');
    expect(entry('mapped', 'lib/plain')).to.equal('node_modules/mapped/lib/plain.js');
    expect(entry('off')).to.equal('node_modules/off/index.js');
    // `exports` decides alone, as Node and esbuild read it.
    expect(entry('exported')).to.equal('node_modules/exported/index.js');
  });

  it("takes a browser string before module and main, as esbuild's browser platform does (node-fetch 2's layout: module is its Node build)", function () {
    const root = tempWorkspace({
      'node_modules/fetchy/package.json': json({ name: 'fetchy', version: '2.6.9', main: 'lib/index.js', module: 'lib/index.mjs', browser: './browser.js' }),
      'node_modules/fetchy/lib/index.js': '',
      'node_modules/fetchy/lib/index.mjs': '',
      'node_modules/fetchy/browser.js': '',
      'node_modules/esm-first/package.json': json({ name: 'esm-first', version: '1.0.0', main: 'index.js', module: 'index.mjs' }),
      'node_modules/esm-first/index.js': '',
      'node_modules/esm-first/index.mjs': '',
    });
    const entry = (name: string) => path.relative(root, entryOf(findInstalled(name, root)!, '')!);
    expect(entry('fetchy')).to.equal('node_modules/fetchy/browser.js');
    expect(entry('esm-first'), 'without a browser string, module before main').to.equal('node_modules/esm-first/index.mjs');
  });

  it('takes a subpath no key names from the most specific pattern matching it, as Node does, whatever the order of the keys', function () {
    const root = tempWorkspace({
      'node_modules/kit/package.json': json({ name: 'kit', version: '1.0.0', exports: { './directives/*': './directives/*.js', './directives/private/*': null, './lib/*': './dist/*.js', './lib/a/*': './dist/a/*.mjs' } }),
      'node_modules/kit/directives/class-map.js': '',
      'node_modules/kit/directives/private/secret.js': '',
      'node_modules/kit/dist/a/b.js': '',
      'node_modules/kit/dist/a/b.mjs': '',
    });
    const kit = findInstalled('kit', root)!;
    expect(path.relative(root, entryOf(kit, 'directives/class-map')!)).to.equal('node_modules/kit/directives/class-map.js');
    expect(entryOf(kit, 'directives/private/secret'), 'excluded by the longer pattern, listed after the shorter').to.equal(null);
    expect(path.relative(root, entryOf(kit, 'lib/a/b')!)).to.equal('node_modules/kit/dist/a/b.mjs');
  });
});

describe('exportedAs', function () {
  it("names the export whose entry a file is, by the browser conditions, a pattern's match included; of two, the first listed", function () {
    const root = tempWorkspace({
      'node_modules/kit/package.json': json({
        name: 'kit',
        version: '1.0.0',
        exports: { '.': { node: './node.js', browser: './index.js' }, './index.js': './index.js', './directives/*': './directives/*.js', './directives/private/*': null, './lib/*.js': './dist/*.mjs' },
      }),
      'node_modules/kit/index.js': '',
      'node_modules/kit/node.js': '',
      'node_modules/kit/helper.js': '',
      'node_modules/kit/directives/class-map.js': '',
      'node_modules/kit/directives/private/secret.js': '',
      'node_modules/kit/dist/a/b.mjs': '',
      'node_modules/plain/package.json': json({ name: 'plain', version: '1.0.0', main: 'lib/main.js' }),
      'node_modules/plain/lib/main.js': '',
      'node_modules/plain/lib/other.js': '',
    });
    const [kit, plain] = [findInstalled('kit', root)!, findInstalled('plain', root)!];
    const as = (pkg: typeof kit, file: string) => exportedAs(pkg, fs.realpathSync(path.join(pkg.dir, file)));
    expect(as(kit, 'index.js'), 'the root, listed before ./index.js').to.equal('');
    expect(as(kit, 'node.js'), 'not the entry by the browser conditions').to.equal(null);
    expect(as(kit, 'helper.js')).to.equal(null);
    expect(as(kit, 'directives/class-map.js')).to.equal('directives/class-map');
    expect(as(kit, 'directives/private/secret.js'), 'a pattern mapped to null exports nothing').to.equal(null);
    expect(as(kit, 'dist/a/b.mjs')).to.equal('lib/a/b.js');
    expect(as(plain, 'lib/main.js'), 'without exports: the root').to.equal('');
    expect(as(plain, 'lib/other.js'), 'without exports, no other file').to.equal(null);
    expect(exportedAs(kit, path.join(root, 'node_modules/plain/lib/main.js')), 'a file outside the package').to.equal(null);
  });
});

describe('commonJsExportNames', function () {
  it('finds the names without running the file, re-exports followed inside the package only', function () {
    const root = tempWorkspace({
      'secret.js': "require('node:fs').writeFileSync(__dirname + '/outside.marker', 'ran');\nexports.stolen = 1;\n",
      'node_modules/cjs/index.js': "require('node:fs').writeFileSync(__dirname + '/ran.marker', 'ran');\nexports.alpha = 1;\nObject.defineProperty(exports, 'beta', { enumerable: true, value: 2 });\nexports['not-a-name'] = 3;\nexports.default = 4;\nmodule.exports = { ...require('./lib'), ...require('../../secret.js'), ...require('other-package') };\n",
      'node_modules/cjs/lib/index.js': "exports.gamma = 3;\nmodule.exports.delta = 4;\n",
    });
    const dir = path.join(root, 'node_modules/cjs');
    expect(commonJsExportNames(path.join(dir, 'index.js'), dir)).to.deep.equal(['alpha', 'beta', 'delta', 'gamma']);
    expect(fs.existsSync(path.join(dir, 'ran.marker'))).to.equal(false);
    expect(fs.existsSync(path.join(root, 'outside.marker'))).to.equal(false);
  });

  it('follows a loop of re-exports to an end', function () {
    const root = tempWorkspace({ 'node_modules/loop/a.js': "exports.a = 1;\nmodule.exports = require('./b');\n", 'node_modules/loop/b.js': "exports.b = 1;\nmodule.exports = require('./a');\n" });
    const dir = path.join(root, 'node_modules/loop');
    expect(commonJsExportNames(path.join(dir, 'a.js'), dir)).to.deep.equal(['a', 'b']);
  });
});
