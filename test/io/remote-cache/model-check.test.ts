// The workspace model's entry judged, and its sources checked against a real disk (README "A
// team's remote cache"): nothing the entry says is taken without this disk's own hash of it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createFileHashes, RACY_MS } from '../../../src/io/file-hashes.js';
import { onePassReader } from '../../../src/io/workspace-reads.js';
import { holdsHere, isModelEntry, modelKey } from '../../../src/io/remote-cache/model-entry.js';
import { REMOTE_FORMAT } from '../../../src/io/remote-cache/entries.js';
import { readWorkspace } from '../../../src/workspace/read-workspace.js';
import { fixtureWorkspace } from '../../helpers/fixtures.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const identity = { service: '1.0.0', reader: 'r'.repeat(22) };

describe('the workspace model entry', () => {
  const read = () => {
    const root = fixtureWorkspace('basic');
    return { root, model: readWorkspace(onePassReader(createFileHashes(root)), []) };
  };

  it('is judged by its key, its core.json and plain paths only', () => {
    const { model } = read();
    const coreJson = model.sources['core.json']!;
    const key = modelKey(identity, coreJson, []);
    const entry = { format: REMOTE_FORMAT, kind: 'model', key, model, links: { realPaths: { 'node_modules/x': 'packages/x' }, leaves: { 'packages/y': true } } };
    expect(isModelEntry(entry, key, coreJson)).to.equal(true);
    expect(isModelEntry(entry, modelKey(identity, coreJson, ['@acme/lib/deep']), coreJson)).to.equal(false);
    expect(isModelEntry(entry, key, 'x'.repeat(22))).to.equal(false);
    expect(isModelEntry({ ...entry, model: { ...model, sources: { ...model.sources, '../outside.json': null } } }, key, coreJson)).to.equal(false);
    expect(isModelEntry({ ...entry, model: { ...model, modules: 'all' } }, key, coreJson)).to.equal(false);
    expect(isModelEntry({ ...entry, links: undefined }, key, coreJson)).to.equal(false);
    expect(isModelEntry({ ...entry, links: { realPaths: { 'node_modules/x': '/etc' }, leaves: {} } }, key, coreJson)).to.equal(false);
  });

  it('holds on the disk it was read from, each source hashed here (a file the worker read taken as read)', async () => {
    const { root, model } = read();
    const hashes = createFileHashes(root, Date.now, { readAhead: true });
    try {
      expect(await holdsHere(model.sources, hashes)).to.equal(true);
    } finally {
      await hashes.close!();
    }
  });

  it("takes a file the worker read with the stat it was read under (no stat here; the first check's pass stats it), a listing with a stamp", async () => {
    const root = tempWorkspace({ 'core.json': '{}', 'app/package.json': '{"name":"app"}', 'app/index.ts': 'export {};\n' });
    const until = Date.now() + RACY_MS + 20; // past the racy window of the writes
    while (Date.now() < until);
    const expected = createFileHashes(root);
    const sources = { 'core.json': expected.hash('core.json'), 'app/package.json': expected.hash('app/package.json'), 'app/': expected.listDir('app')!.hash };
    const stats: string[] = [];
    const hashes = createFileHashes(root, Date.now, { readAhead: true, stat: (absolute) => (stats.push(path.relative(root, absolute)), fs.statSync(absolute, { throwIfNoEntry: false })) });
    try {
      expect(await holdsHere(sources, hashes)).to.equal(true);
      expect(stats).to.deep.equal(['app']);
      // Changed since: seen by the next stamp, as the first check's pass takes it.
      fs.writeFileSync(path.join(root, 'core.json'), '{"packages":[]}');
      expect(hashes.stamp('core.json').hash).to.not.equal(sources['core.json']);
    } finally {
      await hashes.close!();
    }
  });

  it('does not hold when a file recorded absent is there, a listing gained a name, or a hash differs', async () => {
    for (const change of [
      // Absent beside a recorded listing (`packages/lib/`): that listing gained a name.
      (root: string) => fs.writeFileSync(path.join(root, 'packages/lib/tsconfig.json'), '{}'),
      // Absent where no listing was recorded (the root's): only the proof of absence tells.
      (root: string) => fs.writeFileSync(path.join(root, 'tsconfig.json'), '{}'),
      (root: string) => fs.writeFileSync(path.join(root, 'packages/lib/format/extra.ts'), 'export {};\n'),
      (root: string) => fs.appendFileSync(path.join(root, 'packages/lib/package.json'), '\n'),
    ]) {
      const { root, model } = read();
      expect(model.sources).to.include({ 'packages/lib/tsconfig.json': null, 'tsconfig.json': null });
      expect(model.sources).to.not.have.property('./');
      change(root);
      const hashes = createFileHashes(root, Date.now, { readAhead: true });
      try {
        expect(await holdsHere(model.sources, hashes), change.toString()).to.equal(false);
      } finally {
        await hashes.close!();
      }
    }
  });
});
