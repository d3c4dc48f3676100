// The team start's restoration with the entries' inputs read ahead on the worker thread: a client
// of the shape the service's is, answering from a pack, and the file hashes of a real directory.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createFileHashes, RACY_MS, type FileHashes } from '../../../src/io/file-hashes.js';
import type { Answer, RemoteClient } from '../../../src/io/remote-cache/client.js';
import { moduleKey, REMOTE_FORMAT, sealEntry, sha256Hex, workspaceKey, type ModuleEntry } from '../../../src/io/remote-cache/entries.js';
import { writePack } from '../../../src/io/remote-cache/pack.js';
import { restoreFromRemote, type RemoteRestoreDeps, type WantedVariant } from '../../../src/io/remote-cache/restore.js';
import { createReadAhead } from '../../../src/io/read-ahead.js';
import { isCacheEntry } from '../../../src/io/cache-index.js';
import { contentHash } from '../../../src/outputs/content-hash.js';
import { createOutputCache } from '../../../src/outputs/output-cache.js';
import { moduleModel, workspaceModel } from '../../helpers/models.js';
import { tempWorkspace } from '../../helpers/workspace.js';
import { spyOnFileReads } from '../../helpers/file-reads-spy.js';

const IDENTITY = { service: 'test', esbuild: '0', bundlers: 'b' };
const VARIANT = 'dev';

