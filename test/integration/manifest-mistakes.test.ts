// Manifest mistakes that left a module `valid` while it failed on the page: a module.json that
// is no regular file (README "Files that are not files"), a `core.define` esbuild cannot use, and
// a TypeScript source declared as an asset (README "Bundling real code"). Each is the module's
// MANIFEST_INVALID at the manifest holding it, on a real service.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { expectError } from '../helpers/answers.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const mkfifo = (file: string) => execFileSync('mkfifo', [file]);
const statuses = (report: Report) => report.modules.map((m) => [m.specifier, m.status]);
const placed = (report: Report, specifier: string) => report.modules.find((m) => m.specifier === specifier)!.diagnostics.map((d) => [d.kind, d.file, d.message]);

function workspaceWithAsset(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/f'] }),
    'packages/f/package.json': json({ name: '@f/f', version: '1.0.0', exports: { './ok': './ok/index.ts', './other': './other/index.ts' } }),
    'packages/f/ok/index.ts': 'export const ok = 1;\n',
    'packages/f/ok/i.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'packages/f/ok/module.json': json({ platforms: ['web'], assets: ['i.svg'] }),
    'packages/f/other/index.ts': 'export const other = 1;\n',
  });
}

const FIFO_MANIFEST = '"packages/f/ok/module.json" is a FIFO (named pipe), not a regular file: a manifest is read from a regular file only (a FIFO would wait for a writer forever); put a regular file there';

