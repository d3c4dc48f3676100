// The check before answering (README "Workspaces", README "Addresses"): a request is answered only from state built
// from what is on disk now. The watcher is fast but can miss or delay a change; this check
// compares the recorded hashes of the manifests and of the inputs the answer depends on with
// the disk, and reports what differs as `files.changed` before the answer is derived.
//
// All requests arriving in one turn of the event loop share one pass: under load the cost
// of the check is spread over them, and each pass still starts after its requests arrived.
// A path the watcher proves unchanged since its content was last confirmed (`quiet`,
// tree-watcher.ts) is not looked at again: its last hash is what is on disk. And while nothing
// was noticed since a list of paths was proven so (`proofGeneration` has not moved), a pass looks
// only at the paths of it the watcher could not vouch for: one module's check costs what that
// module has, not what the workspace's tables hold (README "Addresses").
import type { Fact, InputHashes } from '../store/events.js';
import { defaultVariantKey } from '../store/selectors.js';
import type { BuildRecord, ServiceState } from '../store/state.js';
import { listingPathOf, watchSequence, type FileHashes } from './file-hashes.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { pathRecord } from '../workspace/path-records.js';
import { LINK_TARGET } from '../workspace/paths.js';
import { indexWorkspace } from '../workspace/workspace-index.js';

export type CheckScope =
  /** The manifests only. */
  | { kind: 'workspace' }
  /** The manifests and the inputs of one module variant. */
  | { kind: 'variant'; module: string; variant: string }
  /** The manifests and the inputs of every module's default variant. */
  | { kind: 'all' };

export interface FreshnessCheck {
  /** Resolves once the disk was looked at for `scope`: true, or false when the pass threw (nothing was proven). */
  check(scope: CheckScope): Promise<boolean>;
}

export interface FreshnessDeps {
  hashes: FileHashes;
  getState(): ServiceState;
  dispatch(fact: Fact): void;
  /** A throw of the pass (a defect of hashing or of the reducer): reported; its callers are answered still. */
  failed(error: unknown): void;
  /** When the shared pass runs; the next turn of the event loop by default. */
  schedule?(run: () => void): void;
  /** The watcher's proof, while a watcher runs (the tree watcher): whether a path is unchanged since a watch sequence. */
  quiet?(): WatchProof | null;
}

/** Whether `relative` is unchanged since `since`, the watch sequence when its content was last confirmed. */
export type Quiet = (relative: string, since: number) => boolean;

export interface WatchProof {
  unchangedSince: Quiet;
  /**
   * A count that moves whenever an answer `unchangedSince` gave may no longer hold (a notice, a
   * walk, a link seen, a watch lost, the watcher closed): while it stays, every path proven stays proven.
   */
  proofGeneration(): number;
}

export function createFreshnessCheck(deps: FreshnessDeps): FreshnessCheck {
  const schedule = deps.schedule ?? ((run) => void setImmediate(run));
  let pending: { scopes: CheckScope[]; waiting: ((completed: boolean) => void)[] } | null = null;

  function pass() {
    const { scopes, waiting } = pending!;
    pending = null;
    let completed = false;
    try {
      const changed = findChanges(deps.getState(), scopes, deps.hashes, deps.quiet?.() ?? undefined);
      if (changed) deps.dispatch({ type: 'files.changed', files: changed, source: 'check' });
      completed = true;
    } catch (error) {
      // The pass runs from the event loop: a throw here would end the process.
      deps.failed(error);
    } finally {
      for (const resolve of waiting) resolve(completed);
    }
  }

  return {
    check(scope) {
      return new Promise<boolean>((resolve) => {
        if (!pending) {
          pending = { scopes: [], waiting: [] };
          schedule(pass);
        }
        pending.scopes.push(scope);
        pending.waiting.push(resolve);
      });
    },
  };
}

type Expected = readonly (readonly [path: string, hash: string | null])[];

// The lists that depend on one immutable part of the state are kept with that part, not with
// the state: a build changes one record, and the next state's first pass reuses the rest.
const inputLists = new WeakMap<BuildRecord, Expected>();
const sourceLists = new WeakMap<WorkspaceModel, Expected>();

function workspaceSources(workspace: WorkspaceModel): Expected {
  let list = sourceLists.get(workspace);
  if (!list) sourceLists.set(workspace, (list = Object.entries(workspace.sources)));
  return list;
}

