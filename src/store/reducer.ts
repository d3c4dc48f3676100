// The pure reducer: (state, event) -> state. No I/O, no clock, no randomness: replaying a
// recorded log through it yields exactly the state the live service had (README "The event log, replay and state subscription").
import { Immer, type Draft } from 'immer';
import type { ImportRecord } from '../workspace/checks.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';
import { pathRecord } from '../workspace/path-records.js';
import { defaultVariant, PRODUCTION_BROWSER_KEY, variantKey } from '../workspace/variant.js';
import { parseBareSpecifier } from '../workspace/specifiers.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { withNamesSeen, type PackageNamesSeen } from '../workspace/former-names.js';
import { UNVERIFIED, type BuildFindings, type BuildOutputs, type CoreEvent, type EventOf, type EventType } from './events.js';
import { initialState, knownInputHash, type BuildRecord, type ModuleBuilds, type ServiceState, type VariantState } from './state.js';

type Handler<T extends EventType> = (draft: Draft<ServiceState>, event: EventOf<T>, base: ServiceState) => void;
type Handlers = { [T in EventType]: Handler<T> };

/** Can the module be built at all? A broken manifest or a missing entry says no. */
export const isBuildable = (module: ModuleModel): boolean =>
  module.diagnostics.length === 0 && module.entry !== null && module.bundler.specifier !== '';

/**
 * What a build depends on in a module's declaration (not its version: addresses are relative),
 * and whether it can be built: fixing a broken member of a module.json can leave the rest of
 * the declaration as it was, and the module must then be built.
 */
export const fingerprintOf = (module: ModuleModel): string =>
  JSON.stringify([module.entry, module.dir, module.subpath, module.assets, module.platforms, module.bundler, module.define ?? null, isBuildable(module)]);

const freshVariant = (eager: boolean, requested = false): VariantState => ({
  generation: 1,
  status: 'pending',
  eager,
  requested,
  build: null,
  last: null,
  seen: null,
});

/**
 * An empty record held by V8 as a dictionary from the start: deleting a property other than the
 * last one added is what turns an object into one; it keeps its prototype, and its keys their
 * order. Spreading the builds of 1,000 modules (a dictionary already) into a new literal cost
 * about 2 ms a copy, made for each `build.started` and each batch of results of a start; copied
 * key by key into a dictionary it costs a tenth.
 */
function dictionaryRecord<T>(): Record<string, T> {
  const record: Record<string, unknown> = { first: 0, second: 0 };
  delete record.first;
  delete record.second;
  return record as Record<string, T>;
}

function copyOf<T>(base: Readonly<Record<string, T>>): Record<string, T> {
  const copy = dictionaryRecord<T>();
  for (const key of Object.keys(base)) copy[key] = base[key]!;
  return copy;
}

// Many modules' builds replaced in one event (a workspace read, a restored cache) go into a new
// map assigned whole, never through a draft of the map: immer walks every plain value assigned
// into a draft that has draft siblings, looking for drafts in it (the whole workspace and every
// restored record: a fifth of a 1,000-module restart), and skips that walk for a value assigned
// to the root alone. The map is copied once, on the first change; none leaves it as it was.
function replacing<T>(base: Readonly<Record<string, T>>) {
  let next: Record<string, T> | null = null;
  return {
    /** The value as replaced so far. */
    get: (key: string): T | undefined => (next ?? base)[key],
    set(key: string, value: T) {
      (next ??= copyOf(base))[key] = value;
    },
    remove(key: string) {
      if (!(key in (next ?? base))) return;
      delete (next ??= copyOf(base))[key];
    },
    changed: (): Record<string, T> | null => next,
  };
}

const leftOutPackages = new WeakMap<WorkspaceModel, Set<string>>();

/**
 * Whether the module belongs to a package left out of development by `core select` and runs in
 * browsers: the preview loads its production build (README "The local CDN"), so that variant is
 * built as eagerly as the development one and judged in its report (README "Addresses"). False
 * for every module while no selection exists: no production build the workspace did not ask for.
 */
