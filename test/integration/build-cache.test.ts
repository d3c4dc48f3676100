// The build cache (README "The build cache"): a restart restores every build whose inputs are
// unchanged and builds only the rest; a corrupt, partial or foreign cache is never trusted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { CoreEvent } from '../../src/store/events.js';
import type { Service } from '../../src/service.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeFile } from '../helpers/workspace.js';
import { RACY_MS } from '../../src/io/file-hashes.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { indexText, isCacheEntry, parseIndex, type CacheIndex as WrittenIndex } from '../../src/io/cache-index.js';
import { spyOnFileReads } from '../helpers/file-reads-spy.js';

const MAIN = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
const MAIN_STYLES = `/m/@acme/app@1.0.0/styles/main?${DEV}`;
const FORMAT = `/m/@acme/lib@1.2.0/modules/format?${DEV}`;

interface OutputRef {
  hash: string;
  size: number;
}

interface CacheIndex {
  identity: { service: string; esbuild: string; bundlers: string };
  entries: { module: string; variant: string; record: { outputs: { code: OutputRef; styles: OutputRef | null } } }[];
  packs: { file: string; at: Record<string, number> }[];
}

describe('the build cache', function () {
  let root: string;
  let cacheDir: string;
  const made: string[] = [];

  beforeEach(() => {
    root = fixtureWorkspace('basic');
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    made.push(cacheDir);
  });
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A service on `root` with the cache in `cacheDir`, writing it 20 ms after the builds settle; its events recorded. */
  async function start(options: { cache?: boolean | string; logger?: (line: string) => void } = {}) {
    const events: CoreEvent[] = [];
    const service = await serve(root, { cache: cacheDir, ...options, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
    // The log holds every event since the start, the restoration included.
    events.push(...service.internals.log.events());
    service.events$.subscribe((event) => events.push(event));
    await service.report();
    return { service, events };
  }

  const index = (): CacheIndex => JSON.parse(fs.readFileSync(path.join(cacheDir, 'builds.json'), 'utf8')) as CacheIndex;
  /** Writes `changed` as the index, as a writer would: with its checksum (an index of another version or reader). */
  const rewrite = (changed: object) => {
    const { checksum: _checksum, ...rest } = changed as { checksum?: string };
    fs.writeFileSync(path.join(cacheDir, 'builds.json'), indexText(rest as unknown as WrittenIndex));
  };
  /** Waits until the cache holds an entry for each of the service's built module variants. */
  const written = (service: Service, count = builtVariants(service)) =>
    waitFor(() => fs.existsSync(path.join(cacheDir, 'builds.json')) && index().entries.length === count && index(), { what: `${count} entries in the cache` });
  const builtVariants = (service: Service) =>
    Object.values(service.internals.store.getState().builds).reduce((sum, builds) => sum + Object.values(builds.variants).filter((v) => v.last?.outputs).length, 0);
  const builtModules = (events: CoreEvent[]) => [...new Set(events.flatMap((event) => (event.type === 'build.started' ? event.modules.map((m) => m.module) : [])))].sort();
  const workspaceReadOf = (events: CoreEvent[]) => events.find((event): event is Extract<CoreEvent, { type: 'workspace.read' }> => event.type === 'workspace.read')!;
  /** Past the racy window of the fixture's copy: a stat taken now proves its file later (README "The build cache"). */
  const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 10));
  const restoredOf = (events: CoreEvent[]) => events.find((event): event is Extract<CoreEvent, { type: 'cache.restored' }> => event.type === 'cache.restored')!;

  it('survives a restart: nothing unchanged is built again, and the same bytes are served', async () => {
    const first = await start();
    const firstReport = await first.service.report();
    const before = { main: (await first.service.get(MAIN)).text, styles: (await first.service.get(MAIN_STYLES)).text };
    expect(builtModules(first.events)).to.include('@acme/app/main');
    const cached = await written(first.service);
    await first.service.close();

    const second = await start();
    expect(builtModules(second.events)).to.deep.equal([]);
    expect(restoredOf(second.events).builds).to.have.length(cached.entries.length);
    // The same report: the restored builds are as valid, with the same addresses.
    expect(await second.service.report()).to.deep.equal(firstReport);
    expect((await second.service.get(MAIN)).text).to.equal(before.main);
    expect((await second.service.get(MAIN_STYLES)).text).to.equal(before.styles);
  });

  it('restores the workspace model, reading no manifest, when none of its manifests and listings changed', async () => {
    await pastRacyWindow();
    const first = await start();
    expect(workspaceReadOf(first.events).restored).to.equal(undefined);
    const model = first.service.internals.store.getState().workspace;
    await written(first.service);
    await first.service.close();

    const reads: string[] = [];
    const restoreReads = spyOnFileReads((file) => {
      if (file.startsWith(root)) reads.push(path.relative(root, file));
    });
    let second: Awaited<ReturnType<typeof start>>;
    try {
      second = await start();
    } finally {
      restoreReads();
    }
    expect(workspaceReadOf(second.events).restored).to.equal(true);
    expect(second.service.internals.store.getState().workspace).to.deep.equal(model);
    expect(reads.filter((file) => /(core|package|module)\.json$/.test(file))).to.deep.equal([]);
    expect(builtModules(second.events)).to.deep.equal([]);
  });

  it('reads the manifests when one changed, when a module appeared, and when the reader is other code', async () => {
    await pastRacyWindow();
    const first = await start();
    await written(first.service);
    await first.service.close();

    writeFile(root, 'packages/lib/package.json', fs.readFileSync(path.join(root, 'packages/lib/package.json'), 'utf8').replace('"version": "1.2.0"', '"version": "1.3.0"'));
    const changed = await start();
    expect(workspaceReadOf(changed.events).restored).to.equal(undefined);
    expect(changed.service.internals.store.getState().workspace.packages.find((pkg) => pkg.name === '@acme/lib')?.version).to.equal('1.3.0');
    await waitFor(() => fs.existsSync(path.join(cacheDir, 'builds.json')) && JSON.stringify(index()).includes('"version":"1.3.0"'), { what: 'the cache written with the new version' });
    await changed.service.close();

    writeFile(root, 'packages/app/extra/index.ts', 'export const extra = 1;\n');
    writeFile(root, 'packages/app/extra/module.json', '{}');
    const appeared = await start();
    expect(workspaceReadOf(appeared.events).restored).to.equal(undefined);
    expect(appeared.service.internals.store.getState().workspace.modules.map((module) => module.specifier)).to.include('@acme/app/extra');
    await appeared.service.close();

    await pastRacyWindow();
    const again = await start();
    await waitFor(() => JSON.stringify(index()).includes('app/extra/module.json'), { what: 'the cache written with the new module' });
    await again.service.close();
    rewrite({ ...index(), workspace: { ...(index() as unknown as { workspace: object }).workspace, reader: 'older-reader-code' } });
    const otherCode = await start();
    expect(workspaceReadOf(otherCode.events).restored).to.equal(undefined);
    expect(restoredOf(otherCode.events).ignored).to.equal(undefined); // the builds still are
    expect(builtModules(otherCode.events)).to.deep.equal([]);
    await otherCode.service.close();
    // Written again by this reader: taken on the next start.
    const last = await start();
    expect(workspaceReadOf(last.events).restored).to.equal(true);
    await last.service.close();
  });


  it('reads the manifests when a link the read asked about leads elsewhere now, though every source is unchanged', async () => {
    // A listed package directory that is a link to a directory inside without a package.json;
    // then to one outside with the same files: its package.json is absent to both reads, and
    // replacing the link changes no source (`packages/` is not listed), only the diagnostic differs.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'core-outside-'));
    made.push(outside);
    root = fixtureWorkspace('basic', { 'core.json': JSON.stringify({ packages: ['packages/app', 'packages/lib', 'packages/away'] }), 'spare/notes.md': 'not a package\n' });
    fs.writeFileSync(path.join(outside, 'notes.md'), 'not a package\n');
    const link = path.join(root, 'packages/away');
    fs.symlinkSync('../spare', link);
    await pastRacyWindow();
    const first = await start();
    const messages = (service: Service) => service.internals.store.getState().workspace.diagnostics.map((one) => one.message).join('\n');
    expect(messages(first.service)).to.contain('"packages/away", which has no package.json');
    await written(first.service);
    await first.service.close();

    fs.unlinkSync(link);
    fs.symlinkSync(outside, link);
    const second = await start();
    expect(workspaceReadOf(second.events).restored).to.equal(undefined);
    expect(messages(second.service)).to.contain('"packages/away", which is a symbolic link leaving the workspace (not followed)');
    const plain = await serve(root, { cache: false });
    await plain.report();
    expect(second.service.internals.store.getState().workspace).to.deep.equal(plain.internals.store.getState().workspace);
    expect(await second.service.report()).to.deep.equal(await plain.report());
    await plain.close();
    await waitFor(() => JSON.stringify(index()).includes('leaving the workspace'), { what: 'the cache written with the model read again' });
    await second.service.close();
    // Saved with the links that read asked: taken on the next start.
    await pastRacyWindow();
    const third = await start();
    expect(workspaceReadOf(third.events).restored).to.equal(true);
    expect(third.service.internals.store.getState().workspace).to.deep.equal(plain.internals.store.getState().workspace);
    await third.service.close();
  });
  it('builds again only the modules whose inputs changed in between', async () => {
    const first = await start();
    await written(first.service);
    await first.service.close();
    writeFile(root, 'packages/lib/format/internal/pad.ts', "export const pad = (n: number, width: number): string => `CHANGED_WHILE_STOPPED ${n} ${width}`;\n");

    const second = await start();
    expect(builtModules(second.events)).to.deep.equal(['@acme/lib/format']);
    expect(restoredOf(second.events).stale).to.equal(1);
    expect((await second.service.get(FORMAT)).text).to.contain('CHANGED_WHILE_STOPPED');
  });

  it('builds again a module whose declaration changed (build options: core.define)', async () => {
    const first = await start();
    await written(first.service);
    await first.service.close();
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'packages/lib/package.json'), 'utf8')) as { core?: Record<string, unknown> };
    manifest.core = { ...manifest.core, define: { __FLAG__: 'true' } };
    writeFile(root, 'packages/lib/package.json', JSON.stringify(manifest, null, 2));

    const second = await start();
    expect(builtModules(second.events)).to.include.members(['@acme/lib/format']);
    expect(builtModules(second.events)).to.not.include('@acme/app/main');
  });

  it('ignores a cache that is not JSON, and builds everything from the sources', async () => {
    const first = await start();
    const expected = (await first.service.get(MAIN)).text;
    await written(first.service);
    await first.service.close();
    fs.writeFileSync(path.join(cacheDir, 'builds.json'), '{"format":1,"entr');

    const second = await start();
    expect(restoredOf(second.events)).to.include({ ignored: `${path.join(cacheDir, 'builds.json')} is not JSON (cut off or corrupt)` });
    expect(builtModules(second.events)).to.include('@acme/app/main');
    expect((await second.service.get(MAIN)).text).to.equal(expected);
  });

  it('never trusts an output whose bytes do not hash to its name, nor one a pack cut short lacks: those modules are built again', async () => {
    const first = await start();
    const expected = (await first.service.get(MAIN)).text;
    const cached = await written(first.service);
    await first.service.close();
    expect(cached.packs).to.have.length(1);
    const [{ file, at }] = cached.packs;
    const packFile = path.join(cacheDir, 'outputs', file);
    const pack = fs.readFileSync(packFile);
    const codeOf = (module: string) => cached.entries.find((entry) => entry.module === module && entry.variant === 'browser.development')!.record.outputs.code;
    pack[at[codeOf('@acme/app/main').hash]! + 10] ^= 0x20; // one byte changed
    const cut = at[codeOf('@acme/lib/format').hash]! + 1; // cut off inside it, as by a crash
    fs.writeFileSync(packFile, pack.subarray(0, cut));
    const beyondTheCut = cached.entries
      .filter(({ record: { outputs } }) => [outputs.code, outputs.styles].some((ref) => ref && at[ref.hash]! + ref.size > cut))
      .map((entry) => entry.module);
    expect(beyondTheCut).to.include('@acme/lib/format');

    const second = await start();
    expect(builtModules(second.events)).to.deep.equal([...new Set(['@acme/app/main', ...beyondTheCut])].sort());
    expect((await second.service.get(MAIN)).text).to.equal(expected);
    await second.service.close();
    // Built again, the same bytes are written to a new pack: the wrong copy is never named again.
    const third = await start();
    expect(builtModules(third.events)).to.deep.equal([]);
    expect((await third.service.get(MAIN)).text).to.equal(expected);
  });

  /** Every output the entries name, each read from the pack the index says holds it. */
  const expectEveryOutputPacked = (cached: CacheIndex) => {
    for (const { record } of cached.entries) {
      for (const ref of [record.outputs.code, record.outputs.styles]) {
        if (!ref) continue;
        const holders = cached.packs.filter((pack) => Object.hasOwn(pack.at, ref.hash));
        expect(holders, ref.hash).to.have.length(1);
        const bytes = fs.readFileSync(path.join(cacheDir, 'outputs', holders[0]!.file));
        expect(contentHash(bytes.subarray(holders[0]!.at[ref.hash]!, holders[0]!.at[ref.hash]! + ref.size))).to.equal(ref.hash);
      }
    }
  };

  it('adds a pack of the outputs no pack holds, and removes the packs the index no longer names', async () => {
    const outputs = path.join(cacheDir, 'outputs');
    fs.mkdirSync(outputs, { recursive: true });
    fs.writeFileSync(path.join(outputs, 'AAAAAAAAAAAAAAAAAAAAAA'), 'an output of an older format');
    fs.writeFileSync(path.join(outputs, '0123456789abcdef.pack'), 'another service\'s pack, just written');
    const first = await start();
    const cached = await written(first.service);
    await first.service.close();
    expect(cached.packs).to.have.length(1);
    expectEveryOutputPacked(cached);
    // Another service's pack is spared while its index could be about to name it.
    expect(fs.readdirSync(outputs).sort()).to.deep.equal(['0123456789abcdef.pack', cached.packs[0]!.file].sort());
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(outputs, '0123456789abcdef.pack'), old, old);

    writeFile(root, 'packages/app/main/helper.ts', `export const HELPER_MARKER = 'REPACKED';\nexport function greet(): string {\n  return HELPER_MARKER;\n}\n`);
    const second = await start();
    expect(restoredOf(second.events).builds.length).to.be.greaterThan(0);
    const added = await waitFor(() => index().packs.length === 2 && index(), { what: 'a second pack' });
    await second.service.close();
    expectEveryOutputPacked(added);
    const [kept, fresh] = added.packs;
    expect(kept!.file).to.equal(cached.packs[0]!.file);
    // The new pack holds the outputs the first did not: main's new code, in each variant built.
    const newHashes = added.entries.flatMap(({ record: { outputs: out } }) => [out.code, out.styles]).filter((ref) => ref && !Object.hasOwn(cached.packs[0]!.at, ref.hash)).map((ref) => ref!.hash);
    expect(Object.keys(fresh!.at).sort()).to.deep.equal([...new Set(newHashes)].sort());
    expect(added.entries.filter((entry) => Object.hasOwn(fresh!.at, entry.record.outputs.code.hash)).map((entry) => entry.module)).to.include('@acme/app/main');
    expect(fs.readdirSync(outputs).sort()).to.deep.equal(added.packs.map((pack) => pack.file).sort());
  });

  it('writes nothing when a restart built nothing: the index and its pack stay the files they were', async () => {
    await pastRacyWindow(); // else the restart proves by their stats files the first could not, and says so
    const first = await start();
    await written(first.service);
    await first.service.close();
    const files = () => ['builds.json', ...fs.readdirSync(path.join(cacheDir, 'outputs')).map((name) => `outputs/${name}`)].map((name) => {
      const stats = fs.statSync(path.join(cacheDir, name));
      return [name, stats.ino, stats.mtimeMs];
    });
    const before = files();
    const second = await start();
    expect(builtModules(second.events)).to.deep.equal([]);
    await second.service.get(MAIN);
    await new Promise((resolve) => setTimeout(resolve, 200)); // past the write after the builds settle (20 ms here)
    await second.service.close();
    expect(files()).to.deep.equal(before);
  });

  it('replaces its packs by one when they would be mostly outputs no entry needs', async () => {
    const first = await start();
    const cached = await written(first.service);
    await first.service.close();
    // Every module's code changes; only main's stylesheet stays as it is.
    for (const entry of ['packages/app/main/index.ts', 'packages/app/templates/index.ts', 'packages/lib/format/index.ts', 'packages/lib/server/index.ts', 'packages/lib/widgets/badge/index.ts']) {
      fs.appendFileSync(path.join(root, entry), `\nexport const EDITED = ${JSON.stringify(entry)};\n`);
    }
    const second = await start();
    await second.service.get(MAIN);
    const repacked = await waitFor(() => !index().packs.some((pack) => pack.file === cached.packs[0]!.file) && index(), { what: 'the first pack replaced' });
    await second.service.close();
    const stylesStayed = repacked.entries.some((entry) => entry.record.outputs.styles && Object.hasOwn(cached.packs[0]!.at, entry.record.outputs.styles.hash));
    expect(stylesStayed, 'an output of the first pack still needed').to.equal(true);
    expect(repacked.packs).to.have.length(1);
    expectEveryOutputPacked(repacked);
    expect(fs.readdirSync(path.join(cacheDir, 'outputs'))).to.deep.equal([repacked.packs[0]!.file]);
  });

  it('ignores a cache of another esbuild or service version, of other bundler code, and one of another workspace', async () => {
    const first = await start();
    await written(first.service);
    await first.service.close();
    const cached = index();
    rewrite({ ...cached, identity: { ...cached.identity, esbuild: '0.0.1' } });
    const second = await start();
    expect(restoredOf(second.events).ignored).to.match(/written by @core-js\/packages .* with esbuild 0\.0\.1/);
    expect(builtModules(second.events)).to.include('@acme/app/main');
    // Written again by this service, for its own versions.
    await waitFor(() => index().identity.esbuild === cached.identity.esbuild, { what: 'the cache written again' });
    await second.service.close();
    rewrite({ ...index(), identity: { ...cached.identity, bundlers: 'older-bundler-code' } });
    const changedCode = await start();
    expect(restoredOf(changedCode.events).ignored).to.equal('the cache was written by other code of the built-in bundlers');
    expect(builtModules(changedCode.events)).to.include('@acme/app/main');
    await waitFor(() => index().identity.bundlers === cached.identity.bundlers, { what: 'the cache written again' });
    await changedCode.service.close();

    root = fixtureWorkspace('basic'); // the same files in another directory
    const third = await start();
    expect(restoredOf(third.events).ignored).to.match(/belongs to another workspace/);
    expect(builtModules(third.events)).to.include('@acme/app/main');
  });

  it('is written with the last settled builds before close() returns', async () => {
    // A long delay: the write of the edit's build is the one close() makes, and must finish first.
    const service = await serve(root, { cache: cacheDir, effectDeps: (deps) => ({ ...deps, persistDelayMs: 60_000 }) });
    await service.report();
    writeFile(root, 'packages/app/main/helper.ts', `export const HELPER_MARKER = 'AT_CLOSE';\nexport function greet(): string {\n  return HELPER_MARKER;\n}\n`);
    const served = await service.get(MAIN);
    expect(served.text).to.contain('AT_CLOSE');
    await service.close();
    expect(fs.readdirSync(cacheDir).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);
    const main = index().entries.find((entry) => entry.module === '@acme/app/main' && entry.record.outputs.code.hash === served.headers.etag?.replace(/"/g, ''));
    expect(main, 'the entry of the build served before close').to.not.equal(undefined);
  });

  it('stays whole with two services on one workspace writing it at once', async () => {
    const [one, two] = await Promise.all([start(), start()]);
    await Promise.all([written(one.service), written(two.service)]);
    for (let edit = 1; edit <= 3; edit += 1) {
      writeFile(root, 'packages/app/main/helper.ts', `export const HELPER_MARKER = 'BOTH_${edit}';\nexport function greet(): string {\n  return HELPER_MARKER;\n}\n`);
      await Promise.all([one.service.get(MAIN), two.service.get(MAIN)]);
    }
    await Promise.all([one.service.close(), two.service.close()]);

    const third = await start();
    expect(restoredOf(third.events).ignored).to.equal(undefined);
    expect((await third.service.get(MAIN)).text).to.contain('BOTH_3');
    expect(fs.readdirSync(cacheDir).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);
  });

  it('removes, in the shared place, the caches of workspaces that no longer exist, and no other', async () => {
    const shared = path.join(cacheDir, 'core-js-packages');
    const sibling = (id: string, root: string) => {
      fs.mkdirSync(path.join(shared, id), { recursive: true });
      fs.writeFileSync(path.join(shared, id, 'builds.json'), JSON.stringify({ format: 1, root, entries: [] }));
    };
    sibling('aaaaaaaaaaaaaaaa', path.join(cacheDir, 'a-removed-workspace'));
    sibling('bbbbbbbbbbbbbbbb', root);
    const own = path.join(shared, '0123456789abcdef');
    const { service } = await start({ cache: own });
    await waitFor(() => fs.existsSync(path.join(own, 'builds.json')) && !fs.existsSync(path.join(shared, 'aaaaaaaaaaaaaaaa')), { what: 'the removed workspace\'s cache gone' });
    await service.close();
    expect(fs.readdirSync(shared).sort()).to.deep.equal(['0123456789abcdef', 'bbbbbbbbbbbbbbbb']);
  });

  describe('damaged', () => {
    type Index = Record<string, unknown> & { entries: unknown[]; workspace: { model: { modules: Record<string, unknown>[] } } };
    const indexFile = () => path.join(cacheDir, 'builds.json');
    const edit = (change: (index: Index) => void) => (text: string) => {
      const index = JSON.parse(text) as Index;
      change(index);
      return JSON.stringify(index); // its checksum as it was: the bytes changed since
    };
    /** The same change written with a checksum that matches, as a faulty writer would: only the checks of shapes see it. */
    const resealed = (change: (index: Index) => void) => (text: string) => {
      const { checksum: _checksum, ...index } = JSON.parse(text) as Index;
      change(index as Index);
      return indexText(index as unknown as WrittenIndex);
    };
    const flipAByteOfMainsCode = () => {
      const cached = index();
      const [{ file, at }] = cached.packs;
      const main = cached.entries.find((entry) => entry.module === '@acme/app/main')!.record.outputs.code;
      const pack = fs.readFileSync(path.join(cacheDir, 'outputs', file));
      pack[at[main.hash]! + 10] ^= 0x20;
      fs.writeFileSync(path.join(cacheDir, 'outputs', file), pack);
    };
    const damages: [string, (text: string) => string][] = [
      ['a member of an entry renamed', (text) => text.replace('"fingerprint":', '"fingerprnt":')],
      ['a null entry', edit((index) => (index.entries[0] = null))],
      ['an entry of the wrong type', edit((index) => (index.entries[1] = 'an entry'))],
      ['one letter changed in a path of the cached model', (text) => text.replace('"entry":"packages/app/main/index.ts"', '"entry":"packages/app/main/ineex.ts"')],
      ['a truncated index', (text) => text.slice(0, Math.floor(text.length / 2))],
      ['a null entry, with a checksum that matches', resealed((index) => (index.entries[0] = null))],
      ['an entry of the wrong type, with a checksum that matches', resealed((index) => ((index.entries[1] as { record: object }).record = { imports: 'none' }))],
      ['a cached model of the wrong type, with a checksum that matches', resealed((index) => (index.workspace.model.modules[0]!.platforms = 'web'))],
      ['a pack with a flipped byte', (text) => (flipAByteOfMainsCode(), text)],
    ];

    /** Every output of the state by module and variant: equal hashes are equal bytes. */
    const outputsOf = (service: Service) =>
      Object.fromEntries(
        Object.entries(service.internals.store.getState().builds).map(([module, builds]) => [
          module,
          Object.fromEntries(Object.entries(builds.variants).map(([variant, state]) => [variant, state.last?.outputs ?? null])),
        ]),
      );
    const cacheLines = (lines: string[]) => lines.filter((line) => line.includes('build cache'));

    for (const [damage, apply] of damages) {
      it(`is a miss, said once, and written anew: ${damage}`, async () => {
        await pastRacyWindow(); // so that the model is restored when whole
        const first = await start();
        await written(first.service);
        await first.service.close();
        const damaged = apply(fs.readFileSync(indexFile(), 'utf8'));
        fs.writeFileSync(indexFile(), damaged);

        const lines: string[] = [];
        const { service } = await start({ logger: (line: string) => lines.push(line) });
        const report = await service.report();
        const served = [(await service.get(MAIN)).text, (await service.get(MAIN_STYLES)).text, (await service.get(FORMAT)).text];
        const outputs = outputsOf(service);
        expect(cacheLines(lines)).to.have.length(1);
        expect(cacheLines(lines)[0]).to.match(/^core: the build cache in .* is damaged \(.+\); what it cannot vouch for is built again and the cache written anew$/);
        // Written anew: a whole index whose every entry is of its shape.
        const rewritten = await waitFor(
          () => {
            const text = fs.readFileSync(indexFile(), 'utf8');
            if (text === damaged) return false;
            const { identity, root: written } = JSON.parse(text) as { identity: WrittenIndex['identity']; root: string };
            const parsed = parseIndex(text, { identity, root: written, file: indexFile() });
            return 'index' in parsed && parsed.index;
          },
          { what: 'the cache written anew' },
        );
        expect(rewritten.entries.every(isCacheEntry)).to.equal(true);
        await service.close();

        const uncached = await start({ cache: false });
        expect(report).to.deep.equal(await uncached.service.report());
        expect(outputs).to.deep.equal(outputsOf(uncached.service));
        expect(served).to.deep.equal([(await uncached.service.get(MAIN)).text, (await uncached.service.get(MAIN_STYLES)).text, (await uncached.service.get(FORMAT)).text]);
        await uncached.service.close();

        const afterLines: string[] = [];
        const after = await start({ logger: (line: string) => afterLines.push(line) });
        expect(cacheLines(afterLines)).to.deep.equal([]);
        expect(builtModules(after.events)).to.deep.equal([]);
        expect(restoredOf(after.events).builds).to.have.length(rewritten.entries.length);
        expect(await after.service.report()).to.deep.equal(report);
        await after.service.close();
      });
    }
  });

  describe('on a full disk', () => {
    const originalWriteFile = fs.promises.writeFile;
    afterEach(() => {
      fs.promises.writeFile = originalWriteFile;
    });
    /** The disk fills up while `which` files of the cache are written: half of each written, then ENOSPC. */
    const fillTheDiskFor = (which: (name: string) => boolean) => {
      fs.promises.writeFile = (async (file: fs.PathLike, data: string | Uint8Array, options?: never) => {
        if (typeof file !== 'string' || !file.startsWith(cacheDir) || !which(path.basename(file))) return originalWriteFile(file, data, options);
        await originalWriteFile(file, typeof data === 'string' ? data.slice(0, data.length / 2) : data.subarray(0, data.length / 2));
        throw Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC' });
      }) as typeof fs.promises.writeFile;
    };
    const freeTheDisk = () => (fs.promises.writeFile = originalWriteFile);
    const filesIn = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : []);

    for (const [what, which] of [
      ['every write', () => true],
      ['the index, after its pack', (name: string) => name.startsWith('builds.json.')],
    ] as const) {
      it(`leaves no temporary file nor unnamed pack when ${what} fails, and is written once there is room`, async () => {
        fillTheDiskFor(which);
        const lines: string[] = [];
        const { service } = await start({ logger: (line) => lines.push(line) });
        await waitFor(() => lines.some((line) => line.includes('cannot be written')), { what: 'the write failing' });
        expect(lines).to.deep.equal([`core: the build cache cannot be written (ENOSPC: no space left on device, write '${lines[0]!.match(/write '(.*)'\)/)![1]}'); the next start builds every module`]);
        expect(filesIn(cacheDir).filter((name) => name !== 'outputs')).to.deep.equal([]);

        freeTheDisk();
        await service.close(); // the state whose write failed is written as it stops
        const cached = index();
        expect(cached.entries.length).to.be.greaterThan(0);
        expect(filesIn(cacheDir)).to.deep.equal(['builds.json', 'outputs', ...cached.packs.map((pack) => path.join('outputs', pack.file))].sort());
        expectEveryOutputPacked(cached);
        const again = await start();
        expect(builtModules(again.events)).to.deep.equal([]);
      });
    }
  });

  it('says the cache cannot be written only when its index was not: a directory in outputs/ is left alone', async () => {
    fs.mkdirSync(path.join(cacheDir, 'outputs', 'not-a-pack', 'inside'), { recursive: true });
    const lines: string[] = [];
    const { service } = await start({ logger: (line) => lines.push(line) });
    const cached = await written(service);
    await service.close();
    expect(lines.filter((line) => line.includes('build cache'))).to.deep.equal([]);
    expect(fs.readdirSync(path.join(cacheDir, 'outputs')).sort()).to.deep.equal([cached.packs[0]!.file, 'not-a-pack'].sort());
  });

  it('is neither read nor written when off', async () => {
    const { service, events } = await start({ cache: false });
    await service.get(MAIN);
    await service.close();
    expect(events.some((event) => event.type === 'cache.restored')).to.equal(false);
    expect(fs.readdirSync(cacheDir)).to.deep.equal([]);
  });
});
