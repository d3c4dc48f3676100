// The check before answering, once the watcher has walked the tree (README "Addresses"): a
// path its notices prove unchanged is not looked at again, and every change made before a
// request is still in its answer, on a real server and a real disk.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { findDiagnostic } from '../helpers/answers.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { awaitedWalk, serve } from '../helpers/service.js';
import type { WatcherLike } from '../../src/io/tree-watcher.js';
import type { Report } from '../../src/store/selectors.js';

const FORMAT = `/m/@acme/lib@1.2.0/modules/format?${DEV}`;
const ENTRY = 'packages/lib/format/index.ts';
const PAD = 'packages/lib/format/internal/pad.ts';

/**
 * A service on a copy of the basic fixture, once its watcher has walked the whole tree.
 * `unheard`: the watcher's events do not reach the watch effect, so only the check before
 * answering can find a change (with the watcher's proof, or with a stat).
 */
async function walkedService({ unheard = false } = {}) {
  const root = fixtureWorkspace('basic');
  const walk = awaitedWalk((watcher) => {
    if (!unheard) return watcher;
    const withheld: WatcherLike = {
      on: (event: string, listener: (...args: never[]) => void) => (event === 'all' || event === 'raw' ? withheld : (watcher.on(event as 'ready', listener as () => void), withheld)),
      close: () => watcher.close(),
    } as WatcherLike;
    return withheld;
  });
  const ready = walk.walked;
  const service = await serve(root, { effectDeps: walk.deps });
  expect((await service.get(FORMAT)).status).to.equal(200);
  await ready;
  return { root, service };
}

/** The paths inside `root` that `fs.statSync` is asked about while `run` runs. */
async function statsDuring(root: string, run: () => Promise<void>): Promise<string[]> {
  const statSync = fs.statSync;
  const writable = fs as { statSync: typeof fs.statSync };
  const asked: string[] = [];
  writable.statSync = ((file: fs.PathLike, options?: fs.StatSyncOptions) => {
    const absolute = path.resolve(String(file));
    if (absolute.startsWith(root + path.sep)) asked.push(path.relative(root, absolute));
    return statSync(file, options);
  }) as typeof fs.statSync;
  try {
    await run();
  } finally {
    writable.statSync = statSync;
  }
  return asked;
}

describe('the check before answering, with the watcher’s proof', function () {
  it('answers a module again without a stat of what the watcher proves unchanged', async function () {
    if (process.platform !== 'linux') this.skip();
    const { root, service } = await walkedService();
    // The first answer after the walk confirms every path it depends on; the next ones take them on the watcher's word.
    expect((await service.get(FORMAT)).status).to.equal(200);
    const asked = await statsDuring(root, async () => {
      for (let index = 0; index < 5; index++) expect((await service.get(FORMAT)).status).to.equal(200);
    });
    // The selection too, whose directory does not exist: the root's watch proves that directory still absent.
    expect(asked).to.deep.equal([]);
  });

  it('still answers every edit made just before a request, in place or by rename, of the same size', async function () {
    const { root, service } = await walkedService({ unheard: true });
    const original = fs.readFileSync(path.join(root, PAD), 'utf8');
    expect(original).to.include('LIB_PAD_MARKER');
    for (let round = 0; round < 30; round++) {
      // The same size each time, often within one tick of the file system's clock.
      const marker = `LIB_PAD_M${String(round).padStart(2, '0')}ER`.slice(0, 'LIB_PAD_MARKER'.length);
      const text = original.replace('LIB_PAD_MARKER', marker);
      if (round % 2 === 0) fs.writeFileSync(path.join(root, PAD), text);
      else {
        fs.writeFileSync(path.join(root, `${PAD}.tmp`), text);
        fs.renameSync(path.join(root, `${PAD}.tmp`), path.join(root, PAD));
      }
      const answer = await service.get(FORMAT);
      expect(answer.status, `round ${round}`).to.equal(200);
      expect(answer.text, `round ${round}`).to.include(marker);
    }
  });

  it('sees a file made just before a request where the module’s last build found none', async function () {
    const { root, service } = await walkedService({ unheard: true });
    const entry = fs.readFileSync(path.join(root, ENTRY), 'utf8');
    fs.writeFileSync(path.join(root, ENTRY), `import { extra } from './extra.ts';\nexport { extra };\n${entry}`);
    expect((await service.get(FORMAT)).status, 'importing a file that is not there').to.equal(422);
    // Its absence confirmed after the walk, then proven by the watcher.
    expect((await service.get(FORMAT)).status).to.equal(422);
    fs.writeFileSync(path.join(root, 'packages/lib/format/extra.ts'), "export const extra = 'EXTRA_MARKER';\n");
    const answer = await service.get(FORMAT);
    expect(answer.status).to.equal(200);
    expect(answer.text).to.include('EXTRA_MARKER');
  });

  it('sees the selection made just before a request, in the directory the watcher proved absent', async function () {
    const { root, service } = await walkedService({ unheard: true });
    // The selection's absence, and its directory's, confirmed after the walk, then proven by the watcher.
    for (let index = 0; index < 3; index++) expect((await service.get('/state')).status).to.equal(200);
    fs.mkdirSync(path.join(root, '.core'));
    fs.writeFileSync(path.join(root, '.core/selection.json'), '{"packages": "@acme/app"}');
    const report = (await service.get('/state')).json<Report>();
    expect(findDiagnostic(report.diagnostics, 'MANIFEST_INVALID').file).to.equal('.core/selection.json');
  });

  it('answers every save through a hard link made inside the workspace after the file was read', async function () {
    if (process.platform !== 'linux') this.skip();
    const { root, service } = await walkedService({ unheard: true });
    // Confirmed after the walk: from now on the watcher vouches for the file while its directory is silent.
    expect((await service.get(FORMAT)).status).to.equal(200);
    const original = fs.readFileSync(path.join(root, PAD), 'utf8');
    const inside = path.join(root, 'packages/lib/pad-link.ts');
    fs.linkSync(path.join(root, PAD), inside);
    fs.writeFileSync(inside, original.replace('LIB_PAD_MARKER', 'LIB_PAD_LINK_1'));
    const first = await service.get(FORMAT);
    expect(first.status).to.equal(200);
    expect(first.text).to.include('LIB_PAD_LINK_1');
    // A file with other links is looked at by every check, never taken on the watcher's word.
    expect((await service.get(FORMAT)).status).to.equal(200);
    fs.writeFileSync(inside, original.replace('LIB_PAD_MARKER', 'LIB_PAD_LINK_2'));
    const second = await service.get(FORMAT);
    expect(second.text).to.include('LIB_PAD_LINK_2');
  });
});
