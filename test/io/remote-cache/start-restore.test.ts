// The start's counts of the team cache (src/io/remote-cache/start-restore.ts): one count, the
// client's, for the model's question and the restore's alike, as the log and /state show it.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import type { BuildCache } from '../../../src/io/build-cache.js';
import type { Answer, RemoteClient } from '../../../src/io/remote-cache/client.js';
import { teamModel } from '../../../src/io/remote-cache/model-entry.js';
import { moduleKey, REMOTE_FORMAT, sealEntry, workspaceKey, type ModuleEntry } from '../../../src/io/remote-cache/entries.js';
import { createStartRestore, startVariants } from '../../../src/io/remote-cache/start-restore.js';
import { createFileHashes } from '../../../src/io/file-hashes.js';
import { createOutputCache } from '../../../src/outputs/output-cache.js';
import type { Fact } from '../../../src/store/events.js';
import type { WorkspaceModel } from '../../../src/workspace/model.js';
import { moduleModel, workspaceModel } from '../../helpers/models.js';
import { tempWorkspace } from '../../helpers/workspace.js';

describe('createStartRestore', () => {
  it("counts the start's requests and bytes as the client counted them, the model's question included", async () => {
    // A client that answers each question with 5 bytes that are no entry, and counts as the real one
    // does; the first question (the model's) it asks twice, the first try cut after 2 bytes (a retry):
    // a count of one request and the answer's length per question would not give its count.
    const counts = { requests: 0, puts: 0, bytes: 0 };
    const client = {
      counts,
      get: async (): Promise<Answer> => {
        if (counts.requests === 0) Object.assign(counts, { requests: 1, bytes: 2 });
        counts.requests += 1;
        counts.bytes += 5;
        return { found: Buffer.from('nope!') };
      },
    } as unknown as RemoteClient;
    const settings = { base: new URL('http://cache.test/'), header: null, publicKey: generateKeyPairSync('ed25519').publicKey };
    const root = tempWorkspace({ 'core.json': '{}' });
    const team = teamModel({ client, url: settings.base.href, identity: { service: '1', reader: 'r' }, publicKey: settings.publicKey, hashes: createFileHashes(root) });
    const taken = await team.restore([]);
    expect(taken?.workspace, 'no entry: the model is read here').to.equal(null);
    const cache = { restore: () => ({ type: 'cache.restored', dir: root, builds: [] }), entryChecker: () => () => 'stale' } as unknown as BuildCache;
    const restore = createStartRestore({ cache, client, settings, identity: { service: '1', esbuild: '0', bundlers: 'b' }, outputs: createOutputCache(), earlierFailures: team.failures });
    const facts = (await restore(workspaceModel([moduleModel('one')]))) as Fact[];
    const restored = facts.find((fact) => fact.type === 'cache.remote.restored');
    expect(counts, 'the model twice, the workspace entry, the module entry').to.include({ requests: 4, bytes: 17 });
    expect(restored).to.include({ requests: counts.requests, bytes: counts.bytes });
  });

  describe('begun before the model is taken (`ahead`)', () => {
    const identity = { service: '1', esbuild: '0', bundlers: 'b' };
    /** A team cache holding, in its workspace's entry, an entry of each module of `workspace` (one input each); what is asked of it, sent to the worker, judged. */
    function teamCache(workspace: WorkspaceModel) {
      const outputs = createOutputCache();
      const entries: Record<string, ModuleEntry> = {};
      for (const { module, variant } of startVariants(workspace)) {
        const key = moduleKey(module, variant, workspace, identity);
        const code = outputs.put(Buffer.from(`code of ${module.specifier}`));
        entries[key] = { format: REMOTE_FORMAT, key, entry: { module: module.specifier, variant, fingerprint: 'f', bundler: 'b', boundaries: 'w', record: { outputs: { code, styles: null }, imports: [], inputs: { [`${module.dir}/index.ts`]: 'h' } } as ModuleEntry['entry']['record'] }, blobs: {} };
      }
      const listing = sealEntry({ format: REMOTE_FORMAT, key: workspaceKey(Object.keys(entries)), entries, modules: {} }, null);
      const asked: string[] = [];
      const client = {
        counts: { requests: 0, puts: 0, bytes: 0 },
        get: async (store: string, digest: string): Promise<Answer> => (asked.push(`${store}/${digest}`), digest === workspaceKey(Object.keys(entries)) ? { found: listing } : { missing: true }),
      } as unknown as RemoteClient;
      const sent: string[] = [];
      const judged: string[] = [];
      const cache = {
        restore: () => ({ type: 'cache.restored', dir: '/w', builds: [] }),
        entryChecker: (judgedFor: WorkspaceModel) => (entry: unknown) => (judged.push((entry as { module: string }).module), judgedFor === workspace ? 'valid' : 'stale'),
      } as unknown as BuildCache;
      const settings = { base: new URL('http://cache.test/'), header: null, publicKey: null };
      const restore = createStartRestore({ cache, client, settings, identity, outputs, readAhead: async (relatives) => void sent.push(...relatives) });
      return { restore, asked, sent, judged };
    }
    /** Turns of the event loop until `done`, 100 at most (the early restore's steps are each a turn or two). */
    const until = async (done: () => boolean) => {
      for (let turn = 0; turn < 100 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
    };

    it("fetches the entries at once, reads and judges them only when the start restores that very model (the worker reads the model's sources meanwhile), and asks nothing again", async () => {
      const workspace = workspaceModel([moduleModel('m0'), moduleModel('m1')]);
      const team = teamCache(workspace);
      team.restore.ahead(workspace);
      await until(() => false);
      expect(team.asked, "the workspace's entry, asked before the model is taken").to.have.length(1);
      expect(team.sent, 'nothing sent to the worker before the model is taken').to.deep.equal([]);
      expect(team.judged, 'nothing judged before the model is taken').to.deep.equal([]);
      const facts = (await team.restore(workspace)) as Fact[];
      const restored = facts.find((fact) => fact.type === 'cache.remote.restored');
      expect(restored && 'builds' in restored && restored.builds.map((build) => build.module).sort()).to.deep.equal(['@t/app/m0', '@t/app/m1']);
      expect(team.sent.sort()).to.deep.equal(['app/m0/index.ts', 'app/m1/index.ts']);
      expect(team.judged.sort()).to.deep.equal(['@t/app/m0', '@t/app/m1']);
      expect(team.asked, 'nothing asked again').to.have.length(1);
    });

    it('is dropped, nothing of it judged, when the start restores another model (the team\'s was not taken): that one is restored by itself', async () => {
      const team = workspaceModel([moduleModel('m0'), moduleModel('m1')]);
      const cache = teamCache(team);
      cache.restore.ahead(team);
      await until(() => false);
      const readHere = workspaceModel([moduleModel('m0'), moduleModel('m1')]);
      const facts = (await cache.restore(readHere)) as Fact[];
      const restored = facts.find((fact) => fact.type === 'cache.remote.restored');
      // The model read here is another object: its entries judged against it (stale here), the team's never.
      expect(cache.judged, 'judged once each, for the model read here').to.have.length(2);
      expect(cache.sent, "read once each, for the model read here").to.have.length(2);
      expect(restored && 'misses' in restored && restored.misses).to.deep.equal({ stale: 2 });
      expect(cache.asked, "the workspace's entry asked again, for the model read here").to.have.length(2);
    });
  });
});

