import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { pathRecord } from '../../src/workspace/path-records.js';

const url = (file: string) => JSON.stringify(pathToFileURL(path.resolve(file)).href);

/**
 * Runs `script` (an ES module that makes records as a first start of thousands of modules does and
 * keeps them) in a process of its own, then tells whether two objects built alike from `{}` with keys
 * seen for the first time share one shape, as the headers of each request must (ARCHITECTURE.md
 * "One module's requests at 10,000 modules"). A process of its own: V8 tells shapes apart only
 * with --allow-natives-syntax, and this process's `{}` has seen other tests' keys.
 */
function shapeSharedAfter(script: string): { kept: number; shared: boolean } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'path-records-'));
  try {
    const check = `
      const headers = () => { const made = {}; made['x-first-seen-now'] = 'a'; made['user-agent'] = 'b'; return made; };
      const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)');
      console.log(JSON.stringify({ kept: kept.length, shared: sameShape(headers(), headers()) }));`;
    const output = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script + check], { env: { ...process.env, RECORDS_ROOT: dir }, encoding: 'utf8' });
    return JSON.parse(output) as { kept: number; shared: boolean };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('path records', () => {
  it('are plain objects: Object.prototype, own keys in the order set, the JSON of a literal', () => {
    const record = pathRecord<string>();
    record['lib/b.ts'] = 'hash-b';
    record['lib/a.ts'] = 'hash-a';
    expect(Object.getPrototypeOf(record)).to.equal(Object.prototype);
    expect(Object.keys(record)).to.deep.equal(['lib/b.ts', 'lib/a.ts']);
    expect(JSON.stringify(record)).to.equal(JSON.stringify({ 'lib/b.ts': 'hash-b', 'lib/a.ts': 'hash-a' }));
  });

  it("leave {}'s shape room: after 5,000 modules' inputs are recorded, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`
      import { createFileHashes } from ${url('src/io/file-hashes.ts')};
      import { hashInputs } from ${url('src/io/build-inputs.ts')};
      const hashes = createFileHashes(process.env.RECORDS_ROOT);
      const kept = [];
      for (let index = 0; index < 5000; index++) kept.push(hashInputs(hashes, ['p' + index + '/m0.ts', 'p' + index + '/m0.css'], new Map(), 0));`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });

  it("leave {}'s shape room: after the build cache's index of 20,000 modules is written, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`
      import fs from 'node:fs';
      import path from 'node:path';
      import { createCacheWriter } from ${url('src/io/build-cache/write.ts')};
      import { createOutputPacks } from ${url('src/io/build-cache/output-packs.ts')};
      import { createOutputCache } from ${url('src/outputs/output-cache.ts')};
      import { createFileHashes } from ${url('src/io/file-hashes.ts')};
      import { pathRecord } from ${url('src/workspace/path-records.ts')};
      import { moduleModel, workspaceModel } from ${url('test/helpers/models.ts')};
      const root = process.env.RECORDS_ROOT;
      const modules = Array.from({ length: 20000 }, (_, index) => moduleModel('m' + index));
      const workspace = workspaceModel(modules);
      const outputs = createOutputCache();
      const code = outputs.put(Buffer.from('code'));
      const builds = modules.map((module) => {
        const inputs = pathRecord();
        inputs[module.entry] = 'hash';
        return { module: module.specifier, variant: 'browser.development', record: { build: 1, outputs: { code, styles: null }, errors: [], imports: [], inputs } };
      });
      const hashes = { ...createFileHashes(root), signature: () => ['hash', 1, 6, 1000, 1000, 2000] };
      const writer = createCacheWriter({ dir: root, indexFile: path.join(root, 'builds.json'), identity: { service: 'test', esbuild: 'test', bundlers: 'test' }, workspaceRoot: root, reader: 'reader', hashes, outputs, packs: createOutputPacks(path.join(root, 'outputs')), links: new WeakMap([[workspace.sources, { realPaths: {}, leaves: {} }]]) });
      await writer.write(builds, workspace);
      // The entries written with the signature of their input; the writer, which keeps them, kept alive.
      const { entries } = JSON.parse(fs.readFileSync(path.join(root, 'builds.json'), 'utf8'));
      const kept = entries.filter((entry) => entry.signatures[Object.keys(entry.record.inputs)[0]] !== undefined);
      globalThis.writer = writer;`);
    expect(result).to.deep.equal({ kept: 20000, shared: true });
  });
  it("leave {}'s shape room: after 5,000 modules fail with their bundler unavailable, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`
      import { createFileHashes } from ${url('src/io/file-hashes.ts')};
      import { bundlerFailedFacts } from ${url('src/io/build-facts.ts')};
      const hashes = createFileHashes(process.env.RECORDS_ROOT);
      const modules = Array.from({ length: 5000 }, (_, index) => ({ module: { specifier: '@t/p' + index, entry: 'p' + index + '/index.ts', dir: 'p' + index }, previousInputs: null }));
      const kept = bundlerFailedFacts(hashes, { build: 1, variant: 'browser.development', bundler: { name: 'ts' }, modules }, new Error('no bundler'));`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });

  // The state of 5,000 built modules, each having read its own entry only (restored, one event).
  const builtState = (root: string) => `
      import { reducer } from ${url('src/store/reducer.ts')};
      import { pathRecord } from ${url('src/workspace/path-records.ts')};
      import { defaultVariant, variantKey } from ${url('src/workspace/variant.ts')};
      import { fold, moduleModel, started, workspaceModel } from ${url('test/helpers/models.ts')};
      const root = ${root};
      const modules = Array.from({ length: 5000 }, (_, index) => moduleModel('m' + index));
      const variant = variantKey(defaultVariant(modules[0]));
      const inputsOf = (module) => {
        const inputs = pathRecord();
        inputs[module.entry] = 'hash-1';
        return inputs;
      };
      const restored = modules.map((module) => ({ module: module.specifier, variant, outputs: { code: { hash: 'code', size: 4 }, styles: null }, imports: [], inputs: inputsOf(module) }));
      let state = fold([started, { type: 'workspace.read', workspace: workspaceModel(modules, { sources: {} }) }, { type: 'cache.restored', dir: root, builds: restored }]);`;

  it("leave {}'s shape room: after each of 5,000 modules is told its own input changed, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`${builtState('process.env.RECORDS_ROOT')}
      const files = pathRecord();
      for (const module of modules) files[module.entry] = 'hash-2';
      state = fold([{ type: 'files.changed', files, source: 'watcher' }], state);
      const kept = modules.filter((module) => state.builds[module.specifier].variants[variant].seen?.[module.entry] === 'hash-2');`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });

  it("leave {}'s shape room: after 5,000 checks each find one module's input changed, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`${builtState('process.env.RECORDS_ROOT')}
      import { createFileHashes } from ${url('src/io/file-hashes.ts')};
      import { findChanges } from ${url('src/io/freshness.ts')};
      const hashes = createFileHashes(root);
      // Kept as the event log keeps each check's \`files.changed\`.
      const kept = modules.map((module) => findChanges(state, [{ kind: 'variant', module: module.specifier, variant }], hashes)).filter((changed, index) => changed?.[modules[index].entry] === null);`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });

  it("leave {}'s shape room: after the watcher reports 5,000 saves of different files, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`
      import { asyncScheduler } from 'rxjs';
      import { createChangedFiles } from ${url('src/effects/changed-files.ts')};
      import { createFileHashes } from ${url('src/io/file-hashes.ts')};
      const kept = [];
      const changedFiles = createChangedFiles({
        hashes: createFileHashes(process.env.RECORDS_ROOT),
        scheduler: asyncScheduler,
        settleMs: 60000,
        truncationMs: 60000,
        aliases: () => [],
        recorded: (paths) => new Map([...paths].map((path) => [path, new Set(['hash-1'])])),
        changed: (files) => kept.push(files),
        guard: (callback) => callback,
      });
      // One save a turn: each is reported alone, as the event log keeps it.
      for (let index = 0; index < 5000; index++) {
        changedFiles.look(['p' + index + '/index.ts']);
        await new Promise((resolve) => setImmediate(resolve));
      }
      changedFiles.close();`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });

  it("leave {}'s shape room: after 5,000 builds that import their package's shared files are recorded, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`
      import { createFileHashes } from ${url('src/io/file-hashes.ts')};
      import { createBuildFacts } from ${url('src/io/build-facts.ts')};
      import { createImportLocator } from ${url('src/io/import-locations.ts')};
      import { createOutputCache } from ${url('src/outputs/output-cache.ts')};
      import { pathRecord } from ${url('src/workspace/path-records.ts')};
      const hashes = createFileHashes(process.env.RECORDS_ROOT);
      const toFact = createBuildFacts(hashes, createOutputCache(), createImportLocator(hashes));
      const code = Buffer.from('code');
      // The bundler's results, which are not kept, made off {}'s shape too: only what is recorded is looked at.
      const chunksOf = (index) => {
        const chunks = pathRecord();
        chunks['@t/p' + index + '/.shared/util.ts'] = code;
        return chunks;
      };
      const kept = Array.from({ length: 5000 }, (_, index) =>
        toFact({ specifier: '@t/p' + index + '/m', code, styles: null, inputs: [], imports: [], errors: [], chunks: chunksOf(index) }, { build: 1, variant: 'browser.development', previousInputs: null, before: new Map(), startedAt: 0 }).outputs.chunks);`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });

  it("leave {}'s shape room: after the shared files of 5,000 packages are found, two objects built alike from {} share one shape", () => {
    const result = shapeSharedAfter(`
      import { sharedAmong } from ${url('src/workspace/shared-files.ts')};
      const reaches = Array.from({ length: 5000 }, (_, index) => ({ packageName: '@t/p' + index, packageDir: 'p' + index, files: ['p' + index + '/util.ts'] }));
      const kept = [...sharedAmong([...reaches, ...reaches]).values()];`);
    expect(result).to.deep.equal({ kept: 5000, shared: true });
  });
});
