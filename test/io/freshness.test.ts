// The check before answering: recorded hashes against the disk (here a fake one).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Fact } from '../../src/store/events.js';
import type { ServiceState } from '../../src/store/state.js';
import { createFileHashes, nextWatchSequence, RACY_MS, type FileHashes } from '../../src/io/file-hashes.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { createFreshnessCheck, findChanges, type CheckScope, type WatchProof } from '../../src/io/freshness.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';
import { tempWorkspace } from '../helpers/workspace.js';

const DEV = 'browser.development';
const PROD = 'browser.production.min';
const one = moduleModel('one');
const two = moduleModel('two');

/** A disk whose files hash as `disk` says (absent: null), counting what was asked. */
function fakeHashes(disk: Record<string, string | null>): FileHashes & { asked: string[] } {
  const asked: string[] = [];
  const hash = (path: string) => {
    asked.push(path);
    return disk[path] ?? null;
  };
  return {
    asked,
    hash,
    stamp: (path) => ({ hash: hash(path), mtimeMs: 0, ctimeMs: 0 }),
    recall: (path) => ({ hash: hash(path), mtimeMs: 0, ctimeMs: 0 }),
    recallText: () => null,
    timesOf: () => ({ mtimeMs: 0, ctimeMs: 0 }),
    readText: () => null,
    listDir: () => null,
    leaves: () => false,
    realPath: (path: string) => path,
    signature: () => null,
    adopt: () => false,
    confirmed: () => undefined,
    granularityMs: () => 0,
  };
}

// Sources core.json (core-1) and app/package.json (package-1); `one` built from e1, `two` still pending.
const state = (): ServiceState =>
  fold([
    started,
    { type: 'workspace.read', workspace: workspaceModel([one, two]) },
    startedBuild(1, DEV, [{ module: one, generation: 1 }]),
    succeeded(1, one, DEV, 'e1', { inputs: { 'app/one/index.ts': 'e1', 'app/one/helper.ts': 'h1', 'app/one/gone.css': null } }),
  ]);
const DISK = { 'core.json': 'core-1', 'app/package.json': 'package-1', 'app/one/index.ts': 'e1', 'app/one/helper.ts': 'h1', 'app/two/index.ts': 'x' };
const ALL: CheckScope[] = [{ kind: 'all' }];

