// Two services sharing one build cache (README "The build cache": "services sharing a cache
// never read half a file ... at worst one's entries replace the other's"): whatever order their
// writes and tidying interleave in, the index left on disk names only packs that are there.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { EffectDeps } from '../../src/effects/table.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve, stopAll } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { quietTree } from './support.js';

// A's write checked that the pack it reuses is there; B, writing a pack of everything it
// rebuilt, removes that pack at once (it read it at start, so it takes it for its own to tidy);
// then A's index, naming it, is renamed into place. The next start finds the index naming a
// pack that is gone, says the cache is damaged, and builds those modules again. Forced by
// holding A's index write.
describe('two services writing one build cache', function () {
  const realWriteFile = fs.promises.writeFile;
  afterEach(() => void ((fs.promises as { writeFile: typeof fs.promises.writeFile }).writeFile = realWriteFile));
  afterEach(() => stopAll());

  it('never leave an index naming a pack one of them removed', async function () {
    const root = fixtureWorkspace('basic');
    quietTree(root);
    const cacheDir = path.join(tempWorkspace(), 'cache');
    const entries = ['packages/app/main/index.ts', 'packages/app/templates/index.ts', 'packages/lib/format/index.ts', 'packages/lib/server/index.ts', 'packages/lib/widgets/badge/index.ts'];
    const append = (file: string, text: string) => fs.appendFileSync(path.join(root, file), text);
    const options = { cache: cacheDir, watch: false, effectDeps: (deps: EffectDeps) => ({ ...deps, persistDelayMs: 60_000 }) };

    const first = await serve(root, options);
    await first.report();
    await first.close();
    const [a, b] = [await serve(root, options), await serve(root, options)];
    await Promise.all([a.report(), b.report()]);
    // A builds one small module again; B builds every module again.
    append('packages/lib/server/index.ts', "export const A_EDIT = 'A';\n");
    expect((await a.get(`/m/@acme/lib@1.2.0/modules/server?${DEV.replace('browser', 'node')}`)).status).to.be.below(500);
    await a.report();
    // B sees every module changed for a while (a branch checked out, then back), A does not.
    const beforeB = entries.map((file) => fs.readFileSync(path.join(root, file), 'utf8'));
    for (const file of entries) append(file, `export const B_EDIT_${entries.indexOf(file)} = 'B';\n`);
    await b.report();

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held: Promise<void> | null = null;
    let reached!: () => void;
    const heldNow = new Promise<void>((resolve) => (reached = resolve));
    (fs.promises as { writeFile: typeof fs.promises.writeFile }).writeFile = (async (file: fs.PathLike, ...rest: unknown[]) => {
      if (held === null && /builds\.json\.\d+\.[0-9a-f]{8}\.tmp$/.test(String(file))) {
        held = released;
        reached();
        await released;
      }
      return (realWriteFile as (...args: unknown[]) => Promise<void>)(file, ...rest);
    }) as typeof fs.promises.writeFile;
    const closingA = a.close();
    await heldNow; // A's index is about to be written: its packs are chosen and checked
    await b.close(); // B writes its index and removes what it no longer names
    release();
    await closingA;
    entries.forEach((file, at) => fs.writeFileSync(path.join(root, file), beforeB[at]!));

    const index = JSON.parse(fs.readFileSync(path.join(cacheDir, 'builds.json'), 'utf8').replace(/\n[^\n]*$/, '')) as { packs: { file: string }[] };
    const missing = index.packs.map((pack) => pack.file).filter((file) => !fs.existsSync(path.join(cacheDir, 'outputs', file)));
    const told: string[] = [];
    const next = await serve(root, { ...options, logger: (line) => void told.push(line) });
    await next.report();
    expect({ missing, damaged: told.filter((line) => line.includes('damaged')) }).to.deep.equal({ missing: [], damaged: [] });
  });
});
