// The team's remote cache (README "A team's remote cache") and what a build only depends on
// (`resolution`): an input that names where a link leads (`<path> ->`) is judged on a team start
// as the local check judges it, by the link's real path in the workspace, so a copy whose link
// leads where CI's led takes the build, and one whose link leads elsewhere builds it; and the
// files a crossed entry's names were learnt from travel as what the importer depends on, never
// as files it read.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { pushBuilds } from '../../src/cli/cache-push.js';
import { DEV } from '../helpers/fixtures.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../helpers/nginx.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';
import { crossingWorkspace, lastBuild, PART, PLAIN } from '../helpers/crossing-workspace.js';
import { selectSharedFiles } from '../../src/store/selectors.js';
import { filesRead } from '../../src/workspace/files-read.js';
import { distribute } from '../../src/dist/distribute.js';
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

describe('the team remote cache and what a build only depends on, against nginx', function () {
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

  it("a crossed entry's files: a fresh copy's restored importer still depends on them without having read them (no shared file, here or in core dist), and an edit of one builds it", async () => {
    const ci = crossingWorkspace();
    const pushed = await pushBuilds(ci, settingsFor(ci, `${nginx.readWrite}crossing`), null, () => {});
    expect(pushed.entries).to.equal(pushed.built);
    const root = crossingWorkspace();
    const fresh = await startFresh(root, settingsFor(root, `${nginx.readOnly}crossing`));
    expect(buildsOf(fresh.events)).to.equal(0);
    const state = fresh.service.internals.store.getState();
    for (const module of ['@t/lib/main', '@t/lib/other']) {
      const record = lastBuild(state, module);
      expect(record.build, `${module} from the team cache`).to.equal(0);
      expect(record.resolution, module).to.include.members([PART, PLAIN]);
      expect(filesRead(record), module).to.not.include(PART);
    }
    expect([...selectSharedFiles(state)]).to.deep.equal([]);
    const dist = await distribute({ root, out: path.join(root, 'out'), remoteCache: { settings: settingsFor(root, `${nginx.readOnly}crossing`) } });
    expect(dist.remoteCache!.builds.length).to.equal(dist.remoteCache!.asked).and.to.be.greaterThan(0);
    expect(fs.existsSync(path.join(root, 'out/@t/lib@1.0.0/modules/.shared')), 'no shared file written').to.equal(false);
    writeFile(root, PART, 'export class Part {}\n');
    expect((await fresh.service.get(`/m/@t/lib@1.0.0/modules/main?${DEV}`)).text).to.match(/import \{ Part, plain \} from "@t\/lib\/plain"/);
  });
});
