// Selectors: the /state report, settledness and the build queue, derived from folded states.
import { expect } from 'chai';
import type { Fact } from '../../src/store/events.js';
import { buildDiagnostics, selectBuildQueue, selectImporters, selectModuleStatus, selectRecordedHashes, selectRecordedHashesOf, selectReport, selectSettled } from '../../src/store/selectors.js';
import { knownInputHash, type ServiceState } from '../../src/store/state.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { effectsShimWarningText } from '../../src/workspace/shim-reads.js';
import type { ModuleModel } from '../../src/workspace/model.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const PROD = 'browser.production.min';
const one = moduleModel('one');
const two = moduleModel('two');
const read = (modules: ModuleModel[], extra: Parameters<typeof workspaceModel>[1] = {}): Fact => ({ type: 'workspace.read', workspace: workspaceModel(modules, extra) });
const buildAll = (modules: ModuleModel[], first = 1): Fact[] =>
  modules.flatMap((module, index) => [startedBuild(first + index, DEV, [{ module, generation: 1 }]), succeeded(first + index, module, DEV, 'e1')]);

describe('selectReport', () => {
  it('has the shape of README "Addresses": workspace diagnostics, then each module with status and diagnostics', () => {
    const problem = diagnostic('MANIFEST_INVALID', 'lib/package.json is not valid JSON', { file: 'lib/package.json', line: 1, column: 2 });
    const state = fold([started, read([one], { diagnostics: [problem] }), ...buildAll([one])]);
    expect(selectReport(state)).to.deep.equal({
      diagnostics: [problem],
      modules: [{ specifier: '@t/app/one', package: '@t/app', version: '1.0.0', subpath: 'one', platforms: ['web'], bundler: 'ts', status: 'valid', diagnostics: [] }],
    });
  });

  it('lists a module pending until its default variant is built', () => {
    const state = fold([started, read([one])]);
    expect(selectReport(state).modules[0]).to.include({ status: 'pending' });
  });

  it('lists a module with manifest problems invalid with them, built or not', () => {
    const problem = diagnostic('MANIFEST_INVALID', 'app/one/module.json: "platforms" must be ...', { file: 'app/one/module.json' });
    const state = fold([started, read([{ ...one, diagnostics: [problem] }])]);
    expect(selectReport(state).modules[0]).to.deep.include({ status: 'invalid', diagnostics: [problem] });
  });

  it('lists a failed build invalid with the bundler errors first, then the checks', () => {
    const error = diagnostic('BUNDLE_ERROR', 'Could not resolve "./gone.css"', { file: 'app/one/index.ts', line: 2, column: 8 });
    const state = fold([
      started,
      read([one]),
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      { type: 'build.failed', build: 1, module: one.specifier, variant: DEV, errors: [error], imports: [{ specifier: 'node:fs', file: 'app/one/index.ts', line: 1, column: 1 }], inputs: {} },
    ]);
    const report = selectReport(state).modules[0]!;
    expect(report.status).to.equal('invalid');
    expect(report.diagnostics.map((d) => d.kind)).to.deep.equal(['BUNDLE_ERROR', 'PREVIEW_BUILTIN']);
  });

  it('lists a successful build invalid when a check fails, and valid again once package.json declares the dependency', () => {
    const imports = [{ specifier: 'lit', file: 'app/one/index.ts', line: 1, column: 1 }];
    const state = fold([started, read([one]), startedBuild(1, DEV, [{ module: one, generation: 1 }]), succeeded(1, one, DEV, 'e1', { imports })]);
    expect(selectReport(state).modules[0]).to.deep.include({ status: 'invalid' });
    expect(selectReport(state).modules[0]!.diagnostics.map((d) => d.kind)).to.deep.equal(['DEPENDENCY_NOT_DECLARED']);
    const declared = workspaceModel([one]);
    declared.packages[0]!.dependencies = { lit: '3.1.0' };
    expect(selectReport(fold([{ type: 'workspace.read', workspace: declared }], state)).modules[0]).to.deep.include({ status: 'valid', diagnostics: [] });
  });

  it('judges a module by its default variant, and invalid by its production build once that failed, until an edit makes the verdict stale', () => {
    const asked: Fact[] = [{ type: 'output.requested', module: one.specifier, variant: PROD }, startedBuild(2, PROD, [{ module: one, generation: 1 }])];
    const failed = fold([
      started,
      read([one]),
      ...buildAll([one]),
      ...asked,
      { type: 'build.failed', build: 2, module: one.specifier, variant: PROD, errors: [diagnostic('BUNDLE_ERROR', 'minify failed')], imports: [], inputs: { 'app/one/index.ts': 'e1' } },
    ]);
    const line = selectReport(failed).modules[0]!;
    expect([line.status, line.diagnostics]).to.deep.equal(['invalid', [{ ...diagnostic('BUNDLE_ERROR', 'minify failed'), env: 'production' }]]);
    expect(selectModuleStatus(failed, one)).to.deep.equal({ status: 'invalid', diagnostics: line.diagnostics });
    // An edit: the production verdict is of sources no longer there, and nobody asks again.
    const edited = fold([{ type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: one, generation: 2 }]), succeeded(3, one, DEV, 'e2')], failed);
    expect(selectReport(edited).modules[0]).to.deep.include({ status: 'valid', diagnostics: [] });
    // A production build that succeeds clears it.
    const passed = fold([...asked, succeeded(2, one, PROD, 'e1')], fold([started, read([one]), ...buildAll([one])]));
    expect(selectReport(passed).modules[0]).to.deep.include({ status: 'valid', diagnostics: [] });
  });

  it('adds only what the production build finds that the development one does not, and keeps a pending module pending', () => {
    const imports = [{ specifier: 'lit', file: 'app/one/index.ts', line: 1, column: 1 }];
    const state = fold([
      started,
      read([one]),
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'e1', { imports }),
      { type: 'output.requested', module: one.specifier, variant: PROD },
      startedBuild(2, PROD, [{ module: one, generation: 1 }]),
      succeeded(2, one, PROD, 'e1', { imports: [...imports, { specifier: 'left-pad', file: 'app/one/index.ts', line: 2, column: 1 }] }),
    ]);
    const line = selectReport(state).modules[0]!;
    expect(line.diagnostics.map((problem) => [problem.kind, problem.message.split(' ')[2], problem.env])).to.deep.equal([
      ['DEPENDENCY_NOT_DECLARED', '"lit"', undefined],
      ['DEPENDENCY_NOT_DECLARED', '"left-pad"', 'production'],
    ]);
    expect(selectReport(fold([started, read([one]), { type: 'output.requested', module: one.specifier, variant: PROD }, startedBuild(1, PROD, [{ module: one, generation: 1 }]), succeeded(1, one, PROD, 'e1', { imports })])).modules[0]).to.deep.include({ status: 'pending', diagnostics: [] });
  });

  it('keeps the last result while a module rebuilds', () => {
    const state = fold([started, read([one]), ...buildAll([one]), { type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' }]);
    expect(selectReport(state).modules[0]!.status).to.equal('valid');
  });

  it('is the same object while workspace and builds are', () => {
    const state = fold([started, read([one])]);
    const later = fold([{ type: 'workspace.unchanged', sources: { 'core.json': 'core-2' } }], state);
    expect(selectReport(fold([{ type: 'service.stopped' }], state))).to.equal(selectReport(state));
    expect(selectReport(later)).to.not.equal(selectReport(state));
  });

  it("keeps an unchanged module's line, the same object, when another module is built: a build changes one line, not all", () => {
    const state = fold([started, read([one, two]), ...buildAll([one, two])]);
    const before = selectReport(state);
    const after = selectReport(fold([startedBuild(3, DEV, [{ module: two, generation: 2 }]), succeeded(3, two, DEV, 'e2')], fold([{ type: 'files.changed', files: { 'app/two/index.ts': 'e2' }, source: 'watcher' }], state)));
    expect(after).to.not.equal(before);
    expect(after.modules[0]).to.equal(before.modules[0]);
    expect(after.modules[1]).to.not.equal(before.modules[1]);
    expect(after.modules[1]).to.deep.equal(before.modules[1]);
  });

  it("makes every module's line again when the workspace is read again: its imports are checked against the new one", () => {
    const state = fold([started, read([one]), ...buildAll([one])]);
    const reread = fold([read([one])], state);
    expect(selectReport(reread).modules[0]).to.not.equal(selectReport(state).modules[0]);
    expect(selectReport(reread).modules[0]).to.deep.equal(selectReport(state).modules[0]);
  });
});

describe('selectImporters', () => {
  const three = moduleModel('three');
  const importing = (build: number, module: ModuleModel, specifiers: string[]): Fact[] => [
    startedBuild(build, DEV, [{ module, generation: 1 }]),
    succeeded(build, module, DEV, 'e1', { imports: specifiers.map((specifier) => ({ specifier, file: module.entry! })) }),
  ];

  it("lists each module's importers by index, each once, itself and what is no module of the workspace left out", () => {
    const state = fold([started, read([one, two, three]), ...importing(1, one, [two.specifier, two.specifier, one.specifier, 'lit']), ...importing(2, two, []), ...importing(3, three, [two.specifier, one.specifier])]);
    expect(selectImporters(state)).to.deep.equal([[2], [0, 2], []]);
  });

  it('is the same index while workspace and builds are, and made again for new builds', () => {
    const state = fold([started, read([one, two]), ...importing(1, one, [two.specifier]), ...importing(2, two, [])]);
    expect(selectImporters(fold([{ type: 'service.stopped' }], state))).to.equal(selectImporters(state));
    const rebuilt = fold([{ type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: one, generation: 2 }]), succeeded(3, one, DEV, 'e2')], state);
    expect(selectImporters(rebuilt)).to.deep.equal([[], []]);
  });
});