export function runsInProduction(workspace: WorkspaceModel, module: ModuleModel): boolean {
  if (workspace.selection === null || !module.platforms.includes('web') || !isBuildable(module)) return false;
  let selected = leftOutPackages.get(workspace);
  if (!selected) leftOutPackages.set(workspace, (selected = new Set(workspace.selection)));
  return !selected.has(module.package);
}

// A module whose declaration is unchanged, its production variant made eager when its package
// was left out of development, and no longer eager once selected again (its last build kept).
function withProductionWanted(previous: ModuleBuilds, wanted: boolean): ModuleBuilds {
  const variant = previous.variants[PRODUCTION_BROWSER_KEY];
  if ((variant?.eager ?? false) === wanted) return previous;
  const next: VariantState = variant ? { ...variant, eager: wanted } : freshVariant(true);
  return { ...previous, variants: { ...previous.variants, [PRODUCTION_BROWSER_KEY]: next } };
}

// A variant whose sources changed: its last result is stale, and a build in flight is too.
const invalidated = (variant: VariantState) => ({ generation: variant.generation + 1, status: 'pending' as const, build: null });

function invalidate(variant: Draft<VariantState>) {
  Object.assign(variant, invalidated(variant));
}

// A save lets esbuild's process be started again (README "When esbuild's process dies"): every
// variant esbuild could not build then builds again, not only those whose inputs the save changed.
const isSave = (event: EventOf<'files.changed'>): boolean => event.source === 'watcher' && Object.values(event.files).some((hash) => hash !== null);
const engineWasUnavailable = (variant: VariantState): boolean => variant.last?.errors.some((error) => error.kind === 'ENGINE_UNAVAILABLE') === true;

