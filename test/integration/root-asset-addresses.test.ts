// A sheet's url() of an address under `/m/` in the running service (README "Workspaces"): the
// module's own declared asset is relative in the `?env=production` sheet (the same bytes as
// `core dist`'s, served from any origin), and an address the service knows answers 404 (a typo of
// the asset's name, the package's former version after a bump) makes the module `invalid` with a
// BUNDLE_ERROR at its place, never `valid` while the page misses its image.
import { expect } from 'chai';
import { editJson, remove, write } from '../helpers/edit.js';
import { PROD } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe("a sheet's url() under /m/ in the running service", function () {
  it('is relative in the production sheet, and an error for a typo and for the former version after a bump', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'] }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts' } }),
      'packages/c/s1/module.json': json({ assets: ['a.svg'] }),
      'packages/c/s1/a.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/c/s1/s.css': '.x { background-image: url(/m/@c/c@1.0.0/assets/s1/a.svg); }\n',
      'packages/c/s1/index.ts': "import './s.css';\nexport const s1 = 1;\n",
    });
    const service = await serve(root);
    try {
      const status = async () => (await service.report()).modules.find((module) => module.specifier === '@c/c/s1')!;
      expect((await status()).status).to.equal('valid');
      const production = await service.get(`/m/@c/c@1.0.0/styles/s1?${PROD}`);
      expect(production.status).to.equal(200);
      expect(Buffer.from(production.body).toString()).to.include('url(../assets/s1/a.svg)').and.not.include('/m/');

      write(root, 'packages/c/s1/s.css', '.x { background-image: url(/m/@c/c@1.0.0/assets/s1/b.svg); }\n');
      const typo = await waitFor(async () => ((await status()).status === 'invalid' ? status() : false), { what: 'the typo judged' });
      expect(typo.diagnostics.map((d) => [d.kind, d.file, d.line, d.column])).to.deep.equal([['BUNDLE_ERROR', 'packages/c/s1/s.css', 1, 24]]);
      expect(typo.diagnostics[0]!.message).to.include('which is not a declared asset of @c/c/s1: the browser gets a 404');

      write(root, 'packages/c/s1/s.css', '.x { background-image: url(/m/@c/c@1.0.0/assets/s1/a.svg); }\n');
      await waitFor(async () => (await status()).status === 'valid', { what: 'the typo fixed' });
      editJson(root, 'packages/c/package.json', (manifest) => (manifest.version = '1.0.1'));
      const bumped = await waitFor(async () => ((await status()).status === 'invalid' ? status() : false), { what: 'the bump judged' });
      expect(bumped.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['BUNDLE_ERROR', 'packages/c/s1/s.css']]);
      expect(bumped.diagnostics[0]!.message).to.include('names @c/c@1.0.0, but @c/c is at version 1.0.1').and.include('Write /m/@c/c@1.0.1/assets/s1/a.svg');
    } finally {
      await service.close();
    }
  });

  it("is an error once another package is bumped past the version its url() and new URL name", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c', 'packages/lib'] }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts' } }),
      'packages/c/s1/s.css': '.x { background-image: url(/m/@c/lib@1.0.0/assets/x/a.svg); }\n',
      'packages/c/s1/index.ts': "import './s.css';\nexport const s1 = new URL('/m/@c/lib@1.0.0/assets/x/a.svg', import.meta.url);\n",
      'packages/lib/package.json': json({ name: '@c/lib', version: '1.0.0', exports: { './x': './x/index.ts' } }),
      'packages/lib/x/module.json': json({ assets: ['a.svg'] }),
      'packages/lib/x/a.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/lib/x/index.ts': 'export const x = 1;\n',
    });
    const service = await serve(root);
    try {
      const status = async () => (await service.report()).modules.find((module) => module.specifier === '@c/c/s1')!;
      expect((await status()).status).to.equal('valid');
      editJson(root, 'packages/lib/package.json', (manifest) => (manifest.version = '1.0.1'));
      const bumped = await waitFor(async () => ((await status()).status === 'invalid' ? status() : false), { what: "the other package's bump judged" });
      expect(bumped.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['BUNDLE_ERROR', 'packages/c/s1/s.css'], ['BUNDLE_ERROR', 'packages/c/s1/index.ts']]);
      for (const diagnostic of bumped.diagnostics) expect(diagnostic.message).to.include('names @c/lib@1.0.0, but @c/lib is at version 1.0.1');
    } finally {
      await service.close();
    }
  });

  it('judges the module again when the edit that makes its address answer is elsewhere: a package listed, another module declaring the asset', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'] }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts', './s2': './s2/index.ts' } }),
      'packages/c/s1/s.css': '.x { background-image: url(/m/@c/lib@1.0.0/assets/x/a.svg), url(/m/@c/c@1.0.0/assets/s2/b.svg); }\n',
      'packages/c/s1/index.ts': "import './s.css';\nexport const s1 = 1;\n",
      'packages/c/s2/module.json': json({ assets: [] }),
      'packages/c/s2/b.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/c/s2/index.ts': 'export const s2 = 1;\n',
      'packages/lib/package.json': json({ name: '@c/lib', version: '1.0.0', exports: { './x': './x/index.ts' } }),
      'packages/lib/x/module.json': json({ assets: ['a.svg'] }),
      'packages/lib/x/a.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/lib/x/index.ts': 'export const x = 1;\n',
    });
    const service = await serve(root);
    try {
      const status = async () => (await service.report()).modules.find((module) => module.specifier === '@c/c/s1')!;
      const messages = async () => (await status()).diagnostics.map((d) => d.message.replace(/ names .*/, ''));
      expect((await status()).status).to.equal('invalid');
      expect(await messages()).to.deep.equal(['url(/m/@c/lib@1.0.0/assets/x/a.svg)', 'url(/m/@c/c@1.0.0/assets/s2/b.svg)']);
      expect((await status()).diagnostics[0]!.message).to.include('no package of the workspace is named @c/lib');
      expect((await status()).diagnostics[1]!.message).to.include('which is not a declared asset of @c/c/s2');
      editJson(root, 'core.json', (manifest) => (manifest.packages = ['packages/c', 'packages/lib']));
      await waitFor(async () => (await messages()).length === 1 && messages(), { what: 'the package listed judged' });
      expect(await messages()).to.deep.equal(['url(/m/@c/c@1.0.0/assets/s2/b.svg)']);
      editJson(root, 'packages/c/s2/module.json', (manifest) => (manifest.assets = ['b.svg']));
      await waitFor(async () => (await status()).status === 'valid', { what: 'the asset declared judged' });
    } finally {
      await service.close();
    }
  });
  it("follows the file of another module's declared asset and another package's declarations: deleted, an error naming it; restored, valid (probe51b F7, F13)", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c', 'packages/lib'] }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts', './s2': './s2/index.ts' } }),
      'packages/c/s1/s.css': '.x { background-image: url(/m/@c/c@1.0.0/assets/s2/b.svg); }\n.y { background-image: url(/m/@c/lib@1.0.0/assets/x/nope.svg); }\n',
      'packages/c/s1/index.ts': "import './s.css';\nexport const s1 = 1;\n",
      'packages/c/s2/module.json': json({ assets: ['b.svg'] }),
      'packages/c/s2/b.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/c/s2/index.ts': 'export const s2 = 1;\n',
      'packages/lib/package.json': json({ name: '@c/lib', version: '1.0.0', exports: { './x': './x/index.ts' } }),
      'packages/lib/x/module.json': json({ assets: ['a.svg'] }),
      'packages/lib/x/a.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/lib/x/nope.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/lib/x/index.ts': 'export const x = 1;\n',
    });
    const service = await serve(root);
    try {
      const status = async () => (await service.report()).modules.find((module) => module.specifier === '@c/c/s1')!;
      const messages = async () => (await status()).diagnostics.map((d) => `${d.kind} ${d.file}:${d.line} ${d.message}`);
      // Another workspace package's undeclared asset at its current version: lib's declarations are known.
      expect(await messages()).to.have.length(1);
      expect((await messages())[0]).to.include('BUNDLE_ERROR packages/c/s1/s.css:2 url(/m/@c/lib@1.0.0/assets/x/nope.svg) names /m/@c/lib@1.0.0/assets/x/nope.svg, which is not a declared asset of @c/lib/x');
      editJson(root, 'packages/lib/x/module.json', (manifest) => (manifest.assets = ['a.svg', 'nope.svg']));
      await waitFor(async () => (await status()).status === 'valid', { what: "lib's declaration judged" });
      expect((await service.get('/m/@c/c@1.0.0/assets/s2/b.svg')).status).to.equal(200);

      remove(root, 'packages/c/s2/b.svg');
      const gone = await waitFor(async () => ((await status()).status === 'invalid' ? messages() : false), { what: 'the deleted file judged' });
      expect(gone).to.have.length(1);
      expect(gone[0]).to.include('BUNDLE_ERROR packages/c/s1/s.css:1 url(/m/@c/c@1.0.0/assets/s2/b.svg) names /m/@c/c@1.0.0/assets/s2/b.svg, the declared asset "b.svg" of @c/c/s2, but packages/c/s2/b.svg is missing');
      expect((await service.get('/m/@c/c@1.0.0/assets/s2/b.svg')).status).to.equal(404);

      write(root, 'packages/c/s2/b.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
      await waitFor(async () => (await status()).status === 'valid', { what: 'the restored file judged' });
      expect((await service.get('/m/@c/c@1.0.0/assets/s2/b.svg')).status).to.equal(200);
    } finally {
      await service.close();
    }
  });

  it("keeps an @import of another module's sheet and of the module's own declared sheet, which load, and judges one the service answers 404 for (probe51b F18)", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'] }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './s1': './s1/index.ts', './s2': './s2/index.ts' } }),
      'packages/c/s1/module.json': json({ assets: ['extra.css'] }),
      'packages/c/s1/extra.css': '.extra { color: blue; }\n',
      'packages/c/s1/s.css': '@import url(/m/@c/c@1.0.0/styles/s2);\n@import "/m/@c/c@1.0.0/assets/s1/extra.css";\n.x { color: red; }\n',
      'packages/c/s1/index.ts': "import './s.css';\nexport const s1 = 1;\n",
      'packages/c/s2/s.css': '.s2 { color: green; }\n',
      'packages/c/s2/index.ts': "import './s.css';\nexport const s2 = 1;\n",
    });
    const service = await serve(root);
    try {
      const status = async () => (await service.report()).modules.find((module) => module.specifier === '@c/c/s1')!;
      expect((await status()).status).to.equal('valid');
      const development = Buffer.from((await service.get('/m/@c/c@1.0.0/styles/s1')).body).toString();
      expect(development).to.include('@import "/m/@c/c@1.0.0/styles/s2";').and.match(/@import "\/m\/@c\/c@1\.0\.0\/assets\/s1\/extra\.css\?v=[^"]+";/);
      for (const address of ['/m/@c/c@1.0.0/styles/s2', '/m/@c/c@1.0.0/assets/s1/extra.css']) expect((await service.get(address)).status).to.equal(200);
      const production = Buffer.from((await service.get(`/m/@c/c@1.0.0/styles/s1?${PROD}`)).body).toString();
      expect(production).to.include('@import "../assets/s1/extra.css";');

      write(root, 'packages/c/s1/s.css', '@import url(/m/@c/c@1.0.0/assets/s1/nope.css);\n.x { color: red; }\n');
      const typo = await waitFor(async () => ((await status()).status === 'invalid' ? status() : false), { what: 'the @import judged' });
      expect(typo.diagnostics.map((d) => [d.kind, d.file, d.line])).to.deep.equal([['BUNDLE_ERROR', 'packages/c/s1/s.css', 1]]);
      expect(typo.diagnostics[0]!.message).to.include('@import "/m/@c/c@1.0.0/assets/s1/nope.css" names /m/@c/c@1.0.0/assets/s1/nope.css, which is not a declared asset of @c/c/s1');
    } finally {
      await service.close();
    }
  });
});