describe('selectModuleStatus', () => {
  it('is pending without a build, valid after a clean one', () => {
    const pending = fold([started, read([one])]);
    expect(selectModuleStatus(pending, one)).to.deep.equal({ status: 'pending', diagnostics: [] });
    expect(selectModuleStatus(fold(buildAll([one]), pending), one)).to.deep.equal({ status: 'valid', diagnostics: [] });
  });
});

describe('buildDiagnostics', () => {
  it('is the bundler errors followed by the import checks', () => {
    const workspace = workspaceModel([one]);
    const error = diagnostic('BUNDLE_ERROR', 'x');
    const record = { build: 1, outputs: null, errors: [error], imports: [{ specifier: 'fs', file: 'app/one/index.ts' }], inputs: {} };
    expect(buildDiagnostics(one, record, workspace).map((d) => d.kind)).to.deep.equal(['BUNDLE_ERROR', 'PREVIEW_BUILTIN']);
  });

  it('keeps a record\'s judgement while the workspace\'s packages and modules are the same, and judges again when they are not', () => {
    const workspace = workspaceModel([one]);
    const record = { build: 1, outputs: null, errors: [], imports: [{ specifier: 'lodash', file: 'app/one/index.ts' }], inputs: {} };
    const declared = { ...workspace, packages: workspace.packages.map((pkg) => ({ ...pkg, dependencies: { lodash: '^4.0.0' } })) };
    const judged = buildDiagnostics(one, record, declared);
    expect(judged).to.deep.equal([]);
    // A read that changed only hashes: the same packages and modules, the same judgement.
    expect(buildDiagnostics(one, record, { ...declared, sources: { 'core.json': 'core-2' } })).to.equal(judged);
    // The dependency's declaration removed: judged again.
    expect(buildDiagnostics(one, record, workspace).map((d) => d.kind)).to.deep.equal(['DEPENDENCY_NOT_DECLARED']);
    expect(buildDiagnostics(one, record, declared)).to.deep.equal([]);
    // Another model of the module (a new declaration), the same record: judged for that model.
    const node = { ...one, platforms: ['node' as const] };
    const builtin = { ...record, imports: [{ specifier: 'fs', file: 'app/one/index.ts' }] };
    expect(buildDiagnostics(one, builtin, workspace).map((d) => d.kind)).to.deep.equal(['PREVIEW_BUILTIN']);
    // The same workspace object: only the module differs, and the judgement is its own.
    expect(buildDiagnostics(node, builtin, workspace)).to.deep.equal([]);
    expect(buildDiagnostics(node, builtin, workspaceModel([node]))).to.deep.equal([]);
  });

  it('keeps a failed build\'s errors and checks as one array while its checks are the same', () => {
    const workspace = workspaceModel([one]);
    const record = { build: 1, outputs: null, errors: [diagnostic('BUNDLE_ERROR', 'x')], imports: [], inputs: {} };
    const first = buildDiagnostics(one, record, workspace);
    expect(buildDiagnostics(one, record, { ...workspace, sources: { 'core.json': 'core-2' } })).to.equal(first);
    const again = buildDiagnostics(one, record, workspaceModel([one]));
    expect(again).to.not.equal(first);
    expect(again).to.deep.equal(first);
  });
});