describe('restoreFromRemote, inputs read ahead', () => {
  /**
   * Two modules pushed, their inputs on disk: their entries held by the workspace's entry (`held`),
   * or in a pack it names; the workspace's entry signed by `signer`.
   */
  function teamCache({ held = false, signer = null, change }: { held?: boolean; signer?: crypto.KeyObject | null; change?: (payloads: ModuleEntry[]) => void } = {}) {
    const root = tempWorkspace({ 'app/m0/index.ts': 'm0', 'app/m0/helper.ts': 'h0', 'app/m1/index.ts': 'm1', 'app/m1/helper.ts': 'h1' });
    const until = Date.now() + RACY_MS + 20; // past the racy window of the writes
    while (Date.now() < until);
    const modules = [moduleModel('m0'), moduleModel('m1')];
    const workspace = workspaceModel(modules);
    const wanted: WantedVariant[] = modules.map((module) => ({ module, variant: VARIANT }));
    const outputs = createOutputCache();
    const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
    const parts = new Map<string, Buffer>();
    const listed: Record<string, string> = {};
    const payloads: ModuleEntry[] = [];
    for (const { module } of wanted) {
      const key = moduleKey(module, VARIANT, workspace, IDENTITY);
      const code = outputs.put(Buffer.from(`code of ${module.specifier}`));
      const inputs = Object.fromEntries([`${module.dir}/index.ts`, `${module.dir}/helper.ts`].map((input) => [input, hashes.hash(input)]));
      const payload: ModuleEntry = { format: REMOTE_FORMAT, key, entry: { module: module.specifier, variant: VARIANT, fingerprint: 'f', bundler: 'b', boundaries: 'w', record: { outputs: { code, styles: null }, imports: [], inputs } as ModuleEntry['entry']['record'] }, blobs: {} };
      payloads.push(payload);
      const bytes = sealEntry(payload, null);
      parts.set(sha256Hex(bytes), bytes);
      listed[key] = sha256Hex(bytes);
    }
    const keys = Object.keys(listed);
    change?.(payloads);
    const pack = writePack(held ? new Map() : parts)!;
    const contents = held ? { entries: Object.fromEntries(keys.map((key, index) => [key, payloads[index]])), modules: {} } : { modules: listed };
    const workspaceEntry = sealEntry({ format: REMOTE_FORMAT, key: workspaceKey(keys), ...contents, pack: sha256Hex(pack) }, signer);
    const blobs = new Map([[workspaceKey(keys), workspaceEntry], [sha256Hex(pack), pack]]);
    const client = {
      counts: { requests: 0, puts: 0, bytes: 0 },
      get: async (_store: string, digest: string): Promise<Answer> => (blobs.has(digest) ? { found: blobs.get(digest)! } : { missing: true }),
    } as unknown as RemoteClient;
    return { root, workspace, wanted, outputs, client, fresh: () => createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 }) };
  }

  /** The team start's restoration of that pack, judged by `hashes`, with `readAhead` as the worker's hook (none: `core dist`'s). */
  function restore(cache: ReturnType<typeof teamCache>, hashes: FileHashes, readAhead: ((relatives: readonly string[]) => Promise<void>) | undefined, publicKey: crypto.KeyObject | null = null) {
    return restoreFromRemote(cache.workspace, cache.wanted, cache.wanted, {
      client: cache.client,
      url: 'http://team/',
      identity: IDENTITY,
      publicKey,
      check: checkInputs(hashes),
      outputs: cache.outputs,
      ...(readAhead ? { readAhead } : {}),
    });
  }

  /** The local cache's judgement reduced to its inputs: each as this disk has it now. */
  const checkInputs = (hashes: FileHashes) => (entry: unknown) =>
    Object.entries((entry as { record: { inputs: Record<string, string> } }).record.inputs).every(([input, hash]) => hashes.stamp(input).hash === hash) ? ('valid' as const) : ('stale' as const);

  for (const held of [false, true]) {
    it(`asks the worker for every input of the entries ${held ? "the workspace's entry holds" : 'the pack holds'}, and checks them without reading them again`, async () => {
      const cache = teamCache({ held });
      const hashes = cache.fresh();
      const asked: string[][] = [];
      const reads: string[] = [];
      let restoreReads = () => {};
      try {
        const restored = await restore(cache, hashes, async (relatives) => {
          asked.push([...relatives]);
          await hashes.readAhead!(relatives);
          restoreReads = spyOnFileReads((file) => reads.push(file));
        });
        expect(restored.builds.map((build) => build.module)).to.have.members(['@t/app/m0', '@t/app/m1']);
        expect(restored.misses).to.deep.equal({});
        expect(asked.flat().sort()).to.deep.equal(['app/m0/helper.ts', 'app/m0/index.ts', 'app/m1/helper.ts', 'app/m1/index.ts']);
        expect(reads, 'the main thread read nothing after the worker').to.deep.equal([]);
      } finally {
        restoreReads();
        await hashes.close!();
      }
    });
  }

  it('asks the worker only for the files the builds read: what they only depend on (a config place recorded absent, where a link leads) is judged by the listings and stats of its check, never read', async () => {
    // Where `app/m0/helper.ts` leads: to itself, as this disk's check finds (no file of that name to read).
    const dependsOn = { 'app/tsconfig.json': null, 'app/m0/nowhere.ts ->': null, 'app/m0/helper.ts ->': contentHash(' ->app/m0/helper.ts') };
    const cache = teamCache({
      held: true,
      change: (payloads) =>
        payloads.forEach(({ entry: { record } }) => {
          Object.assign(record.inputs, dependsOn);
          record.resolution = [...new Set([...(record.resolution ?? []), ...Object.keys(dependsOn)])].sort();
        }),
    });
    const hashes = cache.fresh();
    const asked: string[] = [];
    try {
      const restored = await restore(cache, hashes, async (relatives) => {
        asked.push(...relatives);
        await hashes.readAhead!(relatives);
      });
      expect(restored.builds.map((build) => build.module)).to.have.members(['@t/app/m0', '@t/app/m1']);
      expect(asked.sort()).to.deep.equal(['app/m0/helper.ts', 'app/m0/index.ts', 'app/m1/helper.ts', 'app/m1/index.ts']);
    } finally {
      await hashes.close!();
    }
  });

  it('refuses (a miss) an entry whose resolution names a path not among its inputs, and reads none of its inputs ahead', async () => {
    const cache = teamCache({ held: true, change: (payloads) => void (payloads[0]!.entry.record.resolution = ['app/m0/elsewhere.ts']) });
    const hashes = cache.fresh();
    const asked: string[] = [];
    // The local cache's judgement: an entry not of its shape (`isCacheEntry`) is damaged, else judged by its inputs.
    const check = (entry: unknown) => (isCacheEntry(entry) ? checkInputs(hashes)(entry) : ('damaged' as const));
    try {
      const restored = await restoreFromRemote(cache.workspace, cache.wanted, cache.wanted, {
        client: cache.client,
        url: 'http://team/',
        identity: IDENTITY,
        publicKey: null,
        check,
        outputs: cache.outputs,
        readAhead: async (relatives) => {
          asked.push(...relatives);
          await hashes.readAhead!(relatives);
        },
      });
      expect(restored.builds.map((build) => build.module)).to.deep.equal(['@t/app/m1']);
      expect(restored.misses).to.deep.equal({ 'wrong-shape': 1 });
      expect(asked.sort()).to.deep.equal(['app/m1/helper.ts', 'app/m1/index.ts']);
    } finally {
      await hashes.close!();
    }
  });

  it("takes the entries the workspace's entry holds without reading ahead (core dist): no question beyond it and the pack", async () => {
    const cache = teamCache({ held: true });
    const asked: string[] = [];
    const get = cache.client.get.bind(cache.client);
    cache.client.get = (store, digest) => (asked.push(`${store}/${digest}`), get(store, digest));
    const hashes = cache.fresh();
    try {
      const restored = await restore(cache, hashes, undefined);
      expect(restored.builds.map((build) => build.module)).to.have.members(['@t/app/m0', '@t/app/m1']);
      expect(restored.misses).to.deep.equal({});
      expect(asked, "the workspace's entry and its pack").to.have.length(2);
    } finally {
      await hashes.close!();
    }
  });

  it("an entry the workspace's entry holds is judged as the module's own: one of another module is a miss, and only its inputs are not read", async () => {
    const cache = teamCache({ held: true, change: (payloads) => void (payloads[1] = { ...payloads[0]! }) });
    const hashes = cache.fresh();
    const asked: string[] = [];
    try {
      const restored = await restore(cache, hashes, async (relatives) => void asked.push(...relatives));
      expect(restored.builds.map((build) => build.module)).to.deep.equal(['@t/app/m0']);
      expect(restored.misses).to.deep.equal({ 'wrong-shape': 1 });
      expect(asked.sort()).to.deep.equal(['app/m0/helper.ts', 'app/m0/index.ts']);
    } finally {
      await hashes.close!();
    }
  });

  it("the entries the workspace's entry holds are taken under its signature, and none when it is another key's", async () => {
    const signer = crypto.generateKeyPairSync('ed25519');
    const other = crypto.generateKeyPairSync('ed25519');
    for (const [key, taken] of [[signer.publicKey, 2], [other.publicKey, 0]] as const) {
      const cache = teamCache({ held: true, signer: signer.privateKey });
      const hashes = cache.fresh();
      try {
        const restored = await restore(cache, hashes, (relatives) => hashes.readAhead!(relatives), key);
        expect(restored.builds, taken ? 'signed by the key' : 'signed by another key').to.have.length(taken);
        // Refused, the workspace's entry gives nothing: each module's own entry is asked, and absent here.
        if (!taken) expect(restored.misses).to.deep.equal({ absent: 2 });
      } finally {
        await hashes.close!();
      }
    }
  });

  it('judges stale a module whose input changed after the worker read it', async () => {
    const cache = teamCache();
    const hashes = cache.fresh();
    try {
      const restored = await restore(cache, hashes, async (relatives) => {
        await hashes.readAhead!(relatives);
        fs.writeFileSync(path.join(cache.root, 'app/m1/helper.ts'), 'H1');
      });
      expect(restored.builds.map((build) => build.module)).to.deep.equal(['@t/app/m0']);
      expect(restored.misses).to.deep.equal({ stale: 1 });
    } finally {
      await hashes.close!();
    }
  });
});

