// Which declaration a shared file's asset imports resolve by (README "Shared files"): each asset
// by the module declaring it whose directory is the nearest holding it, whichever module found the
// shared file; a module importing it must declare the asset itself, as its copy of the file would;
// and the `module.json` of each module whose directory holds such an asset is an input of every
// module importing the file, so a change of one builds them all again, in a running service and
// at a restart from the build cache.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { CoreEvent } from '../../src/store/events.js';
import type { Report } from '../../src/store/selectors.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const BASE = '/m/@p/app@1.0.0/';
const SHARED = `${BASE}modules/.shared/a/icons/icon.ts`;

type Served = Awaited<ReturnType<typeof serve>>;

/** Every asset address `module`'s code holds, and its shared files' code, each as its path and the status it answers. */
async function assetAddresses(service: Served, module: string): Promise<[string, number][]> {
  const found: [string, number][] = [];
  const visit = async (address: string) => {
    const answer = await service.get(address);
    expect(answer.status, address).to.equal(200);
    for (const [, written] of answer.text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
      const asset = new URL(written!, new URL(address, service.url)).pathname;
      found.push([asset, (await service.get(asset)).status]);
    }
    for (const [, specifier] of answer.text.matchAll(/from\s*"@p\/app\/(\.shared\/[^"]+)"/g)) await visit(`${BASE}modules/${specifier}`);
  };
  await visit(`${BASE}modules/${module}`);
  return found;
}

const statuses = (report: Report) => report.modules.map((m) => [m.specifier, m.status, m.diagnostics.map((d) => [d.kind, d.file])]);