describe('selectSettled', () => {
  it("waits for the production build of a left-out package's module, which the preview runs", () => {
    const lib = moduleModel('lib', { package: '@t/lib' });
    const developed = fold([started, read([one, lib], { selection: ['@t/app'] }), ...buildAll([one, lib])]);
    expect(selectSettled(developed)).to.equal(false);
    expect(selectSettled(fold([startedBuild(3, PROD, [{ module: lib, generation: 1 }]), succeeded(3, lib, PROD, 'e1')], developed))).to.equal(true);
  });

  it('is false before the workspace is read', () => {
    expect(selectSettled(fold([started]))).to.equal(false);
  });

  it('is false until every buildable module has its default variant built, then true', () => {
    const broken = moduleModel('broken', { entry: null });
    const state = fold([started, read([one, two, broken]), ...buildAll([one])]);
    expect(selectSettled(state)).to.equal(false);
    expect(selectSettled(fold(buildAll([two], 2), state))).to.equal(true);
  });

  it('is true for a workspace without modules', () => {
    expect(selectSettled(fold([started, read([])]))).to.equal(true);
  });

  it('is false while the workspace is stale or a module rebuilds', () => {
    const settled = fold([started, read([one]), ...buildAll([one])]);
    expect(selectSettled(fold([{ type: 'files.changed', files: { 'core.json': 'core-2' }, source: 'check' }], settled))).to.equal(false);
    expect(selectSettled(fold([{ type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'check' }], settled))).to.equal(false);
  });

  it('does not wait for variants only a request wanted', () => {
    const settled = fold([started, read([one]), ...buildAll([one]), { type: 'output.requested', module: one.specifier, variant: PROD }]);
    expect(selectSettled(settled)).to.equal(true);
  });
});