describe('restoreFromRemote, outputs from the pack', () => {
  /** One module whose entry names its code output by `named`, and a pack holding `packed` under its own SHA-256. */
  async function restoreOne(named: Buffer, packed: Buffer) {
    const module = moduleModel('m0');
    const workspace = workspaceModel([module]);
    const wanted: WantedVariant[] = [{ module, variant: VARIANT }];
    const key = moduleKey(module, VARIANT, workspace, IDENTITY);
    const code = { hash: contentHash(named), size: named.length };
    const payload: ModuleEntry = { format: REMOTE_FORMAT, key, entry: { module: module.specifier, variant: VARIANT, fingerprint: 'f', bundler: 'b', boundaries: 'w', record: { outputs: { code, styles: null }, imports: [], inputs: {} } as ModuleEntry['entry']['record'] }, blobs: { [code.hash]: sha256Hex(packed) } };
    const entry = sealEntry(payload, null);
    const pack = writePack(new Map([[sha256Hex(entry), entry], [sha256Hex(packed), packed]]))!;
    const listed = { [key]: sha256Hex(entry) };
    const blobs = new Map([[workspaceKey([key]), sealEntry({ format: REMOTE_FORMAT, key: workspaceKey([key]), modules: listed, pack: sha256Hex(pack) }, null)], [sha256Hex(pack), pack]]);
    const client = {
      counts: { requests: 0, puts: 0, bytes: 0 },
      get: async (_store: string, digest: string): Promise<Answer> => (blobs.has(digest) ? { found: blobs.get(digest)! } : { missing: true }),
    } as unknown as RemoteClient;
    const outputs = createOutputCache();
    const restored = await restoreFromRemote(workspace, wanted, wanted, { client, url: 'http://team/', identity: IDENTITY, publicKey: null, check: () => 'valid', outputs, readAhead: async () => undefined });
    return { restored, outputs, hash: code.hash };
  }

  it('keeps an output whose blob hashes to its name, under the content hash its entry names', async () => {
    const { restored, outputs, hash } = await restoreOne(Buffer.from('export const a = 1;'), Buffer.from('export const a = 1;'));
    expect(restored.builds.map((build) => build.module)).to.deep.equal(['@t/app/m0']);
    expect(outputs.get(hash)?.toString()).to.equal('export const a = 1;');
  });

  it('a blob that hashes to its name but is not the output its entry names (same size) is a bad blob, never kept', async () => {
    const { restored, outputs, hash } = await restoreOne(Buffer.from('export const a = 1;'), Buffer.from('export const b = 2;'));
    expect(restored.builds).to.deep.equal([]);
    expect(restored.misses).to.deep.equal({ 'bad-blob': 1 });
    expect(outputs.get(hash)).to.equal(undefined);
    expect(outputs.size).to.equal(0);
  });
});