describe('findChanges', () => {
  it('is null when the disk holds what the state recorded', () => {
    expect(findChanges(state(), ALL, fakeHashes(DISK))).to.equal(null);
  });

  it('reports a changed manifest with its hash now, whatever the scope', () => {
    for (const scope of [{ kind: 'workspace' }, { kind: 'all' }, { kind: 'variant', module: one.specifier, variant: DEV }] as CheckScope[]) {
      expect(findChanges(state(), [scope], fakeHashes({ ...DISK, 'core.json': 'core-2' })), scope.kind).to.deep.equal({ 'core.json': 'core-2' });
    }
  });

  it('reports a vanished manifest as null', () => {
    expect(findChanges(state(), ALL, fakeHashes({ ...DISK, 'app/package.json': null }))).to.deep.equal({ 'app/package.json': null });
  });

  it('reports a changed input of a done variant, and a file that appeared where one was missing', () => {
    const changes = findChanges(state(), ALL, fakeHashes({ ...DISK, 'app/one/helper.ts': 'h2', 'app/one/gone.css': 'css' }));
    expect(changes).to.deep.equal({ 'app/one/helper.ts': 'h2', 'app/one/gone.css': 'css' });
  });

  it('looks only at the manifests for the workspace scope', () => {
    const hashes = fakeHashes({ ...DISK, 'app/one/helper.ts': 'h2' });
    expect(findChanges(state(), [{ kind: 'workspace' }], hashes)).to.equal(null);
    expect(hashes.asked.sort()).to.deep.equal(['app/package.json', 'core.json']);
  });

  it("scopes an output's check to what it depends on: shared manifests, its package's, and the packages it imports", () => {
    const lib = moduleModel('fmt', { package: '@t/lib' });
    const far = moduleModel('x', { package: '@t/far' });
    const sources = { 'core.json': 'core-1', 'app/package.json': 'package-1', 'app/one/': 'listing-1', 'lib/package.json': 'lib-1', 'far/package.json': 'far-1', 'far/x/': 'far-listing-1' };
    const scoped = fold([
      started,
      { type: 'workspace.read', workspace: workspaceModel([one, lib, far], { sources }) },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'e1', { inputs: { 'app/one/index.ts': 'e1' }, imports: [{ specifier: '@t/lib/fmt', file: 'app/one/index.ts' }] }),
    ]);
    const disk = { ...DISK, ...sources };
    const scope: CheckScope[] = [{ kind: 'variant', module: one.specifier, variant: DEV }];
    const hashes = fakeHashes({ ...disk, 'far/package.json': 'far-2' });
    expect(findChanges(scoped, scope, hashes)).to.equal(null);
    expect(hashes.asked.sort()).to.deep.equal(['app/one/', 'app/one/index.ts', 'app/package.json', 'core.json', 'lib/package.json']);
    for (const changed of ['core.json', 'app/package.json', 'app/one/', 'lib/package.json', 'app/one/index.ts']) {
      expect(findChanges(scoped, scope, fakeHashes({ ...disk, [changed]: 'changed' })), changed).to.deep.equal({ [changed]: 'changed' });
    }
    expect(findChanges(scoped, [{ kind: 'workspace' }], fakeHashes({ ...disk, 'far/package.json': 'far-2' }))).to.deep.equal({ 'far/package.json': 'far-2' });
  });

  it("leaves out other modules' directories: of its own package, and of the packages it imports, all but the modules it imports", () => {
    const two2 = moduleModel('two');
    const fmt = moduleModel('fmt', { package: '@t/lib' });
    const other = moduleModel('other', { package: '@t/lib' });
    const sources = {
      'core.json': 'core-1',
      'app/package.json': 'package-1',
      'app/': 'app-listing',
      'app/one/': 'one-listing',
      'app/one/module.json': 'one-manifest',
      'app/two/': 'two-listing',
      'app/two/module.json': 'two-manifest',
      'lib/package.json': 'lib-1',
      'lib/fmt/': 'fmt-listing',
      'lib/fmt/module.json': null,
      'lib/other/': 'other-listing',
      'lib/other/module.json': null,
    };
    const scoped = fold([
      started,
      { type: 'workspace.read', workspace: workspaceModel([one, two2, fmt, other], { sources }) },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'e1', { inputs: { 'app/one/index.ts': 'e1' }, imports: [{ specifier: '@t/lib/fmt', file: 'app/one/index.ts' }] }),
    ]);
    const disk = { ...DISK, ...sources };
    const scope: CheckScope[] = [{ kind: 'variant', module: one.specifier, variant: DEV }];
    const hashes = fakeHashes(disk);
    expect(findChanges(scoped, scope, hashes)).to.equal(null);
    expect(hashes.asked.sort()).to.deep.equal(['app/', 'app/one/', 'app/one/index.ts', 'app/one/module.json', 'app/package.json', 'core.json', 'lib/fmt/', 'lib/fmt/module.json', 'lib/package.json']);
    // What it depends on is still seen the moment it changes; another module's manifest is left to its own answers.
    for (const changed of ['app/one/module.json', 'app/', 'lib/fmt/module.json', 'lib/package.json']) {
      expect(findChanges(scoped, scope, fakeHashes({ ...disk, [changed]: 'changed' })), changed).to.deep.equal({ [changed]: 'changed' });
    }
    expect(findChanges(scoped, scope, fakeHashes({ ...disk, 'app/two/module.json': 'changed', 'lib/other/module.json': '{}' }))).to.equal(null);
    expect(findChanges(scoped, [{ kind: 'workspace' }], fakeHashes({ ...disk, 'app/two/module.json': 'changed' }))).to.deep.equal({ 'app/two/module.json': 'changed' });
  });

  it("gives a path to the deepest package directory holding it: a package nested in another's directory is not its parent's", () => {
    const inner = moduleModel('fmt', { package: '@t/inner', dir: 'app/vendor/inner/fmt', entry: 'app/vendor/inner/fmt/index.ts' });
    const base = workspaceModel([one, inner]);
    const packages = base.packages.map((pkg) => (pkg.name === '@t/inner' ? { ...pkg, dir: 'app/vendor/inner' } : pkg));
    const sources = { 'core.json': 'core-1', 'app/package.json': 'package-1', 'app/vendor/': 'vendor-listing', 'app/vendor/inner/package.json': 'inner-1', 'app/vendor/inner/fmt/': 'fmt-listing' };
    const nested = fold([
      started,
      { type: 'workspace.read', workspace: { ...base, packages, sources } },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'e1', { inputs: { 'app/one/index.ts': 'e1' } }),
    ]);
    const hashes = fakeHashes({ ...DISK, ...sources });
    // `one` imports nothing of @t/inner: the inner package's manifests are not its concern, its own package's listing is.
    expect(findChanges(nested, [{ kind: 'variant', module: one.specifier, variant: DEV }], hashes)).to.equal(null);
    expect(hashes.asked.sort()).to.deep.equal(['app/one/index.ts', 'app/package.json', 'app/vendor/', 'core.json']);
  });

  it('looks at the inputs of the variant a scope names, not at other variants', () => {
    const disk = fakeHashes({ ...DISK, 'app/one/helper.ts': 'h2' });
    expect(findChanges(state(), [{ kind: 'variant', module: one.specifier, variant: DEV }], disk)).to.deep.equal({ 'app/one/helper.ts': 'h2' });
    expect(findChanges(state(), [{ kind: 'variant', module: one.specifier, variant: PROD }], fakeHashes({ ...DISK, 'app/one/helper.ts': 'h2' }))).to.equal(null);
  });

  it('skips pending and building variants: their build reads the disk anyway', () => {
    const pending = fold([{ type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' }], state());
    const hashes = fakeHashes({ ...DISK, 'app/one/index.ts': 'e3', 'app/one/helper.ts': 'h2' });
    expect(findChanges(pending, ALL, hashes)).to.equal(null);
    expect(hashes.asked).to.not.include('app/one/helper.ts');
  });

  it('skips the manifests of a workspace already stale: it is being read again', () => {
    const stale = fold([{ type: 'files.changed', files: { 'core.json': 'core-2' }, source: 'watcher' }], state());
    expect(findChanges(stale, [{ kind: 'workspace' }], fakeHashes({ ...DISK, 'core.json': 'core-3' }))).to.equal(null);
  });

  it('takes the last confirmed hash of a path the watcher proves unchanged since, and asks the disk for every other', () => {
    // The disk now: index.ts changed, helper.ts too; the watcher proves only helper.ts and the manifests unchanged.
    const hashes = fakeHashes({ ...DISK, 'app/one/index.ts': 'e2', 'app/one/helper.ts': 'h2' });
    const confirmedAt: Record<string, number> = { 'core.json': 5, 'app/package.json': 5, 'app/one/helper.ts': 7, 'app/one/index.ts': 7 };
    hashes.confirmed = (path) => (path in confirmedAt ? { hash: path === 'app/one/helper.ts' ? 'h1' : (DISK as Record<string, string>)[path]!, seq: confirmedAt[path]! } : undefined);
    const sinces: [string, number][] = [];
    const quiet = (path: string, since: number) => {
      sinces.push([path, since]);
      return path !== 'app/one/index.ts';
    };
    // helper.ts: proven, so its confirmed hash stands (the disk is not asked); index.ts: not proven, asked, changed.
    expect(findChanges(state(), [{ kind: 'variant', module: one.specifier, variant: DEV }], hashes, quiet)).to.deep.equal({ 'app/one/index.ts': 'e2' });
    expect(hashes.asked.sort()).to.deep.equal(['app/one/gone.css', 'app/one/index.ts']);
    expect(sinces).to.deep.include(['app/one/helper.ts', 7]);
    // Without the watcher's proof every path is asked.
    const unproven = fakeHashes({ ...DISK, 'app/one/helper.ts': 'h2' });
    expect(findChanges(state(), [{ kind: 'variant', module: one.specifier, variant: DEV }], unproven, () => false)).to.deep.equal({ 'app/one/helper.ts': 'h2' });
    expect(unproven.asked).to.include.members(['core.json', 'app/package.json', 'app/one/index.ts', 'app/one/helper.ts']);
  });

  it('reports a path two lists expect as different hashes, looked at once: a build read another content than the manifests record', () => {
    const sources = { 'core.json': 'core-1', 'app/package.json': 'package-1', 'app/tsconfig.json': 'tsconfig-2' };
    const read = fold([
      started,
      { type: 'workspace.read', workspace: workspaceModel([one, two], { sources }) },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, 'e1', { inputs: { 'app/one/index.ts': 'e1', 'app/tsconfig.json': 'tsconfig-1' } }),
    ]);
    const hashes = fakeHashes({ ...DISK, ...sources });
    expect(findChanges(read, [...ALL, { kind: 'variant', module: one.specifier, variant: DEV }], hashes)).to.deep.equal({ 'app/tsconfig.json': 'tsconfig-2' });
    expect(hashes.asked.filter((path) => path === 'app/tsconfig.json')).to.have.length(1);
    expect(findChanges(read, [{ kind: 'workspace' }], fakeHashes({ ...DISK, ...sources }))).to.equal(null);
  });

  it('hashes each path once for many scopes', () => {
    const hashes = fakeHashes(DISK);
    findChanges(state(), [{ kind: 'all' }, { kind: 'all' }, { kind: 'variant', module: one.specifier, variant: DEV }], hashes);
    expect(hashes.asked.length).to.equal(new Set(hashes.asked).size);
  });
});