// Only a finished build can be stale; a pending or running one reads the disk anyway.
function finishedRecord(state: ServiceState, module: string, variant: string): BuildRecord | undefined {
  const entry = state.builds[module]?.variants[variant];
  return entry?.status === 'done' && entry.last ? entry.last : undefined;
}

const finishedInputs = (state: ServiceState, module: string, variant: string): BuildRecord['inputs'] | undefined => finishedRecord(state, module, variant)?.inputs;

function variantInputs(state: ServiceState, module: string, variant: string): Expected {
  const record = finishedRecord(state, module, variant);
  if (!record) return [];
  let list = inputLists.get(record);
  if (!list) inputLists.set(record, (list = Object.entries(record.inputs)));
  return list;
}

// The manifests and listings an output depends on: those outside every package (core.json, the
// selection, shared tsconfig files); of its own package, those at the package's level
// (package.json, its listing) and those of its own module's directory (its module.json and
// listing), never another module's; and the same of each workspace package it imports, for the
// modules it imports (their versions, `exports` and platforms decide its dependency checks).
const sourcesByPackage = new WeakMap<object, { shared: Expected; byPackage: Map<string, Expected>; moduleDirs: Map<string, string[]> }>();

/** The package whose directory holds `path` (the deepest, when package directories nest), found by the path's own directories: no scan of every package per path. */
function ownerOf(packageByDir: ReadonlyMap<string, string>, path: string): string | undefined {
  let dir = path.endsWith('/') ? path.slice(0, -1) : path;
  for (;;) {
    const owner = packageByDir.get(dir);
    if (owner !== undefined) return owner;
    const cut = dir.lastIndexOf('/');
    if (cut <= 0) return undefined;
    dir = dir.slice(0, cut);
  }
}

function splitSources(workspace: WorkspaceModel) {
  let split = sourcesByPackage.get(workspace);
  if (split) return split;
  // The deepest directory first, then the workspace's order: the first package met wins.
  const packages = [...workspace.packages].sort((a, b) => b.dir.length - a.dir.length);
  const packageByDir = new Map<string, string>();
  const dirOf = new Map<string, string>();
  for (const pkg of packages) {
    if (!dirOf.has(pkg.name)) dirOf.set(pkg.name, pkg.dir);
    if (pkg.dir !== '.' && pkg.dir !== '' && !packageByDir.has(pkg.dir)) packageByDir.set(pkg.dir, pkg.name);
  }
  const shared: [string, string | null][] = [];
  const byPackage = new Map<string, [string, string | null][]>();
  for (const [path, hash] of Object.entries(workspace.sources)) {
    const owner = ownerOf(packageByDir, path);
    if (owner === undefined) shared.push([path, hash]);
    else {
      let entries = byPackage.get(owner);
      if (!entries) byPackage.set(owner, (entries = []));
      entries.push([path, hash]);
    }
  }
  // Each package's module directories other than the package's own: what belongs to one module.
  const moduleDirs = new Map<string, string[]>();
  for (const module of workspace.modules) {
    const own = dirOf.get(module.package);
    if (own === undefined || module.dir === own || module.dir === '.' || module.dir === '') continue;
    let dirs = moduleDirs.get(module.package);
    if (!dirs) moduleDirs.set(module.package, (dirs = []));
    dirs.push(module.dir);
  }
  sourcesByPackage.set(workspace, (split = { shared, byPackage, moduleDirs }));
  return split;
}

// One module's manifests depend on the workspace and on what its last build imported: kept with
// the workspace, by the module variant, while that build record is the same object. A build of
// another module makes a new state but leaves this list (and what was proven of it) as it was.
const sourceListsOfModules = new WeakMap<WorkspaceModel, Map<string, { record: BuildRecord | null | undefined; list: Expected }>>();

function moduleSourcesKept(state: ServiceState, specifier: string, variant: string): Expected {
  let byVariant = sourceListsOfModules.get(state.workspace);
  if (!byVariant) sourceListsOfModules.set(state.workspace, (byVariant = new Map()));
  const key = `${specifier}\0${variant}`;
  const record = state.builds[specifier]?.variants[variant]?.last;
  const kept = byVariant.get(key);
  if (kept && kept.record === record) return kept.list;
  const list = moduleSources(state, specifier, variant);
  byVariant.set(key, { record, list });
  return list;
}