describe('manifest mistakes make their modules invalid, at the manifest', function () {
  it('a module.json replaced by a FIFO under a running service: invalid at it, unread; a regular file in its place makes it valid with no restart', async function () {
    const root = workspaceWithAsset();
    const manifest = path.join(root, 'packages/f/ok/module.json');
    const service = await serve(root);
    try {
      expect(statuses(await service.report())).to.deep.equal([
        ['@f/f/ok', 'valid'],
        ['@f/f/other', 'valid'],
      ]);
      fs.rmSync(manifest);
      mkfifo(manifest);
      const broken = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'invalid' && next;
      });
      expect(placed(broken, '@f/f/ok')).to.deep.equal([['MANIFEST_INVALID', 'packages/f/ok/module.json', FIFO_MANIFEST]]);
      expect(statuses(broken)[1]).to.deep.equal(['@f/f/other', 'valid']);

      fs.rmSync(manifest);
      fs.writeFileSync(manifest, json({ platforms: ['web'], assets: ['i.svg'] }));
      const fixed = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'valid' && next;
      });
      expect(placed(fixed, '@f/f/ok')).to.deep.equal([]);
      expect((await service.get('/m/@f/f@1.0.0/assets/ok/i.svg')).text).to.include('<svg');
    } finally {
      await service.close();
    }
  });

  it('at a start: a module.json that is a FIFO, or a directory, is told as what it is', async function () {
    const root = workspaceWithAsset();
    const manifest = path.join(root, 'packages/f/ok/module.json');
    fs.rmSync(manifest);
    mkfifo(manifest);
    fs.mkdirSync(path.join(root, 'packages/f/other/module.json'));
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(statuses(report)).to.deep.equal([
        ['@f/f/ok', 'invalid'],
        ['@f/f/other', 'invalid'],
      ]);
      expect(placed(report, '@f/f/ok')).to.deep.equal([['MANIFEST_INVALID', 'packages/f/ok/module.json', FIFO_MANIFEST]]);
      expect(placed(report, '@f/f/other')).to.deep.equal([
        [
          'MANIFEST_INVALID',
          'packages/f/other/module.json',
          '"packages/f/other/module.json" is a directory, not a regular file: a manifest is read from a regular file only; put a regular file there',
        ],
      ]);
      expect(report.diagnostics).to.deep.equal([]);
      // Its asset's 404 says the manifest is not read, never "declare it under assets" (it does).
      const { message } = expectError(await service.get('/m/@f/f@1.0.0/assets/ok/i.svg'), { status: 404, code: 'OUTPUT_NOT_AVAILABLE' });
      expect(message).to.equal(`the assets of @f/f/ok are not known while its module.json is invalid, so "i.svg" is not served: ${FIFO_MANIFEST}`);
    } finally {
      await service.close();
    }
  });

  it('an asset of a module whose module.json is not JSON: its 404 names that problem; a declared asset missing or another member refused keeps the words of a file not declared', async function () {
    const root = workspaceWithAsset();
    fs.writeFileSync(path.join(root, 'packages/f/ok/module.json'), '{ "assets": ["i.svg"], }');
    fs.writeFileSync(path.join(root, 'packages/f/other/module.json'), json({ assets: ['gone.svg'], platforms: ['moon'] }));
    const service = await serve(root);
    try {
      const messageOf = async (address: string) => expectError(await service.get(address), { status: 404, code: 'OUTPUT_NOT_AVAILABLE' }).message;
      const unread = await messageOf('/m/@f/f@1.0.0/assets/ok/i.svg');
      expect(unread).to.match(/^the assets of @f\/f\/ok are not known while its module\.json is invalid, so "i\.svg" is not served: /).and.not.to.include('declare it under');
      expect(await messageOf('/m/@f/f@1.0.0/assets/other/x.svg')).to.equal('@f/f/other does not declare the asset "x.svg"; its assets are gone.svg: declare it under "assets" in its module.json');
    } finally {
      await service.close();
    }
  });

  it('a package.json or a core.json that is a FIFO is told as one, not as missing', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a', 'packages/b'] }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', exports: { './m': './m/index.ts' } }),
      'packages/a/m/index.ts': 'export const m = 1;\n',
      'packages/b/m/index.ts': 'export const m = 2;\n',
    });
    mkfifo(path.join(root, 'packages/b/package.json'));
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(statuses(report)).to.deep.equal([['@p/a/m', 'valid']]);
      expect(report.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
        [
          'MANIFEST_INVALID',
          'packages/b/package.json',
          // No name of it is known (no cache, no lockfile): every import from outside is held back until it is a file again (README "Workspaces").
          'core.json lists the package directory "packages/b": "packages/b/package.json" is a FIFO (named pipe), not a regular file: a manifest is read from a regular file only (a FIFO would wait for a writer forever); put a regular file there; no name of it is known (no earlier read, build cache or npm lockfile names it), so any import of a package outside the workspace may be of it and is held back, never sent to a CDN: make packages/b/package.json a regular file, or remove "packages/b" from core.json\'s "packages"',
        ],
      ]);
    } finally {
      await service.close();
    }

    const workspace = tempWorkspace({ 'packages/a/package.json': json({ name: '@p/a', version: '1.0.0' }) });
    mkfifo(path.join(workspace, 'core.json'));
    const without = await serve(workspace);
    try {
      expect((await without.report()).diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
        ['MANIFEST_INVALID', 'core.json', '"core.json" is a FIFO (named pipe), not a regular file: a manifest is read from a regular file only (a FIFO would wait for a writer forever); put a regular file there'],
      ]);
    } finally {
      await without.close();
    }
  });

  it('core.define: a value not a string, or one esbuild cannot substitute, makes the package modules invalid at its package.json', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/d', 'packages/d2', 'packages/ok'] }),
      'packages/d/package.json': json({ name: '@d/d', version: '1.0.0', exports: { './m': './m/index.ts' }, core: { define: { __X__: 'foo bar' } } }),
      'packages/d/m/index.ts': 'document.body.dataset.ok = String(__X__);\n',
      'packages/d2/package.json': json({ name: '@d/d2', version: '1.0.0', exports: { './m': './m/index.ts' }, core: { define: { __X__: 1 } } }),
      'packages/d2/m/index.ts': 'document.body.dataset.ok = String(__X__);\n',
      'packages/ok/package.json': json({ name: '@d/ok', version: '1.0.0', exports: { './m': './m/index.ts' }, core: { define: { __X__: "'fine'", __Y__: 'globalThis.config.y' } } }),
      'packages/ok/m/index.ts': 'document.body.dataset.ok = String(__X__) + String(__Y__);\n',
    });
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(statuses(report)).to.deep.equal([
        ['@d/d/m', 'invalid'],
        ['@d/d2/m', 'invalid'],
        ['@d/ok/m', 'valid'],
      ]);
      expect(placed(report, '@d/d/m')).to.deep.equal([
        [
          'MANIFEST_INVALID',
          'packages/d/package.json',
          'packages/d/package.json: core.define["__X__"] is "foo bar", which esbuild cannot substitute: give a JSON value ("\\"text\\"", 1, true, null, an array or object in JSON) or a name such as "globalThis.config", as a string',
        ],
      ]);
      expect(placed(report, '@d/d2/m')).to.deep.equal([
        ['MANIFEST_INVALID', 'packages/d2/package.json', 'packages/d2/package.json: core.define["__X__"] must name an identifier (or a dotted one) and give a JavaScript expression as a string'],
      ]);
      expect(report.diagnostics).to.deep.equal([]);
      expect((await service.get('/m/@d/ok@1.0.0/modules/m')).text).to.include('"fine"');
    } finally {
      await service.close();
    }
  });

  it('a TypeScript source declared as an asset makes its module invalid and is served as text; a .ts video and a .js worker are assets as before', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/w'] }),
      'packages/w/package.json': json({ name: '@w/w', version: '1.0.0', exports: { './m': './m/index.ts', './v': './v/index.ts' } }),
      'packages/w/m/module.json': json({ assets: ['worker.ts', 'w.js', 'types.d.ts'] }),
      'packages/w/m/worker.ts': 'const n: number = 41;\npostMessage(n + 1);\n',
      'packages/w/m/w.js': 'postMessage(42);\n',
      'packages/w/m/types.d.ts': 'export declare const n: number;\n',
      'packages/w/m/index.ts': "export const worker = new Worker(new URL('../assets/m/worker.ts', import.meta.url), { type: 'module' });\n",
      'packages/w/v/module.json': json({ assets: ['segment0.ts'] }),
      'packages/w/v/index.ts': 'export const video = 1;\n',
    });
    // An MPEG transport stream packet: the sync byte, then binary.
    const packet = Buffer.alloc(188);
    packet[0] = 0x47;
    fs.writeFileSync(path.join(root, 'packages/w/v/segment0.ts'), Buffer.concat([packet, packet]));
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(statuses(report)).to.deep.equal([
        ['@w/w/m', 'invalid'],
        ['@w/w/v', 'valid'],
      ]);
      expect(placed(report, '@w/w/m')).to.deep.equal([
        [
          'MANIFEST_INVALID',
          'packages/w/m/module.json',
          'packages/w/m/module.json: "assets" declares "worker.ts", a TypeScript source: an asset is served as written, and a browser cannot run TypeScript; write it in JavaScript (worker.js) and declare that',
        ],
      ]);
      const worker = await service.get('/m/@w/w@1.0.0/assets/m/worker.ts');
      expect([worker.status, worker.headers['content-type']]).to.deep.equal([200, 'text/plain; charset=utf-8']);
      expect((await service.get('/m/@w/w@1.0.0/assets/m/w.js')).headers['content-type']).to.match(/^(?:application|text)\/javascript/);
      const video = await service.get('/m/@w/w@1.0.0/assets/v/segment0.ts');
      expect([video.status, video.headers['content-type']]).to.deep.equal([200, 'video/mp2t']);

      // Declaring the JavaScript worker instead makes the module valid again, with no restart.
      fs.writeFileSync(path.join(root, 'packages/w/m/module.json'), json({ assets: ['w.js', 'types.d.ts'] }));
      fs.writeFileSync(path.join(root, 'packages/w/m/index.ts'), "export const worker = new Worker(new URL('../assets/m/w.js', import.meta.url), { type: 'module' });\n");
      const fixed = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'valid' && next;
      });
      expect(placed(fixed, '@w/w/m')).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });
});