/** A watcher's proof that vouches for every path but `unproven`, counting what it is asked; `generation` moves it. */
function fakeProof(unproven: Set<string>): WatchProof & { asked: string[]; generation: number } {
  const proof = {
    asked: [] as string[],
    generation: 1,
    unchangedSince: (path: string) => {
      proof.asked.push(path);
      return !unproven.has(path);
    },
    proofGeneration: () => proof.generation,
  };
  return proof;
}

/** `fakeHashes` whose every path of `confirmedDisk` was confirmed as that hash. */
function confirmedHashes(disk: Record<string, string | null>, confirmedDisk: Record<string, string | null>) {
  const hashes = fakeHashes(disk);
  hashes.confirmed = (path) => (path in confirmedDisk ? { hash: confirmedDisk[path]!, seq: 1 } : undefined);
  return hashes;
}

describe('findChanges with the watcher’s proof kept between passes', () => {
  const scope: CheckScope[] = [{ kind: 'variant', module: one.specifier, variant: DEV }];

  it('looks again only at the paths the watcher did not vouch for while nothing was noticed, and at every path once something was', () => {
    const proof = fakeProof(new Set(['app/one/helper.ts']));
    const settled = state();
    const disk: Record<string, string | null> = { ...DISK };
    const confirmedDisk: Record<string, string | null> = { ...DISK };
    const hashes = confirmedHashes(disk, confirmedDisk);
    const pass = () => {
      proof.asked.length = 0;
      hashes.asked.length = 0;
      return findChanges(settled, scope, hashes, proof);
    };
    expect(pass()).to.equal(null);
    expect(hashes.asked.sort()).to.deep.equal(['app/one/gone.css', 'app/one/helper.ts']);
    expect(proof.asked).to.include.members(['core.json', 'app/package.json', 'app/one/index.ts']);

    // Nothing noticed since: what was vouched for is not asked again, what was not is looked at every pass.
    disk['app/one/helper.ts'] = 'h2';
    expect(pass()).to.deep.equal({ 'app/one/helper.ts': 'h2' });
    expect(proof.asked).to.deep.equal(['app/one/helper.ts']);
    expect(hashes.asked.sort()).to.deep.equal(['app/one/gone.css', 'app/one/helper.ts']);

    // Something noticed (the generation moved): every path is asked again, and a change the watcher confirmed is found.
    disk['app/one/helper.ts'] = 'h1';
    confirmedDisk['app/one/index.ts'] = disk['app/one/index.ts'] = 'e2';
    proof.generation += 1;
    expect(pass()).to.deep.equal({ 'app/one/index.ts': 'e2' });
    expect(proof.asked).to.include.members(['core.json', 'app/package.json', 'app/one/index.ts', 'app/one/helper.ts']);
    // A vouched path whose hash is not the one expected stays reported on every pass.
    expect(pass()).to.deep.equal({ 'app/one/index.ts': 'e2' });
    expect(proof.asked.sort()).to.deep.equal(['app/one/helper.ts', 'app/one/index.ts']);
  });

  it('keeps a module’s proof across a build of another module', () => {
    const proof = fakeProof(new Set());
    const first = fold([startedBuild(2, DEV, [{ module: two, generation: 1 }])], state());
    const disk = { ...DISK, 'app/one/gone.css': null };
    const hashes = confirmedHashes(disk, disk);
    expect(findChanges(first, scope, hashes, proof)).to.equal(null);
    expect(proof.asked).to.not.have.length(0);
    proof.asked.length = 0;
    hashes.asked.length = 0;
    const next = fold([succeeded(2, two, DEV, 'x', { inputs: { 'app/two/index.ts': 'x' } })], first);
    expect(findChanges(next, scope, hashes, proof)).to.equal(null);
    expect(proof.asked).to.deep.equal([]);
    expect(hashes.asked).to.deep.equal([]);
    // Its own build: its lists are new, and looked at whole.
    const rebuilt = fold(
      [{ type: 'files.changed', files: { 'app/one/helper.ts': 'h9' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: one, generation: 2 }]), succeeded(3, one, DEV, 'e1', { inputs: { 'app/one/index.ts': 'e1' } })],
      next,
    );
    expect(rebuilt.builds[one.specifier]!.variants[DEV]!.last).to.not.equal(next.builds[one.specifier]!.variants[DEV]!.last);
    expect(findChanges(rebuilt, scope, hashes, proof)).to.equal(null);
    expect(proof.asked).to.include.members(['core.json', 'app/one/index.ts']);
  });

  it('keeps nothing it proved with other file hashes: a pass with a new FileHashes looks at every path again', () => {
    const proof = fakeProof(new Set());
    const settled = state();
    const disk = { ...DISK, 'app/one/gone.css': null };
    const first = confirmedHashes(disk, disk);
    expect(findChanges(settled, [...ALL, ...scope], first, proof)).to.equal(null);
    proof.asked.length = 0;
    expect(findChanges(settled, [...ALL, ...scope], first, proof)).to.equal(null);
    expect(proof.asked, 'the same hashes, nothing noticed').to.deep.equal([]);
    // Another disk behind new hashes (a restarted service's, a test's): what the first proved does not hold for it.
    const changed = { ...disk, 'core.json': 'core-2', 'app/one/index.ts': 'e2' };
    expect(findChanges(settled, [...ALL, ...scope], confirmedHashes(changed, changed), proof)).to.deep.equal({ 'core.json': 'core-2', 'app/one/index.ts': 'e2' });
    expect(proof.asked).to.include.members(['core.json', 'app/package.json', 'app/one/index.ts']);
  });

  it('walks the whole workspace’s paths again only for what the watcher did not vouch for, while nothing was noticed', () => {
    const proof = fakeProof(new Set(['app/package.json']));
    const settled = state();
    const disk: Record<string, string | null> = { ...DISK, 'app/one/gone.css': null };
    const confirmedDisk: Record<string, string | null> = { ...disk };
    const hashes = confirmedHashes(disk, confirmedDisk);
    expect(findChanges(settled, ALL, hashes, proof)).to.equal(null);
    proof.asked.length = 0;
    hashes.asked.length = 0;
    disk['app/package.json'] = 'package-2';
    expect(findChanges(settled, [...ALL, ...scope], hashes, proof)).to.deep.equal({ 'app/package.json': 'package-2' });
    expect(proof.asked).to.deep.equal(['app/package.json']);
    expect(hashes.asked).to.deep.equal(['app/package.json']);
    disk['app/package.json'] = 'package-1';
    confirmedDisk['core.json'] = 'core-2';
    proof.generation += 1;
    proof.asked.length = 0;
    expect(findChanges(settled, ALL, hashes, proof)).to.deep.equal({ 'core.json': 'core-2' });
    expect(proof.asked).to.include.members(['core.json', 'app/one/index.ts', 'app/one/helper.ts']);
  });
});