function moduleSources(state: ServiceState, specifier: string, variant: string): Expected {
  const { workspace } = state;
  const split = splitSources(workspace);
  const byName = indexWorkspace(workspace).modules;
  const module = byName.get(specifier);
  if (!module) return workspaceSources(workspace);
  // The modules whose declarations this answer depends on: itself, and those it imports.
  const wanted = new Map<string, Set<string>>([[module.package, new Set([module.dir])]]);
  for (const { specifier: imported } of state.builds[specifier]?.variants[variant]?.last?.imports ?? []) {
    const name = imported.startsWith('@') ? imported.split('/').slice(0, 2).join('/') : imported.split('/')[0]!;
    if (!split.byPackage.has(name)) continue;
    if (!wanted.has(name)) wanted.set(name, new Set());
    const target = byName.get(imported);
    if (target) wanted.get(name)!.add(target.dir);
    else for (const dir of split.moduleDirs.get(name) ?? []) wanted.get(name)!.add(dir); // not a module (yet): all of them
  }
  const inside = (path: string, dir: string) => path === `${dir}/` || path.startsWith(`${dir}/`);
  const paths: (readonly [string, string | null])[] = [...split.shared];
  for (const [name, keep] of wanted) {
    const others = (split.moduleDirs.get(name) ?? []).filter((dir) => !keep.has(dir));
    for (const entry of split.byPackage.get(name) ?? []) {
      // Inside another module's directory, and inside none this answer depends on: not its concern.
      if (others.some((dir) => inside(entry[0], dir)) && ![...keep].some((dir) => inside(entry[0], dir))) continue;
      paths.push(entry);
    }
  }
  return paths;
}

/**
 * The paths a check of the whole workspace looks at (every manifest, and with `all` every
 * module's inputs), each once, in the order first met, with the hash each list expects of it:
 * made once per state, so that every pass over a settled state (each `/state` answer) walks
 * one list, without a map of what it has looked at already.
 */
interface WholePlan {
  paths: string[];
  /** The hash the first list naming the path expects. */
  first: (string | null)[];
  /** Other hashes expected of a path (a build read it as another hash than the manifests record): [its index, the hash]. */
  others: [number, string | null][];
  index: Map<string, number>;
  /** For a file expected absent, the index of its directory's listing in the plan; else -1. */
  listingOf: Int32Array;
}

const wholePlans = new WeakMap<ServiceState, { workspace?: WholePlan; all?: WholePlan }>();

function wholePlan(state: ServiceState, all: boolean): WholePlan {
  let plans = wholePlans.get(state);
  if (!plans) wholePlans.set(state, (plans = {}));
  const kind = all ? 'all' : 'workspace';
  let plan = plans[kind];
  if (plan) return plan;
  const made: WholePlan = { paths: [], first: [], others: [], index: new Map(), listingOf: new Int32Array(0) };
  plan = made;
  // The files expected absent, whose listings are looked for once every path is in.
  const absent: number[] = [];
  const add = (path: string, hash: string | null) => {
    const at = made.index.get(path);
    if (at === undefined) {
      if (hash === null) absent.push(made.paths.length);
      made.index.set(path, made.paths.length);
      made.paths.push(path);
      made.first.push(hash);
    } else if (made.first[at] !== hash) made.others.push([at, hash]);
  };
  // A stale workspace is being read again anyway.
  if (!state.workspaceStale) for (const [path, hash] of workspaceSources(state.workspace)) add(path, hash);
  // Each module's inputs read where the record holds them: the first pass over a start's state
  // meets every record once, and a list of pairs per record (`variantInputs`) is made only for
  // the module answers that ask for one.
  if (all) {
    for (const module of state.workspace.modules) {
      const inputs = finishedInputs(state, module.specifier, defaultVariantKey(module));
      if (inputs) for (const path in inputs) add(path, inputs[path]!);
    }
  }
  made.listingOf = new Int32Array(made.paths.length).fill(-1);
  for (const at of absent) {
    const path = made.paths[at]!;
    // Where a link leads is named by no listing: none proves it absent (`absentFromListingOf`).
    if (!path.endsWith('/') && !path.endsWith(LINK_TARGET)) made.listingOf[at] = made.index.get(listingPathOf(path)) ?? -1;
  }
  plans[kind] = plan;
  return plan;
}