const handlers: Handlers = {
  'service.started': (draft, event) => {
    Object.assign(draft, initialState(), { root: event.root });
    if (event.localCdn) draft.localCdn = true;
    else delete draft.localCdn;
    // The names of this run only (README "Workspaces"): a log of several runs replays each anew.
    delete draft.packageNamesSeen;
  },

  'workspace.read': (draft, event, base) => {
    const { workspace } = event;
    draft.workspace = workspace;
    draft.workspaceStale = false;
    draft.workspaceRead = true;
    // A package renamed keeps its old name here, which imports still naming it are warned of.
    const namesSeen = withNamesSeen(base.packageNamesSeen, workspace.packages);
    if (namesSeen !== base.packageNamesSeen) draft.packageNamesSeen = namesSeen as Draft<PackageNamesSeen>;
    const builds = replacing(base.builds);
    const seen = new Set<string>();
    for (const module of workspace.modules) {
      seen.add(module.specifier);
      const fingerprint = fingerprintOf(module);
      const previous = base.builds[module.specifier];
      const production = runsInProduction(workspace, module);
      if (previous && previous.fingerprint === fingerprint) {
        const wanted = withProductionWanted(previous, production);
        if (wanted !== previous) builds.set(module.specifier, wanted);
        continue;
      }
      const next: ModuleBuilds = { fingerprint, variants: {} };
      if (isBuildable(module)) {
        // Variants someone asked for stay wanted; all restart from the new declaration.
        const before = previous?.variants ?? {};
        const eagerKeys = [variantKey(defaultVariant(module)), ...(production ? [PRODUCTION_BROWSER_KEY] : [])];
        for (const key of new Set([...eagerKeys, ...Object.keys(before)])) {
          const earlier = outputsMadeBefore(previous, key);
          next.variants[key] = { ...freshVariant(eagerKeys.includes(key)), generation: (before[key]?.generation ?? 0) + 1, ...(earlier ? { earlier } : {}), ...(base.workspaceStale ? { afterChange: true as const } : {}) };
        }
      }
      if (previous) {
        // What the variants no longer there made (the module unbuildable now: a manifest problem) stays theirs.
        const earlier: Record<string, BuildOutputs[]> = {};
        for (const key of new Set([...Object.keys(previous.variants), ...Object.keys(previous.earlier ?? {})])) {
          const made = key in next.variants ? undefined : outputsMadeBefore(previous, key);
          if (made) earlier[key] = made;
        }
        if (Object.keys(earlier).length > 0) next.earlier = earlier;
      }
      builds.set(module.specifier, next);
    }
    for (const specifier of Object.keys(base.builds)) {
      if (!seen.has(specifier)) builds.remove(specifier);
    }
    const changed = builds.changed();
    if (changed) draft.builds = changed;
    wantDeepImportsOfOpened(draft, base, workspace);
  },

  'workspace.unchanged': (draft, event) => {
    draft.workspace.sources = event.sources;
    draft.workspaceStale = false;
  },

  // The variants are replaced in a new map, as `build.started` does: a draft of one made immer
  // walk every other module's builds on each save (ARCHITECTURE.md "One stylesheet edit").
  'files.changed': (draft, event, base) => {
    const sources = base.workspace.sources;
    const files = Object.entries(event.files);
    for (const [path, hash] of files) {
      if (path in sources && sources[path] !== hash) draft.workspaceStale = true;
    }
    const builds = replacing(base.builds);
    const engineMayRun = isSave(event);
    for (const [specifier, moduleBuilds] of Object.entries(base.builds)) {
      let variants: Record<string, VariantState> | null = null;
      for (const [key, variant] of Object.entries(moduleBuilds.variants)) {
        const inputs = variant.last?.inputs;
        if (!inputs) continue;
        let seen: Record<string, string | null> | null = null;
        for (const [path, hash] of files) {
          if (!(path in inputs) || knownInputHash(variant, path) === hash) continue;
          // Kept in the state, keyed by paths (ARCHITECTURE.md "One module's requests at 10,000 modules").
          (seen ??= Object.assign(pathRecord<string | null>(), variant.seen))[path] = hash;
        }
        const retried = engineMayRun && variant.status === 'done' && engineWasUnavailable(variant);
        if (!seen && !retried) continue;
        // A pending variant is stale already; its next build reads the disk anyway.
        const stale = variant.status === 'pending' ? {} : invalidated(variant);
        (variants ??= { ...moduleBuilds.variants })[key] = { ...variant, ...(seen ? { seen } : {}), ...stale };
      }
      if (variants) builds.set(specifier, { ...moduleBuilds, variants });
    }
    const changed = builds.changed();
    if (changed) draft.builds = changed;
  },

  'output.requested': (draft, event, base) => {
    // A file of a package without `exports` asked for by address: found like an import of it.
    wantDeepImports(draft, base.workspace, [{ specifier: event.module }]);
    const builds = base.builds[event.module];
    const module = indexWorkspace(base.workspace).modules.get(event.module);
    if (!builds || !module || !isBuildable(module)) return;
    const variant = builds.variants[event.variant];
    const target = draft.builds[event.module]!;
    if (!variant) target.variants[event.variant] = freshVariant(false, true);
    else if (variant.status === 'pending') target.variants[event.variant]!.requested = true;
  },

  // A batch's modules are replaced in a new map, not through drafts of each (see `replacing`):
  // drafts under the map made immer walk every other module's builds, and the workspace, on
  // each start of a batch and each batch of results.
  'build.started': (draft, event, base) => {
    const builds = replacing(base.builds);
    for (const { module, generation } of event.modules) {
      const previous = builds.get(module);
      const variant = previous?.variants[event.variant];
      if (!previous || !variant || variant.generation !== generation || variant.status !== 'pending') continue;
      builds.set(module, { ...previous, variants: { ...previous.variants, [event.variant]: { ...variant, status: 'building', build: event.build } } });
    }
    const changed = builds.changed();
    if (changed) draft.builds = changed;
  },

  'build.succeeded': (draft, event, base) => finishAll(draft, base, [event]),

  'build.failed': (draft, event, base) => finishAll(draft, base, [event]),

  'build.cancelled': (draft, event, base) => {
    for (const [specifier, builds] of Object.entries(base.builds)) {
      for (const [key, variant] of Object.entries(builds.variants)) {
        if (variant.build !== event.build) continue;
        const target = draft.builds[specifier]!.variants[key]!;
        target.build = null;
        target.status = 'pending';
      }
    }
  },

  'copies.found': (draft, event, base) => {
    for (const { module, variant: key, build } of event.copies) {
      const variant = base.builds[module]?.variants[key];
      if (!variant || variant.status !== 'done' || variant.last?.build !== build) continue;
      invalidate(draft.builds[module]!.variants[key]!);
    }
  },

  'cache.restored': (draft, event, base) => restoreBuilds(draft, event.builds, base),

  // Builds of the team's remote cache, verified against this disk: taken as the local cache's are.
  'cache.remote.restored': (draft, event, base) => {
    const { url, asked, builds, misses, failures, requests, bytes, ms } = event;
    draft.remoteCache = { url, asked, hits: builds.length, misses, failures, requests, bytes, ms };
    restoreBuilds(draft, builds, base);
  },

  // Counted in the event log only: the model itself comes with the `workspace.read` beside it.
  'cache.remote.model': () => {},

  'service.stopped': () => {},

  'effect.failed': (draft, event, base) => {
    const worst = Math.max(base.effects?.[event.effect]?.worst ?? 0, event.failures);
    (draft.effects ??= {})[event.effect] = { message: event.message, failures: event.failures, worst };
  },

  'watch.unwatched': (draft, event) => {
    draft.unwatched = event.paths;
  },
};

