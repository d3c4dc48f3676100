// The team's remote cache (README "A team's remote cache") against a real nginx: what
// `core cache push` uploads from one copy of a workspace, a fresh copy with an empty build cache
// starts from, building nothing and serving the very bytes a build without any cache serves;
// a developer's run writes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pushBuilds } from '../../src/cli/cache-push.js';
import type { CoreEvent } from '../../src/store/events.js';
import { remoteCacheSettings, type RemoteCacheSettings } from '../../src/streams/remote-cache/settings.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../helpers/nginx.js';
import { serve } from '../helpers/service.js';

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
    const before = nginx.requests().length;

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
    // A developer's run only reads: the one question for the workspace, then the outputs' blobs.
    const asked = nginx.requests().slice(before);
    expect(asked.filter((line) => !line.startsWith('GET '))).to.deep.equal([]);
    expect(asked[0]).to.match(/^GET \/ac\/[0-9a-f]{64} 200$/);
  });
});