describe('restoreFromRemote, the pack checked on the worker', () => {
  /**
   * Two modules whose entries the workspace's entry holds, their outputs in a pack and each alone
   * in `cas/` too; `sha256Ahead` hashes. `flip`: the pack's last byte flipped `before` it is
   * named (its last part is not what its name says) or `after` (the pack is not). `hashedHere`:
   * told the length of each thing this thread hashes while restoring.
   */
  async function restoreHeld(sha256Ahead: RemoteRestoreDeps['sha256Ahead'], flip?: 'before' | 'after', hashedHere: (length: number) => void = () => undefined) {
    const modules = [moduleModel('m0'), moduleModel('m1')];
    const workspace = workspaceModel(modules);
    const wanted: WantedVariant[] = modules.map((module) => ({ module, variant: VARIANT }));
    const blobs = new Map<string, Buffer>();
    const entries: Record<string, ModuleEntry> = {};
    for (const { module } of wanted) {
      const bytes = Buffer.from(`code of ${module.specifier}`);
      const code = { hash: contentHash(bytes), size: bytes.length };
      const key = moduleKey(module, VARIANT, workspace, IDENTITY);
      entries[key] = { format: REMOTE_FORMAT, key, entry: { module: module.specifier, variant: VARIANT, fingerprint: 'f', bundler: 'b', boundaries: 'w', record: { outputs: { code, styles: null }, imports: [], inputs: {} } as ModuleEntry['entry']['record'] }, blobs: { [code.hash]: sha256Hex(bytes) } };
      blobs.set(sha256Hex(bytes), bytes);
    }
    const pack = writePack(new Map(blobs))!;
    if (flip === 'before') pack[pack.length - 1]! ^= 1;
    const keys = Object.keys(entries);
    blobs.set(workspaceKey(keys), sealEntry({ format: REMOTE_FORMAT, key: workspaceKey(keys), entries, modules: {}, pack: sha256Hex(pack) }, null));
    blobs.set(sha256Hex(pack), pack);
    if (flip === 'after') pack[pack.length - 1]! ^= 1;
    const asked: string[] = [];
    const client = {
      counts: { requests: 0, puts: 0, bytes: 0 },
      get: async (store: string, digest: string): Promise<Answer> => (asked.push(store), blobs.has(digest) ? { found: blobs.get(digest)! } : { missing: true }),
    } as unknown as RemoteClient;
    const outputs = createOutputCache();
    const hash = crypto.hash;
    crypto.hash = ((algorithm: string, data: Uint8Array, encoding: 'hex') => (hashedHere(data.length), hash(algorithm, data, encoding))) as typeof crypto.hash;
    try {
      const restored = await restoreFromRemote(workspace, wanted, wanted, { client, url: 'http://team/', identity: IDENTITY, publicKey: null, check: () => 'valid', outputs, readAhead: async () => undefined, sha256Ahead });
      return { restored, outputs, asked, pack };
    } finally {
      crypto.hash = hash;
    }
  }

  it('hashes the pack and each of its parts on the worker, not here, and keeps the outputs of the parts that match', async () => {
    const worker = createReadAhead(tempWorkspace({}));
    const ranges: (readonly [number, number])[] = [];
    const hashedHere: number[] = [];
    try {
      const { restored, outputs, asked, pack } = await restoreHeld(async (bytes, asked) => (ranges.push(...asked), worker.sha256(bytes, asked)), undefined, (length) => hashedHere.push(length));
      expect(restored.builds.map((build) => build.module)).to.have.members(['@t/app/m0', '@t/app/m1']);
      expect(restored.misses).to.deep.equal({});
      expect(outputs.size).to.equal(2);
      expect(asked, "the workspace's entry and its pack only").to.deep.equal(['ac', 'cas']);
      expect(ranges, 'the whole pack and its two parts').to.have.length(3);
      expect(ranges[0]).to.deep.equal([0, pack.length]);
      // The keys are hashed here (JSON of other lengths); the pack and its parts are not.
      const partLength = Buffer.byteLength('code of @t/app/m0');
      expect(hashedHere.filter((length) => length === pack.length || length === partLength), 'the pack or a part hashed on this thread').to.deep.equal([]);
      expect(hashedHere, 'the keys hashed here').to.not.deep.equal([]);
    } finally {
      await worker.close();
    }
  });

  it('a part that is not what its name says is asked for alone; a pack that is not gives no part', async () => {
    const worker = createReadAhead(tempWorkspace({}));
    try {
      // The last part not what its name says: that module's output is fetched from `cas/`, the other taken from the pack.
      const badPart = await restoreHeld(worker.sha256, 'before');
      expect(badPart.restored.builds).to.have.length(2);
      expect(badPart.asked).to.deep.equal(['ac', 'cas', 'cas']);
      for (const build of badPart.restored.builds) expect(badPart.outputs.get(build.outputs.code!.hash)!.toString()).to.equal(`code of ${build.module}`);
    } finally {
      await worker.close();
    }
    // The pack not what its name says, the worker gone (this thread hashes): both outputs fetched alone.
    const badPack = await restoreHeld(async () => null, 'after');
    expect(badPack.restored.builds).to.have.length(2);
    expect(badPack.asked).to.deep.equal(['ac', 'cas', 'cas', 'cas']);
  });
});