// Builds of an earlier run whose every input is unchanged: done, as if built now. Only a
// variant nothing has built or started yet takes one.
/**
 * The findings a build's record keeps beside its outputs, each only when it says something: one
 * place for a build restored and a build finished, so a finding added to both is kept by both.
 */
function keptFindings(found: Pick<BuildFindings, 'warnings' | 'shared' | 'links' | 'chunkLinks' | 'sharedImports' | 'shims'>) {
  return { ...(found.shims ? { shims: found.shims } : {}), ...(found.warnings?.length ? { warnings: found.warnings } : {}), ...(found.shared?.length ? { shared: found.shared } : {}), ...(found.links ? { links: found.links } : {}), ...(found.chunkLinks ? { chunkLinks: found.chunkLinks } : {}), ...(found.sharedImports?.length ? { sharedImports: found.sharedImports } : {}) };
}

function restoreBuilds(draft: Draft<ServiceState>, restored: EventOf<'cache.restored'>['builds'], base: ServiceState) {
  const builds = replacing(base.builds);
  for (const { module, variant: key, outputs, imports, inputs, resolution, warnings, shared, links, chunkLinks, sharedImports, shims } of restored) {
    const previous = builds.get(module);
    const variant = previous?.variants[key];
    if (!previous || !variant || variant.status !== 'pending' || variant.build !== null || variant.last !== null) continue;
    const last = { build: 0, outputs, errors: [], imports, inputs, ...(resolution?.length ? { resolution } : {}), ...keptFindings({ warnings, shared, links, chunkLinks, sharedImports, shims }) };
    wantDeepImports(draft, base.workspace, imports);
    builds.set(module, { ...previous, variants: { ...previous.variants, [key]: { ...variant, last, status: 'done', requested: false, seen: null } } });
  }
  const changed = builds.changed();
  if (changed) draft.builds = changed;
}

// A result counts only for the build the variant waits for; a stale one is dropped. A result
// that read a file changing under it (an unverified input) is kept but not trusted: it builds again.
function finishAll(draft: Draft<ServiceState>, base: ServiceState, events: readonly (EventOf<'build.succeeded'> | EventOf<'build.failed'>)[]) {
  const builds = replacing(base.builds);
  for (const event of events) {
    const previous = builds.get(event.module);
    const variant = previous?.variants[event.variant];
    if (!previous || !variant || variant.build !== event.build) continue;
    const imports = sameImports(variant.last?.imports, event.imports);
    const record: BuildRecord =
      event.type === 'build.succeeded'
        ? { build: event.build, outputs: event.outputs, errors: [], imports, inputs: event.inputs, ...(event.resolution?.length ? { resolution: sameList(variant.last?.resolution, event.resolution) } : {}), ...keptFindings(event) }
        : { build: event.build, outputs: null, errors: event.errors, imports, inputs: event.inputs };
    wantDeepImports(draft, base.workspace, record.imports);
    const unverified = Object.values(record.inputs).includes(UNVERIFIED);
    const earlier = earlierOutputs(variant, record);
    const finished: VariantState = { ...variant, last: record, ...(earlier ? { earlier } : {}), build: null, requested: false, seen: null, ...(unverified ? { generation: variant.generation + 1, status: 'pending' as const } : { status: 'done' as const }) };
    builds.set(event.module, { ...previous, variants: { ...previous.variants, [event.variant]: finished } });
  }
  const changed = builds.changed();
  if (changed) draft.builds = changed;
}

