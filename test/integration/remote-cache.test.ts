// The team's remote cache (README "A team's remote cache") against a real nginx: what
// `core cache push` uploads from one copy of a workspace, a fresh copy with an empty build cache
// starts from, building nothing and serving the very bytes a build without any cache serves;
// a developer's run writes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { pushBuilds } from '../../src/cli/cache-push.js';
import { ESBUILD_VERSION } from '../../src/bundlers/esbuild-service.js';
import { bundlersCodeHash } from '../../src/code-hash.js';
import { createRemoteClient } from '../../src/io/remote-cache/client.js';
import { startVariants } from '../../src/io/remote-cache/start-restore.js';
import { uploadBuilds } from '../../src/io/remote-cache/upload.js';
import { VERSION } from '../../src/version.js';
import { distribute } from '../../src/dist/distribute.js';
import type { CoreEvent } from '../../src/store/events.js';
import { remoteCacheSettings, type RemoteCacheSettings } from '../../src/io/remote-cache/settings.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../helpers/nginx.js';
import { serve } from '../helpers/service.js';
import { sharedStateWorkspace } from '../helpers/shared-workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import { TEST_FIXTURES_DIR } from '../helpers/workspace.js';

const ADDRESSES = [`/m/@acme/app@1.0.0/modules/main?${DEV}`, `/m/@acme/app@1.0.0/styles/main?${DEV}`, `/m/@acme/lib@1.2.0/modules/format?${DEV}`];

export const settingsFor = (root: string, url: string, env: NodeJS.ProcessEnv = {}): RemoteCacheSettings => remoteCacheSettings(root, { CORE_REMOTE_CACHE: url, ...env }).settings!;

/** A service with a new, empty build cache asking `url`; its events from the start. */
export async function startFresh(root: string, settings: RemoteCacheSettings, limits?: { timeoutMs?: number }) {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-remote-local-'));
  const service = await serve(root, { cache: cacheDir, remoteCache: { settings, ...(limits ? { limits } : {}) } });
  const events: CoreEvent[] = [...service.internals.log.events()];
  service.events$.subscribe((event) => events.push(event));
  await service.report();
  return { service, events, cacheDir };
}

export const buildsOf = (events: CoreEvent[]) => events.filter((event) => event.type === 'build.started').length;
export const modelOf = (events: CoreEvent[]) => events.find((event): event is Extract<CoreEvent, { type: 'cache.remote.model' }> => event.type === 'cache.remote.model');
export const remoteOf = (events: CoreEvent[]) => events.find((event): event is Extract<CoreEvent, { type: 'cache.remote.restored' }> => event.type === 'cache.remote.restored');

