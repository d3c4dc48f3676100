// Symbolic links that would make the service walk without end: a link to `/` and a link loop
// inside the workspace. The service serves as if they were not there (its memory stays
// small) and stops on SIGINT; a link to a directory inside the workspace is still watched.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { awaitedWalk, serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { inlineWorkspace, tempWorkspace } from '../helpers/workspace.js';

/** Resident memory of a process, in MiB (Linux). */
const residentMiB = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('symbolic links in a workspace', function () {
  after(async function () {
    await killAllCores();
  });

  it('a link to / and a link loop: /state answers, memory stays small, SIGINT stops the service', async function () {
    const root = fixtureWorkspace('basic');
    fs.symlinkSync('/', path.join(root, 'packages/app/rootlink'));
    fs.symlinkSync('..', path.join(root, 'packages/lib/format/loop'));
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    const asked = Date.now();
    const state = await get(core.url, '/state');
    // Generous: walking the file system took minutes and gigabytes before links were judged.
    expect(Date.now() - asked, 'ms to answer /state').to.be.below(5000);
    expect(state.status).to.equal(200);
    expect((JSON.parse(state.text) as { modules: { status: string }[] }).modules.map((module) => module.status)).to.not.include('pending');
    // The watcher has had time to walk whatever it walks.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await get(core.url, `/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
    expect(residentMiB(core.child.pid!), 'MiB resident').to.be.below(400);
    const result = await core.stop('SIGINT');
    expect([result.code, result.signal]).to.deep.equal([0, null]);
  });

  it('a link to a directory inside the workspace: a change of a file behind it is seen by the watcher', async function () {
    const root = inlineWorkspace(
      { 'packages/app': { manifest: { name: '@t/app', version: '1.0.0', core: { modules: '.' } }, files: {} } },
      { 'common/shared/module.json': '{"entry": "index.ts"}', 'common/shared/index.ts': "export const shared = 'SHARED_ONE';\n" },
    );
    fs.symlinkSync('../../common/shared', path.join(root, 'packages/app/shared'));
    const service = await serve(root);
    expect((await service.report()).modules.map((module) => [module.specifier, module.status])).to.deep.equal([['@t/app/shared', 'valid']]);
    // The manifest, written through the real path: the state knows it through the link.
    const seen = () =>
      service.internals.log.events().some((event) => event.type === 'files.changed' && event.source === 'watcher' && 'packages/app/shared/module.json' in event.files);
    let round = 0;
    await waitFor(
      async () => {
        // Until the watcher is ready, a write may go unseen: write again until one is.
        round += 1;
        fs.writeFileSync(path.join(root, 'common/shared/module.json'), JSON.stringify({ entry: 'index.ts', platforms: round % 2 ? ['web', 'node'] : ['web'] }));
        return waitFor(seen, { timeout: 1000 });
      },
      { timeout: 20_000, what: 'the watcher reporting packages/app/shared/module.json' },
    );
    // The code behind the link is watched too, and reported by the path through the link, which
    // the module's build names it by (README "Links and large trees"). Written once the
    // manifest's change is built: a file written while what reads it is being built again is
    // that build's to see, not the watcher's to report.
    await service.report();
    fs.writeFileSync(path.join(root, 'common/shared/index.ts'), "export const shared = 'SHARED_TWO';\n");
    await waitFor(() => service.internals.log.events().some((event) => event.type === 'files.changed' && event.source === 'watcher' && 'packages/app/shared/index.ts' in event.files), {
      what: 'the watcher reporting packages/app/shared/index.ts',
    });
    expect((await service.get(`/m/@t/app@1.0.0/modules/shared?${DEV}`)).text).to.include('SHARED_TWO');
  });

  it('a link a source is imported through, retargeted: the next answer builds from the new target, before the watcher is up and after', async function () {
    const root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } },
        files: {
          'main/index.ts': "export { pad } from './parts/pad.ts';\nexport { unit } from './units';\nexport { zone } from './zones/zone.ts';\n",
          'main/pad-a.ts': "export const pad = 'PAD_A';\n",
          'main/pad-b.ts': "export const pad = 'PAD_B';\n",
          'main/unit-a.ts': "export const unit = 'UNIT_A';\n",
          'main/unit-b.ts': "export const unit = 'UNIT_B';\n",
          'main/zones-a/zone.ts': "export const zone = 'ZONE_A';\n",
          'main/zones-b/zone.ts': "export const zone = 'ZONE_B';\n",
          'other/index.ts': 'export const other = 1;\n',
        },
      },
    });
    const main = path.join(root, 'packages/app/main');
    fs.mkdirSync(path.join(main, 'parts'));
    fs.symlinkSync('../pad-a.ts', path.join(main, 'parts/pad.ts'));
    fs.symlinkSync('unit-a.ts', path.join(main, 'units.ts'));
    fs.symlinkSync('zones-a', path.join(main, 'zones'));
    /** Points the link at `target`, as `ln -sfn` does: a new link renamed over the old one. */
    const retarget = (link: string, target: string) => {
      fs.symlinkSync(target, path.join(main, `${link}.new`));
      fs.renameSync(path.join(main, `${link}.new`), path.join(main, link));
    };
    const walk = awaitedWalk();
    const service = await serve(root, { effectDeps: walk.deps });
    const code = async () => (await service.get(`/m/@t/app@1.0.0/modules/main?${DEV}`)).text;
    expect(await code()).to.include('PAD_A').and.include('UNIT_A').and.include('ZONE_A');
    // Where each link leads is the input, not the file under a second name (read once, by its real path).
    const built = service.internals.log.events().filter((event) => event.type === 'build.succeeded' && event.module === '@t/app/main').pop();
    const inputs = Object.keys(built && 'inputs' in built ? built.inputs : {});
    expect(inputs).to.include.members(['packages/app/main/parts/pad.ts ->', 'packages/app/main/units.ts ->', 'packages/app/main/pad-a.ts', 'packages/app/main/unit-a.ts']);
    expect(inputs).to.not.include.members(['packages/app/main/parts/pad.ts']);
    retarget('parts/pad.ts', '../pad-b.ts');
    retarget('units.ts', 'unit-b.ts');
    retarget('zones', 'zones-b');
    expect(await code(), 'retargeted in the first second').to.include('PAD_B').and.include('UNIT_B').and.include('ZONE_B');
    await walk.walked;
    retarget('parts/pad.ts', '../pad-a.ts');
    retarget('units.ts', 'unit-a.ts');
    retarget('zones', 'zones-a');
    expect(await code(), 'retargeted once the watcher is up').to.include('PAD_A').and.include('UNIT_A').and.include('ZONE_A');
  });

  it('a package directory that is a link, retargeted: every file of the module is built from the new target, running and after a restart', async function () {
    const files = (marker: string) => ({
      'package.json': JSON.stringify({ name: '@t/lib', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'main/index.ts': "export { pad } from './parts/pad.ts';\n",
      'main/parts/pad.ts': `export const pad = '${marker}';\n`,
    });
    const root = inlineWorkspace({}, Object.fromEntries(['ONE', 'TWO'].flatMap((marker) => Object.entries(files(`LIB_${marker}`)).map(([file, text]) => [`checkouts/${marker}/lib/${file}`, text]))));
    fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/lib'] }));
    fs.mkdirSync(path.join(root, 'packages'));
    fs.symlinkSync('../checkouts/ONE/lib', path.join(root, 'packages/lib'));
    /** Points packages/lib at another checkout, as `ln -sfn` does. */
    const retarget = (marker: string) => {
      fs.symlinkSync(`../checkouts/${marker}/lib`, path.join(root, 'packages/lib.new'));
      fs.renameSync(path.join(root, 'packages/lib.new'), path.join(root, 'packages/lib'));
    };
    const cache = tempWorkspace();
    const walk = awaitedWalk();
    const service = await serve(root, { cache, effectDeps: walk.deps });
    const code = async (from = service) => (await from.get(`/m/@t/lib@1.0.0/modules/main?${DEV}`)).text;
    expect(await code()).to.include('LIB_ONE');
    retarget('TWO');
    expect(await code(), 'retargeted in the first second').to.include('LIB_TWO');
    await walk.walked;
    retarget('ONE');
    expect(await code(), 'retargeted once the watcher is up').to.include('LIB_ONE');
    await service.close();
    retarget('TWO');
    const restarted = await serve(root, { cache });
    expect(await code(restarted), 'retargeted while stopped').to.include('LIB_TWO');
    await restarted.close();
  });

  // `core run ~/link/to/workspace`, or /tmp on macOS (a link to /private/tmp): esbuild and the
  // confinement see real paths, so a root named through a link made the files of the workspace
  // look like files elsewhere (its declared assets "not declared").
  it('a workspace named through a link to it: served as when named by its real path, edits through either path seen', async function () {
    const real = fixtureWorkspace('basic');
    const linked = path.join(tempWorkspace(), 'linked');
    fs.symlinkSync(real, linked);
    const walk = awaitedWalk();
    const service = await serve(linked, { effectDeps: walk.deps });
    const main = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
    const first = await service.get(main);
    expect(first.status, first.text.slice(0, 300)).to.equal(200);
    expect(service.root).to.equal(real);
    expect((await service.report()).modules.filter((module) => module.status !== 'valid').map((module) => module.specifier)).to.deep.equal([]);
    await walk.walked;
    const helper = 'packages/app/main/helper.ts';
    fs.writeFileSync(path.join(linked, helper), fs.readFileSync(path.join(real, helper), 'utf8').replace('APP_HELPER_MARKER', 'APP_HELPER_LINKED'));
    expect((await service.get(main)).text).to.include('APP_HELPER_LINKED');
    fs.writeFileSync(path.join(real, helper), fs.readFileSync(path.join(real, helper), 'utf8').replace('APP_HELPER_LINKED', 'APP_HELPER_REALLY'));
    expect((await service.get(main)).text).to.include('APP_HELPER_REALLY');
  });

  it('a tree larger than the watch limit: one warning saying what to do, and the service serves', async function () {
    const reported: string[] = [];
    const service = await serve(fixtureWorkspace('basic'), { watchLimit: 5, logger: (line) => void reported.push(line) });
    await service.report();
    const warning = await waitFor(() => reported.find((line) => line.includes('CORE_WATCH_LIMIT')), { what: 'the warning of the watch limit' });
    expect(warning).to.include('more than 5 directories (and links to files)');
    expect(reported.filter((line) => line.includes('CORE_WATCH_LIMIT'))).to.have.length(1);
    expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
  });
});