// A file found absent where a module's tsconfig.json would be: its directory's listing, looked at
// in the same pass, says so, as the disk holds it now (README "Addresses").
describe('findChanges of files expected absent in a listed directory', () => {
  function workspaceOnDisk() {
    const root = tempWorkspace({ 'core.json': '{}', 'app/one/index.ts': 'export {};' });
    const statted: string[] = [];
    const hashes = createFileHashes(root, Date.now, { stat: (file) => (statted.push(path.relative(root, file)), fs.statSync(file, { throwIfNoEntry: false })) });
    // What the workspace read records: the listing, and the tsconfig places absent from it.
    const sources = { 'core.json': hashes.hash('core.json'), 'app/one/': hashes.listDir('app/one')!.hash, 'app/one/tsconfig.json': null, 'app/tsconfig.json': null };
    const inputs = { 'app/one/index.ts': hashes.hash('app/one/index.ts')!, 'app/one/tsconfig.json': null };
    const workspaceState = fold([
      started,
      { type: 'workspace.read', workspace: workspaceModel([one], { sources }) },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, inputs['app/one/index.ts'], { inputs }),
    ]);
    statted.length = 0;
    return { root, hashes, statted, workspaceState };
  }

  it('takes the absence from the listing the pass looked at, without a stat of the file', () => {
    const { hashes, statted, workspaceState } = workspaceOnDisk();
    expect(findChanges(workspaceState, ALL, hashes)).to.equal(null);
    expect(statted).to.include('app/one');
    expect(statted).not.to.include('app/one/tsconfig.json');
    // Its directory is not looked at: stat'ed, as before.
    expect(statted).to.include('app/tsconfig.json');
  });

  it('sees a file made there after the read: the listing moved, and the file is looked at', () => {
    const { root, hashes, workspaceState } = workspaceOnDisk();
    expect(findChanges(workspaceState, ALL, hashes)).to.equal(null);
    fs.writeFileSync(path.join(root, 'app/one/tsconfig.json'), '{}');
    const changed = findChanges(workspaceState, ALL, hashes);
    expect(changed).to.have.property('app/one/tsconfig.json').that.is.a('string');
    expect(changed).to.have.property('app/one/');
  });

  it("leaves the watcher to vouch for the file while its proof holds: stat'ed once more, then looked at no more", () => {
    const { hashes, statted, workspaceState } = workspaceOnDisk();
    const watcher = { unchangedSince: () => true, proofGeneration: () => 1 };
    const byListing: string[] = [];
    const absentFromListing = hashes.absentFromListing!.bind(hashes);
    hashes.absentFromListing = (relative, listingHash) => (byListing.push(relative), absentFromListing(relative, listingHash));
    const pass = () => {
      statted.length = 0;
      byListing.length = 0;
      expect(findChanges(workspaceState, ALL, hashes, watcher)).to.equal(null);
    };
    pass();
    expect([byListing, statted.includes('app/one/tsconfig.json')], 'a new proof generation: the listing proves it').to.deep.equal([['app/one/tsconfig.json'], false]);
    pass();
    expect([byListing, statted.includes('app/one/tsconfig.json')], 'the same generation: stat\'ed, so that the watcher can vouch for it').to.deep.equal([[], true]);
    pass();
    expect([byListing, statted], 'vouched for by the watcher: nothing looked at').to.deep.equal([[], []]);
  });

  it('stats a file whose name the listing holds but for its case', () => {
    const { root, hashes, statted, workspaceState } = workspaceOnDisk();
    fs.writeFileSync(path.join(root, 'app/one/TSConfig.json'), '{}');
    findChanges(workspaceState, ALL, hashes);
    expect(statted).to.include('app/one/tsconfig.json');
  });
});

