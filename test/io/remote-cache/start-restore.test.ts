// The start's counts of the team cache (src/io/remote-cache/start-restore.ts): one count, the
// client's, for the model's question and the restore's alike, as the log and /state show it.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import type { BuildCache } from '../../../src/io/build-cache.js';
import type { Answer, RemoteClient } from '../../../src/io/remote-cache/client.js';
import { teamModel } from '../../../src/io/remote-cache/model-entry.js';
import { createStartRestore } from '../../../src/io/remote-cache/start-restore.js';
import { createFileHashes } from '../../../src/io/file-hashes.js';
import { createOutputCache } from '../../../src/outputs/output-cache.js';
import type { Fact } from '../../../src/store/events.js';
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
});