/**
 * What a pass proved of one list of paths (or of a whole plan), while the watcher's
 * `proofGeneration` is `at` and the hashes are read by `hashes`: the paths it could not vouch
 * for, or whose hash differs from the list's, to be looked at again; every other path of it is
 * what the list expects, until something is noticed.
 */
interface Proven {
  at: number;
  hashes: FileHashes;
  residual: Expected;
}

interface ProvenPlan {
  at: number;
  hashes: FileHashes;
  /** The hash of each path of the plan at the last pass, and whether the watcher vouched for it and it was the hash first expected. */
  planned: (string | null)[];
  sure: Uint8Array;
  /** The indexes not `sure`. */
  residual: number[];
}

const provenByWatcher = new WeakMap<WatchProof, WeakMap<object, Proven | ProvenPlan>>();

/** A path's hash now, and whether the last one looked at took the watcher's word for it. */
interface Looker {
  current(path: string): string | null;
  vouched: boolean;
}

function lookerOf(hashes: FileHashes, unchanged: Quiet | undefined): Looker {
  const looker: Looker = {
    vouched: false,
    current(path) {
      looker.vouched = false;
      if (unchanged) {
        const confirmed = hashes.confirmed(path);
        if (confirmed && (unchanged(path, confirmed.seq) || (confirmed.hash === null && directoryStillAbsent(hashes, unchanged, path)))) {
          looker.vouched = true;
          return confirmed.hash;
        }
      }
      return hashes.hash(path);
    },
  };
  return looker;
}

// A file found absent in a directory that is not there either (`.core/selection.json` before the
// first `core select`): no watch covers the file, but the directory is an entry of a watched one,
// and the watcher proves it still absent by the one rule (README "Addresses"); no file is in a
// directory that is not there. Its absence is stamped once, when its parent's watch could vouch
// for it: a directory that is there is listed once, and is not asked about again. So is that
// directory's own listing found absent (`.core/`, read for what the selection is when it is no
// file): the directory is an entry of its parent's watch.
function directoryStillAbsent(hashes: FileHashes, unchanged: Quiet, path: string): boolean {
  const name = path.endsWith('/') ? path.slice(0, -1) : path;
  if (path.endsWith('/') && name !== '' && name !== '.') {
    const listed = hashes.confirmed(path);
    if (listed !== undefined && listed.hash === null && unchanged(name, listed.seq)) return true;
  }
  const cut = name.lastIndexOf('/');
  if (cut <= 0) return false;
  const dir = name.slice(0, cut);
  let confirmed = hashes.confirmed(`${dir}/`);
  if (!confirmed && unchanged(dir, watchSequence())) {
    hashes.stamp(`${dir}/`);
    confirmed = hashes.confirmed(`${dir}/`);
  }
  return confirmed !== undefined && confirmed.hash === null && unchanged(dir, confirmed.seq);
}

type Proofs = WeakMap<object, Proven | ProvenPlan>;
interface Pass {
  looker: Looker;
  proofs: Proofs | undefined;
  at: number;
  hashes: FileHashes;
  /** A `files.changed` payload, kept in the event log: a path record (ARCHITECTURE.md "One module's requests at 10,000 modules"). */
  changed: InputHashes | null;
}

