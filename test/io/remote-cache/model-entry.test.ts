// The workspace model in the team's remote cache (README "A team's remote cache") against a real
// nginx: `core cache push` stores the model CI read; a fresh copy takes it instead of reading
// the workspace when every source it was read from holds there, and reads as always otherwise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { expect } from 'chai';
import { pushBuilds } from '../../../src/cli/cache-push.js';
import type { CoreEvent } from '../../../src/store/events.js';
import { remoteCacheSettings, type RemoteCacheSettings } from '../../../src/io/remote-cache/settings.js';
import { fixtureWorkspace } from '../../helpers/fixtures.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../../helpers/nginx.js';
import { serve } from '../../helpers/service.js';
import { TEST_FIXTURES_DIR } from '../../helpers/workspace.js';
import { RACY_MS } from '../../../src/io/file-hashes.js';

const settingsFor = (root: string, url: string): RemoteCacheSettings => remoteCacheSettings(root, { CORE_REMOTE_CACHE: url }).settings!;

type ModelFact = Extract<CoreEvent, { type: 'cache.remote.model' }>;

/** A copy with an empty build cache (or `cacheDir`) asking `settings`: its events, and how many times it read the workspace. */
async function startCounting(root: string, settings: RemoteCacheSettings, cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-remote-model-'))) {
  let reads = 0;
  const service = await serve(root, {
    cache: cacheDir,
    remoteCache: { settings },
    effectDeps: (deps) => ({ ...deps, readWorkspace: (deepImports) => ((reads += 1), deps.readWorkspace(deepImports)) }),
  });
  const events: CoreEvent[] = [...service.internals.log.events()];
  service.events$.subscribe((event) => events.push(event));
  await service.report();
  const model = events.find((event): event is ModelFact => event.type === 'cache.remote.model');
  return { service, events, model, reads: () => reads, cacheDir };
}

/** The model a service without any cache reads from the same files. */
async function plainModel(root: string) {
  const plain = await serve(root, { cache: false });
  await plain.report();
  return plain.internals.store.getState().workspace;
}

const modelEntryFiles = (dir: string) =>
  fs.readdirSync(path.join(dir, 'ac')).map((file) => path.join(dir, 'ac', file)).filter((file) => fs.readFileSync(file, 'utf8').includes('"kind":"model"'));

// Only a signed model is shared (README "A team's remote cache"): the team's key pair, its
// public key in `core.json` (`signedCoreJson` of other content), the push signed by the other.
const BASIC = JSON.parse(fs.readFileSync(path.join(TEST_FIXTURES_DIR, 'basic/core.json'), 'utf8')) as object;
const signer = crypto.generateKeyPairSync('ed25519');
const signedCoreJson = (content: object = BASIC) => JSON.stringify({ ...content, remoteCache: { url: 'http://ignored.test', publicKey: signer.publicKey.export({ type: 'spki', format: 'pem' }) } });
/** The basic fixture with `files`, its `core.json` holding the team's public key. */
const signedWorkspace = (files: Record<string, string> = {}) => fixtureWorkspace('basic', { 'core.json': signedCoreJson(), ...files });

