// The team's remote cache (README "A team's remote cache") and links inside the workspace: an
// input that names where a link leads (`<path> ->`) is judged on a team start as the local check
// judges it, by the link's real path in the workspace, so a copy whose link leads where CI's led
// takes the build, and one whose link leads elsewhere builds it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { pushBuilds } from '../../src/cli/cache-push.js';
import { DEV } from '../helpers/fixtures.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../helpers/nginx.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import os from 'node:os';
import type { CoreEvent } from '../../src/store/events.js';
import { remoteCacheSettings, type RemoteCacheSettings } from '../../src/io/remote-cache/settings.js';
const settingsFor = (root: string, url: string): RemoteCacheSettings => remoteCacheSettings(root, { CORE_REMOTE_CACHE: url }).settings!;
async function startFresh(root: string, settings: RemoteCacheSettings) {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-remote-local-'));
  const service = await serve(root, { cache: cacheDir, remoteCache: { settings } });
  const events: CoreEvent[] = [...service.internals.log.events()];
  service.events$.subscribe((event) => events.push(event));
  await service.report();
  return { service, events, cacheDir };
}
const buildsOf = (events: CoreEvent[]) => events.filter((event) => event.type === 'build.started').length;
const remoteOf = (events: CoreEvent[]) => events.find((event): event is Extract<CoreEvent, { type: 'cache.remote.restored' }> => event.type === 'cache.remote.restored');


const MODULE = `/m/@t/app@1.0.0/modules/main?${DEV}`;

/** A workspace whose module imports its helper through a link inside the workspace (`parts/pad.ts` -> `../pad-<target>.ts`). */
/** A workspace whose package directory is a link to a checkout inside it (`packages/app` -> `../checkouts/<target>`). */
function linkedPackage(target: 'a' | 'b'): string {
  const root = inlineWorkspace({}, {
    'core.json': JSON.stringify({ packages: ['packages/app'] }),
    'checkouts/a/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'checkouts/a/main/index.ts': "export const pad = 'PAD_A';\n",
    'checkouts/b/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'checkouts/b/main/index.ts': "export const pad = 'PAD_A';\n",
  });
  fs.mkdirSync(path.join(root, 'packages'));
  fs.symlinkSync(`../checkouts/${target}`, path.join(root, 'packages/app'));
  return root;
}
function linkedFile(target: 'a' | 'b'): string {
  const root = inlineWorkspace({
    'packages/app': {
      manifest: { name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' } },
      files: {
        'main/index.ts': "export { pad } from './parts/pad.ts';\n",
        'main/pad-a.ts': "export const pad = 'PAD_A';\n",
        'main/pad-b.ts': "export const pad = 'PAD_A';\n",
      },
    },
  });
  fs.mkdirSync(path.join(root, 'packages/app/main/parts'));
  fs.symlinkSync(`../pad-${target}.ts`, path.join(root, 'packages/app/main/parts/pad.ts'));
  return root;
}

describe('the team remote cache and links inside the workspace, against nginx', function () {
  let nginx: Nginx;
  before(async function () {
    if (!NGINX) return this.skip(); // nginx is not installed: `apt-get install -y nginx` (.ci/run does)
    nginx = await startNginx();
  });
  after(() => stopNginx());

  for (const [kind, linked] of [['a source imported through a link', linkedFile], ['a package directory that is a link', linkedPackage]] as const) {
    it(`${kind}: a fresh copy whose link leads where CI's led takes the module from the team cache; one whose link leads elsewhere builds it`, async () => {
      const instance = `${nginx.readWrite}${linked.name}`;
      const ci = linked('a');
      const pushed = await pushBuilds(ci, settingsFor(ci, instance), null, () => {});
      expect(pushed.stopped).to.equal(undefined);
      expect(pushed.entries).to.equal(pushed.built);

      const same = linked('a');
      const fresh = await startFresh(same, settingsFor(same, `${nginx.readOnly}${linked.name}`));
      const remote = remoteOf(fresh.events)!;
      expect(remote.misses).to.deep.equal({});
      expect(remote.builds.length).to.equal(remote.asked).and.to.be.greaterThan(0);
      expect(buildsOf(fresh.events)).to.equal(0);
      expect((await fresh.service.get(MODULE)).text).to.include('PAD_A');

      // The same bytes at the end of the link, but another file: where the link leads is an input.
      const elsewhere = linked('b');
      const other = await startFresh(elsewhere, settingsFor(elsewhere, `${nginx.readOnly}${linked.name}`));
      expect(remoteOf(other.events)!.misses).to.deep.equal({ stale: 1 });
      expect(buildsOf(other.events)).to.equal(1);
      const plain = await serve(elsewhere, { cache: false });
      expect((await other.service.get(MODULE)).text).to.equal((await plain.get(MODULE)).text);
    });
  }
});
