// A package.json's `browser` field mapping a bare name (README "The local CDN", "Bundling real
// code"): `false` is an empty module (esbuild applies a map to another name or a file itself);
// the importer's nearest package.json with a `browser` field decides, as in esbuild's own rule.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundleInstalled } from '../../src/bundlers/installed-bundle.js';
import { browserDisabledNames } from '../../src/workspace/package-manifest.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value);
const noNames = { name: 'pkg', commonJsNames: () => [], exportOf: () => null, entryOf: () => null };
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('the browser field of an installed package, on bare names', function () {
  let root: string;
  const dirOf = (name: string) => path.join(root, 'node_modules', name);

  before(function () {
    root = tempWorkspace({
      'secret/package.json': json({ browser: { crypto: false } }),
      'node_modules/cjs-off/package.json': json({ name: 'cjs-off', version: '1.0.0', main: 'index.js', browser: { fs: false } }),
      'node_modules/cjs-off/index.js': "const fs = require('fs');\nmodule.exports = 'cjs:' + typeof fs + ':' + Object.keys(fs).length;\n",
      'node_modules/esm-off/package.json': json({ name: 'esm-off', version: '1.0.0', type: 'module', main: 'index.js', browser: { crypto: false, 'node:crypto': false } }),
      'node_modules/esm-off/index.js': "import * as crypto from 'crypto';\nimport * as again from 'node:crypto';\nimport 'other';\nexport default 'esm:' + Object.keys(crypto).length + Object.keys(again).length;\n",
      'node_modules/renamed/package.json': json({ name: 'renamed', version: '1.0.0', type: 'module', main: 'index.js', browser: { buffer: 'buffer-es6', crypto: './crypto-web.js' } }),
      'node_modules/renamed/index.js': "import { Buffer } from 'buffer';\nimport { hash } from 'crypto';\nexport const used = [Buffer, hash()];\n",
      'node_modules/renamed/crypto-web.js': "export const hash = () => 'WEB-HASH';\n",
      'node_modules/nested/package.json': json({ name: 'nested', version: '1.0.0', type: 'module', main: 'lib/index.js' }),
      'node_modules/nested/lib/package.json': json({ type: 'module', browser: { fs: false } }),
      'node_modules/nested/lib/index.js': "import * as fs from 'fs';\nexport default typeof fs;\n",
      'node_modules/unmapped/package.json': json({ name: 'unmapped', version: '1.0.0', type: 'module', main: 'index.js' }),
      'node_modules/unmapped/index.js': "import * as fs from 'fs';\nexport default typeof fs;\n",
    });
    // A package.json leading out of its package is never read: its map is none of the package's.
    fs.mkdirSync(dirOf('leaving/lib'), { recursive: true });
    fs.writeFileSync(path.join(dirOf('leaving'), 'package.json'), json({ name: 'leaving', version: '1.0.0', type: 'module', main: 'lib/index.js' }));
    fs.writeFileSync(path.join(dirOf('leaving'), 'lib/index.js'), "import { hash } from 'crypto';\nexport default hash;\n");
    fs.symlinkSync(path.join(root, 'secret/package.json'), path.join(dirOf('leaving'), 'lib/package.json'));
  });

  it('reads the bare names a browser field maps to false, and only those', function () {
    expect(browserDisabledNames({ browser: { './index.js': './web.js', './node.js': false, fs: false, 'node:os': false, buffer: 'buffer-es6', path: 1 } })).to.deep.equal(['fs', 'node:os']);
    expect(browserDisabledNames({ browser: './web.js' })).to.deep.equal([]);
    expect(browserDisabledNames({})).to.deep.equal([]);
  });

  it('makes a name mapped to false an empty module: require() gives {}, and the name is no import of the bundle', async function () {
    const built = await bundleInstalled(path.join(dirOf('cjs-off'), 'index.js'), dirOf('cjs-off'), noNames);
    expect(built.imports).to.deep.equal([]);
    expect(text(built.code)).not.to.match(/require\(|"fs"/);
    const exported = (await import(`data:text/javascript,${encodeURIComponent(text(built.code))}`)) as { default: string };
    expect(exported.default).to.equal('cjs:object:0');
  });

  it('does the same for an ES module, `node:` names included, and keeps the names it does not map', async function () {
    const built = await bundleInstalled(path.join(dirOf('esm-off'), 'index.js'), dirOf('esm-off'), noNames);
    expect(built.imports).to.deep.equal(['other']);
    expect(text(built.code)).not.to.include('crypto');
  });

  // esbuild's own, with bare imports external: kept as a guard, since the plugin leaves these to it.
  it('keeps a name mapped to another name as that name, and bundles a name mapped to a file of the package', async function () {
    const built = await bundleInstalled(path.join(dirOf('renamed'), 'index.js'), dirOf('renamed'), noNames);
    expect(built.imports).to.deep.equal(['buffer-es6']);
    expect(text(built.code)).to.include('WEB-HASH').and.to.include('"buffer-es6"');
    expect(built.inputs).to.include('crypto-web.js');
  });

  it('takes the map of the nearest package.json with a browser field, one below the package root included', async function () {
    const built = await bundleInstalled(path.join(dirOf('nested'), 'lib/index.js'), dirOf('nested'), noNames);
    expect(built.imports).to.deep.equal([]);
    expect(built.inputs).to.include('lib/package.json');
  });

  it('keeps a name no package.json maps, and reads no map through a link leading out of the package', async function () {
    expect((await bundleInstalled(path.join(dirOf('unmapped'), 'index.js'), dirOf('unmapped'), noNames)).imports).to.deep.equal(['fs']);
    expect((await bundleInstalled(path.join(dirOf('leaving'), 'lib/index.js'), dirOf('leaving'), noNames)).imports).to.deep.equal(['crypto']);
  });
});