describe('restoreFromRemote, entries judged while the worker reads', () => {
  it("judges entries from the back itself while the worker's batches of the front are not answered, then takes those", async () => {
    const modules = Array.from({ length: 200 }, (_, index) => moduleModel(`m${index}`));
    const workspace = workspaceModel(modules);
    const wanted: WantedVariant[] = modules.map((module) => ({ module, variant: VARIANT }));
    const outputs = createOutputCache();
    const entries: Record<string, ModuleEntry> = {};
    for (const { module } of wanted) {
      const code = outputs.put(Buffer.from(`code of ${module.specifier}`));
      const key = moduleKey(module, VARIANT, workspace, IDENTITY);
      entries[key] = { format: REMOTE_FORMAT, key, entry: { module: module.specifier, variant: VARIANT, fingerprint: 'f', bundler: 'b', boundaries: 'w', record: { outputs: { code, styles: null }, imports: [], inputs: { [`${module.dir}/index.ts`]: 'h' } } as ModuleEntry['entry']['record'] }, blobs: {} };
    }
    const keys = Object.keys(entries);
    const listing = sealEntry({ format: REMOTE_FORMAT, key: workspaceKey(keys), entries, modules: {} }, null);
    const client = { counts: { requests: 0, puts: 0, bytes: 0 }, get: async (): Promise<Answer> => ({ found: listing }) } as unknown as RemoteClient;
    // The worker answers nothing until this thread has judged every entry it was not sent.
    const asked: string[][] = [];
    const answers: (() => void)[] = [];
    const judged: string[] = [];
    const check = (entry: unknown) => {
      judged.push((entry as { module: string }).module);
      if (judged.length === 200 - 128) for (const answer of answers.splice(0)) answer();
      return 'valid' as const;
    };
    const readAhead = (relatives: readonly string[]) => (asked.push([...relatives]), new Promise<void>((resolve) => answers.push(resolve)));
    const restored = await restoreFromRemote(workspace, wanted, wanted, { client, url: 'http://team/', identity: IDENTITY, publicKey: null, check, outputs, readAhead });
    expect(restored.builds).to.have.length(200);
    expect(restored.misses).to.deep.equal({});
    // Two batches of 64 sent from the front; the rest judged here from the back, before any of those.
    expect(asked.map((batch) => batch.length)).to.deep.equal([64, 64]);
    expect(asked[0]![0]).to.equal('app/m0/index.ts');
    expect(judged.slice(0, 200 - 128).every((module) => Number(module.split('/m')[1]) >= 128), 'judged here first: from the back').to.equal(true);
    expect(judged.slice(200 - 128), "then the worker's batches, in order").to.deep.equal(modules.slice(0, 128).map((module) => module.specifier));
  });
});

describe('restoreFromRemote, its counts', () => {
  it("counts the client's requests and bytes from `countsSince` when given, else from its own beginning", async () => {
    // A client that finds nothing, and had answered two questions before the restore.
    const counts = { requests: 2, puts: 0, bytes: 9 };
    const client = {
      counts,
      get: async (): Promise<Answer> => {
        counts.requests += 1;
        return { missing: true };
      },
    } as unknown as RemoteClient;
    const modules = [moduleModel('m0')];
    const wanted: WantedVariant[] = modules.map((module) => ({ module, variant: VARIANT }));
    const deps: RemoteRestoreDeps = { client, url: 'http://team/', identity: IDENTITY, publicKey: null, check: () => 'stale', outputs: createOutputCache() };
    const own = await restoreFromRemote(workspaceModel(modules), wanted, wanted, deps);
    expect(own).to.include({ requests: counts.requests - 2, bytes: 0 });
    const whole = await restoreFromRemote(workspaceModel(modules), wanted, wanted, { ...deps, countsSince: { requests: 0, bytes: 0 } });
    expect(whole).to.include({ requests: counts.requests, bytes: 9 });
  });
});