describe('selectBuildQueue', () => {
  it('is empty before the workspace is read and while it is stale', () => {
    expect(selectBuildQueue(fold([started]))).to.deep.equal([]);
    expect(selectBuildQueue(fold([started, read([one]), { type: 'files.changed', files: { 'core.json': 'x' }, source: 'watcher' }]))).to.deep.equal([]);
  });

  it('lists pending eager variants of a new workspace, none built before', () => {
    const queue = selectBuildQueue(fold([started, read([one, two])]));
    expect(queue.map((t) => [t.module.specifier, t.variant, t.generation, t.requested, t.rebuilt])).to.deep.equal([
      ['@t/app/one', DEV, 1, false, false],
      ['@t/app/two', DEV, 1, false, false],
    ]);
  });

  it('lists the production variant of each web module of a package left out by the selection, eagerly, and none without a selection', () => {
    const lib = moduleModel('lib', { package: '@t/lib' });
    const server = moduleModel('server', { package: '@t/lib', platforms: ['node'] });
    const NODE_DEV = 'node.development';
    const leftOut = fold([started, read([one, lib, server], { selection: ['@t/app'] })]);
    expect(selectBuildQueue(leftOut).map((t) => [t.module.specifier, t.variant])).to.deep.equal([
      ['@t/app/one', DEV],
      ['@t/lib/lib', DEV],
      ['@t/lib/lib', PROD],
      ['@t/lib/server', NODE_DEV],
    ]);
    expect(selectBuildQueue(fold([started, read([one, lib, server])])).map((t) => t.variant)).to.deep.equal([DEV, DEV, NODE_DEV]);
    // Selected again: no longer eager, and its last build kept; left out again: eager at once.
    const built = fold([startedBuild(1, PROD, [{ module: lib, generation: 1 }]), succeeded(1, lib, PROD, 'e1')], leftOut);
    const selectedAgain = fold([read([one, lib, server], { selection: ['@t/app', '@t/lib'] })], built);
    expect(selectedAgain.builds[lib.specifier]!.variants[PROD]).to.deep.include({ eager: false, status: 'done' });
    const edited = fold([{ type: 'files.changed', files: { 'lib/lib/index.ts': 'e2' }, source: 'watcher' }], selectedAgain);
    expect(edited.builds[lib.specifier]!.variants[PROD]).to.deep.include({ eager: false, status: 'pending' });
    expect(selectBuildQueue(edited).filter((t) => t.variant === PROD)).to.deep.equal([]);
    expect(selectBuildQueue(fold([read([one, lib, server], { selection: ['@t/app'] })], edited)).map((t) => [t.module.specifier, t.variant])).to.deep.equal([
      ['@t/app/one', DEV],
      ['@t/lib/lib', DEV],
      ['@t/lib/lib', PROD],
      ['@t/lib/server', NODE_DEV],
    ]);
  });

  it('puts requested variants first', () => {
    const state = fold([started, read([one, two]), { type: 'output.requested', module: two.specifier, variant: PROD }]);
    expect(selectBuildQueue(state).map((t) => [t.module.subpath, t.variant, t.requested])).to.deep.equal([
      ['two', PROD, true],
      ['one', DEV, false],
      ['two', DEV, false],
    ]);
  });

  it('leaves out variants that are building or done, and a stale variant nobody wants', () => {
    const state = fold([
      started,
      read([one, two]),
      ...buildAll([one]),
      { type: 'output.requested', module: one.specifier, variant: PROD },
      startedBuild(2, PROD, [{ module: one, generation: 1 }]),
      succeeded(2, one, PROD, 'e1'),
      startedBuild(3, DEV, [{ module: two, generation: 1 }]),
      { type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' },
    ]);
    // one: DEV is stale and eager (queued, rebuilt); PROD is stale but nobody asks for it again.
    expect(selectBuildQueue(state).map((t) => [t.module.subpath, t.variant, t.generation, t.rebuilt])).to.deep.equal([['one', DEV, 2, true]]);
  });

  it('looks again only at the build entries that changed since the last state', () => {
    const first = fold([started, read([one, two]), ...buildAll([two])]);
    let walks = 0;
    const counted = { ...first.builds[two.specifier]!, variants: new Proxy(first.builds[two.specifier]!.variants, { ownKeys: (target) => (walks++, Reflect.ownKeys(target)) }) };
    expect(selectBuildQueue({ ...first, builds: { ...first.builds, [two.specifier]: counted } }).map((t) => t.module.subpath)).to.deep.equal(['one']);
    const walked = walks;
    expect(walked).to.be.greaterThan(0);
    const requested = fold([{ type: 'output.requested', module: one.specifier, variant: PROD }], first);
    const queue = selectBuildQueue({ ...requested, builds: { ...requested.builds, [two.specifier]: counted } });
    expect(queue.map((t) => [t.module.subpath, t.variant, t.requested])).to.deep.equal([
      ['one', PROD, true],
      ['one', DEV, false],
    ]);
    expect(walks).to.equal(walked);
  });
});

describe('selectRecordedHashes', () => {
  /** Every path with the set of hashes recorded for it, made from the whole state. */
  function everyRecorded(state: ServiceState): Record<string, (string | null)[]> {
    const found: Record<string, Set<string | null>> = {};
    const add = (path: string, hash: string | null) => (found[path] ??= new Set()).add(hash);
    for (const [path, hash] of Object.entries(state.workspace.sources)) add(path, hash);
    for (const builds of Object.values(state.builds)) for (const variant of Object.values(builds.variants)) for (const path of Object.keys(variant.last?.inputs ?? {})) add(path, knownInputHash(variant, path) ?? null);
    return Object.fromEntries(Object.entries(found).map(([path, hashes]) => [path, [...hashes].sort()]));
  }
  function asRecorded(state: ServiceState): Record<string, (string | null)[]> {
    const recorded = selectRecordedHashes(state);
    const every = everyRecorded(state);
    const found: Record<string, (string | null)[]> = {};
    for (const path of recorded.keys()) {
      const hashes = recorded.get(path)!;
      found[path] = (every[path] ?? []).filter((hash) => hashes.has(hash));
      expect(hashes.size, path).to.equal(found[path]!.length);
    }
    return found;
  }

  it('holds every manifest and every input with the hashes the state knows, whichever state was asked last', () => {
    const sources = { 'core.json': 'core-1', 'app/package.json': 'package-1' };
    const workspace = workspaceModel([one, two], { sources });
    const first = fold([started, { type: 'workspace.read', workspace }, startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }])]);
    const built = fold([succeeded(1, one, DEV, 'e1', { inputs: { [one.entry!]: 'e1', 'app/shared.ts': 's1' } }), succeeded(1, two, DEV, 't1', { inputs: { [two.entry!]: 't1', 'app/shared.ts': 's1' } })], first);
    const changed = fold([{ type: 'files.changed', files: { 'app/shared.ts': 's2' }, source: 'watcher' }], built);
    const rebuilt = fold([startedBuild(2, DEV, [{ module: one, generation: 2 }]), succeeded(2, one, DEV, 'e1', { inputs: { [one.entry!]: 'e1', 'app/other.ts': 'o1' } })], changed);
    const removed = fold([{ type: 'workspace.read', workspace: workspaceModel([one], { sources }) }], rebuilt);
    for (const state of [first, built, changed, rebuilt, built, removed, changed, first, rebuilt]) expect(asRecorded(state)).to.deep.equal(everyRecorded(state));
    expect(asRecorded(changed)['app/shared.ts']).to.deep.equal(['s2']);
    expect(asRecorded(rebuilt)['app/shared.ts']).to.deep.equal(['s2']);
    expect(asRecorded(rebuilt)['app/other.ts']).to.deep.equal(['o1']);
  });

  it('looks again at the inputs of the modules whose builds changed only', () => {
    const first = fold([started, read([one, two]), ...buildAll([one, two])]);
    let walks = 0;
    const counted = { ...first.builds[two.specifier]!, variants: new Proxy(first.builds[two.specifier]!.variants, { ownKeys: (target) => (walks++, Reflect.ownKeys(target)) }) };
    const before = { ...first, builds: { ...first.builds, [two.specifier]: counted } };
    selectRecordedHashes(before);
    const walked = walks;
    expect(walked).to.be.greaterThan(0);
    const changed = fold([{ type: 'files.changed', files: { [one.entry!]: 'e2' }, source: 'watcher' }], first);
    const after = { ...changed, builds: { ...changed.builds, [two.specifier]: counted } };
    expect(selectRecordedHashes(after).get(one.entry!)!.has('e2')).to.equal(true);
    expect(walks).to.equal(walked);
  });
});