// Earlier bytes stay in the output cache only until the next pass of its collector (a second at
// most: src/effects/outputs-gc.ts), so a few builds cover every one still kept.
export const EARLIER_OUTPUTS_KEPT = 8;

// The outputs a hashed address of the variant may still name once `record` is its last build
// (README "Addresses"): the last build's joins them unless it made the same bytes again.
function earlierOutputs(variant: VariantState, record: BuildRecord): BuildOutputs[] | undefined {
  const previous = variant.last?.outputs;
  if (!previous || (record.outputs && sameOutputs(previous, record.outputs))) return variant.earlier;
  return [previous, ...(variant.earlier ?? [])].slice(0, EARLIER_OUTPUTS_KEPT);
}

/**
 * The outputs a variant's builds made under the module's earlier declaration, newest first: a
 * declaration change (a module.json or `exports` entry edited, a manifest problem) restarts the
 * variants, not the bytes their hashed addresses named, which are content-addressed and this
 * module's (README "Addresses"). Undefined when there are none.
 */
function outputsMadeBefore(previous: ModuleBuilds | undefined, key: string): BuildOutputs[] | undefined {
  const variant = previous?.variants[key];
  const made = [variant?.last?.outputs, ...(variant?.earlier ?? []), ...(previous?.earlier?.[key] ?? [])].filter((outputs): outputs is BuildOutputs => outputs != null);
  return made.length > 0 ? made.slice(0, EARLIER_OUTPUTS_KEPT) : undefined;
}

function sameOutputs(a: BuildOutputs, b: BuildOutputs): boolean {
  if (a.code.hash !== b.code.hash || a.styles?.hash !== b.styles?.hash) return false;
  const chunks = Object.entries(a.chunks ?? {});
  return chunks.length === Object.keys(b.chunks ?? {}).length && chunks.every(([specifier, chunk]) => b.chunks?.[specifier]?.hash === chunk.hash);
}

// A rebuild that imports what the last build did (a stylesheet's edit) keeps the last list: the
// checks of its imports, kept by the list, are not made again (ARCHITECTURE.md "One stylesheet edit").
function sameImports(last: ImportRecord[] | undefined, now: ImportRecord[]): ImportRecord[] {
  if (!last || last.length !== now.length) return now;
  for (let index = 0; index < now.length; index++) {
    const a = last[index]!;
    const b = now[index]!;
    if (a.specifier !== b.specifier || a.file !== b.file || a.line !== b.line || a.column !== b.column) return now;
  }
  return last;
}

// A rebuild that depends on the paths the last build depended on (nearly every edit) keeps the
// last list: one array for both records, not one per build kept (ARCHITECTURE.md "One module's
// requests at 10,000 modules").
function sameList(last: string[] | undefined, now: string[]): string[] {
  if (!last || last.length !== now.length) return now;
  for (let index = 0; index < now.length; index++) if (last[index] !== now[index]) return now;
  return last;
}

// Addresses asked for can name any path: past this many, no other is looked for (README "Exports and sources").
export const DEEP_IMPORTS_KEPT = 10_000;

/** Whether `specifier` names a file of a workspace package without `exports` (a deep import found on demand, README "Exports and sources"). */
export function isDeepImport(index: Pick<ReturnType<typeof indexWorkspace>, 'packages'>, specifier: string): boolean {
  const bare = parseBareSpecifier(specifier);
  return bare !== null && bare.subpath !== '' && index.packages.get(bare.packageName)?.withoutExports === true;
}

