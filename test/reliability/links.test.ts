// Symbolic links that would make the service walk without end: a link to `/` and a link loop
// inside the workspace. The service serves as if they were not there (its memory stays
// small) and stops on SIGINT; a link to a directory inside the workspace is still watched.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { inlineWorkspace } from '../helpers/workspace.js';

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
    // The code behind the link is watched too (esbuild reads it by its real path). Written once
    // the manifest's change is built: a file written while what reads it is being built again
    // is that build's to see, not the watcher's to report.
    await service.report();
    fs.writeFileSync(path.join(root, 'common/shared/index.ts'), "export const shared = 'SHARED_TWO';\n");
    await waitFor(() => service.internals.log.events().some((event) => event.type === 'files.changed' && event.source === 'watcher' && 'common/shared/index.ts' in event.files), {
      what: 'the watcher reporting common/shared/index.ts',
    });
    expect((await service.get(`/m/@t/app@1.0.0/modules/shared?${DEV}`)).text).to.include('SHARED_TWO');
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