describe('selectRecordedHashesOf', () => {
  it('gives each asked path the hashes selectRecordedHashes holds for it, and nothing for a path the state does not depend on', () => {
    const shared = 'app/shared.css';
    const built = fold([
      started,
      read([one, two]),
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'e1', { inputs: { [one.entry!]: 'e1', [shared]: 's1' } }),
      startedBuild(2, DEV, [{ module: two, generation: 1 }]),
      succeeded(2, two, DEV, 'e2', { inputs: { [two.entry!]: 'e2', [shared]: 's1' } }),
    ]);
    // A change reported since the last build of one: its newest hash counts.
    const state = fold([{ type: 'files.changed', files: { [one.entry!]: 'e3' }, source: 'watcher' }], built);
    const asked = [one.entry!, shared, 'core.json', 'app/unknown.css', 'constructor', 'app/'];
    const before = selectRecordedHashesOf(state, asked);
    const whole = selectRecordedHashes(state);
    for (const path of asked) {
      expect(before.has(path), path).to.equal(whole.has(path));
      if (!whole.has(path)) continue;
      expect(before.get(path)!.size, path).to.equal(whole.get(path)!.size);
      for (const hash of before.get(path) as Set<string | null>) expect(whole.get(path)!.has(hash), path).to.equal(true);
    }
    expect(before.get(one.entry!)).to.deep.equal(new Set(['e3']));
    expect(before.get(shared)).to.deep.equal(new Set(['s1']));
    expect(before.has('app/unknown.css') || before.has('constructor')).to.equal(false);
    // Asked again, the same answer.
    expect(selectRecordedHashesOf(state, asked)).to.deep.equal(before);
  });
});