// `.core/selection.json` before the first `core select`: absent, in a directory that is not there,
// which no watch covers; its directory is an entry of the watched root (README "Addresses").
describe('findChanges of a file expected absent in a directory that is not there', () => {
  function workspaceOnDisk() {
    const root = tempWorkspace({ 'core.json': '{}' });
    const statted: string[] = [];
    const hashes = createFileHashes(root, Date.now, { stat: (file) => (statted.push(path.relative(root, file)), fs.statSync(file, { throwIfNoEntry: false })) });
    const workspaceState = fold([started, { type: 'workspace.read', workspace: workspaceModel([], { sources: { 'core.json': hashes.hash('core.json'), '.core/selection.json': null } }) }]);
    // The watcher vouches for the root's entries and files, never for a path in `.core/`, which it does not watch; `noticed` names what it saw change.
    const noticed = new Set<string>();
    const watcher = { generation: 1, unchangedSince: (relative: string) => !relative.startsWith('.core/') && !noticed.has(relative), proofGeneration: () => watcher.generation };
    const pass = () => {
      statted.length = 0;
      return findChanges(workspaceState, [{ kind: 'workspace' }], hashes, watcher);
    };
    return { root, statted, watcher, noticed, pass };
  }

  it('takes the watcher’s word for the directory’s absence: stat’ed until its directory is proven absent, then looked at no more', () => {
    const { statted, pass } = workspaceOnDisk();
    expect(pass()).to.equal(null);
    expect(statted, 'first found absent').to.include('.core/selection.json');
    expect(pass()).to.equal(null);
    expect(statted, 'its directory found absent, once').to.deep.equal(['.core']);
    expect(pass()).to.equal(null);
    expect(statted, 'vouched for').to.deep.equal([]);
  });

  it('looks at the file again once its directory is made (`core select`)', () => {
    const { root, statted, watcher, noticed, pass } = workspaceOnDisk();
    pass();
    pass();
    fs.mkdirSync(path.join(root, '.core'));
    fs.writeFileSync(path.join(root, '.core/selection.json'), '["@t/app"]');
    noticed.add('.core');
    watcher.generation += 1;
    expect(pass()).to.have.property('.core/selection.json').that.is.a('string');
    expect(statted).to.include('.core/selection.json');
  });

  it('looks at the file on every pass while its directory cannot be proven absent (it is a link, or not watched)', () => {
    const { statted, noticed, pass } = workspaceOnDisk();
    noticed.add('.core');
    for (let index = 0; index < 3; index += 1) {
      expect(pass()).to.equal(null);
      expect(statted).to.include('.core/selection.json');
    }
  });
});