// The whole plan's paths, each once: while the watcher's proof has not moved since the last pass,
// only the paths it did not vouch for (or that differed) are looked at again.
function lookAtPlan(plan: WholePlan, pass: Pass): { planned: (string | null)[]; sure: Uint8Array } {
  const { looker, proofs, at, hashes } = pass;
  const count = plan.paths.length;
  const before = proofs?.get(plan) as ProvenPlan | undefined;
  const still = before !== undefined && before.at === at && before.hashes === hashes;
  const planned = before?.planned ?? new Array<string | null>(count);
  const sure = before?.sure ?? new Uint8Array(count);
  const residual: number[] = [];
  const look = (index: number) => {
    const hashNow = looker.current(plan.paths[index]!);
    planned[index] = hashNow;
    const same = hashNow === plan.first[index];
    sure[index] = looker.vouched && same ? 1 : 0;
    if (!same) (pass.changed ??= pathRecord())[plan.paths[index]!] = hashNow!;
    if (!sure[index]) residual.push(index);
  };
  // A file expected absent, in a directory whose listing this plan looks at, is looked at after
  // that listing: a listing of the hash just taken (or vouched for) without its name proves it
  // absent now, as a stat of its own would (README "Addresses"). Only on a pass of a new proof
  // generation: a proof by listing is not the watcher's, so while the generation holds, the
  // next passes stat the path once, and the watcher vouches for it from then on.
  const afterListings: number[] = [];
  if (still) for (const index of before.residual) look(index);
  else if (!hashes.absentFromListing) for (let index = 0; index < count; index += 1) look(index);
  else {
    const { listingOf } = plan;
    for (let index = 0; index < count; index += 1) {
      if (listingOf[index] === -1) look(index);
      else afterListings.push(index);
    }
  }
  for (const index of afterListings) {
    const listingHash = planned[plan.listingOf[index]!];
    if (typeof listingHash === 'string' && hashes.absentFromListing!(plan.paths[index]!, listingHash)) {
      // Proven by this pass, not by the watcher: looked at again by the next one.
      planned[index] = null;
      sure[index] = 0;
      residual.push(index);
    } else look(index);
  }
  for (const [index, hash] of plan.others) if (planned[index] !== hash) (pass.changed ??= pathRecord())[plan.paths[index]!] = planned[index]!;
  if (proofs) proofs.set(plan, { at, hashes, planned, sure, residual });
  return { planned, sure };
}

/** The paths whose content differs from what the state recorded, with their hashes now. */
export function findChanges(state: ServiceState, scopes: readonly CheckScope[], hashes: FileHashes, quiet?: Quiet | WatchProof): InputHashes | null {
  // `/state`, the preview and every `workspace` answer check every manifest; an output checks
  // only the manifests it depends on, so its cost does not grow with the workspace (README "Addresses").
  const whole = scopes.some((scope) => scope.kind !== 'variant');
  const lists: Expected[] = [];
  // Under load a pass serves many requests of the same few addresses: each scope's lists once.
  const variants = new Set<string>();
  for (const scope of scopes) {
    if (scope.kind !== 'variant') continue;
    const key = `${scope.module}\0${scope.variant}`;
    if (variants.has(key)) continue;
    variants.add(key);
    if (!state.workspaceStale && !whole) lists.push(moduleSourcesKept(state, scope.module, scope.variant));
    lists.push(variantInputs(state, scope.module, scope.variant));
  }
  // A bare function (the tests' proofs) proves path by path; a watcher's proof also says when what it proved may have changed.
  const watch = typeof (quiet as WatchProof | undefined)?.proofGeneration === 'function' ? (quiet as WatchProof) : null;
  const unchanged: Quiet | undefined = watch ? (relative, since) => watch.unchangedSince(relative, since) : (quiet as Quiet | undefined);
  let proofs = watch ? provenByWatcher.get(watch) : undefined;
  if (watch && !proofs) provenByWatcher.set(watch, (proofs = new WeakMap()));
  const pass: Pass = { looker: lookerOf(hashes, unchanged), proofs, at: watch ? watch.proofGeneration() : -1, hashes, changed: null };
  // Each path is looked at once per pass, however many lists expect it.
  const plan = whole ? wholePlan(state, scopes.some((scope) => scope.kind === 'all')) : null;
  const { planned, sure } = plan ? lookAtPlan(plan, pass) : { planned: [], sure: new Uint8Array(0) };
  const now = new Map<string, string | null>();
  const unvouched = new Set<string>();
  for (const list of lists) {
    const before = proofs?.get(list) as Proven | undefined;
    const entries = before !== undefined && before.at === pass.at && before.hashes === hashes ? before.residual : list;
    const residual: (readonly [string, string | null])[] = [];
    for (const entry of entries) {
      const [path, hash] = entry;
      const index = plan?.index.get(path);
      let hashNow: string | null;
      let proven: boolean;
      if (index !== undefined) {
        hashNow = planned[index]!;
        proven = sure[index] === 1;
      } else if (now.has(path)) {
        hashNow = now.get(path)!;
        proven = !unvouched.has(path);
      } else {
        now.set(path, (hashNow = pass.looker.current(path)));
        proven = pass.looker.vouched;
        if (!proven) unvouched.add(path);
      }
      if (hashNow !== hash) (pass.changed ??= pathRecord())[path] = hashNow!;
      else if (proven) continue;
      residual.push(entry);
    }
    if (proofs) proofs.set(list, { at: pass.at, hashes, residual });
  }
  return pass.changed;
}
