// The pure reducer: every event type, folded from hand-written facts.
import v8 from 'node:v8';
import { expect } from 'chai';
import type { Fact } from '../../src/store/events.js';
import { DEEP_IMPORTS_KEPT, EARLIER_OUTPUTS_KEPT, fingerprintOf, isBuildable, isDeepImport, keepsNoMoreDeepImports, reduceAll, reducer } from '../../src/store/reducer.js';
import { indexWorkspace } from '../../src/workspace/workspace-index.js';
import { initialState } from '../../src/store/state.js';
import { selectOutputsMade } from '../../src/store/selectors.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import type { ImportRecord } from '../../src/workspace/checks.js';
import { fold, moduleModel, stamp, started, startedBuild, succeeded, TIME, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const PROD = 'browser.production.min';
const one = moduleModel('one');
const two = moduleModel('two');
const read = (...modules: typeof one[]): Fact => ({ type: 'workspace.read', workspace: workspaceModel(modules) });
const changed = (files: Record<string, string | null>): Fact => ({ type: 'files.changed', files, source: 'watcher' });

// One module, its default variant built once from an entry hashed `e1`.
const built = () => fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }]), succeeded(1, one, DEV, 'e1')]);

describe('reducer', () => {
  it('stamps every state with the seq and time of the event that made it', () => {
    const state = reducer(initialState(), { type: 'service.stopped', seq: 7, time: TIME });
    expect(state).to.include({ seq: 7, time: TIME });
  });

  it('leaves the state it was given untouched', () => {
    const before = fold([started, read(one)]);
    const copy = JSON.parse(JSON.stringify(before));
    fold([changed({ 'app/one/index.ts': 'x' }), { type: 'output.requested', module: one.specifier, variant: PROD }], before);
    expect(JSON.parse(JSON.stringify(before))).to.deep.equal(copy);
  });

  describe('service.started', () => {
    it('starts from the initial state with the root of the service', () => {
      const state = fold([started, read(one), { ...started, root: '/other' }]);
      expect(state).to.deep.equal({ ...initialState(), root: '/other', seq: 3, time: TIME });
    });

    it('keeps that the preview runs through the local CDN for that run only', () => {
      const local = fold([{ ...started, localCdn: true }, read(one)]);
      expect(local.localCdn).to.equal(true);
      expect(fold([started], local)).to.not.have.property('localCdn');
    });
  });

  describe('workspace.read', () => {
    it('takes the workspace and wants the default variant of every buildable module, eagerly', () => {
      const node = moduleModel('server', { platforms: ['node'] });
      const state = fold([started, read(one, node)]);
      expect(state).to.include({ workspaceRead: true, workspaceStale: false });
      expect(state.workspace.modules).to.deep.equal([one, node]);
      expect(state.builds[one.specifier]).to.deep.equal({
        fingerprint: fingerprintOf(one),
        variants: { [DEV]: { generation: 1, status: 'pending', eager: true, requested: false, build: null, last: null, seen: null } },
      });
      expect(Object.keys(state.builds[node.specifier]!.variants)).to.deep.equal(['node.development']);
    });

    it('wants no build of a module with manifest problems, no entry or no bundler', () => {
      const broken = moduleModel('broken', { diagnostics: [diagnostic('MANIFEST_INVALID', 'bad', { file: 'app/broken/module.json' })] });
      const entryless = moduleModel('entryless', { entry: null });
      const unbundled = moduleModel('unbundled', { bundler: { name: 'webpack', specifier: '' } });
      for (const module of [broken, entryless, unbundled]) expect(isBuildable(module), module.subpath).to.equal(false);
      const state = fold([started, read(broken, entryless, unbundled)]);
      for (const module of [broken, entryless, unbundled]) expect(state.builds[module.specifier]!.variants).to.deep.equal({});
    });

    it('keeps the builds of modules whose declaration did not change', () => {
      const before = built();
      const after = fold([read(one, two)], before);
      expect(after.builds[one.specifier]).to.equal(before.builds[one.specifier]);
      expect(after.builds[one.specifier]!.variants[DEV]!.status).to.equal('done');
      expect(after.builds[two.specifier]!.variants[DEV]!.status).to.equal('pending');
    });

    it('keeps the map of builds itself when no declaration changed, and drops the builds of modules gone', () => {
      const before = fold([read(one, two)], built());
      // The selectors remember what they derived by this map: the same map, nothing derived again.
      expect(fold([read(one, two)], before).builds).to.equal(before.builds);
      const after = fold([read(two)], before);
      expect(Object.keys(after.builds)).to.deep.equal([two.specifier]);
      expect(after.builds[two.specifier]).to.equal(before.builds[two.specifier]);
      expect(before.builds[one.specifier], 'the state given stays as it was').to.not.equal(undefined);
    });

    it('keeps builds when only the version changed: addresses are relative', () => {
      const before = built();
      const after = fold([read({ ...one, version: '2.0.0' })], before);
      expect(after.builds[one.specifier]).to.equal(before.builds[one.specifier]);
    });

    it('restarts every variant of a module whose declaration changed, with a newer generation', () => {
      const before = fold([{ type: 'output.requested', module: one.specifier, variant: PROD }], built());
      const after = fold([read({ ...one, assets: ['logo.svg'] })], before);
      expect(after.builds[one.specifier]!.variants).to.deep.equal({
        // The bytes its last build made stay named by it (README "Addresses").
        [DEV]: { generation: 2, status: 'pending', eager: true, requested: false, build: null, last: null, seen: null, earlier: [before.builds[one.specifier]!.variants[DEV]!.last!.outputs] },
        [PROD]: { generation: 2, status: 'pending', eager: false, requested: false, build: null, last: null, seen: null },
      });
    });

    it('starts building a module once its manifest problem is fixed, though its declaration reads the same', () => {
      // module.json had "platforms": ["web", "deno"]: the good platform is kept, with a diagnostic.
      const broken = { ...one, diagnostics: [diagnostic('MANIFEST_INVALID', '"platforms" may hold "web" and "node" only', { file: 'app/one/module.json' })] };
      const before = fold([started, read(broken)]);
      expect(before.builds[one.specifier]!.variants).to.deep.equal({});
      const after = fold([read(one)], before);
      expect(after.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'pending', eager: true });
    });

    it('stops wanting builds of a module whose manifest broke, though its declaration reads the same', () => {
      const broken = { ...one, diagnostics: [diagnostic('MANIFEST_INVALID', '"$schema" must be the address of a JSON Schema', { file: 'app/one/module.json' })] };
      const after = fold([read(broken)], built());
      expect(after.builds[one.specifier]!.variants).to.deep.equal({});
    });

    it('drops the builds of removed modules', () => {
      const after = fold([read(two)], built());
      expect(Object.keys(after.builds)).to.deep.equal([two.specifier]);
    });

    it('ends a stale workspace', () => {
      const stale = fold([changed({ 'core.json': 'core-2' })], built());
      expect(stale.workspaceStale).to.equal(true);
      expect(fold([read(one)], stale).workspaceStale).to.equal(false);
    });
  });

  describe('workspace.unchanged', () => {
    it('takes the new hashes of the sources and ends a stale workspace, keeping modules and builds', () => {
      const stale = fold([changed({ 'core.json': 'core-2' })], built());
      const after = fold([{ type: 'workspace.unchanged', sources: { 'core.json': 'core-2', 'app/package.json': 'package-1' } }], stale);
      expect(after.workspaceStale).to.equal(false);
      expect(after.workspace.sources).to.deep.equal({ 'core.json': 'core-2', 'app/package.json': 'package-1' });
      expect(after.workspace.modules).to.equal(stale.workspace.modules);
      expect(after.builds).to.equal(stale.builds);
    });
  });

  describe('files.changed', () => {
    it('makes the workspace stale when a source of the model changed, appeared or vanished', () => {
      for (const files of [{ 'core.json': 'core-2' }, { 'app/package.json': null }] as Record<string, string | null>[]) expect(fold([changed(files)], built()).workspaceStale, JSON.stringify(files)).to.equal(true);
    });

    it('leaves the workspace alone for a source reported with the hash it has, or a path it never read', () => {
      expect(fold([changed({ 'core.json': 'core-1', 'app/other.ts': 'x' })], built()).workspaceStale).to.equal(false);
    });

    it('makes a done variant pending again, one generation newer, when one of its inputs changed', () => {
      const after = fold([changed({ 'app/one/index.ts': 'e2' })], built());
      expect(after.builds[one.specifier]!.variants[DEV]).to.deep.include({ generation: 2, status: 'pending', build: null });
      expect(after.builds[one.specifier]!.variants[DEV]!.last!.build).to.equal(1);
    });

    it('leaves a variant alone when its inputs kept their hashes', () => {
      const before = built();
      const after = fold([changed({ 'app/one/index.ts': 'e1', 'app/two/index.ts': 'x' })], before);
      expect(after.builds).to.equal(before.builds);
    });

    it('makes a running rebuild stale when an input of the last build changed', () => {
      const running = fold([changed({ 'app/one/index.ts': 'e2' }), startedBuild(2, DEV, [{ module: one, generation: 2 }])], built());
      expect(running.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'building', build: 2 });
      const after = fold([changed({ 'app/one/index.ts': 'e3' })], running);
      expect(after.builds[one.specifier]!.variants[DEV]).to.deep.include({ generation: 3, status: 'pending', build: null });
    });
  });

  describe('files.changed, after esbuild was unavailable', () => {
    // One and two built; two's build failed because esbuild's process could not run.
    const unavailable = (errorOfTwo = diagnostic('ENGINE_UNAVAILABLE', 'two was not built')) =>
      fold([
        started,
        read(one, two),
        startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]),
        succeeded(1, one, DEV, 'e1'),
        { type: 'build.failed', build: 1, module: two.specifier, variant: DEV, errors: [errorOfTwo], imports: [], inputs: { 'app/two/index.ts': 't1' } },
      ]);

    it("makes every variant esbuild could not build pending again at a save of another module's file", () => {
      const after = fold([changed({ 'app/one/index.ts': 'e2' })], unavailable());
      expect(after.builds[two.specifier]!.variants[DEV]).to.deep.include({ generation: 2, status: 'pending', build: null, seen: null });
      expect(after.builds[one.specifier]!.variants[DEV]).to.deep.include({ generation: 2, status: 'pending' });
    });

    it('leaves a variant that failed for another reason, and one at a deletion or a check, alone', () => {
      const failed = unavailable(diagnostic('BUNDLE_ERROR', 'two does not build'));
      expect(fold([changed({ 'app/other.ts': 'x' })], failed).builds).to.equal(failed.builds);
      const before = unavailable();
      expect(fold([changed({ 'app/other.ts': null })], before).builds).to.equal(before.builds);
      expect(fold([{ type: 'files.changed', files: { 'app/other.ts': 'x' }, source: 'check' }], before).builds).to.equal(before.builds);
    });
  });

  describe('output.requested', () => {
    it('adds a requested variant that is not eager', () => {
      const after = fold([{ type: 'output.requested', module: one.specifier, variant: PROD }], built());
      expect(after.builds[one.specifier]!.variants[PROD]).to.deep.equal({ generation: 1, status: 'pending', eager: false, requested: true, build: null, last: null, seen: null });
    });

    it('marks a pending variant requested', () => {
      const pending = fold([changed({ 'app/one/index.ts': 'e2' })], built());
      const after = fold([{ type: 'output.requested', module: one.specifier, variant: DEV }], pending);
      expect(after.builds[one.specifier]!.variants[DEV]!.requested).to.equal(true);
    });

    it('adds nothing to a module that cannot be built (a broken manifest)', () => {
      const broken = moduleModel('broken', { diagnostics: [diagnostic('MANIFEST_INVALID', 'bad', { file: 'app/broken/module.json' })] });
      const before = fold([started, read(one, broken)]);
      const after = fold([{ type: 'output.requested', module: broken.specifier, variant: PROD }], before);
      expect(after.builds[broken.specifier]!.variants).to.deep.equal({});
    });

    it('changes nothing for a done variant or an unknown module', () => {
      const before = built();
      const after = fold([{ type: 'output.requested', module: one.specifier, variant: DEV }, { type: 'output.requested', module: '@t/app/nothing', variant: DEV }], before);
      expect(after.builds).to.equal(before.builds);
    });
  });

  describe('build.started', () => {
    it('marks the variants of the current generation building', () => {
      const state = fold([started, read(one, two), startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }])]);
      for (const module of [one, two]) expect(state.builds[module.specifier]!.variants[DEV]).to.deep.include({ status: 'building', build: 1 });
    });

    it('ignores a module whose generation moved on, and one that is not pending', () => {
      const state = fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 0 }])]);
      expect(state.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'pending', build: null });
      const done = built();
      expect(fold([startedBuild(9, DEV, [{ module: one, generation: 1 }])], done).builds).to.equal(done.builds);
    });
  });

  describe('the records of many modules', () => {
    // Which representation V8 gives an object: the copy of the builds map of each batch is a
    // dictionary (`dictionaryRecord`), not a spread literal.
    v8.setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = new Function('object', 'return %HasFastProperties(object)') as (object: object) => boolean;

    it('replaces the builds of a batch in a dictionary that keeps the modules and their order', () => {
      const modules = ['a', 'b', 'c', 'd', 'e'].map((subpath) => moduleModel(subpath));
      const before = fold([started, read(...modules)]);
      const state = fold([startedBuild(1, DEV, [{ module: modules[1]!, generation: 1 }])], before);
      expect(Object.keys(state.builds)).to.deep.equal(Object.keys(before.builds));
      expect(Object.getPrototypeOf(state.builds)).to.equal(Object.prototype);
      expect(hasFastProperties(state.builds)).to.equal(false);
    });
  });

  describe('files.changed, reported twice', () => {
    it('restarts a running build once for one save, however often it is reported', () => {
      const building = fold([changed({ 'app/one/index.ts': 'e2' }), startedBuild(2, DEV, [{ module: one, generation: 2 }])], built());
      const again = fold([changed({ 'app/one/index.ts': 'e2' })], building);
      expect(again.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'building', build: 2, generation: 2 });
      const newer = fold([changed({ 'app/one/index.ts': 'e3' })], again);
      expect(newer.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'pending', build: null, generation: 3, seen: { 'app/one/index.ts': 'e3' } });
    });

    it('forgets the reported hashes once a build finished', () => {
      const rebuilt = fold([changed({ 'app/one/index.ts': 'e2' }), startedBuild(2, DEV, [{ module: one, generation: 2 }]), succeeded(2, one, DEV, 'e2')], built());
      expect(rebuilt.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'done', seen: null });
    });
  });

  describe('build.succeeded', () => {
    it('records the result of the build the variant waits for, and clears the request', () => {
      const state = fold([
        started,
        read(one),
        { type: 'output.requested', module: one.specifier, variant: PROD },
        startedBuild(1, PROD, [{ module: one, generation: 1 }]),
        succeeded(1, one, PROD, 'e1', { imports: [{ specifier: 'lit', file: 'app/one/index.ts' }] }),
      ]);
      expect(state.builds[one.specifier]!.variants[PROD]).to.deep.equal({
        generation: 1,
        status: 'done',
        seen: null,
        eager: false,
        requested: false,
        build: null,
        last: { build: 1, outputs: { code: { hash: 'code-1', size: 10 }, styles: null }, errors: [], imports: [{ specifier: 'lit', file: 'app/one/index.ts' }], inputs: { 'app/one/index.ts': 'e1' } },
      });
    });

    it('records what the build only depends on, and keeps the last list when a rebuild depends on the same paths', () => {
      const inputs = { 'app/one/index.ts': 'e1', 'app/one/tsconfig.json': null, 'app/one/linked.ts ->': 'l1' };
      const first = ['app/one/linked.ts ->', 'app/one/tsconfig.json'];
      const before = fold([succeeded(1, one, DEV, 'e1', { inputs, resolution: first })], fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }])]));
      expect(before.builds[one.specifier]!.variants[DEV]!.last!.resolution).to.equal(first);
      const again = (build: number, resolution: string[]) =>
        fold([startedBuild(build, DEV, [{ module: one, generation: 2 }]), succeeded(build, one, DEV, 'e2', { inputs: { ...inputs, 'app/one/index.ts': 'e2' }, resolution })], fold([changed({ 'app/one/index.ts': 'e2' })], before)).builds[one.specifier]!.variants[DEV]!.last!.resolution;
      expect(again(2, [...first])).to.equal(first);
      const other = ['app/one/tsconfig.json'];
      expect(again(3, other)).to.equal(other);
    });

    it("keeps the outputs of the variant's last EARLIER_OUTPUTS_KEPT earlier builds, newest first: the bytes its hashed addresses may still name", () => {
      let state = built();
      const variant = () => state.builds[one.specifier]!.variants[DEV]!;
      expect(variant()).to.not.have.property('earlier');
      const last = EARLIER_OUTPUTS_KEPT + 4;
      for (let build = 2; build <= last; build++) {
        state = fold([changed({ 'app/one/index.ts': `e${build}` }), startedBuild(build, DEV, [{ module: one, generation: build }]), succeeded(build, one, DEV, `e${build}`)], state);
      }
      expect(variant().last!.outputs!.code.hash).to.equal(`code-${last}`);
      const kept = Array.from({ length: EARLIER_OUTPUTS_KEPT }, (_, index) => `code-${last - 1 - index}`);
      expect(variant().earlier!.map((outputs) => outputs.code.hash)).to.deep.equal(kept);
      // A rebuild that makes the same bytes adds nothing; a failed one makes the last outputs earlier ones; a success after it adds nothing.
      const same = last + 1;
      state = fold([changed({ 'app/one/index.ts': `e${same}` }), startedBuild(same, DEV, [{ module: one, generation: same }]), succeeded(same, one, DEV, `e${same}`, { outputs: { code: { hash: `code-${last}`, size: 10 }, styles: null } })], state);
      expect(variant().earlier!.map((outputs) => outputs.code.hash)).to.deep.equal(kept);
      const failed = same + 1;
      state = fold([changed({ 'app/one/index.ts': `e${failed}` }), startedBuild(failed, DEV, [{ module: one, generation: failed }]), { type: 'build.failed', build: failed, module: one.specifier, variant: DEV, errors: [diagnostic('BUNDLE_ERROR', 'x')], imports: [], inputs: { 'app/one/index.ts': `e${failed}` } }], state);
      expect(variant().last!.outputs).to.equal(null);
      const afterFailure = [`code-${last}`, ...kept.slice(0, -1)];
      expect(variant().earlier!.map((outputs) => outputs.code.hash)).to.deep.equal(afterFailure);
      const next = failed + 1;
      state = fold([changed({ 'app/one/index.ts': `e${next}` }), startedBuild(next, DEV, [{ module: one, generation: next }]), succeeded(next, one, DEV, `e${next}`)], state);
      expect(variant().earlier!.map((outputs) => outputs.code.hash)).to.deep.equal(afterFailure);
    });

    it("keeps the variant's outputs across a change of the module's declaration, and while a manifest problem makes it unbuildable (README \"Addresses\")", () => {
      let state = fold([changed({ 'app/one/index.ts': 'e2' }), startedBuild(2, DEV, [{ module: one, generation: 2 }]), succeeded(2, one, DEV, 'e2')], built());
      const made = () => selectOutputsMade(state, one.specifier, DEV).map((outputs) => outputs.code.hash);
      expect(made()).to.deep.equal(['code-2', 'code-1']);
      // Another entry file: the variant restarts, the bytes it made stay its own.
      const moved = { ...one, entry: 'app/one/other.ts' };
      state = fold([read(moved)], state);
      expect(state.builds[one.specifier]!.variants[DEV]).to.include({ last: null, status: 'pending' });
      expect(made()).to.deep.equal(['code-2', 'code-1']);
      state = fold([startedBuild(3, DEV, [{ module: moved, generation: state.builds[one.specifier]!.variants[DEV]!.generation }]), succeeded(3, moved, DEV, 'e3')], state);
      expect(made()).to.deep.equal(['code-3', 'code-2', 'code-1']);
      // A manifest problem: no variant, the bytes still named; fixed, its variant starts with them.
      const broken = { ...moved, diagnostics: [diagnostic('MANIFEST_INVALID', 'x')] };
      state = fold([read(broken)], state);
      expect(state.builds[one.specifier]!.variants).to.deep.equal({});
      expect(made()).to.deep.equal(['code-3', 'code-2', 'code-1']);
      state = fold([read(moved)], state);
      expect(state.builds[one.specifier]!.variants[DEV]!.earlier!.map((outputs) => outputs.code.hash)).to.deep.equal(['code-3', 'code-2', 'code-1']);
      expect(state.builds[one.specifier]).to.not.have.property('earlier');
    });

    it('keeps the list of imports of the last build when a rebuild finds the same ones, so their checks are kept too', () => {
      const first: ImportRecord[] = [{ specifier: 'lit', file: 'app/one/index.ts', line: 1, column: 7 }];
      const before = fold([succeeded(1, one, DEV, 'e1', { imports: first })], fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }])]));
      const kept = before.builds[one.specifier]!.variants[DEV]!.last!.imports;
      const again = (build: number, imports: typeof first) =>
        fold([startedBuild(build, DEV, [{ module: one, generation: 2 }]), succeeded(build, one, DEV, 'e2', { imports })], fold([changed({ 'app/one/index.ts': 'e2' })], before)).builds[one.specifier]!.variants[DEV]!.last!.imports;
      expect(again(2, first.map((record) => ({ ...record })))).to.equal(kept);
      const moved = [{ ...first[0]!, line: 2 }];
      expect(again(2, moved)).to.equal(moved);
      const more = [...first, { specifier: 'lit/decorators.js', file: 'app/one/index.ts' }];
      expect(again(2, more)).to.equal(more);
    });

    it('wants a deep import of a workspace package without exports read as a module, once; not one of a package with exports', () => {
      const workspace = workspaceModel([one], { packages: [
        { name: '@t/app', version: '1.0.0', dir: 'app', dependencies: {} },
        { name: '@t/open', version: '1.0.0', dir: 'open', dependencies: {}, withoutExports: true },
        { name: '@t/closed', version: '1.0.0', dir: 'closed', dependencies: {} },
      ] });
      const imports = ['@t/open/button/filled-button.js', '@t/open', '@t/closed/x.js', 'lit/decorators.js', '@t/open/button/filled-button.js'].map((specifier) => ({ specifier, file: 'app/one/index.ts' }));
      const state = fold([started, { type: 'workspace.read', workspace }, startedBuild(1, DEV, [{ module: one, generation: 1 }]), succeeded(1, one, DEV, 'e1', { imports })]);
      expect(state.deepImports).to.deep.equal(['@t/open/button/filled-button.js']);
      expect(state.workspaceStale).to.equal(true);
      const read = fold([{ type: 'workspace.read', workspace }], state);
      expect(read.workspaceStale).to.equal(false);
      expect(fold([startedBuild(2, DEV, [{ module: one, generation: 1 }]), succeeded(2, one, DEV, 'e1', { imports })], fold([changed({ 'app/one/index.ts': 'e2' })], read)).workspaceStale).to.equal(false);
    });

    it('wants a file of a package without exports asked for by address, up to DEEP_IMPORTS_KEPT of them', () => {
      const workspace = workspaceModel([one], { packages: [
        { name: '@t/app', version: '1.0.0', dir: 'app', dependencies: {} },
        { name: '@t/open', version: '1.0.0', dir: 'open', dependencies: {}, withoutExports: true },
      ] });
      const asked = fold([started, { type: 'workspace.read', workspace }, { type: 'output.requested', module: '@t/open/y.js', variant: DEV }]);
      expect(asked.deepImports).to.deep.equal(['@t/open/y.js']);
      expect(asked.workspaceStale).to.equal(true);
      const full = { ...fold([started, { type: 'workspace.read', workspace }]), deepImports: Array.from({ length: DEEP_IMPORTS_KEPT }, (_, i) => `@t/open/${i}.js`) };
      const after = fold([{ type: 'output.requested', module: '@t/open/y.js', variant: DEV }], full);
      expect(after.deepImports).to.have.length(DEEP_IMPORTS_KEPT);
      expect(after.workspaceStale).to.equal(false);
    });

    it('keeps a deep import whose module a restored model already has, for the next read, without reading again', () => {
      const deep = moduleModel('deep');
      const workspace = workspaceModel([one, { ...deep, specifier: '@t/open/x.js', package: '@t/open' }], { packages: [
        { name: '@t/app', version: '1.0.0', dir: 'app', dependencies: {} },
        { name: '@t/open', version: '1.0.0', dir: 'open', dependencies: {}, withoutExports: true },
      ] });
      const restored = fold([started, { type: 'workspace.read', workspace, restored: true }, { type: 'cache.restored', dir: '.core/cache', builds: [{ module: one.specifier, variant: DEV, outputs: { code: { hash: 'code-1', size: 10 }, styles: null }, imports: [{ specifier: '@t/open/x.js', file: 'app/one/index.ts' }], inputs: { 'app/one/index.ts': 'e1' } }] }]);
      expect(restored.deepImports).to.deep.equal(['@t/open/x.js']);
      expect(restored.workspaceStale).to.equal(false);
    });

    it('drops a stale result: one of a build the variant no longer waits for', () => {
      const running = fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }]), { type: 'build.cancelled', build: 1, reason: 'test' }, startedBuild(2, DEV, [{ module: one, generation: 1 }])]);
      const after = fold([succeeded(1, one, DEV, 'old')], running);
      expect(after.builds).to.equal(running.builds);
      expect(fold([succeeded(2, one, DEV, 'new')], running).builds[one.specifier]!.variants[DEV]!.last!.inputs).to.deep.equal({ 'app/one/index.ts': 'new' });
    });

    it('drops a result for a variant nobody built', () => {
      const before = built();
      expect(fold([succeeded(1, one, PROD, 'e1'), succeeded(1, two, DEV, 'e1')], before).builds).to.equal(before.builds);
    });

    it('keeps a result that read an input changing under it (UNVERIFIED ?) but makes the variant pending again', () => {
      const state = fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }]), succeeded(1, one, DEV, '?')]);
      expect(state.builds[one.specifier]!.variants[DEV]).to.deep.include({ generation: 2, status: 'pending', build: null });
      expect(state.builds[one.specifier]!.variants[DEV]!.last!.build).to.equal(1);
    });
  });

  describe('build.failed', () => {
    it('records the errors with no outputs, and the variant is done', () => {
      const error = diagnostic('BUNDLE_ERROR', 'Could not resolve "./missing.css"', { file: 'app/one/index.ts', line: 1, column: 8 });
      const state = fold([
        started,
        read(one),
        startedBuild(1, DEV, [{ module: one, generation: 1 }]),
        { type: 'build.failed', build: 1, module: one.specifier, variant: DEV, errors: [error], imports: [], inputs: { 'app/one/index.ts': 'e1', 'app/one/missing.css': null } },
      ]);
      expect(state.builds[one.specifier]!.variants[DEV]).to.deep.include({ status: 'done', build: null });
      expect(state.builds[one.specifier]!.variants[DEV]!.last).to.deep.equal({ build: 1, outputs: null, errors: [error], imports: [], inputs: { 'app/one/index.ts': 'e1', 'app/one/missing.css': null } });
    });

    it('makes a failed build pending again when the missing file appears', () => {
      const failed = fold([
        started,
        read(one),
        startedBuild(1, DEV, [{ module: one, generation: 1 }]),
        { type: 'build.failed', build: 1, module: one.specifier, variant: DEV, errors: [diagnostic('BUNDLE_ERROR', 'missing')], imports: [], inputs: { 'app/one/missing.css': null } },
      ]);
      expect(fold([changed({ 'app/one/missing.css': 'css' })], failed).builds[one.specifier]!.variants[DEV]!.status).to.equal('pending');
    });
  });

  describe('build.cancelled', () => {
    it('puts every variant of the build back to pending, keeping its generation', () => {
      const running = fold([started, read(one, two), startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }])]);
      const after = fold([{ type: 'build.cancelled', build: 1, reason: 'stale' }], running);
      for (const module of [one, two]) expect(after.builds[module.specifier]!.variants[DEV]).to.deep.include({ generation: 1, status: 'pending', build: null });
    });

    it('changes nothing for another build', () => {
      const running = fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }])]);
      expect(fold([{ type: 'build.cancelled', build: 2, reason: 'stale' }], running).builds).to.equal(running.builds);
    });
  });

  describe('service.stopped', () => {
    it('changes nothing but seq and time', () => {
      const before = built();
      const after = fold([{ type: 'service.stopped' }], before);
      expect({ ...after, seq: before.seq }).to.deep.equal(before);
      expect(after.seq).to.equal(before.seq + 1);
    });
  });

  describe('cache.restored', () => {
    const restored = (module: typeof one, variant: string, entryHash: string) => ({
      module: module.specifier,
      variant,
      outputs: { code: { hash: `cached-${entryHash}`, size: 10 }, styles: null },
      imports: [],
      inputs: { [module.entry!]: entryHash },
    });

    it('makes a pending variant nothing has built done, with the restored record (build 0)', () => {
      const state = fold([started, read(one, two), { type: 'cache.restored', dir: '/c', builds: [restored(one, DEV, 'h1')] }]);
      const variant = state.builds[one.specifier]!.variants[DEV]!;
      expect(variant).to.include({ status: 'done', generation: 1, build: null });
      expect(variant.last).to.deep.equal({ build: 0, outputs: { code: { hash: 'cached-h1', size: 10 }, styles: null }, errors: [], imports: [], inputs: { [one.entry!]: 'h1' } });
      expect(state.builds[two.specifier]!.variants[DEV]!.status).to.equal('pending');
    });

    it('leaves a variant alone that is building, was built, or does not exist', () => {
      const building = fold([started, read(one), startedBuild(1, DEV, [{ module: one, generation: 1 }])]);
      const after = fold([{ type: 'cache.restored', dir: '/c', builds: [restored(one, DEV, 'h1'), restored(one, PROD, 'h1'), restored(two, DEV, 'h2')] }], building);
      expect(after.builds[one.specifier]!.variants[DEV]).to.deep.equal(building.builds[one.specifier]!.variants[DEV]);
      expect(after.builds[one.specifier]!.variants[PROD]).to.equal(undefined);
      expect(after.builds[two.specifier]).to.equal(undefined);
      const done = built();
      expect(fold([{ type: 'cache.restored', dir: '/c', builds: [restored(one, DEV, 'h9')] }], done).builds[one.specifier]!.variants[DEV]!.last!.inputs).to.deep.equal(done.builds[one.specifier]!.variants[DEV]!.last!.inputs);
    });

    it('restores two variants of one module from one event, each on top of the other', () => {
      const changedDeclaration = { ...one, assets: ['logo.svg'] };
      const both = fold([{ type: 'output.requested', module: one.specifier, variant: PROD }, read(changedDeclaration)], built());
      const state = fold([{ type: 'cache.restored', dir: '/c', builds: [restored(changedDeclaration, DEV, 'h1'), restored(changedDeclaration, PROD, 'h1')] }], both);
      expect(state.builds[one.specifier]!.variants[DEV]!.status).to.equal('done');
      expect(state.builds[one.specifier]!.variants[PROD]!.status).to.equal('done');
    });

    it('goes pending again when a restored input changes, as a built one does', () => {
      const state = fold([started, read(one), { type: 'cache.restored', dir: '/c', builds: [restored(one, DEV, 'h1')] }, changed({ [one.entry!]: 'h2' })]);
      expect(state.builds[one.specifier]!.variants[DEV]).to.include({ status: 'pending', generation: 2 });
    });
  });

  describe('cache.remote.restored', () => {
    const fromTeam = (module: typeof one) => ({ module: module.specifier, variant: DEV, outputs: { code: { hash: 'team-h1', size: 10 }, styles: null }, imports: [], inputs: { [module.entry!]: 'h1' } });
    const event: Fact = { type: 'cache.remote.restored', url: 'http://cache.test/', asked: 2, builds: [fromTeam(one)], misses: { stale: 1 }, failures: {}, requests: 4, bytes: 10, ms: 3 };

    it('takes its builds as the build cache\'s are (build 0), and keeps what the team cache gave for /state', () => {
      const state = fold([started, read(one, two), event]);
      expect(state.builds[one.specifier]!.variants[DEV]).to.include({ status: 'done' });
      expect(state.builds[one.specifier]!.variants[DEV]!.last!.build).to.equal(0);
      expect(state.builds[two.specifier]!.variants[DEV]!.status).to.equal('pending');
      expect(state.remoteCache).to.deep.equal({ url: 'http://cache.test/', asked: 2, hits: 1, misses: { stale: 1 }, failures: {}, requests: 4, bytes: 10, ms: 3 });
    });
  });

  describe('reduceAll', () => {
    const three = moduleModel('three');
    const before = () => fold([started, read(one, two, three), startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }, { module: three, generation: 1 }])]);

    it('folds the results of one build in one draft into the state folding them one by one gives', () => {
      const state = before();
      const events = stamp([succeeded(1, one, DEV, 'a'), succeeded(1, two, DEV, 'b'), succeeded(1, three, DEV, 'c')], state.seq + 1);
      const batched = reduceAll(state, events);
      expect(JSON.parse(JSON.stringify(batched))).to.deep.equal(JSON.parse(JSON.stringify(events.reduce(reducer, state))));
      expect(batched.seq).to.equal(events[2]!.seq);
      for (const module of [one, two, three]) expect(batched.builds[module.specifier]!.variants[DEV]!.status).to.equal('done');
    });

    it('folds one by one what does not commute: two results for one module, or other events', () => {
      const state = before();
      const twice = stamp([succeeded(1, one, DEV, 'a'), succeeded(1, one, DEV, 'b')], state.seq + 1);
      expect(reduceAll(state, twice)).to.deep.equal(twice.reduce(reducer, state));
      const mixed = stamp([succeeded(1, one, DEV, 'a'), changed({ 'app/one/index.ts': 'x' })], state.seq + 1);
      const folded = reduceAll(state, mixed);
      expect(folded).to.deep.equal(mixed.reduce(reducer, state));
      expect(folded.builds[one.specifier]!.variants[DEV]!.status).to.equal('pending');
    });
  });
});

describe('isDeepImport', () => {
  it('is a subpath of a workspace package without exports, and nothing else', () => {
    const index = indexWorkspace(workspaceModel([one], { packages: [
      { name: '@t/open', version: '1.0.0', dir: 'open', dependencies: {}, withoutExports: true },
      { name: '@t/closed', version: '1.0.0', dir: 'closed', dependencies: {} },
    ] }));
    const judged = ['@t/open/a/b.js', '@t/open', '@t/closed/x.js', 'lit/decorators.js', './local.js'].map((specifier) => isDeepImport(index, specifier));
    expect(judged).to.deep.equal([true, false, false, false, false]);
    expect([keepsNoMoreDeepImports({}), keepsNoMoreDeepImports({ deepImports: Array.from({ length: DEEP_IMPORTS_KEPT }, (_, i) => `@t/open/${i}.js`) })]).to.deep.equal([false, true]);
  });
});