describe('names imported across modules (README "Bundling real code")', () => {
  const lib = moduleModel('lib');
  const main = moduleModel('main');
  const importsMissing = { imports: [{ specifier: '@t/app/lib', file: 'app/main/index.ts', line: 1, column: 31 }], links: { exports: [], imports: [{ specifier: '@t/app/lib', names: ['libv', 'missing'] }] } };
  const libBuilt = (build: number) => [startedBuild(build, DEV, [{ module: lib, generation: 1 }]), succeeded(build, lib, DEV, 'l1', { links: { exports: ['libv'] } })];
  const mainBuilt = (build: number, extra: Parameters<typeof succeeded>[4], generation = 1) => [startedBuild(build, DEV, [{ module: main, generation }]), succeeded(build, main, DEV, `m${generation}`, extra)];
  const statusOf = (state: ServiceState, specifier: string) => selectReport(state).modules.find((module) => module.specifier === specifier)!;

  it('lists an importer of a name the other module does not export invalid at the import, naming both; pending while that module is not built', () => {
    const waiting = fold([started, read([lib, main]), ...mainBuilt(1, importsMissing)]);
    expect(statusOf(waiting, '@t/app/main')).to.deep.include({ status: 'pending', diagnostics: [] });
    const state = fold(libBuilt(2), waiting);
    const report = statusOf(state, '@t/app/main');
    expect(report.status).to.equal('invalid');
    expect(report.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 1, column: 31 }]);
    expect(report.diagnostics[0]!.message).to.include('@t/app/lib does not export "missing"').and.to.include('import type { missing }');
    expect(selectModuleStatus(state, main)).to.deep.equal({ status: 'invalid', diagnostics: report.diagnostics });
    expect(statusOf(state, '@t/app/lib').status).to.equal('valid');
  });

  it('lists it valid once a build imports only what the other exports, and judges a state restored from the build cache the same', () => {
    const invalid = fold([started, read([lib, main]), ...libBuilt(1), ...mainBuilt(2, importsMissing)]);
    const fixed = fold([{ type: 'files.changed', files: { 'app/main/index.ts': 'm2' }, source: 'watcher' }, ...mainBuilt(3, { links: { exports: [], imports: [{ specifier: '@t/app/lib', names: ['libv'] }] } }, 2)], invalid);
    expect(statusOf(fixed, '@t/app/main')).to.deep.include({ status: 'valid', diagnostics: [] });
    const restore = (specifier: string, hash: string, findings: object) => ({ module: specifier, variant: DEV, outputs: { code: { hash, size: 10 }, styles: null }, imports: [], inputs: {}, ...findings });
    const restored = fold([
      started,
      read([lib, main]),
      { type: 'cache.restored', dir: '/c', builds: [restore(lib.specifier, 'l', { links: { exports: ['libv'] } }), restore(main.specifier, 'm', importsMissing)] },
    ]);
    expect(statusOf(restored, '@t/app/main').status).to.equal('invalid');
    expect(statusOf(restored, '@t/app/main').diagnostics[0]!.message).to.include('does not export "missing"');
  });

  describe('through shared files (README "Shared files")', () => {
    const X = '@t/app/.shared/lib/x.ts';
    const Y = '@t/app/.shared/lib/y.ts';
    type Findings = NonNullable<Parameters<typeof succeeded>[4]>;
    // A module of the package whose code imports the shared files `chunks` (their link names), built alone beside it.
    const withChunks = (links: Findings['links'], chunkLinks: Record<string, NonNullable<Findings['links']>>): Findings => ({
      outputs: { code: { hash: 'lib-code', size: 10 }, styles: null, chunks: Object.fromEntries(Object.keys(chunkLinks).map((specifier) => [specifier, { hash: `chunk ${specifier}`, size: 10 }])) },
      links,
      chunkLinks,
    });
    // A shared file's import is no import of the build record (its internal specifier is none to check or map): its names are.
    const importing = (names: string[], specifier = '@t/app/lib'): Findings => ({
      imports: specifier === '@t/app/lib' ? [{ specifier, file: 'app/main/index.ts', line: 1, column: 20 }] : [],
      links: { exports: [], imports: [{ specifier, names }] },
    });
    const libWith = (findings: Findings, build = 1) => [startedBuild(build, DEV, [{ module: lib, generation: 1 }]), succeeded(build, lib, DEV, 'l1', findings)];
    const judged = (libFindings: Findings, names: string[], specifier?: string) => fold([started, read([lib, main]), ...libWith(libFindings), ...mainBuilt(2, importing(names, specifier))]);

    it('judges a name reached through `export * from` a shared file: valid when the file exports it, invalid at the import when not, never pending for ever', () => {
      const star = withChunks({ exports: [], stars: [X] }, { [X]: { exports: ['shared'] } });
      expect(statusOf(judged(star, ['shared']), '@t/app/main')).to.deep.include({ status: 'valid', diagnostics: [] });
      const missing = statusOf(judged(star, ['missing']), '@t/app/main');
      expect(missing.status).to.equal('invalid');
      expect(missing.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 1, column: 20 }]);
      expect(missing.diagnostics[0]!.message).to.include('@t/app/lib does not export "missing"');
    });

    it('judges the sibling shapes: two levels of `export *` through shared files, a shared file re-exporting a public module, `export { y } from` and `export * as ns from` one', () => {
      const other = moduleModel('other');
      const twoLevels = withChunks({ exports: [], stars: [X] }, { [X]: { exports: [], stars: [Y] }, [Y]: { exports: ['deep'] } });
      expect(statusOf(judged(twoLevels, ['deep']), '@t/app/main').status).to.equal('valid');
      expect(statusOf(judged(twoLevels, ['shallow']), '@t/app/main').status).to.equal('invalid');
      const named = withChunks({ exports: ['y'], imports: [{ specifier: X, names: ['y'] }], reexports: [{ name: 'y', specifier: X, imported: 'y' }] }, { [X]: { exports: ['y'] } });
      expect(statusOf(judged(named, ['y']), '@t/app/main').status).to.equal('valid');
      const namespace = withChunks({ exports: ['ns'], namespaces: [{ name: 'ns', specifier: X }] }, { [X]: { exports: ['y'] } });
      expect(statusOf(judged(namespace, ['ns']), '@t/app/main').status).to.equal('valid');
      // The shared file re-exports a public module: the name is that module's.
      const toPublic = withChunks({ exports: [], stars: [X] }, { [X]: { exports: [], stars: [other.specifier] } });
      const through = (names: string[]) =>
        fold([started, read([lib, main, other]), ...libWith(toPublic), ...mainBuilt(2, importing(names)), startedBuild(3, DEV, [{ module: other, generation: 1 }]), succeeded(3, other, DEV, 'o1', { links: { exports: ['fromOther'] } })]);
      expect(statusOf(through(['fromOther']), '@t/app/main').status).to.equal('valid');
      expect(statusOf(through(['nope']), '@t/app/main').status).to.equal('invalid');
    });

    it('lists a name imported from a shared file that it does not export invalid, naming the file', () => {
      const state = judged(withChunks({ exports: [] }, { [X]: { exports: ['y'] } }), ['gone'], X);
      const report = statusOf(state, '@t/app/main');
      expect(report.status).to.equal('invalid');
      expect(report.diagnostics[0]!.message).to.include('lib/x.ts, a file several modules of @t/app import').and.include('does not export "gone"');
    });

    it('is pending while the modules importing the shared file build again (an edit of it may change its names), then judged by the new build', () => {
      const before = judged(withChunks({ exports: [], stars: [X] }, { [X]: { exports: ['shared'] } }), ['shared']);
      const editing = fold([{ type: 'files.changed', files: { 'app/lib/index.ts': 'l2' }, source: 'watcher' }], before);
      expect(statusOf(editing, '@t/app/main').status).to.equal('pending');
      const rebuilt = fold([startedBuild(5, DEV, [{ module: lib, generation: 2 }]), succeeded(5, lib, DEV, 'l2', withChunks({ exports: [], stars: [X] }, { [X]: { exports: ['renamed'] } }))], editing);
      expect(statusOf(rebuilt, '@t/app/main').status).to.equal('invalid');
    });

    it('judges a state restored from the build cache the same', () => {
      const restore = (specifier: string, findings: Findings) => ({ module: specifier, variant: DEV, outputs: { code: { hash: specifier, size: 10 }, styles: null }, imports: [], inputs: {}, ...findings });
      const restored = (names: string[]) =>
        fold([
          started,
          read([lib, main]),
          { type: 'cache.restored', dir: '/c', builds: [restore(lib.specifier, withChunks({ exports: [], stars: [X] }, { [X]: { exports: ['shared'] } })), restore(main.specifier, importing(names))] },
        ]);
      expect(statusOf(restored(['shared']), '@t/app/main')).to.deep.include({ status: 'valid', diagnostics: [] });
      expect(statusOf(restored(['missing']), '@t/app/main').status).to.equal('invalid');
    });

    it('leaves valid, not pending for ever, an importer of a name reached through `export *` of a module never judged (a package the CDN serves)', () => {
      expect(statusOf(judged({ links: { exports: [], stars: ['lit'] } }, ['html']), '@t/app/main')).to.deep.include({ status: 'valid', diagnostics: [] });
    });
  });
});

