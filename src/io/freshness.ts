// The check before answering (README "Workspaces", README "Addresses"): a request is answered only from state built
// from what is on disk now. The watcher is fast but can miss or delay a change; this check
// compares the recorded hashes of the manifests and of the inputs the answer depends on with
// the disk, and reports what differs as `files.changed` before the answer is derived.
//
// All requests arriving in one turn of the event loop share one pass: under load the cost
// of the check is spread over them, and each pass still starts after its requests arrived.
// A path the watcher proves unchanged since its content was last confirmed (`quiet`,
// tree-watcher.ts) is not looked at again: its last hash is what is on disk.
import type { Fact, InputHashes } from '../store/events.js';
import { defaultVariantKey } from '../store/selectors.js';
import type { BuildRecord, ServiceState } from '../store/state.js';
import type { FileHashes } from './file-hashes.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { indexWorkspace } from '../workspace/workspace-index.js';

export type CheckScope =
  /** The manifests only. */
  | { kind: 'workspace' }
  /** The manifests and the inputs of one module variant. */
  | { kind: 'variant'; module: string; variant: string }
  /** The manifests and the inputs of every module's default variant. */
  | { kind: 'all' };

export interface FreshnessCheck {
  check(scope: CheckScope): Promise<void>;
}

export interface FreshnessDeps {
  hashes: FileHashes;
  getState(): ServiceState;
  dispatch(fact: Fact): void;
  /** A throw of the pass (a defect of hashing or of the reducer): reported; its callers are answered still. */
  failed(error: unknown): void;
  /** When the shared pass runs; the next turn of the event loop by default. */
  schedule?(run: () => void): void;
  /** The watcher's proof, while a watcher runs (TreeWatcher.unchangedSince): whether `relative` is unchanged since `since`. */
  quiet?(): Quiet | null;
}

export type Quiet = (relative: string, since: number) => boolean;

export function createFreshnessCheck(deps: FreshnessDeps): FreshnessCheck {
  const schedule = deps.schedule ?? ((run) => void setImmediate(run));
  let pending: { scopes: CheckScope[]; waiting: (() => void)[] } | null = null;

  function pass() {
    const { scopes, waiting } = pending!;
    pending = null;
    try {
      const changed = findChanges(deps.getState(), scopes, deps.hashes, deps.quiet?.() ?? undefined);
      if (changed) deps.dispatch({ type: 'files.changed', files: changed, source: 'check' });
    } catch (error) {
      // The pass runs from the event loop: a throw here would end the process.
      deps.failed(error);
    } finally {
      for (const resolve of waiting) resolve();
    }
  }

  return {
    check(scope) {
      return new Promise<void>((resolve) => {
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

// What a scope expects on disk, as a flat list computed once per state: every request of a
// turn walks the same lists, and a settled state is asked again and again.
const expectations = new WeakMap<ServiceState, Map<string, Expected>>();

function expected(state: ServiceState, key: string, compute: () => Expected): Expected {
  let byKey = expectations.get(state);
  if (!byKey) expectations.set(state, (byKey = new Map()));
  let list = byKey.get(key);
  if (!list) byKey.set(key, (list = compute()));
  return list;
}

// The lists that depend on one immutable part of the state are kept with that part, not with
// the state: a build changes one record, and the next state's first pass reuses the rest.
const inputLists = new WeakMap<BuildRecord, Expected>();
const sourceLists = new WeakMap<WorkspaceModel, Expected>();
const allInputLists = new WeakMap<ServiceState, Expected[]>();

function workspaceSources(workspace: WorkspaceModel): Expected {
  let list = sourceLists.get(workspace);
  if (!list) sourceLists.set(workspace, (list = Object.entries(workspace.sources)));
  return list;
}

// Only a finished build can be stale; a pending or running one reads the disk anyway.
function variantInputs(state: ServiceState, module: string, variant: string): Expected {
  const entry = state.builds[module]?.variants[variant];
  if (entry?.status !== 'done' || !entry.last) return [];
  let list = inputLists.get(entry.last);
  if (!list) inputLists.set(entry.last, (list = Object.entries(entry.last.inputs)));
  return list;
}

/** The inputs of every module's default variant: one list per module, kept per state. */
function allInputs(state: ServiceState): Expected[] {
  let lists = allInputLists.get(state);
  if (!lists) allInputLists.set(state, (lists = state.workspace.modules.map((module) => variantInputs(state, module.specifier, defaultVariantKey(module)))));
  return lists;
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
}

const wholePlans = new WeakMap<ServiceState, { workspace?: WholePlan; all?: WholePlan }>();

function wholePlan(state: ServiceState, all: boolean): WholePlan {
  let plans = wholePlans.get(state);
  if (!plans) wholePlans.set(state, (plans = {}));
  const kind = all ? 'all' : 'workspace';
  let plan = plans[kind];
  if (plan) return plan;
  plan = { paths: [], first: [], others: [], index: new Map() };
  const lists: Expected[] = [];
  // A stale workspace is being read again anyway.
  if (!state.workspaceStale) lists.push(workspaceSources(state.workspace));
  if (all) for (const list of allInputs(state)) lists.push(list);
  for (const list of lists) {
    for (const [path, hash] of list) {
      const at = plan.index.get(path);
      if (at === undefined) {
        plan.index.set(path, plan.paths.length);
        plan.paths.push(path);
        plan.first.push(hash);
      } else if (plan.first[at] !== hash) plan.others.push([at, hash]);
    }
  }
  plans[kind] = plan;
  return plan;
}

/** The paths whose content differs from what the state recorded, with their hashes now. */
export function findChanges(state: ServiceState, scopes: readonly CheckScope[], hashes: FileHashes, quiet?: Quiet): InputHashes | null {
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
    if (!state.workspaceStale && !whole) lists.push(expected(state, `sources\0${scope.module}\0${scope.variant}`, () => moduleSources(state, scope.module, scope.variant)));
    lists.push(expected(state, `variant\0${scope.module}\0${scope.variant}`, () => variantInputs(state, scope.module, scope.variant)));
  }
  const current = (path: string): string | null => {
    if (quiet) {
      const confirmed = hashes.confirmed(path);
      if (confirmed && quiet(path, confirmed.seq)) return confirmed.hash;
    }
    return hashes.hash(path);
  };
  let changed: InputHashes | null = null;
  // Each path is looked at once per pass, however many lists expect it.
  const plan = whole ? wholePlan(state, scopes.some((scope) => scope.kind === 'all')) : null;
  const planned: (string | null)[] = [];
  if (plan) {
    for (let at = 0; at < plan.paths.length; at += 1) {
      const hashNow = current(plan.paths[at]!);
      planned.push(hashNow);
      if (hashNow !== plan.first[at]) (changed ??= {})[plan.paths[at]!] = hashNow!;
    }
    for (const [at, hash] of plan.others) if (planned[at] !== hash) (changed ??= {})[plan.paths[at]!] = planned[at]!;
  }
  const now = new Map<string, string | null>();
  for (const list of lists) {
    for (const [path, hash] of list) {
      const at = plan?.index.get(path);
      let hashNow = at === undefined ? now.get(path) : planned[at];
      if (hashNow === undefined && !now.has(path)) now.set(path, (hashNow = current(path)));
      if (hashNow !== hash) (changed ??= {})[path] = hashNow!;
    }
  }
  return changed;
}