describe('createFreshnessCheck', () => {
  // A scheduler run by hand: each call queues one pass.
  function harness(disk: Record<string, string | null>) {
    const passes: (() => void)[] = [];
    const dispatched: Fact[] = [];
    const hashes = fakeHashes(disk);
    const current = state();
    const check = createFreshnessCheck({ hashes, getState: () => current, dispatch: (fact) => void dispatched.push(fact), failed: (error) => { throw error; }, schedule: (run) => void passes.push(run) });
    return { check, passes, dispatched, hashes };
  }

  it('answers the callers of one turn with one pass, and reports what changed once', async () => {
    const { check, passes, dispatched } = harness({ ...DISK, 'core.json': 'core-2', 'app/one/helper.ts': 'h2' });
    const settled: string[] = [];
    const calls = [
      check.check({ kind: 'workspace' }).then(() => settled.push('workspace')),
      check.check({ kind: 'variant', module: one.specifier, variant: DEV }).then(() => settled.push('variant')),
      check.check({ kind: 'all' }).then(() => settled.push('all')),
    ];
    expect(passes).to.have.length(1);
    await Promise.resolve();
    expect(settled).to.deep.equal([]);
    passes[0]!();
    await Promise.all(calls);
    expect(settled).to.deep.equal(['workspace', 'variant', 'all']);
    expect(dispatched).to.deep.equal([{ type: 'files.changed', files: { 'core.json': 'core-2', 'app/one/helper.ts': 'h2' }, source: 'check' }]);
  });

  it('dispatches nothing when the disk matches', async () => {
    const { check, passes, dispatched } = harness(DISK);
    const call = check.check({ kind: 'all' });
    passes[0]!();
    expect(await call, 'the check completed').to.equal(true);
    expect(dispatched).to.deep.equal([]);
  });

  it('starts a new pass for callers after a pass ran', async () => {
    const { check, passes } = harness(DISK);
    const first = check.check({ kind: 'workspace' });
    passes[0]!();
    await first;
    const second = check.check({ kind: 'workspace' });
    expect(passes).to.have.length(2);
    passes[1]!();
    await second;
  });

  it('answers its callers and reports the failure when hashing fails', async () => {
    const passes: (() => void)[] = [];
    const broken: FileHashes = { hash: () => { throw new Error('EIO'); }, stamp: () => ({ hash: null, mtimeMs: 0, ctimeMs: 0 }), recall: () => ({ hash: null, mtimeMs: 0, ctimeMs: 0 }), recallText: () => null, timesOf: () => ({ mtimeMs: 0, ctimeMs: 0 }), readText: () => null, listDir: () => null, leaves: () => false, realPath: (path: string) => path, signature: () => null, adopt: () => false, confirmed: () => undefined, granularityMs: () => 0 };
    const failures: unknown[] = [];
    const check = createFreshnessCheck({ hashes: broken, getState: state, dispatch: () => {}, failed: (error) => void failures.push(error), schedule: (run) => void passes.push(run) });
    const call = check.check({ kind: 'workspace' });
    expect(() => passes[0]!()).to.not.throw();
    expect(await call, 'a check that threw did not complete').to.equal(false);
    expect(failures.map((error) => (error as Error).message)).to.deep.equal(['EIO']);
  });

  it('runs its pass on the next turn of the event loop by default', async () => {
    const dispatched: Fact[] = [];
    const check = createFreshnessCheck({ hashes: fakeHashes({ ...DISK, 'core.json': 'core-2' }), getState: state, dispatch: (fact) => void dispatched.push(fact), failed: (error) => { throw error; } });
    const call = check.check({ kind: 'workspace' });
    expect(dispatched).to.deep.equal([]);
    await call;
    expect(dispatched).to.have.length(1);
  });
});

