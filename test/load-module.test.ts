import { expect } from 'chai';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import * as development from '../src/development/index.js';
import * as esbuildBundler from '../src/bundlers/esbuild.js';
import * as tsBundler from '../src/bundlers/ts.js';
import { OWN_MODULE_SPECIFIERS, resolveModule } from '../src/load-module.js';
import { PACKAGE_ROOT, packageFile } from '../src/package-files.js';
import fs from 'node:fs';
import { tempWorkspace } from './helpers/workspace.js';

describe('resolveModule', function () {
  it("imports the package's own extension and bundlers as part of the running code, not as dist/ files of their own", async function () {
    const root = tempWorkspace({ 'core.json': '{"packages":[]}' });
    for (const [specifier, running, file] of [
      ['@core-js/packages/development', development, 'dist/development/index.js'],
      ['@core-js/packages/bundlers/esbuild', esbuildBundler, 'dist/bundlers/esbuild.js'],
      ['@core-js/packages/bundlers/ts', tsBundler, 'dist/bundlers/ts.js'],
    ] as const) {
      const resolved = resolveModule(specifier, root);
      expect(resolved.url).to.equal(pathToFileURL(path.join(PACKAGE_ROOT, file)).href);
      // Under test the running code is the TypeScript sources: the same module objects, not the compiled copy.
      expect(await resolved.load()).to.equal(running);
    }
  });

  it('knows every module of the package a workspace can name, besides its API, schemas and manifest', function () {
    const manifest = JSON.parse(fs.readFileSync(packageFile('package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
    const named = Object.keys(manifest.exports)
      .filter((subpath) => !['.', './package.json', './schemas/*'].includes(subpath))
      .map((subpath) => `${manifest.name}${subpath.slice(1)}`);
    // A bundler or extension added to `exports` alone would be loaded from dist/ beside the bundle: a second store.
    expect([...OWN_MODULE_SPECIFIERS].sort()).to.deep.equal(named.sort());
  });

  it("imports a workspace's own install of this package from its files", async function () {
    const root = tempWorkspace({
      'node_modules/@core-js/packages/package.json': JSON.stringify({ name: '@core-js/packages', type: 'module', exports: { './development': './development.js' } }),
      'node_modules/@core-js/packages/development.js': "export const name = 'installed in the workspace';\nexport function setup() {}\n",
    });
    const resolved = resolveModule('@core-js/packages/development', root);
    expect(resolved.url).to.equal(pathToFileURL(path.join(root, 'node_modules/@core-js/packages/development.js')).href);
    expect(((await resolved.load()) as { name: string }).name).to.equal('installed in the workspace');
  });

  it('imports any other specifier from the workspace, and throws for one that resolves nowhere', async function () {
    const root = tempWorkspace({
      'node_modules/fancy-bundler/package.json': JSON.stringify({ name: 'fancy-bundler', type: 'module', main: 'index.js' }),
      'node_modules/fancy-bundler/index.js': 'export const fancy = true;\n',
    });
    expect(((await resolveModule('fancy-bundler', root).load()) as { fancy: boolean }).fancy).to.equal(true);
    expect(() => resolveModule('nope-bundler', root)).to.throw(/Cannot find module 'nope-bundler'/);
  });
});