describe('the team remote cache against nginx', function () {
  let nginx: Nginx;
  before(async function () {
    if (!NGINX) return this.skip(); // nginx is not installed: `apt-get install -y nginx` (.ci/run does)
    nginx = await startNginx();
  });
  after(() => stopNginx());

  it('a fresh copy starts with every module from the team cache and serves the bytes of a build without cache', async () => {
    const pushed = await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), nginx.readWrite), null, () => {});
    expect(pushed.stopped).to.equal(undefined);
    expect(pushed.entries).to.equal(pushed.built);
    const before = await nginx.settled();

    const fresh = await startFresh(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), nginx.readOnly));
    const remote = remoteOf(fresh.events)!;
    expect(buildsOf(fresh.events)).to.equal(0);
    expect(remote.builds.length).to.equal(remote.asked).and.to.be.greaterThan(0);
    expect(remote.misses).to.deep.equal({});
    expect(fresh.service.internals.store.getState().remoteCache).to.include({ hits: remote.asked });

    const plain = await serve(fixtureWorkspace('basic'), { cache: false });
    for (const address of ADDRESSES) {
      const [a, b] = [await fresh.service.get(address), await plain.get(address)];
      expect(a.status, address).to.equal(200);
      expect(a.text, address).to.equal(b.text);
    }
    // A developer's run only reads, and asks two questions in all: the workspace's entry, then
    // the pack of every entry and output it names (no model: unsigned, none is shared, README "A
    // team's remote cache").
    const asked = await nginx.since(before);
    expect(asked).to.have.length(2);
    expect(asked[0]).to.match(/^GET \/ac\/[0-9a-f]{64} 200$/);
    expect(asked[1]).to.match(/^GET \/cas\/[0-9a-f]{64} 200$/);
    expect(remote.requests).to.equal(2);
  });

  it('the workspace\'s entry holds the module entries, or past its bound names them in the pack: a fresh copy asks two questions either way', async () => {
    const built = await serve(fixtureWorkspace('basic'), { cache: false });
    await built.report();
    const state = built.internals.store.getState();
    const start = startVariants(state.workspace);
    const identity = { service: VERSION, esbuild: ESBUILD_VERSION, bundlers: bundlersCodeHash() };
    for (const [instance, maxHeldBytes] of [['held', undefined], ['named', 0]] as const) {
      const client = createRemoteClient(settingsFor(fixtureWorkspace('basic'), `${nginx.readWrite}${instance}`));
      await uploadBuilds(state, start, start, { client, identity, outputs: built.internals.outputs, signingKey: null, ...(maxHeldBytes === undefined ? {} : { maxHeldBytes }) });
      client.close();
      const workspaceEntries = fs
        .readdirSync(path.join(nginx.data, instance, 'ac'))
        .map((file) => (JSON.parse(fs.readFileSync(path.join(nginx.data, instance, 'ac', file), 'utf8')) as { payload: { modules?: object; entries?: object } }).payload)
        .filter((payload) => payload.modules !== undefined);
      expect(workspaceEntries, instance).to.have.length(1);
      const [{ modules, entries }] = workspaceEntries as [{ modules: object; entries?: object }];
      expect(Object.keys(entries ?? {}), instance).to.have.length(instance === 'held' ? start.length : 0);
      expect(Object.keys(modules), instance).to.have.length(instance === 'held' ? 0 : start.length);

      const before = await nginx.settled();
      const fresh = await startFresh(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), `${nginx.readOnly}${instance}`));
      const remote = remoteOf(fresh.events)!;
      expect(buildsOf(fresh.events), instance).to.equal(0);
      expect(remote.misses, instance).to.deep.equal({});
      expect(remote.builds, instance).to.have.length(start.length);
      expect(await nginx.since(before), instance).to.have.length(2);
    }
  });

  it('core dist takes every production build from the team cache and writes the files a build writes', async () => {
    await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), `${nginx.readWrite}dist`), null, () => {});
    const root = fixtureWorkspace('basic');
    const [fromRemote, built] = [path.join(root, 'remote-out'), path.join(root, 'built-out')];
    const remote = await distribute({ root, out: fromRemote, remoteCache: { settings: settingsFor(root, `${nginx.readOnly}dist`) } });
    const plain = await distribute({ root, out: built });
    expect(remote.remoteCache!.builds.length).to.equal(remote.remoteCache!.asked).and.to.be.greaterThan(0);
    expect(remote.remoteCache!.misses).to.deep.equal({});
    expect(filesOf(fromRemote)).to.deep.equal(filesOf(built));
    expect(remote.ok).to.equal(plain.ok);
  });

  it('shared files (README "Shared files"): their chunks come with the modules, and core dist writes what a build writes', async () => {
    await pushBuilds(sharedStateWorkspace(), settingsFor(sharedStateWorkspace(), `${nginx.readWrite}shared`), null, () => {});
    const root = sharedStateWorkspace();
    const fresh = await startFresh(root, settingsFor(root, `${nginx.readOnly}shared`));
    expect(buildsOf(fresh.events)).to.equal(0);
    expect(remoteOf(fresh.events)!.builds.some((build) => build.outputs.chunks?.['@r/lib/.shared/src/registry.ts'])).to.equal(true);
    const plain = await serve(sharedStateWorkspace(), { cache: false });
    for (const address of [`/m/@r/lib@1.0.0/modules/define.js?${DEV}`, `/m/@r/lib@1.0.0/modules/.shared/src/registry.ts?${DEV}`]) {
      const [a, b] = [await fresh.service.get(address), await plain.get(address)];
      expect(a.status, address).to.equal(200);
      expect(a.text, address).to.equal(b.text);
    }
    const [fromRemote, built] = [path.join(root, 'remote-out'), path.join(root, 'built-out')];
    const remote = await distribute({ root, out: fromRemote, remoteCache: { settings: settingsFor(root, `${nginx.readOnly}shared`) } });
    await distribute({ root, out: built });
    expect(remote.remoteCache!.builds.length).to.equal(remote.remoteCache!.asked).and.to.be.greaterThan(0);
    expect(remote.remoteCache!.misses).to.deep.equal({});
    expect(remote.remoteCache!.builds.some((build) => build.outputs.chunks?.['@r/lib/.shared/src/registry.ts'])).to.equal(true);
    expect(filesOf(fromRemote)).to.deep.equal(filesOf(built));
  });

  it('what the team cache gave is written to the local cache: a restart asks the remote nothing', async () => {
    await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), `${nginx.readWrite}local`), null, () => {});
    const root = fixtureWorkspace('basic');
    const first = await startFresh(root, settingsFor(root, `${nginx.readOnly}local`));
    expect(buildsOf(first.events)).to.equal(0);
    await waitFor(() => fs.existsSync(path.join(first.cacheDir, 'builds.json')), { what: 'the local cache written' });
    await first.service.close();
    const before = await nginx.settled();
    const again = await serve(root, { cache: first.cacheDir, remoteCache: { settings: settingsFor(root, `${nginx.readOnly}local`) } });
    await again.report();
    const events = again.internals.log.events();
    expect(buildsOf(events)).to.equal(0);
    expect(remoteOf(events)).to.equal(undefined);
    expect(await nginx.since(before)).to.deep.equal([]);
  });

  it('an edited source is a stale miss, built here; the other modules still come from the team cache', async () => {
    await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), `${nginx.readWrite}edit`), null, () => {});
    const root = fixtureWorkspace('basic', { 'packages/lib/format/index.ts': 'export const format = (n: number): string => `#${n}`;\n' });
    const fresh = await startFresh(root, settingsFor(root, `${nginx.readOnly}edit`));
    const remote = remoteOf(fresh.events)!;
    expect(remote.misses).to.deep.equal({ stale: 1 });
    expect(remote.builds.map((build) => build.module)).to.have.length(remote.asked - 1);
    expect(remote.builds.map((build) => build.module)).to.not.include('@acme/lib/format');
    const built = new Set(fresh.events.flatMap((event) => (event.type === 'build.started' ? event.modules.map((one) => one.module) : [])));
    expect([...built]).to.deep.equal(['@acme/lib/format']);
    expect((await fresh.service.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`)).text).to.contain('#${n}');
  });

  it('a changed declaration changes the workspace key: the modules are asked one by one, and the unchanged ones hit', async () => {
    await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), `${nginx.readWrite}declared`), null, () => {});
    const root = fixtureWorkspace('basic', { 'packages/app/main/module.json': '{"platforms": ["web"], "assets": []}' });
    const before = await nginx.settled();
    const fresh = await startFresh(root, settingsFor(root, `${nginx.readOnly}declared`));
    const remote = remoteOf(fresh.events)!;
    expect(remote.misses).to.deep.equal({ absent: 1 });
    expect(remote.builds).to.have.length(remote.asked - 1);
    const asked = await nginx.since(before);
    // The workspace's entry first, then each module's.
    expect(asked[0]).to.match(/^GET \/declared\/ac\/[0-9a-f]{64} 404$/);
    expect(asked.filter((line) => /^GET \/declared\/ac\//.test(line))).to.have.length(1 + remote.asked);
  });

  describe('what it does not trust: a miss, counted, built here, the right bytes served, nothing uploaded', () => {
    const BASIC_CORE_JSON = JSON.parse(fs.readFileSync(path.join(TEST_FIXTURES_DIR, 'basic/core.json'), 'utf8')) as object;
    let instance = 0;
    // A team that signs: the model is asked too (README "A team's remote cache").
    const SIGNED_CORE_JSON = { ...BASIC_CORE_JSON, remoteCache: { url: 'http://ignored.test', publicKey: crypto.generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) } };

    /** Pushes the workspace into an instance of its own; where its files are and how to ask it read-only. */
    async function pushed(signingKey: crypto.KeyObject | null = null) {
      const name = `t${(instance += 1)}`;
      const result = await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), `${nginx.readWrite}${name}`), signingKey, () => {});
      expect(result.stopped).to.equal(undefined);
      const dir = path.join(nginx.data, name);
      const files = (store: 'ac' | 'cas') => fs.readdirSync(path.join(dir, store)).map((file) => path.join(dir, store, file));
      const outputs = () => files('cas').filter((file) => !fs.readFileSync(file, 'utf8').startsWith('{"payload"'));
      return { readOnly: `${nginx.readOnly}${name}`, files, outputs };
    }

    /** The events of the last copy `startsRight` started. */
    let lastStarted: CoreEvent[] = [];

    /** A fresh copy started against `url`: it must build what it could not take, and serve what a build without cache serves. */
    async function startsRight(url: string, coreJson?: object, limits?: { timeoutMs?: number }) {
      const files: Record<string, string> = coreJson ? { 'core.json': JSON.stringify(coreJson) } : {};
      const root = fixtureWorkspace('basic', files);
      const before = NGINX ? await nginx.settled() : 0;
      const fresh = await startFresh(root, settingsFor(root, url), limits);
      const plain = await serve(fixtureWorkspace('basic'), { cache: false });
      for (const address of ADDRESSES) {
        const [a, b] = [await fresh.service.get(address), await plain.get(address)];
        expect(a.status, address).to.equal(200);
        expect(a.text, address).to.equal(b.text);
      }
      expect((await nginx.since(before)).filter((line) => !/^(GET|HEAD) /.test(line)), 'uploads').to.deep.equal([]);
      const remote = remoteOf(fresh.events)!;
      expect(buildsOf(fresh.events)).to.be.greaterThan(0);
      lastStarted = fresh.events;
      return remote;
    }

    it('a flipped byte in a blob', async () => {
      const { readOnly, outputs } = await pushed();
      for (const file of outputs()) {
        const bytes = fs.readFileSync(file);
        bytes[0] ^= 1;
        fs.writeFileSync(file, bytes);
      }
      const remote = await startsRight(readOnly);
      expect(remote.builds).to.deep.equal([]);
      expect(remote.misses).to.deep.equal({ 'bad-blob': remote.asked });
    });

    it('a damaged pack: no part of it is taken, and every module still comes blob by blob', async () => {
      const { readOnly, outputs } = await pushed();
      const packs = outputs().filter((file) => fs.readFileSync(file).subarray(4, 7).toString() === '[["');
      expect(packs).to.have.length(1);
      const bytes = fs.readFileSync(packs[0]!);
      bytes[bytes.length - 1] ^= 1;
      fs.writeFileSync(packs[0]!, bytes);
      const root = fixtureWorkspace('basic');
      const fresh = await startFresh(root, settingsFor(root, readOnly));
      const remote = remoteOf(fresh.events)!;
      expect(buildsOf(fresh.events)).to.equal(0);
      expect(remote.misses).to.deep.equal({});
      expect(remote.builds).to.have.length(remote.asked);
      expect(remote.requests).to.be.greaterThan(2);
    });

    it('a blob cut short', async () => {
      const { readOnly, outputs } = await pushed();
      for (const file of outputs()) fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
      const remote = await startsRight(readOnly);
      expect(remote.misses).to.deep.equal({ 'bad-blob': remote.asked });
    });

    it('a missing blob', async () => {
      const { readOnly, outputs } = await pushed();
      for (const file of outputs()) fs.rmSync(file);
      const remote = await startsRight(readOnly);
      expect(remote.misses).to.deep.equal({ 'missing-blob': remote.asked });
    });

    it('an entry that is not JSON', async () => {
      const { readOnly, files } = await pushed();
      for (const file of files('ac')) fs.writeFileSync(file, '{"payload": "{\\"format\\": 1, ');
      const remote = await startsRight(readOnly);
      expect(remote.misses).to.deep.equal({ 'not-json': remote.asked });
    });

    it('an entry signed by another key, with a public key configured', async () => {
      const signer = crypto.generateKeyPairSync('ed25519');
      const other = crypto.generateKeyPairSync('ed25519');
      const { readOnly } = await pushed(signer.privateKey);
      const remote = await startsRight(readOnly, { ...BASIC_CORE_JSON, remoteCache: { url: 'http://ignored.test', publicKey: other.publicKey.export({ type: 'spki', format: 'pem' }) } });
      expect(remote.misses).to.deep.equal({ 'bad-signature': remote.asked });
    });

    it('an unsigned entry, with a public key configured', async () => {
      const { publicKey } = crypto.generateKeyPairSync('ed25519');
      const { readOnly } = await pushed(null);
      const remote = await startsRight(readOnly, { ...BASIC_CORE_JSON, remoteCache: { url: 'http://ignored.test', publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') } });
      expect(remote.misses).to.deep.equal({ unsigned: remote.asked });
    });

    it('takes entries signed by the configured key', async () => {
      const signer = crypto.generateKeyPairSync('ed25519');
      const { readOnly } = await pushed(signer.privateKey);
      const root = fixtureWorkspace('basic', { 'core.json': JSON.stringify({ ...BASIC_CORE_JSON, remoteCache: { url: 'http://ignored.test', publicKey: signer.publicKey.export({ type: 'spki', format: 'pem' }) } }) });
      const fresh = await startFresh(root, settingsFor(root, readOnly));
      expect(buildsOf(fresh.events)).to.equal(0);
      expect(remoteOf(fresh.events)!.misses).to.deep.equal({});
    });

    it('a server that refuses connections: counted, and the breaker stops the asking at once', async () => {
      const port = await closedPort();
      const remote = await startsRight(`http://127.0.0.1:${port}/`, SIGNED_CORE_JSON);
      // The model's question (asked: a public key is configured) is asked alone, first: refused, nothing more is asked.
      expect(modelOf(lastStarted)).to.include({ adopted: false, miss: 'unanswered', failure: 'refused' });
      expect(remote.failures).to.deep.equal({ refused: 1 });
      expect(remote.requests).to.equal(1);
      expect(remote.misses).to.deep.equal({ unanswered: remote.asked });
    });

    it('a server that accepts and never answers (a mock): the first request ends at its time limit, and nothing more is asked', async () => {
      const silent = net.createServer(() => {}); // the mock: holds every connection, says nothing
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = silent.address() as net.AddressInfo;
        const remote = await startsRight(`http://127.0.0.1:${port}/`, SIGNED_CORE_JSON, { timeoutMs: 200 });
        // One time limit in all: the model's question is asked alone, first.
        expect(modelOf(lastStarted)).to.include({ adopted: false, miss: 'unanswered', failure: 'timeout' });
        expect(remote.failures).to.deep.equal({ timeout: 1 });
        expect(remote.requests).to.equal(1);
        expect(remote.misses).to.deep.equal({ unanswered: remote.asked });
      } finally {
        silent.close();
      }
    });

    it('a server that answers 500 (a mock)', async () => {
      let asked = 0;
      const failing = http.createServer((_request, response) => {
        asked += 1;
        response.writeHead(500).end('broken');
      });
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = failing.address() as net.AddressInfo;
        const remote = await startsRight(`http://127.0.0.1:${port}/`, SIGNED_CORE_JSON);
        expect(remote.failures['server-error']).to.be.at.least(3);
        // The model's question, then the workspace's and at most a round of module questions.
        expect(modelOf(lastStarted)).to.include({ failure: 'server-error' });
        expect(asked).to.equal(remote.requests).and.to.be.at.most(2 + 8);
      } finally {
        failing.close();
      }
    });

    it('a body cut short in transfer (a mock that promises more than it sends)', async () => {
      const cutting = net.createServer((socket) => {
        socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"payload"'));
      });
      await new Promise<void>((resolve) => cutting.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = cutting.address() as net.AddressInfo;
        const remote = await startsRight(`http://127.0.0.1:${port}/`);
        expect(remote.failures.truncated).to.be.at.least(3);
        expect(remote.builds).to.deep.equal([]);
      } finally {
        cutting.close();
      }
    });

    it('a read-only endpoint: one PUT refused (403), no other sent', async () => {
      const before = await nginx.settled();
      const result = await pushBuilds(fixtureWorkspace('basic'), settingsFor(fixtureWorkspace('basic'), nginx.readOnly), null, () => {});
      expect(result.stopped).to.equal('denied');
      expect(result.entries).to.equal(0);
      expect(await nginx.since(before)).to.have.length(1).and.to.match(/^PUT \/cas\/[0-9a-f]{64} 403$/);
    });
  });
});

/** Every file under `dir` with its text, in order: two distributions compared whole. */
const filesOf = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((file) => [file, fs.statSync(path.join(dir, file)).isFile() ? fs.readFileSync(path.join(dir, file), 'utf8') : 'dir']);

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