describe('createFreshnessCheck of a start\'s first pass, on a real disk', () => {
  // A start's state: every input stamped a moment before (as the restore does), nothing vouched for.
  function restored() {
    const files: Record<string, string> = { 'core.json': '{}' };
    const names = Array.from({ length: 40 }, (_, index) => `app/one/f${String(index).padStart(2, '0')}.ts`);
    for (const [index, name] of names.entries()) files[name] = `export const f${index} = ${index};\n`;
    const root = tempWorkspace(files);
    const hashes = createFileHashes(root);
    const inputs: Record<string, string | null> = { 'app/one/tsconfig.json': null };
    for (const name of names) inputs[name] = hashes.hash(name);
    const current = fold([
      started,
      { type: 'workspace.read', workspace: workspaceModel([one], { sources: { 'core.json': hashes.hash('core.json'), 'app/one/': hashes.hash('app/one/'), 'app/one/tsconfig.json': null } }) },
      startedBuild(1, DEV, [{ module: one, generation: 1 }]),
      succeeded(1, one, DEV, inputs[names[0]!]!, { inputs }),
    ]);
    const dispatched: Fact[] = [];
    const check = createFreshnessCheck({ hashes, getState: () => current, dispatch: (fact) => void dispatched.push(fact), failed: (error) => { throw error; } });
    return { root, names, hashes, check, dispatched };
  }

  it('sees what changed after the stamps and before the check: an input rewritten, one removed, a file expected absent made', async () => {
    const { root, names, hashes, check, dispatched } = restored();
    fs.writeFileSync(path.join(root, names[1]!), 'export const changed = true;\n');
    fs.rmSync(path.join(root, names[39]!));
    fs.writeFileSync(path.join(root, 'app/one/tsconfig.json'), '{}');
    await check.check({ kind: 'all' });
    expect(dispatched).to.deep.equal([
      { type: 'files.changed', files: { 'app/one/': hashes.hash('app/one/'), 'app/one/tsconfig.json': hashes.hash('app/one/tsconfig.json'), [names[1]!]: hashes.hash(names[1]!), [names[39]!]: null }, source: 'check' },
    ]);
  });
});

