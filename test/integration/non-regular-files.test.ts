// A file that is not a regular file in a module's import graph (README "Files that are not
// files"): a FIFO blocks whoever opens it until a writer comes, so a build that opened one never
// ended and `/state` never answered. The build ends, the module is invalid with a message naming
// the file, the other modules build, and a regular file in its place makes it valid again.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const mkfifo = (file: string) => execFileSync('mkfifo', [file]);

function workspaceWithFifo(): string {
  const root = tempWorkspace({
    'core.json': json({ packages: ['packages/app'] }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } }),
    'packages/app/main/index.ts': "import { value } from './pipe.ts';\nexport const main = value;\n",
    'packages/app/other/index.ts': 'export const other = 1;\n',
  });
  mkfifo(path.join(root, 'packages/app/main/pipe.ts'));
  return root;
}

const statuses = (report: Report) => report.modules.map((m) => [m.specifier, m.status]);

describe('a file that is not a regular file in an import graph', function () {
  it('ends the build: the module invalid naming the file, /state answers, the others build; a file in its place makes it valid', async function () {
    const root = workspaceWithFifo();
    const service = await serve(root);
    try {
      const answer = await service.get('/state');
      expect(answer.status).to.equal(200);
      const report = answer.json<Report>();
      expect(statuses(report)).to.deep.equal([
        ['@p/app/main', 'invalid'],
        ['@p/app/other', 'valid'],
      ]);
      const messages = report.modules[0]!.diagnostics.map((d) => d.message).join('\n');
      expect(report.modules[0]!.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['BUNDLE_ERROR', 'packages/app/main/index.ts']]);
      expect(messages).to.include('"packages/app/main/pipe.ts" is a FIFO (named pipe), not a regular file');
      expect((await service.get('/m/@p/app@1.0.0/modules/other')).status).to.equal(200);
      expect((await service.get('/m/@p/app@1.0.0/modules/main')).status).to.equal(422);

      fs.rmSync(path.join(root, 'packages/app/main/pipe.ts'));
      fs.writeFileSync(path.join(root, 'packages/app/main/pipe.ts'), 'export const value = 2;\n');
      const fixed = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'valid' && next;
      });
      expect(statuses(fixed)).to.deep.equal([
        ['@p/app/main', 'valid'],
        ['@p/app/other', 'valid'],
      ]);
      expect((await service.get('/m/@p/app@1.0.0/modules/main')).text).to.include('2');
    } finally {
      await service.close();
    }
  });

  it('a source replaced by a FIFO under a running service: the rebuild ends, the module invalid, /state answers', async function () {
    const root = workspaceWithFifo();
    const pipe = path.join(root, 'packages/app/main/pipe.ts');
    fs.rmSync(pipe);
    fs.writeFileSync(pipe, 'export const value = 1;\n');
    const service = await serve(root);
    try {
      expect(statuses(await service.report())).to.deep.equal([
        ['@p/app/main', 'valid'],
        ['@p/app/other', 'valid'],
      ]);
      expect((await service.get('/m/@p/app@1.0.0/modules/main')).status).to.equal(200);
      fs.rmSync(pipe);
      mkfifo(pipe);
      const broken = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'invalid' && next;
      });
      expect(statuses(broken)).to.deep.equal([
        ['@p/app/main', 'invalid'],
        ['@p/app/other', 'valid'],
      ]);
      expect(broken.modules[0]!.diagnostics.map((d) => d.message).join('\n')).to.include('"packages/app/main/pipe.ts" is a FIFO (named pipe), not a regular file');
      expect((await service.get('/m/@p/app@1.0.0/modules/main')).status).to.equal(422);
    } finally {
      await service.close();
    }
  });

  it('a declared asset that is a FIFO makes its module invalid (MANIFEST_INVALID naming it, unread), valid again once a regular file is put there', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } }),
      'packages/app/main/module.json': json({ assets: ['logo.svg'] }),
      'packages/app/main/index.ts': 'export const main = 1;\n',
      'packages/app/other/index.ts': 'export const other = 1;\n',
    });
    const asset = path.join(root, 'packages/app/main/logo.svg');
    mkfifo(asset);
    const service = await serve(root);
    try {
      // An open of the FIFO would wait for a writer, and this report with it.
      const report = await service.report();
      expect(statuses(report)).to.deep.equal([
        ['@p/app/main', 'invalid'],
        ['@p/app/other', 'valid'],
      ]);
      expect(report.modules[0]!.diagnostics.map((d) => [d.kind, d.file, d.message])).to.deep.equal([
        [
          'MANIFEST_INVALID',
          'packages/app/main/module.json',
          'packages/app/main/module.json: "assets" declares "logo.svg", but packages/app/main/logo.svg is a FIFO (named pipe), not a regular file: put a regular file there or remove it from "assets"',
        ],
      ]);
      expect((await service.get('/m/@p/app@1.0.0/assets/main/logo.svg')).status).to.equal(404);

      fs.rmSync(asset);
      fs.writeFileSync(asset, '<svg xmlns="http://www.w3.org/2000/svg"/>');
      const fixed = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'valid' && next;
      });
      expect(statuses(fixed)).to.deep.equal([
        ['@p/app/main', 'valid'],
        ['@p/app/other', 'valid'],
      ]);
      expect((await service.get('/m/@p/app@1.0.0/assets/main/logo.svg')).text).to.include('<svg');
    } finally {
      await service.close();
    }
  });

  it('a link to a device outside the workspace is refused unread, a directory where a file is expected is unresolved, a socket is refused', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './linked': './linked/index.ts', './folder': './folder/index.ts', './socket': './socket/index.ts' } }),
      'packages/app/linked/index.ts': "import { zero } from './zero.ts';\nexport const linked = zero;\n",
      'packages/app/folder/index.ts': "import { value } from './dir.ts';\nexport const folder = value;\n",
      'packages/app/folder/dir.ts/inner.ts': 'export const inner = 1;\n',
      'packages/app/socket/index.ts': "import { value } from './sock.ts';\nexport const socket = value;\n",
    });
    fs.symlinkSync('/dev/zero', path.join(root, 'packages/app/linked/zero.ts'));
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'packages/app/socket/sock.ts'), resolve));
    const service = await serve(root);
    try {
      const report = (await service.get('/state')).json<Report>();
      const messages = Object.fromEntries(report.modules.map((m) => [m.specifier, `${m.status} ${m.diagnostics.map((d) => `${d.kind} ${d.message}`).join('; ')}`]));
      expect(messages['@p/app/linked']).to.match(/^invalid BUNDLE_ERROR .*outside the workspace/);
      expect(messages['@p/app/folder']).to.match(/^invalid BUNDLE_ERROR Could not resolve "\.\/dir\.ts"/);
      // Opening a socket fails at once (ENXIO): esbuild says so itself, nothing waits.
      expect(messages['@p/app/socket']).to.equal('invalid BUNDLE_ERROR Cannot read file "packages/app/socket/sock.ts": no such device or address');
    } finally {
      await service.close();
      server.close();
    }
  });

  it("a FIFO tsconfig.json in a folder a relative import leads into: the module invalid in our words at that file, an edit's build never opens it again, a regular file in its place makes it valid", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } }),
      'packages/app/main/index.ts': "import { x } from '../../../shared/x.ts';\nexport const main = x;\n",
      'packages/app/other/index.ts': 'export const other = 1;\n',
      'shared/x.ts': 'export const x = 1;\n',
    });
    const config = path.join(root, 'shared/tsconfig.json');
    mkfifo(config);
    const refusal = ['BUNDLE_ERROR', 'shared/tsconfig.json', '"shared/tsconfig.json" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there'];
    const said = (report: Report) => report.modules[0]!.diagnostics.map((d) => [d.kind, d.file, d.message]);
    const service = await serve(root);
    try {
      const report = (await service.get('/state')).json<Report>();
      expect(statuses(report)).to.deep.equal([
        ['@p/app/main', 'invalid'],
        ['@p/app/other', 'valid'],
      ]);
      expect(said(report)).to.deep.equal([refusal]);

      // A writer of ours waiting in the FIFO's open: a reader's open (a build's) would wake it before returning.
      const writer = spawn('sh', ['-c', 'echo > "$0"', config], { stdio: 'ignore' });
      const ended = new Promise((resolve) => writer.on('exit', resolve));
      const sleep = () => fs.readFileSync(`/proc/${writer.pid}/wchan`, 'utf8').trim();
      try {
        await waitFor(() => sleep() === 'wait_for_partner', { what: 'the writer waiting' });
        // An edit of the module, seen by its second error: built again, the config refused unopened.
        fs.writeFileSync(path.join(root, 'packages/app/main/index.ts'), "import { x } from '../../../shared/x.ts';\nimport { y } from './missing.ts';\nexport const main = x + y;\n");
        const edited = await waitFor(async () => {
          const next = (await service.get('/state')).json<Report>();
          return next.modules[0]!.diagnostics.length === 2 && next;
        });
        expect(said(edited)).to.deep.include(refusal);
        expect(writer.exitCode === null && sleep(), 'no build opened the config').to.equal('wait_for_partner');
      } finally {
        writer.kill();
        await ended;
      }

      fs.rmSync(config);
      fs.writeFileSync(config, '{}\n');
      fs.writeFileSync(path.join(root, 'packages/app/main/index.ts'), "import { x } from '../../../shared/x.ts';\nexport const main = x + 1;\n");
      const fixed = await waitFor(async () => {
        const next = (await service.get('/state')).json<Report>();
        return next.modules[0]!.status === 'valid' && next;
      });
      expect(statuses(fixed)).to.deep.equal([
        ['@p/app/main', 'valid'],
        ['@p/app/other', 'valid'],
      ]);
    } finally {
      await service.close();
    }
  });

  it('a link to a file in a folder outside the workspace whose package.json is a FIFO: /state answers, the module invalid in our words, the FIFO never opened, the link led back builds it', async function () {
    // Without the refusal before esbuild resolves the link, the first build waits for ever in the
    // FIFO's open (nothing outside the workspace is opened to release it): the bound fails it.
    this.timeout(30_000);
    const outside = tempWorkspace({ 'lib/x.ts': "export const x = 'OUTSIDE_X';\n" });
    const config = path.join(outside, 'lib/package.json');
    mkfifo(config);
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } }),
      'packages/app/main/index.ts': "import { x } from './linked.ts';\nexport const main = x;\n",
      'packages/app/other/index.ts': 'export const other = 1;\n',
      'packages/app/common/x.ts': "export const x = 'INSIDE_X';\n",
    });
    const link = path.join(root, 'packages/app/main/linked.ts');
    fs.symlinkSync(path.join(outside, 'lib/x.ts'), link);
    // A writer of ours waiting in the FIFO's open: a reader's open (a build's) would wake it before returning.
    const writer = spawn('sh', ['-c', 'echo > "$0"', config], { stdio: 'ignore' });
    const ended = new Promise((resolve) => writer.on('exit', resolve));
    const sleep = () => fs.readFileSync(`/proc/${writer.pid}/wchan`, 'utf8').trim();
    let service: Awaited<ReturnType<typeof serve>> | null = null;
    try {
      await waitFor(() => sleep() === 'wait_for_partner', { what: 'the writer waiting' });
      service = await serve(root);
      const report = (await service.get('/state')).json<Report>();
      expect(statuses(report)).to.deep.equal([
        ['@p/app/main', 'invalid'],
        ['@p/app/other', 'valid'],
      ]);
      expect(report.modules[0]!.diagnostics.map((d) => [d.kind, d.file, d.line])).to.deep.equal([['BUNDLE_ERROR', 'packages/app/main/index.ts', 1]]);
      expect(report.modules[0]!.diagnostics[0]!.message).to.include('lib/x.ts is outside the workspace, and is not read');
      expect(writer.exitCode === null && sleep(), 'no build opened the config outside').to.equal('wait_for_partner');

      fs.rmSync(link);
      fs.symlinkSync('../common/x.ts', link);
      const fixed = await waitFor(async () => {
        const next = (await service!.get('/state')).json<Report>();
        return next.modules[0]!.status === 'valid' && next;
      });
      expect(statuses(fixed)).to.deep.equal([
        ['@p/app/main', 'valid'],
        ['@p/app/other', 'valid'],
      ]);
      expect((await service.get('/m/@p/app@1.0.0/modules/main')).text).to.include('INSIDE_X');
    } finally {
      writer.kill();
      await ended;
      // A build still waiting in the FIFO's open (the test failed) goes on, so the service can close.
      try {
        fs.closeSync(fs.openSync(config, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // no reader
      }
      await service?.close();
    }
  });

  it('core dist ends too: the module invalid naming the file, the others written', async function () {
    const root = workspaceWithFifo();
    const result = await distribute({ root, out: path.join(root, 'dist-out'), parallelism: 1 });
    expect(result.invalid.map((m) => [m.module.specifier, m.diagnostics.map((d) => d.message)])).to.deep.equal([
      ['@p/app/main', ['"packages/app/main/pipe.ts" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there']],
    ]);
    expect(fs.existsSync(path.join(root, 'dist-out/@p/app@1.0.0/modules/other.js'))).to.equal(true);
  });
});
