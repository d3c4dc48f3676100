// Shared files in the state (README "Shared files"): which files are shared, which builds hold a
// copy of one, `copies.found` making those build again, and when a variant may be answered.
import { expect } from 'chai';
import { selectAnswerable, selectReport, selectSettled, selectSharedFileCopies, selectSharedFiles } from '../../src/store/selectors.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const PROD = 'browser.production.min';
const one = moduleModel('one');
const two = moduleModel('two');
const HELPER = 'app/helper.ts';
const SPECIFIER = '@t/app/.shared/helper.ts';
const workspace = workspaceModel([one, two]);
const chunk = { [SPECIFIER]: { hash: 'chunk-1', size: 1 } };

// Both modules built: `one` with the helper as a chunk, `two` as given.
function built(twoImportsIt: boolean, twoWasAsked = false) {
  return fold([
    started,
    { type: 'workspace.read', workspace },
    startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]),
    succeeded(1, one, DEV, 'one-1', { inputs: { [one.entry!]: 'one-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'one', size: 1 }, styles: null, chunks: chunk } }),
    succeeded(1, two, DEV, 'two-1', {
      inputs: { [two.entry!]: 'two-1', [HELPER]: 'h-1' },
      outputs: { code: { hash: 'two', size: 1 }, styles: null, ...(twoImportsIt ? { chunks: chunk } : {}) },
      ...(twoWasAsked ? { shared: [HELPER] } : {}),
    }),
  ]);
}


/** `one` and `two` of @t/app built, both reading its helper (which `one` imports, and `two` too or not), and a module of another package. */
function withAnotherPackage({ twoImportsTheHelper }: { twoImportsTheHelper: boolean }) {
  const lib = moduleModel('fmt', { package: '@t/lib' });
  const state = fold([
    started,
    { type: 'workspace.read', workspace: workspaceModel([one, two, lib]) },
    startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }, { module: lib, generation: 1 }]),
    succeeded(1, one, DEV, 'one-1', { inputs: { [one.entry!]: 'one-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'one', size: 1 }, styles: null, chunks: chunk } }),
    succeeded(1, two, DEV, 'two-1', { inputs: { [two.entry!]: 'two-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'two', size: 1 }, styles: null, ...(twoImportsTheHelper ? { chunks: chunk } : {}) } }),
    succeeded(1, lib, DEV, 'lib-1'),
  ]);
  return { lib, state };
}

describe('shared files in the state', () => {
  it('are the files two modules of a package read, each with its internal specifier', () => {
    expect([...selectSharedFiles(built(true))]).to.deep.equal([['@t/app', { [HELPER]: SPECIFIER }]]);
  });

  it('are never the paths a build only depends on (`resolution`), whatever their hash: where a link leads, the files another entry re-exports from', () => {
    const LINK = 'app/linked.ts ->';
    const state = fold([
      started,
      { type: 'workspace.read', workspace },
      startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]),
      ...[one, two].map((module) =>
        succeeded(1, module, DEV, `${module.subpath}-1`, { inputs: { [module.entry!]: `${module.subpath}-1`, [HELPER]: 'h-1', [LINK]: 'l-1' }, resolution: [HELPER, LINK] }),
      ),
    ]);
    expect([...selectSharedFiles(state)]).to.deep.equal([]);
    expect(selectSharedFileCopies(state)).to.deep.equal([]);
    expect(selectReport(state).modules.flatMap((module) => module.diagnostics).filter((one) => one.kind === 'HELPER_SHARED')).to.deep.equal([]);
  });

  it('find no copy in a build that only depends on a shared file (in its inputs and `resolution`, no chunk): only the builds that read it', () => {
    const three = moduleModel('three');
    const state = fold([
      started,
      { type: 'workspace.read', workspace: workspaceModel([one, two, three]) },
      startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }, { module: three, generation: 1 }]),
      succeeded(1, one, DEV, 'one-1', { inputs: { [one.entry!]: 'one-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'one', size: 1 }, styles: null, chunks: chunk } }),
      succeeded(1, two, DEV, 'two-1', { inputs: { [two.entry!]: 'two-1', [HELPER]: 'h-1' } }),
      // `three` imports an entry that re-exports from the helper: TypeScript looked at it, the build did not read it.
      succeeded(1, three, DEV, 'three-1', { inputs: { [three.entry!]: 'three-1', [HELPER]: 'h-1' }, resolution: [HELPER] }),
    ]);
    expect([...selectSharedFiles(state)]).to.deep.equal([['@t/app', { [HELPER]: SPECIFIER }]]);
    expect(selectSharedFileCopies(state)).to.deep.equal([{ module: two.specifier, variant: DEV, build: 1, file: HELPER, hash: 'h-1' }]);
  });

  it('find a build that copied one, which is neither settled nor answerable until copies.found builds it again', () => {
    const state = built(false);
    expect(selectSharedFileCopies(state)).to.deep.equal([{ module: two.specifier, variant: DEV, build: 1, file: HELPER, hash: 'h-1' }]);
    expect(selectSettled(state)).to.equal(false);
    expect(selectAnswerable(state, two.specifier, DEV)).to.equal(false);
    expect(selectAnswerable(state, one.specifier, DEV)).to.equal(true);
    const after = fold([{ type: 'copies.found', copies: [{ module: two.specifier, variant: DEV, build: 1, file: HELPER }] }], state);
    expect(after.builds[two.specifier]!.variants[DEV]).to.include({ status: 'pending', generation: 2 });
    expect(after.builds[one.specifier]!.variants[DEV]).to.include({ status: 'done', generation: 1 });
  });

  it('find the copies of a package again only when the builds of its own modules change', () => {
    const { lib, state } = withAnotherPackage({ twoImportsTheHelper: false });
    let walks = 0;
    type Entry = (typeof state.builds)[string];
    const counted = (entry: Entry): Entry => ({ ...entry, variants: new Proxy(entry.variants, { ownKeys: (target) => (walks++, Reflect.ownKeys(target)) }) });
    const twoBuilds = counted(state.builds[two.specifier]!);
    const copies = [{ module: two.specifier, variant: DEV, build: 1, file: HELPER, hash: 'h-1' }];
    expect(selectSharedFileCopies({ ...state, builds: { ...state.builds, [two.specifier]: twoBuilds } })).to.deep.equal(copies);
    const walked = walks;
    expect(walked).to.be.greaterThan(0);
    // Another package's module built again: a new state, and @t/app's copies as they were, not looked for again.
    const rebuilt = fold([{ type: 'files.changed', files: { [lib.entry!]: 'lib-2' }, source: 'watcher' }, startedBuild(2, DEV, [{ module: lib, generation: 2 }]), succeeded(2, lib, DEV, 'lib-2')], state);
    expect(rebuilt.builds[lib.specifier]!.variants[DEV]!.last!.build).to.equal(2);
    expect(selectSharedFileCopies({ ...rebuilt, builds: { ...rebuilt.builds, [two.specifier]: twoBuilds } })).to.deep.equal(copies);
    expect(walks).to.equal(walked);
    // A build entry of its own changed: looked at again.
    expect(selectSharedFileCopies({ ...rebuilt, builds: { ...rebuilt.builds, [two.specifier]: counted(state.builds[two.specifier]!) } })).to.deep.equal(copies);
    expect(walks).to.be.greaterThan(walked);
  });

  it('find a build that imported one fewer than two modules read now: neither settled nor answerable until copies.found builds it again', () => {
    // `two` no longer reads the helper; `one`'s last build imports it at its shared address.
    const state = fold([
      started,
      { type: 'workspace.read', workspace },
      startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]),
      succeeded(1, one, DEV, 'one-1', { inputs: { [one.entry!]: 'one-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'one', size: 1 }, styles: null, chunks: chunk } }),
      succeeded(1, two, DEV, 'two-1'),
    ]);
    expect([...selectSharedFiles(state)]).to.deep.equal([]);
    const unshared = [{ module: one.specifier, variant: DEV, build: 1, file: HELPER, hash: 'h-1', unshared: true }];
    expect(selectSharedFileCopies(state)).to.deep.equal(unshared);
    expect(selectSettled(state)).to.equal(false);
    expect(selectAnswerable(state, one.specifier, DEV)).to.equal(false);
    expect(selectAnswerable(state, two.specifier, DEV)).to.equal(true);
    const after = fold([{ type: 'copies.found', copies: [{ module: one.specifier, variant: DEV, build: 1, file: HELPER, unshared: true }] }], state);
    expect(after.builds[one.specifier]!.variants[DEV]).to.include({ status: 'pending', generation: 2 });
  });

  it('judge a file shared no more only once every module of its package has built from the current sources', () => {
    // A restart: `one` restored importing the helper, `two` (its cached build stale) not built yet.
    const waiting = fold([
      started,
      { type: 'workspace.read', workspace },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'one-1', { inputs: { [one.entry!]: 'one-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'one', size: 1 }, styles: null, chunks: chunk } }),
    ]);
    expect(waiting.builds[two.specifier]!.variants[DEV]).to.include({ status: 'pending', last: null });
    expect(selectSharedFileCopies(waiting)).to.deep.equal([]);
    expect(selectAnswerable(waiting, one.specifier, DEV)).to.equal(true);
    // `two` built, reading the helper: still shared, nothing to build again.
    const reading = { inputs: { [two.entry!]: 'two-1', [HELPER]: 'h-1' }, outputs: { code: { hash: 'two', size: 1 }, styles: null, chunks: chunk } };
    expect(selectSharedFileCopies(fold([startedBuild(2, DEV, [{ module: two, generation: 1 }]), succeeded(2, two, DEV, 'two-1', reading)], waiting))).to.deep.equal([]);
    // `two` built without it: unshared.
    const without = fold([startedBuild(2, DEV, [{ module: two, generation: 1 }]), succeeded(2, two, DEV, 'two-1')], waiting);
    expect(selectSharedFileCopies(without)).to.deep.equal([{ module: one.specifier, variant: DEV, build: 1, file: HELPER, hash: 'h-1', unshared: true }]);
  });

  it('ignore copies.found naming a build that is no longer the last', () => {
    const state = built(false);
    const after = fold([{ type: 'copies.found', copies: [{ module: two.specifier, variant: DEV, build: 7, file: HELPER }] }], state);
    expect(after.builds[two.specifier]!.variants[DEV]).to.include({ status: 'done', generation: 1 });
  });

  it('leave a copy the build was asked to avoid: settled, and a HELPER_SHARED warning on the modules that copied it', () => {
    const state = built(false, true);
    expect(selectSharedFileCopies(state)).to.deep.equal([]);
    expect(selectSettled(state)).to.equal(true);
    const warnings = selectReport(state).modules.map((m) => (m.warnings ?? []).map((w) => [w.kind, w.file]));
    // `two` holds a copy beside the shared file `one` imports: two instances on a page.
    expect(warnings).to.deep.equal([[], [['HELPER_SHARED', HELPER]]]);
    expect(selectReport(state).modules[1]!.warnings![0]!.message).to.include('bundled into 1 module (@t/app/two), beside its shared address');
  });

  it('make a variant other than the default wait for the default variants of its package', () => {
    const state = fold(
      [
        started,
        { type: 'workspace.read', workspace },
        { type: 'output.requested', module: one.specifier, variant: PROD },
        startedBuild(1, PROD, [{ module: one, generation: 1 }]),
        succeeded(1, one, PROD, 'one-1'),
      ],
    );
    expect(selectAnswerable(state, one.specifier, PROD)).to.equal(false);
    const later = fold([startedBuild(2, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]), succeeded(2, one, DEV, 'one-1'), succeeded(2, two, DEV, 'two-1')], state);
    expect(selectAnswerable(later, one.specifier, PROD)).to.equal(true);
  });
  it("are kept per package: a build of another package's module leaves them the same object, a build of its own finds them again", () => {
    const { lib, state } = withAnotherPackage({ twoImportsTheHelper: true });
    const files = selectSharedFiles(state).get('@t/app');
    const libBuilt = fold([{ type: 'files.changed', files: { [lib.entry!]: 'lib-2' }, source: 'watcher' }, startedBuild(2, DEV, [{ module: lib, generation: 2 }]), succeeded(2, lib, DEV, 'lib-2')], state);
    expect(selectSharedFiles(libBuilt)).to.not.equal(selectSharedFiles(state));
    expect(selectSharedFiles(libBuilt).get('@t/app')).to.equal(files);
    // `two` no longer reads the helper: it is no longer shared.
    const twoBuilt = fold([{ type: 'files.changed', files: { [two.entry!]: 'two-2' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: two, generation: 2 }]), succeeded(3, two, DEV, 'two-2')], libBuilt);
    expect(selectSharedFiles(twoBuilt).get('@t/app')).to.equal(undefined);
    expect([...selectSharedFiles(libBuilt)]).to.deep.equal([['@t/app', { [HELPER]: SPECIFIER }]]);
  });
  it('are kept the same object through a rebuild of a module of the package that read the same files, found again when it reads others', () => {
    const state = built(true);
    const files = selectSharedFiles(state).get('@t/app');
    const edited = fold([{ type: 'files.changed', files: { [one.entry!]: 'one-2' }, source: 'watcher' }, startedBuild(2, DEV, [{ module: one, generation: 2 }]), succeeded(2, one, DEV, 'one-2', { inputs: { [one.entry!]: 'one-2', [HELPER]: 'h-1' }, outputs: { code: { hash: 'one-2', size: 1 }, styles: null, chunks: chunk } })], state);
    expect(selectSharedFiles(edited).get('@t/app')).to.equal(files);
    // `one` reads another file besides: its files are no longer the same, the rule runs again.
    const more = fold([{ type: 'files.changed', files: { [one.entry!]: 'one-3' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: one, generation: 3 }]), succeeded(3, one, DEV, 'one-3', { inputs: { [one.entry!]: 'one-3', [HELPER]: 'h-1', 'app/other.ts': 'o-1' }, outputs: { code: { hash: 'one-3', size: 1 }, styles: null, chunks: chunk } })], edited);
    expect(selectSharedFiles(more).get('@t/app')).to.not.equal(files);
    expect(selectSharedFiles(more).get('@t/app')).to.deep.equal(files);
    // `two` stops reading the helper (only looked for, found absent: a path it depends on): not shared any more.
    const gone = fold([{ type: 'files.changed', files: { [two.entry!]: 'two-2' }, source: 'watcher' }, startedBuild(4, DEV, [{ module: two, generation: 2 }]), succeeded(4, two, DEV, 'two-2', { inputs: { [two.entry!]: 'two-2', [HELPER]: null }, resolution: [HELPER], outputs: { code: { hash: 'two-2', size: 1 }, styles: null } })], more);
    expect(selectSharedFiles(gone).get('@t/app')).to.equal(undefined);
  });

  it("are asked of the module's own package only when a variant's answer is judged: its cost does not grow with the workspace", () => {
    const { lib, state } = withAnotherPackage({ twoImportsTheHelper: false });
    const read = new Set<string | symbol>();
    const watched = { ...state, builds: new Proxy(state.builds, { get: (target, key) => (read.add(key), Reflect.get(target, key)) }) };
    expect(selectAnswerable(watched, lib.specifier, DEV)).to.equal(true);
    expect([...read]).to.deep.equal([lib.specifier]);
    read.clear();
    // `two` copied the helper `one` imports: not answerable, found from @t/app's builds alone.
    expect(selectAnswerable(watched, two.specifier, DEV)).to.equal(false);
    expect([...read].sort()).to.deep.equal([one.specifier, two.specifier]);
  });
  it("keep a module's HELPER_SHARED warnings, and its line of the report, the same objects while no module's helper files change", () => {
    const state = built(false, true);
    const line = selectReport(state).modules[1]!;
    expect(line.warnings!.map((w) => w.kind)).to.deep.equal(['HELPER_SHARED']);
    const pending = fold([{ type: 'files.changed', files: { [one.entry!]: 'one-2' }, source: 'watcher' }], state);
    expect(pending.builds).to.not.equal(state.builds);
    expect(selectReport(pending).modules[1]).to.equal(line);
  });
});
