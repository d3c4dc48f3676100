// Errors of the file system while watching (README "Links and large trees", README "Staying up"): a
// directory made unreadable, a chain of directories deeper than PATH_MAX. The service stays up,
// keeps answering, and `/state` lists what it cannot watch, with the error code, until it can.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Report } from '../../src/store/selectors.js';
import { CORE_BIN } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { defects, type Served } from './support.js';
import { NOBODY, nobodyCannotRun } from '../helpers/nobody.js';

const everyModuleValid = (report: Report) => {
  expect(report.diagnostics).to.deep.equal([]);
  expect(report.modules.length).to.be.greaterThan(0);
  expect(report.modules.filter((module) => module.status !== 'valid')).to.deep.equal([]);
};

/** The unwatched paths of `/state`, once it answers 200. */
async function unwatchedOf(url: string): Promise<{ path: string; code: string }[]> {
  const answer = await get(url, '/state');
  expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
  return answer.json<Report>().unwatched ?? [];
}

describe('file-system errors while watching: nothing ends the service', function () {
  this.timeout(120_000);
  describe('a directory made unreadable', function () {
    // Permissions do not stop root: when the tests run as root, the service runs as `nobody`.
    const asNobody = process.getuid?.() === 0;
    let root: string;
    let child: ChildProcess | null = null;
    let stderr = '';

    before(function () {
      // `nobody` must be able to reach the package's own command (a clone in a private home directory is not).
      const unreachable = asNobody ? nobodyCannotRun() : null;
      if (unreachable) {
        this.test!.parent!.title += ` (skipped: ${unreachable})`;
        this.skip();
      }
    });
    after(async function () {
      if (root) fs.chmodSync(path.join(root, 'notes'), 0o755);
      if (child && child.exitCode === null) {
        const closed = new Promise((resolve) => child!.once('close', resolve));
        child.kill('SIGTERM');
        await closed;
      }
    });

    it('stays up, lists the path with EACCES in /state, and takes it off once readable again', async function () {
      root = fixtureWorkspace('basic');
      fs.chmodSync(root, 0o755); // `nobody` must be able to read the copy (a temporary directory is private to root)
      fs.mkdirSync(path.join(root, 'notes'));
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'https://cdn.test' };
      delete env.NODE_OPTIONS;
      child = spawn(process.execPath, [CORE_BIN, 'run', '--port', '0'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], ...(asNobody ? NOBODY : {}) });
      let stdout = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const url = await waitFor(
        () => {
          if (child!.exitCode !== null) throw new Error(`core run ended (${child!.exitCode}) before printing its URL: ${stderr}`);
          return /^\s*(http:\/\/[^\s/]+\/)\s*$/m.exec(stdout)?.[1];
        },
        { timeout: 30_000, what: 'the URL of core run' },
      );
      everyModuleValid((await get(url, '/state')).json<Report>());
      expect(await unwatchedOf(url)).to.deep.equal([]);

      // Unreadable to the service, and a directory made in it: whether the watcher had watched
      // `notes` already (then the new entry cannot be looked at) or not (then `notes` cannot be watched).
      fs.chmodSync(path.join(root, 'notes'), 0o000);
      fs.mkdirSync(path.join(root, 'notes/inner'));
      const listed = await waitFor(
        async () => {
          if (child!.exitCode !== null) throw new Error(`core run ended (${child!.exitCode}): ${stderr}`);
          const unwatched = await unwatchedOf(url);
          return unwatched.length > 0 && unwatched;
        },
        { what: 'an unwatched path in /state' },
      );
      expect(listed.every(({ path: where, code }) => where.startsWith('notes') && code === 'EACCES'), JSON.stringify(listed)).to.equal(true);
      everyModuleValid((await get(url, '/state')).json<Report>());

      fs.chmodSync(path.join(root, 'notes'), 0o755);
      await waitFor(async () => (await unwatchedOf(url)).length === 0, { what: 'the path taken off the unwatched list once readable' });
      expect(child.exitCode).to.equal(null);
      expect(defects(stderr.split('\n'))).to.deep.equal([]);
    });
  });

  describe('a chain of directories longer than PATH_MAX, made while running', function () {
    let root: string;
    let service: Served;
    const reported: string[] = [];

    before(async function () {
      root = fixtureWorkspace('basic');
      service = await serve(root, { logger: (line) => reported.push(line) });
      everyModuleValid((await service.get('/state')).json<Report>());
      // The watcher runs once the first builds are done: a saved source is its notice.
      fs.appendFileSync(path.join(root, 'packages/app/main/helper.ts'), '\n');
      await waitFor(() => service.internals.log.events().some((event) => event.type === 'files.changed' && event.source === 'watcher'), { what: 'the watcher running' });
    });
    after(async function () {
      await service?.close();
      // Node's recursive removal takes whole paths; rm works from descriptors.
      spawnSync('rm', ['-rf', path.join(root, 'deep')]);
    });

    it('stays up, answers /state, and lists the deepest path with ENAMETOOLONG until it is removed', async function () {
      // Each directory made from the last one (a relative path never longer than one name):
      // 30 names of 200 characters are 6,000 bytes, past Linux's PATH_MAX of 4,096.
      const name = 'd'.repeat(200);
      const made = spawnSync(process.execPath, ['-e', `const fs = require('fs'); process.chdir(${JSON.stringify(root)}); fs.mkdirSync('deep'); process.chdir('deep'); for (let i = 0; i < 30; i++) { fs.mkdirSync(${JSON.stringify(name)}); process.chdir(${JSON.stringify(name)}); }`]);
      expect(made.status, String(made.stderr)).to.equal(0);
      const listed = await waitFor(
        async () => {
          const unwatched = (await service.get('/state')).json<Report>().unwatched ?? [];
          return unwatched.length > 0 && unwatched;
        },
        { what: 'an unwatched path in /state' },
      );
      expect(listed.map(({ code }) => code)).to.deep.equal(['ENAMETOOLONG']);
      expect(listed[0]!.path.startsWith(`deep/${name}/`)).to.equal(true);
      everyModuleValid((await service.get('/state')).json<Report>());

      spawnSync('rm', ['-rf', path.join(root, 'deep')]);
      await waitFor(async () => ((await service.get('/state')).json<Report>().unwatched ?? []).length === 0, { what: 'the list emptied once the chain is removed' });
      expect(defects(reported)).to.deep.equal([]);
    });
  });
});