describe('the workspace model in the team cache', function () {
  let nginx: Nginx;
  let instance = 0;
  before(async function () {
    if (!NGINX) return this.skip(); // nginx is not installed: `apt-get install -y nginx` (.ci/run does)
    nginx = await startNginx();
  });
  after(() => stopNginx());

  /** `core cache push` of the signed basic fixture (with `files`) into an instance of its own, signed by `signingKey`. */
  async function pushed(files: Record<string, string> = {}, signingKey: crypto.KeyObject | null = signer.privateKey) {
    const name = `model${(instance += 1)}`;
    const root = signedWorkspace(files);
    const result = await pushBuilds(root, settingsFor(root, `${nginx.readWrite}${name}`), signingKey, () => {});
    expect(result.stopped).to.equal(undefined);
    expect(result.model).to.equal(signingKey ? true : undefined);
    return { readOnly: `${nginx.readOnly}${name}`, dir: path.join(nginx.data, name), name };
  }

  it('a fresh copy takes the model CI read: no workspace read, nothing built, the model a read gives', async () => {
    const { readOnly } = await pushed();
    const root = signedWorkspace();
    const fresh = await startCounting(root, settingsFor(root, readOnly));
    expect(fresh.model).to.include({ adopted: true });
    expect(fresh.model!.sources).to.be.greaterThan(10);
    expect(fresh.reads()).to.equal(0);
    expect(fresh.events.filter((event) => event.type === 'build.started')).to.deep.equal([]);
    const read = fresh.events.find((event) => event.type === 'workspace.read')!;
    expect(fresh.events.indexOf(fresh.model!)).to.be.below(fresh.events.indexOf(read));
    expect(fresh.service.internals.store.getState().workspace).to.deep.equal(await plainModel(root));
  });

  it('a model taken is saved by the build cache with its entry\'s links: the next start takes it from there, reading nothing', async () => {
    const { readOnly } = await pushed();
    const root = signedWorkspace();
    // Past the racy window of the copy: the stats taken now prove its files to the next start.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 10));
    const fresh = await startCounting(root, settingsFor(root, readOnly));
    expect(fresh.model).to.include({ adopted: true });
    const model = fresh.service.internals.store.getState().workspace;
    await fresh.service.close();
    const saved = JSON.parse(fs.readFileSync(path.join(fresh.cacheDir, 'builds.json'), 'utf8')) as { workspace?: { links: object } };
    expect(saved.workspace?.links).to.deep.equal({ realPaths: { 'packages/app': 'packages/app', 'packages/lib': 'packages/lib' }, leaves: { 'packages/app': false, 'packages/lib': false } });
    const next = await startCounting(root, settingsFor(root, readOnly), fresh.cacheDir);
    expect(next.events.find((event) => event.type === 'workspace.read')).to.include({ restored: true });
    expect(next.model).to.equal(undefined);
    expect(next.reads()).to.equal(0);
    expect(next.service.internals.store.getState().workspace).to.deep.equal(model);
  });

  it('a source changed after the push: refused as stale, the workspace read, the model of this disk', async () => {
    const { readOnly } = await pushed();
    const root = signedWorkspace({ 'packages/lib/widgets/badge/module.json': '{"platforms": ["web"], "entry": "index.ts", "assets": []}' });
    const fresh = await startCounting(root, settingsFor(root, readOnly));
    expect(fresh.model).to.include({ adopted: false, miss: 'stale' });
    expect(fresh.reads()).to.equal(1);
    const workspace = fresh.service.internals.store.getState().workspace;
    expect(workspace).to.deep.equal(await plainModel(root));
    expect(workspace.modules.find((module) => module.specifier === '@acme/lib/widgets/badge')).to.have.nested.property('assets').that.deep.equals([]);
  });

  it('a listing changed (a module directory added): refused, and the new module is in the model', async () => {
    const { readOnly } = await pushed();
    const root = signedWorkspace({
      'packages/lib/widgets/card/module.json': '{"platforms": ["web"], "entry": "index.ts"}',
      'packages/lib/widgets/card/index.ts': 'export const card = 1;\n',
    });
    const fresh = await startCounting(root, settingsFor(root, readOnly));
    expect(fresh.model).to.include({ adopted: false, miss: 'stale' });
    expect(fresh.reads()).to.equal(1);
    const workspace = fresh.service.internals.store.getState().workspace;
    expect(workspace.modules.map((module) => module.specifier)).to.include('@acme/lib/widgets/card');
    expect(workspace).to.deep.equal(await plainModel(root));
  });

  it('a link the read told of leads elsewhere here: refused, though every source hashes the same', async () => {
    // On CI a listed package directory is a link leaving the workspace; here it is not there at
    // all: its package.json is absent to both reads, only the diagnostic differs.
    const coreJson = signedCoreJson({ packages: ['packages/app', 'packages/lib', 'packages/away'] });
    const outside = fixtureWorkspace('basic');
    const name = `model${(instance += 1)}`;
    const ci = fixtureWorkspace('basic', { 'core.json': coreJson });
    fs.symlinkSync(path.join(outside, 'packages/lib'), path.join(ci, 'packages/away'));
    const result = await pushBuilds(ci, settingsFor(ci, `${nginx.readWrite}${name}`), signer.privateKey, () => {});
    expect(result.model).to.equal(true);
    const root = fixtureWorkspace('basic', { 'core.json': coreJson });
    const fresh = await startCounting(root, settingsFor(root, `${nginx.readOnly}${name}`));
    expect(fresh.model).to.include({ adopted: false, miss: 'stale' });
    const workspace = fresh.service.internals.store.getState().workspace;
    expect(workspace.diagnostics.map((one) => one.message).join('\n')).to.contain('which has no package.json');
    expect(workspace).to.deep.equal(await plainModel(root));
  });

  /** The pushed model's entry rewritten by `rewrite`, then a fresh copy started: the model refused as `miss`, the workspace read once. */
  async function refusedWhenRewritten(rewrite: (text: string) => string, miss: string) {
    const { readOnly, dir } = await pushed();
    const [file] = modelEntryFiles(dir);
    fs.writeFileSync(file!, rewrite(fs.readFileSync(file!, 'utf8')));
    const root = signedWorkspace();
    const fresh = await startCounting(root, settingsFor(root, readOnly));
    expect(fresh.model).to.include({ adopted: false, miss });
    expect(fresh.reads()).to.equal(1);
    return { fresh, root };
  }

  it('a tampered entry is a miss: the workspace read', async () => {
    // Signed again after the change: only the shape tells.
    const { fresh, root } = await refusedWhenRewritten((text) => {
      const payload = JSON.stringify((JSON.parse(text) as { payload: object }).payload).replace('"kind":"model"', '"kind":"modle"');
      return `{"payload":${payload},"signature":"${crypto.sign(null, Buffer.from(payload), signer.privateKey).toString('base64')}"}`;
    }, 'wrong-shape');
    expect(fresh.service.internals.store.getState().workspace).to.deep.equal(await plainModel(root));
  });

  it('a payload changed under its signature: a bad signature, the workspace read', async () => {
    // Still a model of this workspace, one module fewer: only the signature tells.
    const { fresh, root } = await refusedWhenRewritten((text) => {
      const entry = JSON.parse(text) as { payload: { model: { modules: unknown[] } }; signature: string };
      entry.payload.model.modules.pop();
      return `{"payload":${JSON.stringify(entry.payload)},"signature":"${entry.signature}"}`;
    }, 'bad-signature');
    expect(fresh.service.internals.store.getState().workspace).to.deep.equal(await plainModel(root));
  });

  it('an unsigned entry: refused', async () => {
    await refusedWhenRewritten((text) => `{"payload":${JSON.stringify((JSON.parse(text) as { payload: object }).payload)}}`, 'unsigned');
  });

  it('no public key in core.json: an unsigned push uploads no model, and a fresh copy asks for none', async () => {
    const name = `model${(instance += 1)}`;
    const ci = fixtureWorkspace('basic');
    const result = await pushBuilds(ci, settingsFor(ci, `${nginx.readWrite}${name}`), null, () => {});
    expect(result.stopped).to.equal(undefined);
    expect(result.entries).to.be.greaterThan(0);
    expect(result.model).to.equal(undefined);
    expect(modelEntryFiles(path.join(nginx.data, name))).to.deep.equal([]);
    const before = await nginx.settled();
    const root = fixtureWorkspace('basic');
    const fresh = await startCounting(root, settingsFor(root, `${nginx.readOnly}${name}`));
    expect(fresh.model).to.equal(undefined);
    expect(fresh.reads()).to.equal(1);
    // The start's questions alone: the workspace's entry, then the pack it names.
    const asked = await nginx.since(before);
    expect(asked).to.have.length(2);
    expect(asked[0]).to.match(new RegExp(`^GET /${name}/ac/[0-9a-f]{64} 200$`));
    expect(asked[1]).to.match(new RegExp(`^GET /${name}/cas/[0-9a-f]{64} 200$`));
    const restored = fresh.events.find((event) => event.type === 'cache.remote.restored');
    expect(restored).to.include({ requests: 2 });
    expect(fresh.events.filter((event) => event.type === 'build.started')).to.deep.equal([]);
  });
});