describe('a Node global read taken as defined because of an import for effects (README "Bundling real code", Shims)', () => {
  const setup = moduleModel('setup');
  const main = moduleModel('main');
  const WARNING = diagnostic('BUNDLE_WARNING', effectsShimWarningText('process.env.X', 'process', '@t/app/setup', 'read it as import.meta.env.X'), { file: 'app/main/index.ts', line: 2, column: 18 });
  const mainBuilt = (build: number, shims?: { writes: string[]; effects: string[] }) => [
    startedBuild(build, DEV, [{ module: main, generation: 1 }]),
    succeeded(build, main, DEV, 'm1', { warnings: [WARNING], ...(shims ? { shims } : {}) }),
  ];
  const setupBuilt = (build: number, writes: string[], generation = 1) => [startedBuild(build, DEV, [{ module: setup, generation }]), succeeded(build, setup, DEV, `s${generation}`, { shims: { writes, effects: [] } })];
  const statusOf = (state: ServiceState, specifier: string) => selectReport(state).modules.find((module) => module.specifier === specifier)!;

  it('lists the importer invalid at the read, in place of the warning, when the module imported is built and writes no such name; pending while it is not built', () => {
    const waiting = fold([started, read([setup, main]), ...mainBuilt(1, { writes: [], effects: ['@t/app/setup'] })]);
    expect(statusOf(waiting, '@t/app/main')).to.deep.include({ status: 'pending', diagnostics: [] });
    const state = fold(setupBuilt(2, []), waiting);
    const report = statusOf(state, '@t/app/main');
    expect(report.status).to.equal('invalid');
    expect(report.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 2, column: 18 }]);
    expect(report.diagnostics[0]!.message).to.include('no module it imports for its effects writes process').and.to.include('@t/app/setup').and.to.include('read it as import.meta.env.X');
    expect(report.warnings).to.equal(undefined);
    expect(selectModuleStatus(state, main)).to.deep.equal({ status: 'invalid', diagnostics: report.diagnostics });
  });

  it('follows the module imported: valid with the warning once it writes the name, invalid again once it no longer does, with no build of the importer', () => {
    const invalid = fold([started, read([setup, main]), ...setupBuilt(1, []), ...mainBuilt(2, { writes: [], effects: ['@t/app/setup'] })]);
    expect(statusOf(invalid, '@t/app/main').status).to.equal('invalid');
    const shimmed = fold([{ type: 'files.changed', files: { 'app/setup/index.ts': 's2' }, source: 'watcher' }, ...setupBuilt(3, ['process'], 2)], invalid);
    expect(statusOf(shimmed, '@t/app/main')).to.deep.include({ status: 'valid', diagnostics: [], warnings: [WARNING] });
    const unshimmed = fold([{ type: 'files.changed', files: { 'app/setup/index.ts': 's3' }, source: 'watcher' }, ...setupBuilt(4, [], 3)], shimmed);
    expect(statusOf(unshimmed, '@t/app/main').status).to.equal('invalid');
  });

  it('keeps the warning when the importer or a module imported is not told (an earlier record, a package not of the workspace)', () => {
    expect(statusOf(fold([started, read([setup, main]), ...setupBuilt(1, []), ...mainBuilt(2)]), '@t/app/main')).to.deep.include({ status: 'valid', warnings: [WARNING] });
    const outside = fold([started, read([setup, main]), ...setupBuilt(1, []), ...mainBuilt(2, { writes: [], effects: ['@t/app/setup', 'polyfill'] })]);
    expect(statusOf(outside, '@t/app/main')).to.deep.include({ status: 'valid', warnings: [WARNING] });
    const unknownSetup = fold([started, read([setup, main]), startedBuild(1, DEV, [{ module: setup, generation: 1 }]), succeeded(1, setup, DEV, 's1'), ...mainBuilt(2, { writes: [], effects: ['@t/app/setup'] })]);
    expect(statusOf(unknownSetup, '@t/app/main')).to.deep.include({ status: 'valid', warnings: [WARNING] });
  });
});