describe('the declared assets a shared file imports', function () {
  let root: string;
  let cache: string;
  beforeEach(() => {
    // Module a (a/) declares icons/x.svg; module b (a/icons/, nearer the file) declares x.svg too.
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './a': './a/index.ts', './b': './a/icons/index.ts' } }),
      'packages/app/a/module.json': json({ assets: ['icons/x.svg'] }),
      'packages/app/a/icons/module.json': json({ assets: ['x.svg'] }),
      'packages/app/a/icons/x.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/app/a/icons/icon.ts': "import x from './x.svg';\nexport const icon = x;\n",
      'packages/app/a/index.ts': "import { icon } from './icons/icon.ts';\nexport const a = icon;\n",
      'packages/app/a/icons/index.ts': "import { icon } from './icon.ts';\nexport const b = icon;\n",
    });
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
  });
  afterEach(() => fs.rmSync(cache, { recursive: true, force: true }));

  const start = async () => {
    const events: CoreEvent[] = [];
    const service = await serve(root, { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
    events.push(...service.internals.log.events());
    service.events$.subscribe((event) => events.push(event));
    return { service, events };
  };
  const built = (events: CoreEvent[]) => [...new Set(events.flatMap((event) => (event.type === 'build.started' ? event.modules.map((m) => m.module) : [])))].sort();
  /** Waits until the build cache holds `module`'s last build as the service has it. */
  const cached = (service: Served, module: string) =>
    waitFor(
      () => {
        const file = path.join(cache, 'builds.json');
        if (!fs.existsSync(file)) return false;
        const last = Object.values(service.internals.store.getState().builds[module]!.variants).find((variant) => variant.last?.outputs)?.last;
        const entries = (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: { module: string; record: { outputs: { code: { hash: string } } } }[] }).entries;
        return last !== undefined && last !== null && entries.some((entry) => entry.module === module && entry.record.outputs.code.hash === last.outputs!.code.hash);
      },
      { what: `the cache to hold ${module}'s last build` },
    );

  it("resolves by the nearest declaring module, whichever module found the file or was built last", async function () {
    const { service } = await start();
    try {
      expect(statuses(await service.report())).to.deep.equal([
        ['@p/app/a', 'valid', []],
        ['@p/app/b', 'valid', []],
      ]);
      // Found in the first build of both, a first: b's directory is the nearer.
      const owner = [[`${BASE}assets/b/x.svg`, 200]];
      expect(await assetAddresses(service, 'a')).to.deep.equal(owner);
      expect(await assetAddresses(service, 'b')).to.deep.equal(owner);
      // Each built again alone, building the shared file with it.
      for (const entry of ['a/index.ts', 'a/icons/index.ts']) {
        const file = path.join(root, 'packages/app', entry);
        fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}export const edited = 1;\n`);
        await waitFor(async () => (await service.get(`${BASE}modules/${entry === 'a/index.ts' ? 'a' : 'b'}`)).text.includes('edited') || undefined, { what: `${entry} built again` });
        expect((await service.get(SHARED)).text).to.include('"../../../../assets/b/x.svg"');
        expect(await assetAddresses(service, 'a')).to.deep.equal(owner);
        expect(await assetAddresses(service, 'b')).to.deep.equal(owner);
      }
    } finally {
      await service.close();
    }
  });

  it("builds every importing module again when a declaration it depends on changes, running and at a restart from the build cache", async function () {
    const first = await start();
    try {
      expect(await assetAddresses(first.service, 'b')).to.deep.equal([[`${BASE}assets/b/x.svg`, 200]]);
      // b (the owner) stops declaring the file: a's declaration owns it now, and b no longer may import it.
      fs.writeFileSync(path.join(root, 'packages/app/a/icons/module.json'), json({ assets: [] }));
      const changed = await waitFor(async () => {
        const report = await first.service.report();
        return report.modules[1]!.status === 'invalid' && report;
      });
      expect(statuses(changed)).to.deep.equal([
        ['@p/app/a', 'valid', []],
        ['@p/app/b', 'invalid', [['BUNDLE_ERROR', 'packages/app/a/icons/icon.ts']]],
      ]);
      expect(await assetAddresses(first.service, 'a')).to.deep.equal([[`${BASE}assets/a/icons/x.svg`, 200]]);
      await cached(first.service, '@p/app/a');
    } finally {
      await first.service.close();
    }

    const second = await start();
    try {
      expect(built(second.events), 'a restored, not built').to.not.include('@p/app/a');
      expect(statuses(await second.service.report())).to.deep.equal([
        ['@p/app/a', 'valid', []],
        ['@p/app/b', 'invalid', [['BUNDLE_ERROR', 'packages/app/a/icons/icon.ts']]],
      ]);
      expect(await assetAddresses(second.service, 'a')).to.deep.equal([[`${BASE}assets/a/icons/x.svg`, 200]]);
    } finally {
      await second.service.close();
    }

    // Declared by b again while no service runs: the restart builds a again, as an edit would.
    fs.writeFileSync(path.join(root, 'packages/app/a/icons/module.json'), json({ assets: ['x.svg'] }));
    const third = await start();
    try {
      expect(statuses(await third.service.report())).to.deep.equal([
        ['@p/app/a', 'valid', []],
        ['@p/app/b', 'valid', []],
      ]);
      expect(await assetAddresses(third.service, 'a')).to.deep.equal([[`${BASE}assets/b/x.svg`, 200]]);
      expect(await assetAddresses(third.service, 'b')).to.deep.equal([[`${BASE}assets/b/x.svg`, 200]]);
    } finally {
      await third.service.close();
    }
  });

  it('makes a module importing it declare the asset itself, as its copy would: the same report running and at a first start', async function () {
    // a (not the owner) declares nothing; the shared file imports no asset yet.
    const icon = path.join(root, 'packages/app/a/icons/icon.ts');
    fs.writeFileSync(path.join(root, 'packages/app/a/module.json'), json({ assets: [] }));
    fs.writeFileSync(icon, 'export const icon = "none";\n');
    const running = await start();
    let report: Report;
    try {
      expect(statuses(await running.service.report())).to.deep.equal([
        ['@p/app/a', 'valid', []],
        ['@p/app/b', 'valid', []],
      ]);
      expect(await running.service.get(SHARED)).to.include({ status: 200 });
      // The shared file, known as shared, comes to import b's asset: a and b are built again
      // importing it (their declarations, and so their last builds, unchanged), each with no copy
      // of the file whose import the asset plugin would refuse; the importer's check alone
      // decides that a may not.
      fs.writeFileSync(icon, "import x from './x.svg';\nexport const icon = x;\n");
      report = await waitFor(async () => {
        const next = await running.service.report();
        return next.modules[0]!.status === 'invalid' && next;
      });
      expect(statuses(report)).to.deep.equal([
        ['@p/app/a', 'invalid', [['BUNDLE_ERROR', 'packages/app/a/icons/icon.ts']]],
        ['@p/app/b', 'valid', []],
      ]);
      expect(report.modules[0]!.diagnostics[0]!.message).to.include('"./x.svg" is not a declared asset of the module importing it');
      expect(await assetAddresses(running.service, 'b')).to.deep.equal([[`${BASE}assets/b/x.svg`, 200]]);

      // Declared by a: valid; then a stops declaring it again (its last build is dropped with
      // its declaration, so here the copy it builds is refused too).
      fs.writeFileSync(path.join(root, 'packages/app/a/module.json'), json({ assets: ['icons/x.svg'] }));
      await waitFor(async () => (await running.service.report()).modules[0]!.status === 'valid', { what: 'a valid once it declares the asset' });
      fs.writeFileSync(path.join(root, 'packages/app/a/module.json'), json({ assets: [] }));
      report = await waitFor(async () => {
        const next = await running.service.report();
        return next.modules[0]!.status === 'invalid' && next;
      });
      expect(statuses(report)).to.deep.equal([
        ['@p/app/a', 'invalid', [['BUNDLE_ERROR', 'packages/app/a/icons/icon.ts']]],
        ['@p/app/b', 'valid', []],
      ]);
      expect(report.modules[0]!.diagnostics[0]!.message).to.include('"./x.svg" is not a declared asset of the module importing it');
      expect(await assetAddresses(running.service, 'b')).to.deep.equal([[`${BASE}assets/b/x.svg`, 200]]);
    } finally {
      await running.service.close();
    }
    // A first start, nothing cached: each module's copy is built before the file is found shared.
    const cold = await serve(root, { cache: false });
    try {
      expect(statuses(await cold.report())).to.deep.equal(statuses(report));
    } finally {
      await cold.close();
    }
  });
});
