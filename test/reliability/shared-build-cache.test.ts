// Two services sharing one build cache (README "The build cache": "services sharing a cache
// never read half a file ... at worst one's entries replace the other's"): whatever order their
// writes and tidying interleave in, the index left on disk names only packs that are there, and
// the next start says nothing of damage.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { EffectDeps } from '../../src/effects/table.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve, stopAll } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { quietTree } from './support.js';

type Promises = Record<string, (...args: unknown[]) => Promise<unknown>>;

/** Holds the first call of `fs.promises[method]` whose first argument matches, until `release()`; `reached` settles once it is held. */
function holdFirst(method: 'writeFile' | 'readdir', matches: (file: string) => boolean) {
  const promises = fs.promises as unknown as Promises;
  const real = promises[method]!;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const heldNow = new Promise<void>((resolve) => (reached = resolve));
  let held = false;
  promises[method] = async (file: unknown, ...rest: unknown[]) => {
    if (!held && matches(String(file))) {
      held = true;
      reached();
      await released;
    }
    return real.call(fs.promises, file, ...rest);
  };
  return { reached: heldNow, release, restore: () => void (promises[method] = real) };
}

const INDEX_TEMPORARY = /builds\.json\.\d+\.[0-9a-f]{8}\.tmp$/;

describe('two services writing one build cache', function () {
  const holds: { restore(): void }[] = [];
  afterEach(() => holds.splice(0).forEach((hold) => hold.restore()));
  afterEach(() => stopAll());

  const entries = ['packages/app/main/index.ts', 'packages/app/templates/index.ts', 'packages/lib/format/index.ts', 'packages/lib/server/index.ts', 'packages/lib/widgets/badge/index.ts'];

  // A and B both read the first service's pack at start; A then builds one small module again
  // (its index keeps naming that pack, beside a new one), B every module (its index names only
  // its own new pack, so it takes the first for its own to remove).
  async function twoWriters() {
    const root = fixtureWorkspace('basic');
    quietTree(root);
    const cacheDir = path.join(tempWorkspace(), 'cache');
    const append = (file: string, text: string) => fs.appendFileSync(path.join(root, file), text);
    const options = { cache: cacheDir, watch: false, effectDeps: (deps: EffectDeps) => ({ ...deps, persistDelayMs: 60_000 }) };

    const first = await serve(root, options);
    await first.report();
    await first.close();
    const firstPacks = fs.readdirSync(path.join(cacheDir, 'outputs'));
    const [a, b] = [await serve(root, options), await serve(root, options)];
    await Promise.all([a.report(), b.report()]);
    append('packages/lib/server/index.ts', "export const A_EDIT = 'A';\n");
    expect((await a.get(`/m/@acme/lib@1.2.0/modules/server?${DEV.replace('browser', 'node')}`)).status).to.be.below(500);
    await a.report();
    // B sees every module changed for a while (a branch checked out, then back), A does not.
    const beforeB = entries.map((file) => fs.readFileSync(path.join(root, file), 'utf8'));
    for (const file of entries) append(file, `export const B_EDIT_${entries.indexOf(file)} = 'B';\n`);
    await b.report();

    /** What a next start finds: packs the index names that are gone, and what it says of damage. */
    async function next() {
      entries.forEach((file, at) => fs.writeFileSync(path.join(root, file), beforeB[at]!));
      const index = JSON.parse(fs.readFileSync(path.join(cacheDir, 'builds.json'), 'utf8').replace(/\n[^\n]*$/, '')) as { packs: { file: string }[] };
      const missing = index.packs.map((pack) => pack.file).filter((file) => !fs.existsSync(path.join(cacheDir, 'outputs', file)));
      const told: string[] = [];
      const started = await serve(root, { ...options, logger: (line) => void told.push(line) });
      await started.report();
      return { missing, damaged: told.filter((line) => line.includes('damaged')) };
    }
    return { cacheDir, firstPacks, a, b, next };
  }

  // A's write checked that the pack it reuses is there; B removes it (it read it at start);
  // then A's index, naming it, is renamed into place.
  it('never leave an index naming a pack one of them removed', async function () {
    const { a, b, next } = await twoWriters();
    const hold = holdFirst('writeFile', (file) => INDEX_TEMPORARY.test(file));
    holds.push(hold);
    const closingA = a.close();
    await hold.reached; // A's index is about to be written: its packs are chosen and checked
    await b.close(); // B writes its index and removes what it no longer names
    hold.release();
    await closingA;
    expect(await next()).to.deep.equal({ missing: [], damaged: [] });
  });

  // The same, A stalled past the time another's new pack is spared: B removes A's new pack too,
  // though it never read it.
  it("never leave an index naming a pack one of them removed when the other's write stalled past the pack's spared time", async function () {
    const { cacheDir, firstPacks, a, b, next } = await twoWriters();
    const outputs = path.join(cacheDir, 'outputs');
    const hold = holdFirst('writeFile', (file) => INDEX_TEMPORARY.test(file));
    holds.push(hold);
    const closingA = a.close();
    await hold.reached;
    const newOfA = fs.readdirSync(outputs).filter((name) => !firstPacks.includes(name));
    expect(newOfA).to.have.length(1);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(outputs, newOfA[0]!), old, old);
    await b.close();
    hold.release();
    await closingA;
    expect(await next()).to.deep.equal({ missing: [], damaged: [] });
  });

  // B's index is renamed into place first, then A's (naming the pack both read at start), then
  // B tidies what its own index does not name.
  it("never remove a pack the index on disk names, though the remover's own index does not", async function () {
    const { cacheDir, a, b, next } = await twoWriters();
    const hold = holdFirst('readdir', (dir) => dir === path.join(cacheDir, 'outputs'));
    holds.push(hold);
    const closingB = b.close();
    await hold.reached; // B's index is written; its tidying is about to list outputs/
    await a.close();
    hold.release();
    await closingB;
    expect(await next()).to.deep.equal({ missing: [], damaged: [] });
  });
});