// A restored state, and a reader whose inputs the worker read and the restore took as read (no stat then).
const restoredFiles = { 'core.json': '{}', 'app/package.json': '{"name":"app"}', 'app/one/index.ts': 'e1', 'app/one/helper.ts': 'h1', 'app/two/index.ts': 'x' };
const restoredInputs = { 'app/one/index.ts': contentHash('e1'), 'app/one/helper.ts': contentHash('h1') };
async function restoredStart() {
  const root = tempWorkspace(restoredFiles);
  const until = Date.now() + RACY_MS + 20; // past the racy window of the writes
  while (Date.now() < until);
  const sources = { 'core.json': contentHash(restoredFiles['core.json']), 'app/package.json': contentHash(restoredFiles['app/package.json']) };
  const state = fold([
    started,
    { type: 'workspace.read', workspace: workspaceModel([one, two], { sources }) },
    startedBuild(1, DEV, [{ module: one, generation: 1 }]),
    succeeded(1, one, DEV, 'e1', { inputs: restoredInputs }),
  ]);
  const hashes = createFileHashes(root, Date.now, { readAhead: true, granularityMs: 0 });
  await hashes.readAhead!(Object.keys(restoredInputs));
  for (const input of Object.keys(restoredInputs)) expect(hashes.takeAhead!(input)).to.equal(restoredInputs[input as keyof typeof restoredInputs]);
  const facts: Fact[] = [];
  const check = createFreshnessCheck({ hashes, getState: () => state, dispatch: (fact) => void facts.push(fact), failed: (error) => expect.fail(String(error)), quiet: () => null });
  return { root, state, hashes, facts, check };
}

describe("findChanges after a team start's restore", () => {
  it('sees an input changed after the restore took it as the worker read it (no stat then): its confirmation dates from before that read, which no later walk of the watcher vouches for', async () => {
    const { root, state, hashes } = await restoredStart();
    try {
      // Changed before the first check; the watcher's walk (after the start) vouches only for what is confirmed from it on.
      fs.writeFileSync(path.join(root, 'app/one/index.ts'), 'e2');
      const walk = nextWatchSequence();
      const proof: WatchProof = { unchangedSince: (_path, since) => since >= walk, proofGeneration: () => walk };
      expect(findChanges(state, ALL, hashes, proof)).to.deep.equal({ 'app/one/index.ts': contentHash('e2') });
    } finally {
      await hashes.close!();
    }
  });
});

describe("the first check after a team start's restore, before the watcher runs", () => {
  it("reports an input rewritten (same size) between the worker's read and the check", async () => {
    const { root, hashes, facts, check } = await restoredStart();
    try {
      fs.writeFileSync(path.join(root, 'app/one/index.ts'), 'e2');
      expect(await check.check({ kind: 'all' })).to.equal(true);
      expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/one/index.ts': contentHash('e2') }, source: 'check' }]);
    } finally {
      await hashes.close!();
    }
  });

  it("reports an input removed between the worker's read and the check, and nothing when nothing changed", async () => {
    const { root, hashes, facts, check } = await restoredStart();
    try {
      expect(await check.check({ kind: 'all' })).to.equal(true);
      expect(facts).to.deep.equal([]);
      fs.rmSync(path.join(root, 'app/one/helper.ts'));
      expect(await check.check({ kind: 'all' })).to.equal(true);
      expect(facts).to.deep.equal([{ type: 'files.changed', files: { 'app/one/helper.ts': null }, source: 'check' }]);
    } finally {
      await hashes.close!();
    }
  });
});
