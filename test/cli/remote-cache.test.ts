// `core cache push` and a `core run` that reads what it pushed (README "A team's remote cache"):
// the ready line counts the team cache's modules, `/state` says what it gave, `core cache`
// names it and whether it answers; a read-only endpoint refuses the push with one warning.
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { killAllCores, runCore, startCore } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../helpers/nginx.js';
import { waitFor } from '../helpers/wait-for.js';

describe('core cache push, and core run reading the team cache', function () {
  let nginx: Nginx;
  const made: string[] = [];
  before(async function () {
    if (!NGINX) return this.skip(); // nginx is not installed: `apt-get install -y nginx` (.ci/run does)
    nginx = await startNginx();
  });
  after(async () => {
    await killAllCores();
    await stopNginx();
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });
  const emptyCache = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cli-remote-'));
    made.push(dir);
    return dir;
  };

  it('pushes, then a fresh copy starts from the team cache and says so', async () => {
    const pushed = await runCore(['cache', 'push'], { cwd: fixtureWorkspace('basic'), env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: `${nginx.readWrite}cli` } });
    expect(pushed.stderr).to.equal('');
    expect(pushed.stdout).to.match(/^10 of 10 builds uploaded to http:\/\/127\.0\.0\.1:\d+\/cli\/ \(\d+ blobs, [\d.]+ k?B\)\n$/);
    expect(pushed.code).to.equal(0);

    const root = fixtureWorkspace('basic');
    const env = { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: `${nginx.readOnly}cli` };
    const run = await startCore(['--port', '0'], { cwd: root, env });
    try {
      await waitFor(() => /ready in \d+ ms/.test(run.output.stdout), { what: 'the ready line' });
      expect(run.output.stdout).to.match(/\(5 modules, 5 from the team cache, 0 invalid\)/);
      const state = JSON.parse((await get(run.url, '/state')).text) as { remoteCache: { hits: number; asked: number; misses: object } };
      expect(state.remoteCache).to.deep.include({ hits: 5, asked: 5, misses: {} });
    } finally {
      await run.stop();
    }
    const shown = await runCore(['cache'], { cwd: root, env });
    expect(shown.stdout.split('\n')[1]).to.match(/^team cache: http:\/\/127\.0\.0\.1:\d+\/cli\/ answers; entries are not signed$/);
  });

  it('a read-only endpoint refuses the push: one warning, exit 1', async () => {
    const pushed = await runCore(['cache', 'push'], { cwd: fixtureWorkspace('basic'), env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: nginx.readOnly } });
    expect(pushed.code).to.equal(1);
    expect(pushed.stderr).to.equal('core cache push: the team cache refused a write (401 or 403): this address or credential is read-only; nothing more was uploaded\n');
  });

  it('core run --remote-cache-write uploads its first builds once; a developer\'s run writes nothing', async () => {
    const before = await nginx.settled();
    // The developer's run stays up, on an instance of its own, until a writing run of the same
    // workspace has started, built and uploaded: had it been writing, its upload would be done too.
    const plain = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: `${nginx.readWrite}developer` } });
    try {
      await waitFor(() => /ready in \d+ ms/.test(plain.output.stdout), { what: 'the ready line' });
      const writer = await startCore(['--port', '0', '--remote-cache-write'], { cwd: fixtureWorkspace('basic'), env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: `${nginx.readWrite}written` } });
      try {
        await waitFor(() => /5 builds uploaded to the team cache at http:\/\/127\.0\.0\.1:\d+\/written\//.test(writer.output.stderr), { what: 'the upload told' });
      } finally {
        await writer.stop();
      }
    } finally {
      await plain.stop();
    }
    expect((await nginx.since(before)).filter((line) => line.startsWith('PUT /developer/'))).to.deep.equal([]);
    const puts = (await nginx.since(before)).filter((line) => line.startsWith('PUT '));
    expect(puts.filter((line) => / 201$| 204$/.test(line))).to.have.length(puts.length);
    expect(puts.at(-1)).to.match(/^PUT \/written\/ac\/[0-9a-f]{64} 20[14]$/);
  });

  // A mock team cache (a real server does not misbehave on purpose): `answer` answers every request.
  async function mockCache(answer: http.RequestListener): Promise<{ url: string; asked: () => number }> {
    let asked = 0;
    const server = http.createServer((request, response) => {
      asked += 1;
      answer(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    mocks.push(server);
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, asked: () => asked };
  }
  const mocks: http.Server[] = [];
  afterEach(() => {
    for (const server of mocks.splice(0)) server.closeAllConnections(), server.close();
  });

  // What every module of the workspace answers, status and body, by its address (a server module is not served).
  async function modulesOf(url: string): Promise<Record<string, string>> {
    const state = JSON.parse((await get(url, '/state')).text) as { modules: { package: string; version: string; subpath: string }[] };
    const answers: Record<string, string> = {};
    for (const module of state.modules) {
      const address = `/m/${module.package}@${module.version}/modules/${module.subpath}`;
      const answer = await get(url, address);
      answers[address] = `${answer.status} ${answer.text}`;
    }
    return answers;
  }

  it('a team cache trickling every answer inside the 16 KiB rule (a mock): the banner comes within the start\'s budget, the modules are built as without a cache, one warning', async () => {
    // 16 KiB and a byte more every 0.5 s (four times the rule of 16 KiB in 2 s, whatever the
    // machine's load) of a 64 MiB body: over half an hour per request without a whole limit.
    const cache = await mockCache((request, response) => {
      response.writeHead(200, { 'content-length': String(64 * 1024 * 1024) });
      const trickle = setInterval(() => response.write(Buffer.alloc(16 * 1024 + 1, 120)), 500);
      request.socket.on('close', () => clearInterval(trickle));
    });
    const root = fixtureWorkspace('basic');
    // startCore waits 30 s for the banner's address: with the start's 3 s budget it is there long before.
    const run = await startCore(['--port', '0'], { cwd: root, env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: cache.url } });
    const plain = await startCore(['--port', '0', '--no-cache'], { cwd: fixtureWorkspace('basic'), env: {} });
    try {
      await waitFor(() => /ready in \d+ ms/.test(run.output.stdout) && /failed some requests/.test(run.output.stderr), { what: 'the ready line and the warning' });
      expect(run.output.stdout).to.match(/\(5 modules, 0 invalid\)/);
      const warnings = run.output.stderr.split('\n').filter((line) => line.includes('team cache'));
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(/failed some requests \(0 of 5 builds from the team cache; failures: 1 timeout\); what it did not give was built here$/);
      expect(cache.asked()).to.equal(1);
      const built = await modulesOf(plain.url);
      expect(Object.values(built).filter((answer) => answer.startsWith('200 '))).to.have.length(4);
      expect(await modulesOf(run.url)).to.deep.equal(built);
    } finally {
      await Promise.all([run.stop(), plain.stop()]);
    }
  });

  it('a team cache answering what is no entry (a mock: a proxy\'s sign-in page): built here, and one warning naming not-json', async () => {
    const cache = await mockCache((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Sign in</title><p>Please sign in'));
    const run = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: cache.url } });
    try {
      await waitFor(() => /ready in \d+ ms/.test(run.output.stdout) && /not-json/.test(run.output.stderr), { what: 'the ready line and the warning' });
      expect(run.output.stdout).to.match(/\(5 modules, 0 invalid\)/);
      const warnings = run.output.stderr.split('\n').filter((line) => line.includes('team cache'));
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(new RegExp(`the team cache at ${cache.url} answered what is not an entry \\(0 of 5 builds from the team cache; misses: \\d+ not-json\\); not-json: an answer that is no JSON, such as a proxy's sign-in page or a compressed body; what it did not give was built here$`));
    } finally {
      await run.stop();
    }
  });

  it('a team cache that does not answer: the modules are built, and the run warns once', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: { CORE_CACHE_DIR: emptyCache(), CORE_REMOTE_CACHE: `http://127.0.0.1:${port}/` } });
    try {
      await waitFor(() => /ready in \d+ ms/.test(run.output.stdout) && /failed some requests/.test(run.output.stderr), { what: 'the ready line and the warning' });
      expect(run.output.stdout).to.match(/\(5 modules, 0 invalid\)/);
      const warnings = run.output.stderr.split('\n').filter((line) => line.includes('team cache'));
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(new RegExp(`the team cache at http://127\\.0\\.0\\.1:${port}/ failed some requests \\(0 of 5 builds from the team cache; failures: \\d refused\\); what it did not give was built here$`));
    } finally {
      await run.stop();
    }
  });
});