/** The state holds as many deep imports as it keeps: no other is looked for. */
export const keepsNoMoreDeepImports = (state: Pick<ServiceState, 'deepImports'>): boolean => (state.deepImports?.length ?? 0) >= DEEP_IMPORTS_KEPT;

// A deep import of a workspace package without `exports`: every later read of the workspace
// includes it, and one that is no module yet reads the workspace again at once, so the file it
// names becomes a module before anything is answered. Kept though its module is there already:
// a model restored from the build cache has it, and the next read must too.
function wantDeepImports(draft: Draft<ServiceState>, workspace: WorkspaceModel, imports: readonly { specifier: string }[]) {
  let index: ReturnType<typeof indexWorkspace> | undefined;
  for (const { specifier } of imports) {
    if (keepsNoMoreDeepImports(draft)) return;
    if (draft.deepImports?.includes(specifier) || !isDeepImport((index ??= indexWorkspace(workspace)), specifier)) continue;
    (draft.deepImports ??= []).push(specifier);
    if (!index.modules.has(specifier)) draft.workspaceStale = true;
  }
}

// A package that lost its `exports` (or is listed without any) while running publishes every file: the deep imports the
// last builds already recorded of it are found now, as a build finding them would (README
// "Exports and sources"), not only once each importer happens to build again. Only a package
// opened by this read is looked for, so a read that opens none walks no build.
function wantDeepImportsOfOpened(draft: Draft<ServiceState>, base: ServiceState, workspace: WorkspaceModel) {
  if (!base.workspaceRead) return;
  const openBefore = new Set(base.workspace.packages.filter((pkg) => pkg.withoutExports).map((pkg) => pkg.name));
  // Listed anew too: its importers' deep imports were outside imports until now.
  const opened = workspace.packages.filter((pkg) => pkg.withoutExports && !openBefore.has(pkg.name)).map((pkg) => pkg.name);
  if (opened.length === 0) return;
  for (const moduleBuilds of Object.values(base.builds)) {
    for (const variant of Object.values(moduleBuilds.variants)) {
      const imports = variant.last?.imports.filter((record) => opened.includes(parseBareSpecifier(record.specifier)?.packageName ?? ''));
      if (imports?.length) wantDeepImports(draft, workspace, imports);
    }
  }
}

// Results of one build touch one entry each and read nothing another one writes, so they
// commute: one draft for all of them gives the state folding them one by one would.
function commute(events: readonly CoreEvent[]): boolean {
  const seen = new Set<string>();
  for (const event of events) {
    if (event.type !== 'build.succeeded' && event.type !== 'build.failed') return false;
    const key = `${event.module}\0${event.variant}`;
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

// Two producers, not immer's global switch: a state frozen by one is as immutable as the
// other's, and a service that turns freezing off does not turn it off for anyone else.
const producers = { frozen: new Immer({ autoFreeze: true }), open: new Immer({ autoFreeze: false }) };

export interface ReduceOptions {
  /** Freeze each new state, so a mutation anywhere throws (default true; the service turns it off for speed). */
  freeze?: boolean;
}

/** Folds events in order; a batch of build results in one draft (copying the state once, not per module). */
export function reduceAll(state: ServiceState, events: readonly CoreEvent[], options: ReduceOptions = {}): ServiceState {
  const producer = options.freeze === false ? producers.open : producers.frozen;
  if (events.length <= 1 || !commute(events)) return events.reduce((before, event) => reduceWith(producer, before, event), state);
  const last = events[events.length - 1]!;
  return producer.produce(state, (draft) => {
    finishAll(draft, state, events as readonly (EventOf<'build.succeeded'> | EventOf<'build.failed'>)[]);
    draft.seq = last.seq;
    draft.time = last.time;
  });
}

export function reducer(state: ServiceState, event: CoreEvent): ServiceState {
  return reduceWith(producers.frozen, state, event);
}

function reduceWith(producer: Immer, state: ServiceState, event: CoreEvent): ServiceState {
  const handler = handlers[event.type] as Handler<EventType> | undefined;
  return producer.produce(state, (draft) => {
    if (handler) handler(draft, event as never, state);
    draft.seq = event.seq;
    draft.time = event.time;
  });
}
