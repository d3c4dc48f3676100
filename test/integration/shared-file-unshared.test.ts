// A file stops being shared when its importers drop to one (README "Shared files"): which files are
// shared is learnt from the modules' last builds, so the module still importing it at its shared
// address builds again, bundling it, on the running service and at a restart from the build cache.
// Every answer is then the one a start without the build cache gives for the same sources, and so
// when a file becomes shared.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const BASE = '/m/@s/lib@1.0.0/modules/';
const SHARED = `${BASE}.shared/common/reg.ts`;
const IMPORTING = "import { registry } from '../common/reg.ts';\nexport const size = () => registry.size;\n";
const NOT_IMPORTING = 'export const size = () => 0;\n';

type Served = Awaited<ReturnType<typeof serve>>;

// Written for the shared file's address, `modules/.shared/common/reg.ts`: bundled into `one`, it climbs out of the package.
const DATA_URL = "export const dataUrl = new URL('../../../assets/one/data.json', import.meta.url).href;\n";

/** Modules one and two of one package; one imports common/reg.ts, and two does when `twoImports`. */
const workspace = (twoImports: boolean, reg = 'export const registry = new Map<string, number>();\n') =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/lib'] }),
    'packages/lib/package.json': json({ name: '@s/lib', version: '1.0.0', private: true, exports: { './one': './one/index.ts', './two': './two/index.ts' }, core: { modules: '.' } }),
    'packages/lib/one/module.json': json({ assets: ['data.json'] }),
    'packages/lib/one/data.json': '{"v":1}\n',
    'packages/lib/common/reg.ts': reg,
    'packages/lib/one/index.ts': "export * from '../common/reg.ts';\n",
    'packages/lib/two/index.ts': twoImports ? IMPORTING : NOT_IMPORTING,
  });

/** Every answer that differs when a file is shared or not: the report, each module's code, the shared file's address. */
async function answers(service: Served): Promise<unknown> {
  const report = await service.report();
  const found: Record<string, unknown> = { modules: report.modules.map((m) => [m.specifier, m.status, m.diagnostics, m.warnings ?? []]) };
  for (const address of [`${BASE}one`, `${BASE}two`, SHARED]) {
    const answer = await service.get(address);
    found[address] = [answer.status, answer.status === 200 ? answer.text : JSON.parse(answer.text).code];
  }
  return found;
}

/** What a start without the build cache answers for the sources of `root` now. */
async function uncached(root: string): Promise<unknown> {
  const cold = await serve(root, { cache: false });
  try {
    return await answers(cold);
  } finally {
    await cold.close();
  }
}

describe('a shared file whose importers drop to one, or rise to two', function () {
  this.timeout(60_000);
  let cache: string;
  beforeEach(() => (cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'))));
  afterEach(() => fs.rmSync(cache, { recursive: true, force: true }));

  const start = (root: string) => serve(root, { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
  /** Waits until the build cache holds `module`'s last build as `service` has it. */
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

  it('stops being shared on the running service: the module still importing it bundles it, as a start without the cache does', async () => {
    const root = workspace(true);
    const service = await start(root);
    try {
      expect(((await answers(service)) as Record<string, [number, string]>)[`${BASE}one`]![1]).to.include('from "@s/lib/.shared/common/reg.ts"');
      writeFile(root, 'packages/lib/two/index.ts', NOT_IMPORTING);
      const running = (await answers(service)) as Record<string, [number, string]>;
      expect(running[`${BASE}one`]![1]).to.not.include('.shared');
      expect(running[`${BASE}one`]![1]).to.include('new Map');
      expect(running[SHARED]).to.deep.equal([404, 'OUTPUT_NOT_AVAILABLE']);
      expect(running).to.deep.equal(await uncached(root));
    } finally {
      await service.close();
    }
  });

  it('stops being shared at a restart from the build cache, the last importer dropping it while no service ran', async () => {
    const root = workspace(true);
    const first = await start(root);
    try {
      expect(((await answers(first)) as Record<string, [number, string]>)[`${BASE}one`]![1]).to.include('from "@s/lib/.shared/common/reg.ts"');
      await cached(first, '@s/lib/one');
      await cached(first, '@s/lib/two');
    } finally {
      await first.close();
    }
    writeFile(root, 'packages/lib/two/index.ts', NOT_IMPORTING);
    const second = await start(root);
    try {
      const restarted = (await answers(second)) as Record<string, [number, string]>;
      expect(restarted[`${BASE}one`]![1]).to.not.include('.shared');
      expect(restarted).to.deep.equal(await uncached(root));
    } finally {
      await second.close();
    }
  });

  it('keeps the answers of a start without the cache at a restart after the running service unshared it', async () => {
    const root = workspace(true);
    const first = await start(root);
    try {
      await answers(first);
      writeFile(root, 'packages/lib/two/index.ts', NOT_IMPORTING);
      await answers(first);
      await cached(first, '@s/lib/one');
      await cached(first, '@s/lib/two');
    } finally {
      await first.close();
    }
    const second = await start(root);
    try {
      expect(await answers(second)).to.deep.equal(await uncached(root));
    } finally {
      await second.close();
    }
  });

  it("is invalid bundled when its `new URL` was written for its shared address and climbs out of the package: the same report running as without the cache", async () => {
    const root = workspace(true, `export const registry = new Map<string, number>();\n${DATA_URL}`);
    const service = await start(root);
    try {
      // Shared: from modules/.shared/common/reg.ts the address is one's declared asset.
      const shared = (await answers(service)) as Record<string, unknown>;
      expect(shared.modules).to.deep.equal([
        ['@s/lib/one', 'valid', [], []],
        ['@s/lib/two', 'valid', [], []],
      ]);
      expect((await service.get('/m/@s/lib@1.0.0/assets/one/data.json')).status).to.equal(200);
      writeFile(root, 'packages/lib/two/index.ts', NOT_IMPORTING);
      const running = (await answers(service)) as { modules: [string, string, { kind: string; file: string; line: number; message: string }[]][] };
      const [, status, [error]] = running.modules[0]!;
      expect([status, error?.kind, error?.file, error?.line]).to.deep.equal(['invalid', 'BUNDLE_ERROR', 'packages/lib/common/reg.ts', 2]);
      expect(error!.message).to.include('to /m/assets/one/data.json, where nothing is served').and.to.include(`import url from '../one/data.json'`);
      expect(running).to.deep.equal(await uncached(root));
    } finally {
      await service.close();
    }
  });

  it('becomes shared when a second module imports it, running and at a restart from the build cache, as a start without the cache has it', async () => {
    const root = workspace(false);
    const first = await start(root);
    try {
      expect(((await answers(first)) as Record<string, [number, string]>)[`${BASE}one`]![1]).to.include('new Map');
      writeFile(root, 'packages/lib/two/index.ts', IMPORTING);
      const running = (await answers(first)) as Record<string, [number, string]>;
      expect(running[`${BASE}one`]![1]).to.include('from "@s/lib/.shared/common/reg.ts"');
      expect(running).to.deep.equal(await uncached(root));
      await cached(first, '@s/lib/one');
      await cached(first, '@s/lib/two');
    } finally {
      await first.close();
    }
    // Dropped and taken up again while no service runs: each restart answers as a start without the cache.
    for (const text of [NOT_IMPORTING, IMPORTING]) {
      writeFile(root, 'packages/lib/two/index.ts', text);
      const again = await start(root);
      try {
        expect(await answers(again), text).to.deep.equal(await uncached(root));
        await cached(again, '@s/lib/one');
        await cached(again, '@s/lib/two');
      } finally {
        await again.close();
      }
    }
  });
});
