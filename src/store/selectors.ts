// Selectors: everything the service answers is derived from the state here, so `/state`,
// the push channel and `core replay` can never disagree.
import { checkImports, type ImportRecord } from '../workspace/checks.js';
import { formerNameWarnings } from '../workspace/former-names.js';
import { diagnostic, type Diagnostic, boundaryCrossedModule } from '../workspace/diagnostics.js';
import { moduleNames, type ModuleModel, type ModuleNames, type Platform, type WorkspaceModel } from '../workspace/model.js';
import { defaultVariant, PRODUCTION_BROWSER_KEY, variantKey } from '../workspace/variant.js';
import { indexWorkspace, type PackageTable } from '../workspace/workspace-index.js';
import { isCodeFile, SHARED_SEGMENT, sharedAmong, sharedSubpath, type SharedFiles } from '../workspace/shared-files.js';
import { filesRead } from '../workspace/files-read.js';
import { linkedThroughSharedFiles, unlinkedDiagnostic, unlinkedNames, type LinkNames } from '../workspace/link-names.js';
import { effectsShimRead, judgeShimReads, type ShimFacts, type ShimJudgement } from '../workspace/shim-reads.js';
import { isBuildable, runsInProduction } from './reducer.js';
import { knownInputHash, type BuildRecord, type ModuleBuilds, type RemoteCacheSummary, type ServiceState, type VariantState } from './state.js';
import type { BuildOutputs } from './events.js';

export type ModuleStatus = 'valid' | 'invalid' | 'pending';

export interface ModuleReport extends ModuleNames {
  platforms: Platform[];
  bundler: string;
  status: ModuleStatus;
  diagnostics: Diagnostic[];
  /** Present when the last build warned: never a reason to be invalid. */
  warnings?: Diagnostic[];
  /**
   * Present when the module is valid but imports, itself or through valid modules it imports,
   * modules of the workspace in development that are invalid, or modules of a left-out package
   * whose production build, which the local CDN serves, failed: a page that loads it fails until
   * those build (README "Addresses").
   */
  invalidImports?: string[];
}

/** The `/state` document of README "Addresses". */
export interface Report {
  diagnostics: Diagnostic[];
  /** Hints that make nothing invalid (README "Warnings"); present only when there are some. */
  warnings?: Diagnostic[];
  /** The modules' warnings about their own package's structure, one per package and kind (README "Warnings"); present only when there are some. */
  warningGroups?: WarningGroup[];
  modules: ModuleReport[];
  /** What the team's remote cache gave at start (README "A team's remote cache"); absent when none was asked. */
  remoteCache?: RemoteCacheSummary;
  /** Paths the watcher cannot look at, with the error code (README "Links and large trees"); present only when there are some. */
  unwatched?: { path: string; code: string }[];
}

/** Warnings of one kind about a package's own internal structure, counted: each is still in its module's `warnings`. */
export interface WarningGroup {
  package: string;
  kind: Diagnostic['kind'];
  /** How many there are, over the package's modules. */
  count: number;
  /** How many of its modules have one. */
  modules: number;
}

/**
 * A warning about the internal structure of the module's own package, which the package's user
 * cannot change (README "Warnings"): a helper shared by its modules, or a relative import of
 * another of its own modules' entry.
 */
export function isStructureWarning(module: Pick<ModuleReport, 'package'>, warning: Diagnostic): boolean {
  if (warning.kind === 'HELPER_SHARED') return true;
  if (warning.kind !== 'MODULE_BOUNDARY_CROSSED') return false;
  const reached = boundaryCrossedModule(warning.message);
  return reached !== undefined && (reached === module.package || reached.startsWith(`${module.package}/`));
}

/**
 * The modules esbuild's process could not build (`ENGINE_UNAVAILABLE`), and why, in the words of
 * the first one's error: the terminal and the dashboard say it once, not per module (README "When
 * esbuild's process dies"). Null when there are none.
 */
export function unbuiltByEngine(modules: readonly ModuleReport[]): { modules: string[]; why: string } | null {
  const unbuilt = modules.filter((module) => module.diagnostics.some((d) => d.kind === 'ENGINE_UNAVAILABLE'));
  if (unbuilt.length === 0) return null;
  const first = unbuilt[0]!.diagnostics.find((d) => d.kind === 'ENGINE_UNAVAILABLE')!;
  // The build's words: "<module> was not built: <why>; save a file to build again" (src/io/build-facts.ts).
  const why = / was not built: (.*); save a file to build again$/.exec(first.message)?.[1] ?? first.message;
  return { modules: unbuilt.map((module) => module.specifier), why };
}

/** The structure warnings of the modules, one group per package and kind, in the order first met. */
export function groupStructureWarnings(modules: readonly ModuleReport[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  for (const module of modules) {
    const kinds = new Set<string>();
    for (const warning of module.warnings ?? []) {
      if (!isStructureWarning(module, warning)) continue;
      const key = `${module.package}\0${warning.kind}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { package: module.package, kind: warning.kind, count: 0, modules: 0 }));
      group.count += 1;
      if (!kinds.has(key)) group.modules += 1;
      kinds.add(key);
    }
  }
  return [...groups.values()];
}


export const selectPackage = (state: ServiceState, name: string) => indexWorkspace(state.workspace).packages.get(name);

export const selectVariant = (state: ServiceState, specifier: string, key: string): VariantState | undefined =>
  state.builds[specifier]?.variants[key];

/**
 * Every output a variant's builds made in this run that a `v=<hash>` address of it may name: its
 * last build's, the earlier ones kept in the variant, and those kept while its module's
 * declaration made it unbuildable (README "Addresses").
 */
export function selectOutputsMade(state: ServiceState, specifier: string, key: string): BuildOutputs[] {
  const builds = state.builds[specifier];
  const variant = builds?.variants[key];
  return [variant?.last?.outputs, ...(variant?.earlier ?? []), ...(builds?.earlier?.[key] ?? [])].filter((outputs): outputs is BuildOutputs => outputs != null);
}

const defaultKeys = new WeakMap<ModuleModel, string>();

/** The key of the module's default variant, once per module model: every per-module walk of the state asks. */
export function defaultVariantKey(module: ModuleModel): string {
  let key = defaultKeys.get(module);
  if (key === undefined) defaultKeys.set(module, (key = variantKey(defaultVariant(module))));
  return key;
}

// A failed build's errors joined to its checks, kept while the checks are the same array: the
// checks themselves are judged once per imports, module and workspace by `checkImports`.
const withErrors = new WeakMap<BuildRecord, { checks: Diagnostic[]; diagnostics: Diagnostic[] }>();

/**
 * Diagnostics of a finished build: the bundler's errors, then the dependency checks, the same
 * array for as long as what they are made of is (every answer asks).
 */
export function buildDiagnostics(module: ModuleModel, record: BuildRecord, workspace: WorkspaceModel): Diagnostic[] {
  const checks = checkImports(module, record.imports, workspace);
  if (record.errors.length === 0) return checks;
  const kept = withErrors.get(record);
  if (kept?.checks === checks) return kept.diagnostics;
  const diagnostics = [...record.errors, ...checks];
  withErrors.set(record, { checks, diagnostics });
  return diagnostics;
}

/**
 * The status and diagnostics of one module, judged by its default variant, and by its production
 * build's failure once one was built (README "Addresses").
 */
export function selectModuleStatus(state: ServiceState, module: ModuleModel): { status: ModuleStatus; diagnostics: Diagnostic[] } {
  const variants = state.builds[module.specifier]?.variants;
  const record = variants?.[defaultVariantKey(module)]?.last;
  return withProductionVerdict(state, module, settledRecord(variants?.[PRODUCTION_BROWSER_KEY]), linkedStatus(state, record, moduleStatusOf(module, record, state.workspace)));
}

/** The last build of a variant built from the current sources: a verdict an edit made stale is none. */
const settledRecord = (variant: VariantState | undefined): BuildRecord | undefined => (variant?.status === 'done' && variant.last ? variant.last : undefined);

/**
 * What the production build of `module`, built from the current sources, finds wrong (its own
 * errors, the checks of what it imports, the names it links by): none while that variant was
 * never built or is being built again.
 */
export function selectProductionDiagnostics(state: ServiceState, module: ModuleModel): Diagnostic[] {
  const record = settledRecord(state.builds[module.specifier]?.variants[PRODUCTION_BROWSER_KEY]);
  return record ? selectBuildDiagnostics(state, module, record) : [];
}

const productionVerdicts = new WeakMap<BuildRecord, { judged: object; found: Diagnostic[]; answer: object }>();

const sameDiagnostic = (a: Diagnostic, b: Diagnostic): boolean => a.kind === b.kind && a.message === b.message && a.file === b.file && a.line === b.line && a.column === b.column;

/**
 * A module judged by its development build, and invalid too where its production build failed
 * (README "Addresses"): the production build's diagnostics the development one does not have, each
 * with `env: "production"`. A pending module stays pending; the same object while nothing changed.
 */
function withProductionVerdict<T extends { status: ModuleStatus; diagnostics: Diagnostic[]; invalidImports?: string[] }>(state: ServiceState, module: ModuleModel, production: BuildRecord | undefined, judged: T): T {
  if (!production || judged.status === 'pending') return judged;
  const found = selectBuildDiagnostics(state, module, production);
  if (found.length === 0) return judged;
  const kept = productionVerdicts.get(production);
  if (kept && kept.judged === judged && kept.found === found) return kept.answer as T;
  const added = found.filter((problem) => !judged.diagnostics.some((own) => sameDiagnostic(own, problem))).map((problem): Diagnostic => ({ ...problem, env: 'production' }));
  let answer = judged;
  if (added.length > 0) {
    const { invalidImports: _valid, ...rest } = judged;
    answer = { ...rest, status: 'invalid', diagnostics: [...judged.diagnostics, ...added] } as T;
  }
  productionVerdicts.set(production, { judged, found, answer });
  return answer;
}

/**
 * A built module's status with the names it imports from other modules judged against what those
 * export (README "Bundling real code"): a name missing or ambiguous is a BUNDLE_ERROR at the
 * import; a module imported that is not built yet leaves the importer `pending`, never `valid` by guess.
 */
function linkedStatus<T extends { status: ModuleStatus; diagnostics: Diagnostic[] }>(state: ServiceState, record: BuildRecord | null | undefined, judged: T): T {
  if (judged.status === 'pending' || !record) return judged;
  const judgement = selectLinkJudgement(state, record);
  if (!judgement) return judged;
  const kept = linkedStatuses.get(record);
  if (kept && kept.judged === judged && kept.judgement === judgement) return kept.answer as T;
  let answer = judged;
  if (judgement.diagnostics.length > 0) answer = { ...judged, status: 'invalid', diagnostics: [...judged.diagnostics, ...judgement.diagnostics] };
  else if (judgement.pending && judged.status === 'valid') answer = { ...judged, status: 'pending' };
  linkedStatuses.set(record, { judged, judgement, answer });
  return answer;
}

/** The names a finished build imports from other modules, judged against what those export now (README "Bundling real code"). */
export interface LinkJudgement {
  /** A BUNDLE_ERROR at the import of each name those modules do not give. */
  diagnostics: Diagnostic[];
  /** A name's module is not known (not built yet, being built again, or not judged on the way): nothing is known wrong, nothing right. */
  pending: boolean;
  /** A module it consulted is not built yet, or is being built again: its names are known once that build ends. */
  building: boolean;
  /** Every module it consulted, through whole re-exports too, with the link names it found: while each keeps them, the judgement holds. */
  consulted: ReadonlyMap<string, LinkNames | null | undefined>;
  /**
   * Its reads of Node's globals (and uses of other names nothing binds) taken as defined because of imports for effects, judged against
   * the modules those run (README "Bundling real code", Shims): the warnings its errors replace,
   * and every module consulted with the facts found, by which the judgement holds as `consulted`'s.
   */
  shims?: ShimJudgement;
}

const linkJudgements = new WeakMap<BuildRecord, LinkJudgement>();

// Where a name imported may be told: the bare imports, and the imports of shared files (README "Shared files").
const importPlaces = (record: BuildRecord): readonly ImportRecord[] => (record.sharedImports ? [...record.imports, ...record.sharedImports] : record.imports);

/**
 * The link judgement of `record` (a finished build of any variant), null when it imports no name
 * from another module. The same object for as long as the modules it consulted keep their link
 * names: each build's state judges again only the importers of what changed, and one who holds
 * a judgement sees by its identity whether it still holds (the push channel does, for the
 * importers of a module rebuilt: README "Preview and stylesheet push").
 */
export function selectLinkJudgement(state: ServiceState, record: BuildRecord): LinkJudgement | null {
  const judged = judgedLinksOf(record);
  const shimmed = record.shims !== undefined && record.warnings?.some((warning) => effectsShimRead(warning) !== undefined);
  if (!judged?.imports && !shimmed) return null;
  const linksOf = selectLinksOf(state);
  const shimsOf = shimmed ? selectShimsOf(state) : () => undefined;
  const kept = linkJudgements.get(record);
  const holds = (judgement: LinkJudgement) => [...judgement.consulted].every(([specifier, links]) => linksOf(specifier) === links) && [...(judgement.shims?.consulted ?? [])].every(([specifier, facts]) => shimsOf(specifier) === facts);
  if (kept && holds(kept)) return kept;
  const consulted = new Map<string, LinkNames | null | undefined>();
  const { unlinked, unknown } = judged?.imports
    ? unlinkedNames(judged, (specifier) => {
        const links = linksOf(specifier);
        consulted.set(specifier, links);
        return links;
      })
    : { unlinked: [], unknown: [] };
  const shims = shimmed ? judgeShimReads(record.warnings, record.shims, shimsOf) : null;
  const waited = [...consulted.values(), ...(shims?.consulted.values() ?? [])];
  const diagnostics = [...unlinked.map((name) => unlinkedDiagnostic(name, importPlaces(record))), ...(shims?.errors ?? [])];
  const judgement: LinkJudgement = { diagnostics, pending: unknown.length > 0 || waited.includes(null), building: waited.includes(null), consulted, ...(shims ? { shims } : {}) };
  linkJudgements.set(record, judgement);
  return judgement;
}

const judgedLinks = new WeakMap<BuildRecord, LinkNames | undefined>();

/** The names a build's page links by: its own code's, and its shared files' imports too (README "Shared files"), once per record. */
function judgedLinksOf(record: BuildRecord): LinkNames | undefined {
  if (!record.chunkLinks) return record.links;
  if (!judgedLinks.has(record)) judgedLinks.set(record, linkedThroughSharedFiles(record.links, record.chunkLinks));
  return judgedLinks.get(record);
}

/**
 * A finished build's diagnostics as every answer and push message gives them: its own
 * (`buildDiagnostics`), or, with none, the names it imports that the modules it imports do not
 * export (`selectLinkDiagnostics`), which the report's status holds too.
 */
export function selectBuildDiagnostics(state: ServiceState, module: ModuleModel, record: BuildRecord): Diagnostic[] {
  const own = buildDiagnostics(module, record, state.workspace);
  return own.length > 0 || !record.outputs ? own : selectLinkDiagnostics(state, record);
}

/**
 * The names `record` (a finished build of any variant) imports from other modules that those do
 * not export, as diagnostics: its own build succeeded, but its addresses answer 422 as any build
 * with a diagnostic does, since no page can link it (README "Bundling real code"). None while a
 * module it imports is not built yet: nothing is known wrong, and that module's answer waits.
 */
export function selectLinkDiagnostics(state: ServiceState, record: BuildRecord): Diagnostic[] {
  return selectLinkJudgement(state, record)?.diagnostics ?? [];
}

const linkedStatuses = new WeakMap<BuildRecord, { judged: object; judgement: LinkJudgement; answer: object }>();

const shimsIndexes = new WeakMap<object, WeakMap<WorkspaceModel, (specifier: string) => ShimFacts | null | undefined>>();

/**
 * The shim facts of each module of the workspace, by specifier, once per (builds, workspace)
 * (README "Bundling real code", Shims): null for one not built yet or being built again (its
 * last build's facts may be what the edit changed), undefined for one not known (no module of the
 * workspace or of the selection, a build failed or not told), as `selectLinksOf` does.
 */
function selectShimsOf(state: ServiceState): (specifier: string) => ShimFacts | null | undefined {
  return perBuildsAndWorkspace(shimsIndexes, state, () => {
    const index = new Map<string, ShimFacts | null>();
    forEachImportable(state, (module, record, settled) => {
      if (!record || !settled) index.set(module.specifier, null);
      else if (record.outputs && record.shims) index.set(module.specifier, record.shims);
    });
    return (specifier: string) => index.get(specifier);
  });
}

/**
 * Each module of the workspace another can import, in the model's order, with its default
 * variant's last build and whether that build settled: none whose manifest has a diagnostic, none
 * outside the selection. Being built again, its last build's facts may be what the edit changed,
 * so an importer built first is neither refused nor passed on them (`settled` false).
 */
function forEachImportable(state: ServiceState, visit: (module: ModuleModel, record: BuildRecord | null, settled: boolean) => void): void {
  const { workspace } = state;
  const selection = workspace.selection === null ? null : new Set(workspace.selection);
  const records = defaultRecords(state);
  workspace.modules.forEach((module, at) => {
    if (module.diagnostics.length > 0 || (selection !== null && !selection.has(module.package))) return;
    visit(module, records[at] ?? null, selectVariant(state, module.specifier, defaultVariantKey(module))?.status === 'done');
  });
}

const linksIndexes = new WeakMap<object, WeakMap<WorkspaceModel, (specifier: string) => LinkNames | null | undefined>>();

/**
 * The link names of each module another can import, by specifier, once per (builds, workspace):
 * undefined for one never judged (no module of the workspace, a package the CDN serves, a module
 * invalid or whose code was not read: `invalidImports` tells of an invalid one), null for one not
 * built yet. The shared files of the modules' code too, by internal specifier (README "Shared
 * files"): a name a module re-exports from one is judged through it, as the page links it.
 */
function selectLinksOf(state: ServiceState): (specifier: string) => LinkNames | null | undefined {
  return perBuildsAndWorkspace(linksIndexes, state, () => {
    const index = new Map<string, LinkNames | null>();
    const shared = new Map<string, LinkNames | null>();
    forEachImportable(state, (module, record, settled) => {
      if (!record || !settled) index.set(module.specifier, null);
      else if (record.outputs && record.links) index.set(module.specifier, record.links);
      sharedLinksOf(shared, record, settled);
    });
    for (const [specifier, links] of shared) index.set(specifier, links);
    return (specifier: string) => index.get(specifier);
  });
}

/**
 * Adds to `shared` the link names of the shared files `record` imports: a settled build's are
 * known (the first such build's, in the model's order, as the preview maps the first module's
 * address); one being built again may be building an edit of the file, so its files are not
 * known (null) until some importer's build of them has settled.
 */
function sharedLinksOf(shared: Map<string, LinkNames | null>, record: BuildRecord | null | undefined, settled: boolean): void {
  if (!record?.outputs?.chunks) return;
  if (settled) {
    for (const [specifier, links] of Object.entries(record.chunkLinks ?? {})) if (!shared.get(specifier)) shared.set(specifier, links);
  } else {
    for (const specifier of Object.keys(record.outputs.chunks)) if (!shared.has(specifier)) shared.set(specifier, null);
  }
}

/** The same of the default variant's last build `record`, already looked up. */
function moduleStatusOf(module: ModuleModel, record: BuildRecord | null | undefined, workspace: WorkspaceModel): { status: ModuleStatus; diagnostics: Diagnostic[] } {
  if (module.diagnostics.length > 0) return { status: 'invalid', diagnostics: module.diagnostics };
  if (!record) return { status: 'pending', diagnostics: [] };
  const diagnostics = buildDiagnostics(module, record, workspace);
  return { status: diagnostics.length === 0 ? 'valid' : 'invalid', diagnostics };
}

/** A build's own warnings, but those its reads judged across modules made errors (README "Bundling real code", Shims). */
function withoutReplaced(state: ServiceState, record: BuildRecord | null | undefined): Diagnostic[] {
  const own = record?.warnings ?? [];
  const replaced = replacedWarnings(state, record);
  return replaced?.length ? own.filter((warning) => !replaced.includes(warning)) : own;
}

/** The warnings of a build that its reads judged across modules replace: the same array while that judgement holds. */
const replacedWarnings = (state: ServiceState, record: BuildRecord | null | undefined): Diagnostic[] | undefined =>
  record?.outputs && record.shims ? selectLinkJudgement(state, record)?.shims?.replaced : undefined;

/** The warnings of the module's last build, those about helpers it shares and those about its imports of a former package name (README "Warnings"). */
export function selectModuleWarnings(state: ServiceState, module: ModuleModel): Diagnostic[] {
  return warningsOf(state, module, selectVariant(state, module.specifier, defaultVariantKey(module))?.last, sharedHelpers(state).get(module.specifier));
}

/**
 * A build's own warnings, then those about helpers it shares, then those about its imports of a
 * name a workspace package had earlier in this run (README "Workspaces"); the build's own array
 * when there are no others.
 */
const warningsOf = (state: ServiceState, module: ModuleModel, record: BuildRecord | null | undefined, shared: Diagnostic[] | undefined): Diagnostic[] => {
  const own = withoutReplaced(state, record);
  const former = record ? formerNameWarnings(module, record.imports, state.workspace, state.packageNamesSeen) : [];
  if ((shared === undefined || shared.length === 0) && former.length === 0) return own;
  return [...own, ...(shared ?? []), ...former];
};

const helperWarnings = new WeakMap<object, WeakMap<WorkspaceModel, Map<string, Diagnostic[]>>>();
const sharedFilesOf = new WeakMap<object, WeakMap<object, SharedFiles>>();

/** The default variant's last successful build of a module. */
const lastSuccess = (state: ServiceState, module: ModuleModel): BuildRecord | undefined => {
  const record = selectVariant(state, module.specifier, defaultVariantKey(module))?.last;
  return record?.outputs ? record : undefined;
};

/**
 * What `derive` makes of the state's (builds, workspace), once per pair, kept in `cache`: both are
 * immutable, so the same pair gives the same answer, and a state that changed neither asks again
 * for nothing.
 */
function perBuildsAndWorkspace<T>(cache: WeakMap<object, WeakMap<object, T>>, state: ServiceState, derive: () => T): T {
  let byWorkspace = cache.get(state.builds);
  if (!byWorkspace) cache.set(state.builds, (byWorkspace = new WeakMap()));
  let value = byWorkspace.get(state.workspace);
  if (value === undefined) byWorkspace.set(state.workspace, (value = derive()));
  return value;
}

const defaultRecordsOf = new WeakMap<object, WeakMap<WorkspaceModel, (BuildRecord | null)[]>>();

/**
 * The last build of each module's default variant, in the order of the workspace's modules:
 * looked up once per (builds, workspace), as every walk of the modules asks (a lookup by
 * specifier in the builds of 10,000 modules is the dearest step of such a walk).
 */
function defaultRecords(state: ServiceState): (BuildRecord | null)[] {
  return perBuildsAndWorkspace(defaultRecordsOf, state, () => {
    // The production builds judged beside them, found in the same walk (one lookup per module).
    const production = new Map<number, BuildRecord>();
    const records = state.workspace.modules.map((module, at) => {
      const variants = state.builds[module.specifier]?.variants;
      const built = settledRecord(variants?.[PRODUCTION_BROWSER_KEY]);
      if (built) production.set(at, built);
      return variants?.[defaultVariantKey(module)]?.last ?? null;
    });
    productionRecordsOf.set(records, production);
    return records;
  });
}

const productionRecordsOf = new WeakMap<readonly (BuildRecord | null)[], ReadonlyMap<number, BuildRecord>>();

const successful = (record: BuildRecord | null | undefined): BuildRecord | undefined => (record?.outputs ? record : undefined);

/**
 * The shared files of each package (README "Shared files"): the files two or more of its public
 * modules' last builds read. Once per (workspace, builds), and within it once per package while
 * the last builds of its modules are the same records: a build finds its own package's again.
 */
export function selectSharedFiles(state: ServiceState): SharedFiles {
  return perBuildsAndWorkspace(sharedFilesOf, state, () => {
    const shared: SharedFiles = new Map();
    // Every package's builds from one walk of the workspace's (`packageSharedFiles` takes them).
    defaultRecords(state);
    for (const group of packageGroups(state.workspace)) {
      const files = packageSharedFiles(state, group);
      if (files) shared.set(group.name, files);
    }
    return shared;
  });
}

/** A package's public modules, and its models (one, unless the workspace repeats a name). */
interface PackageGroup {
  name: string;
  modules: ModuleModel[];
  /** Where its modules are in the workspace's modules. */
  indexes: number[];
  /** Its directory (the last model's, when the workspace repeats its name). */
  dir: string | undefined;
}

const groupsOf = new WeakMap<WorkspaceModel, { groups: PackageGroup[]; byName: Map<string, PackageGroup>; entries: Set<string | null> }>();

// In the order `findSharedFiles` meets the packages over the whole workspace (their first module),
// so the map, which builds pass on as it is, keeps its order.
function packageGroups(workspace: WorkspaceModel): PackageGroup[] {
  return workspaceGroups(workspace).groups;
}

function workspaceGroups(workspace: WorkspaceModel): { groups: PackageGroup[]; byName: Map<string, PackageGroup>; entries: Set<string | null> } {
  const found = groupsOf.get(workspace);
  if (found) return found;
  const dirs = new Map(workspace.packages.map((pkg) => [pkg.name, pkg.dir]));
  const byName = new Map<string, PackageGroup>();
  workspace.modules.forEach((module, index) => {
    let group = byName.get(module.package);
    if (!group) byName.set(module.package, (group = { name: module.package, modules: [], indexes: [], dir: dirs.get(module.package) }));
    group.modules.push(module);
    group.indexes.push(index);
  });
  const made = { groups: [...byName.values()], byName, entries: new Set(workspace.modules.map((module) => module.entry)) };
  groupsOf.set(workspace, made);
  return made;
}

interface KeptSharedFiles {
  workspace: WorkspaceModel;
  records: (BuildRecord | undefined)[];
  files: Record<string, string> | undefined;
}

const packageShared = new WeakMap<PackageGroup, KeptSharedFiles>();

function packageSharedFiles(state: ServiceState, group: PackageGroup): Record<string, string> | undefined {
  // One package's lookups when the whole workspace's were not made for this state (an answer's judgement).
  const all = defaultRecordsOf.get(state.builds)?.get(state.workspace);
  const records = all ? group.indexes.map((index) => successful(all[index])) : group.modules.map((module) => lastSuccess(state, module));
  const kept = packageShared.get(group);
  // A module rebuilt from the same files (every edit of a day's work) reaches what it reached:
  // the rule below would find the same files, at a cost on the way from the build to its answer.
  if (kept && kept.workspace === state.workspace && kept.records.every((record, index) => record === records[index] || sameFilesRead(record, records[index]))) {
    if (kept.records.some((record, index) => record !== records[index])) packageShared.set(group, { ...kept, records });
    return kept.files;
  }
  // Every entry of the workspace, not only the package's, is imported by its specifier: never shared.
  const { entries } = workspaceGroups(state.workspace);
  const recordOf = new Map(group.modules.map((module, index) => [module.specifier, records[index]]));
  const { name, dir } = group;
  const reaches = dir === undefined ? [] : group.modules.flatMap((module) => {
    const record = recordOf.get(module.specifier);
    return record ? [{ packageName: name, packageDir: dir, files: filesRead(record).filter((file) => !entries.has(file)) }] : [];
  });
  // The one rule of shared files (workspace/shared-files.ts), over this package's modules.
  const files = sharedAmong(reaches).get(name);
  packageShared.set(group, { workspace: state.workspace, records, files });
  return files;
}

/**
 * A module variant whose last build bundled a shared file of its package instead of importing it,
 * or (`unshared`) imported at its shared address a file that is shared no more.
 */
export interface SharedFileCopy {
  module: string;
  variant: string;
  build: number;
  file: string;
  /** The file's content hash as that build read it ('' when it read none). */
  hash: string;
  /** The build imported `file` as a shared file, and fewer than two modules' last builds read it now (README "Shared files"). */
  unshared?: true;
}

const copiesOf = new WeakMap<object, WeakMap<object, SharedFileCopy[]>>();

/** Two records read the same files (the paths `packageSharedFiles` takes), whatever their content. */
function sameFilesRead(a: BuildRecord | undefined, b: BuildRecord | undefined): boolean {
  if (!a || !b) return a === b;
  const [readA, readB] = [filesRead(a), filesRead(b)];
  if (readA.length !== readB.length) return false;
  const inB = new Set(readB);
  return readA.every((file) => inB.has(file));
}

/** Every variant built before its package's shared files were known, holding a copy of one (README "Shared files"). Once per (workspace, builds). */
export function selectSharedFileCopies(state: ServiceState): SharedFileCopy[] {
  return perBuildsAndWorkspace(copiesOf, state, () => findCopies(state));
}

/**
 * Is the variant's last build one to answer with? Not while it holds a copy of a shared file, and,
 * for a variant other than the default, not before the package's default variants are built: they
 * tell which files are shared (README "Shared files").
 */
export function selectAnswerable(state: ServiceState, specifier: string, key: string): boolean {
  const index = indexWorkspace(state.workspace);
  const module = index.modules.get(specifier);
  if (!module) return true;
  if (holdsCopy(state, module, key)) return false;
  if (defaultVariantKey(module) === key) return true;
  return (index.modulesOf.get(module.package) ?? []).every((sibling) => !isBuildable(sibling) || selectVariant(state, sibling.specifier, defaultVariantKey(sibling))?.status === 'done');
}

/** Does the variant's last build hold a copy of a shared file? Asked of its own package's shared files only: an answer's cost does not grow with the workspace. */
function holdsCopy(state: ServiceState, module: ModuleModel, key: string): boolean {
  const variant = selectVariant(state, module.specifier, key);
  const record = variant?.last;
  if (variant?.status !== 'done' || !record?.outputs) return false;
  const group = workspaceGroups(state.workspace).byName.get(module.package);
  if (!group) return false;
  const copies = recordCopies(module.specifier, key, record, group, packageSharedFiles(state, group) ?? NO_SHARED_FILES);
  return copies.length > 0 && judged(state, group, copies).length > 0;
}

/** What a package with no shared file has: one object, so a build's copies are kept with its record as for any other. */
const NO_SHARED_FILES: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/**
 * The copies to act on now. A file is unshared only once every module of the package has built
 * from the current sources: at a restart, a sibling not built yet (its cached build's inputs
 * changed) has no build to count, and would unshare, for one build, a file it still imports.
 */
function judged(state: ServiceState, group: PackageGroup, copies: SharedFileCopy[]): SharedFileCopy[] {
  if (!copies.some((copy) => copy.unshared) || packageBuilt(state, group)) return copies;
  return copies.filter((copy) => !copy.unshared);
}

const packageBuilt = (state: ServiceState, group: PackageGroup): boolean =>
  group.modules.every((module) => !isBuildable(module) || selectVariant(state, module.specifier, defaultVariantKey(module))?.status === 'done');

interface KeptCopies {
  files: Record<string, string> | undefined;
  builds: (ModuleBuilds | undefined)[];
  /** With the index of each copy's module in the workspace's modules. */
  copies: [number, SharedFileCopy][];
}

const packageCopies = new WeakMap<PackageGroup, KeptCopies>();

/** A package's copies, kept while its shared files and its modules' builds are the same objects: a build looks again at its own package only. */
function groupCopies(state: ServiceState, group: PackageGroup, files: Record<string, string> | undefined): [number, SharedFileCopy][] {
  const builds = group.modules.map((module) => state.builds[module.specifier]);
  const kept = packageCopies.get(group);
  if (kept && kept.files === files && kept.builds.every((entry, index) => entry === builds[index])) return kept.copies;
  const found: [number, SharedFileCopy][] = [];
  group.modules.forEach((module, at) => {
    for (const [key, variant] of Object.entries(builds[at]?.variants ?? {})) {
      const record = variant.last;
      if (variant.status !== 'done' || !record?.outputs) continue;
      for (const copy of recordCopies(module.specifier, key, record, group, files ?? NO_SHARED_FILES)) found.push([group.indexes[at]!, copy]);
    }
  });
  // Every module's status is in `builds`: kept with them, as the copies are.
  const acted = new Set(judged(state, group, found.map(([, copy]) => copy)));
  const copies = found.filter(([, copy]) => acted.has(copy));
  packageCopies.set(group, { files, builds, copies });
  return copies;
}

function findCopies(state: ServiceState): SharedFileCopy[] {
  const shared = selectSharedFiles(state);
  const found: [number, SharedFileCopy][] = [];
  // Every package, one with no shared file too: a build of it may import a file shared no more.
  for (const group of packageGroups(state.workspace)) for (const copy of groupCopies(state, group, shared.get(group.name))) found.push(copy);
  // In the order of the workspace's modules, as a walk of them meets the copies.
  return found.sort((a, b) => a[0] - b[0]).map(([, copy]) => copy);
}

const recordCopiesOf = new WeakMap<BuildRecord, { module: string; variant: string; files: Record<string, string>; copies: SharedFileCopy[] }>();

/**
 * The shared files one build copied, and those it imported that are shared no more (a module's
 * output is a function of its sources and of its package's shared files, ARCHITECTURE.md "Shared
 * files"), kept with its record while its package's shared files are the same.
 */
function recordCopies(module: string, variant: string, record: BuildRecord, group: PackageGroup, files: Record<string, string>): SharedFileCopy[] {
  const kept = recordCopiesOf.get(record);
  if (kept && kept.module === module && kept.variant === variant && kept.files === files) return kept.copies;
  const copies: SharedFileCopy[] = [];
  for (const file of filesRead(record)) {
    const specifier = files[file];
    const hash = record.inputs[file];
    // A build asked to import it that still copied it cannot do otherwise: HELPER_SHARED says why.
    // (A file read, then removed before its hash was taken, is recorded absent: that build is built again.)
    if (specifier === undefined || hash === null || hash === undefined || record.outputs?.chunks?.[specifier] || record.shared?.includes(file)) continue;
    copies.push({ module, variant, build: record.build, file, hash });
  }
  const chunks = record.outputs?.chunks;
  if (chunks && group.dir !== undefined) {
    const specifiers = new Set(Object.values(files));
    const prefix = `${group.name}/${SHARED_SEGMENT}/`;
    for (const specifier of Object.keys(chunks)) {
      if (specifiers.has(specifier) || !specifier.startsWith(prefix)) continue;
      const file = group.dir === '.' || group.dir === '' ? specifier.slice(prefix.length) : `${group.dir}/${specifier.slice(prefix.length)}`;
      const hash = record.inputs[file];
      copies.push({ module, variant, build: record.build, file, hash: typeof hash === 'string' ? hash : '', unshared: true });
    }
  }
  recordCopiesOf.set(record, { module, variant, files, copies });
  return copies;
}

interface HelperFiles {
  workspace: WorkspaceModel;
  ownShared: Record<string, string> | undefined;
  /** Code files the build bundled, other than entries. */
  bundled: string[];
  /** Shared files of its package it imported at their address. */
  imported: string[];
}

const helperFilesOf = new WeakMap<BuildRecord, HelperFiles>();

/** The helper files of one build, kept with its record while the workspace and its package's shared files are the same. */
function helperFiles(workspace: WorkspaceModel, record: BuildRecord, ownShared: Record<string, string> | undefined): HelperFiles {
  const kept = helperFilesOf.get(record);
  if (kept && kept.workspace === workspace && kept.ownShared === ownShared) return kept;
  const { entries } = workspaceGroups(workspace);
  // The record's own objects, and the list of files it read: no list of pairs made of them, a start reads a thousand.
  const chunks = record.outputs?.chunks;
  const helpers: HelperFiles = { workspace, ownShared, bundled: [], imported: [] };
  for (const file of filesRead(record)) {
    if (entries.has(file) || !isCodeFile(file)) continue;
    const sharedChunk = ownShared?.[file];
    if (sharedChunk !== undefined && chunks !== undefined && Object.hasOwn(chunks, sharedChunk)) helpers.imported.push(file);
    else helpers.bundled.push(file);
  }
  helperFilesOf.set(record, helpers);
  return helpers;
}

// A file that several modules bundle, each its own copy, exists once per module on a page: its
// classes (`instanceof` fails across them) and its module state are duplicated. A file several
// modules of its package reach is imported, not copied (README "Shared files"), so only what
// cannot be shared so is reported, each module saying so with the reason.
function sharedHelpers(state: ServiceState): Map<string, Diagnostic[]> {
  return perBuildsAndWorkspace(helperWarnings, state, () => helpersOfWorkspace(state));
}

/** The HELPER_SHARED warnings of each module, by specifier: the same map again while every module's helper files are the ones before. */
function helpersOfWorkspace(state: ServiceState): Map<string, Diagnostic[]> {
  const shared = selectSharedFiles(state);
  const records = defaultRecords(state);
  const helpers = state.workspace.modules.map((module, index) => {
    const record = successful(records[index]);
    return record && helperFiles(state.workspace, record, shared.get(module.package));
  });
  // The same helper files of every module as the last time (a build that read what it read
  // before, or no build of a module with helpers): the same warnings, the same arrays.
  const last = lastHelpers;
  if (last && last.workspace === state.workspace && last.helpers.length === helpers.length && last.helpers.every((kept, index) => kept === helpers[index])) return last.byModule;
  const byModule = helperWarningsOf(state.workspace, helpers);
  lastHelpers = { workspace: state.workspace, helpers, byModule };
  return byModule;
}

let lastHelpers: { workspace: WorkspaceModel; helpers: (HelperFiles | undefined)[]; byModule: Map<string, Diagnostic[]> } | undefined;

/** The HELPER_SHARED warnings of the modules, from each one's helper files (in the order of the workspace's modules). */
function helperWarningsOf(workspace: WorkspaceModel, helpers: readonly (HelperFiles | undefined)[]): Map<string, Diagnostic[]> {
  const byModule = new Map<string, Diagnostic[]>();
  const bundledInto = new Map<string, ModuleModel[]>();
  // Files some module imports at their shared address: one more instance beside any copy.
  const imported = new Set<string>();
  workspace.modules.forEach((module, index) => {
    const files = helpers[index];
    if (!files) return;
    for (const file of files.imported) imported.add(file);
    for (const file of files.bundled) {
      const modules = bundledInto.get(file);
      if (modules) modules.push(module);
      else bundledInto.set(file, [module]);
    }
  });
  const dirs = new Map(workspace.packages.map((pkg) => [pkg.name, pkg.dir]));
  for (const [file, modules] of bundledInto) {
    if (modules.length + (imported.has(file) ? 1 : 0) < 2) continue;
    const shown = modules.length > 5 ? `${modules.slice(0, 5).map((m) => m.specifier).join(', ')} and ${modules.length - 5} more` : modules.map((m) => m.specifier).join(', ');
    const packages = new Set(modules.map((m) => m.package));
    const reason =
      packages.size > 1
        ? 'they belong to different packages, and a file is shared only among the modules of its own package'
        : sharedSubpath(dirs.get(modules[0]!.package) ?? '', file) === null
          ? 'it lies outside the package, or its path holds a character no address carries'
          : 'it is CommonJS, or an import reaches it by another way than a relative path (a tsconfig "paths" mapping, for instance)';
    const where = `${modules.length} module${modules.length === 1 ? '' : 's'} (${shown})${imported.has(file) ? ', beside its shared address other modules import' : ''}`;
    const warning = diagnostic('HELPER_SHARED', `${file} is bundled into ${where}, each with its own copy of its classes and state, because ${reason}; make it a public module and import it by its specifier`, { file });
    for (const module of modules) byModule.set(module.specifier, [...(byModule.get(module.specifier) ?? []), warning]);
  }
  return byModule;
}

const reports = new WeakMap<object, WeakMap<object, Report>>();
const withFaults = new WeakMap<Report, WeakMap<object, Report>>();

const withUnwatched = new WeakMap<Report, WeakMap<object, Report>>();
const withRemote = new WeakMap<Report, WeakMap<RemoteCacheSummary, Report>>();

/** The `/state` report: the modules, the workspace's and the failing effects' diagnostics, what the watcher cannot watch, and what the team's remote cache gave. */
export function selectReport(state: ServiceState): Report {
  const report = selectReportWithUnwatched(state);
  const remote = state.remoteCache;
  if (!remote) return report;
  let byRemote = withRemote.get(report);
  if (!byRemote) withRemote.set(report, (byRemote = new WeakMap()));
  let answer = byRemote.get(remote);
  if (!answer) byRemote.set(remote, (answer = { ...report, remoteCache: remote }));
  return answer;
}

function selectReportWithUnwatched(state: ServiceState): Report {
  const report = selectReportWithFaults(state);
  const unwatched = state.unwatched;
  if (!unwatched || Object.keys(unwatched).length === 0) return report;
  let byList = withUnwatched.get(report);
  if (!byList) withUnwatched.set(report, (byList = new WeakMap()));
  let answer = byList.get(unwatched);
  if (!answer) byList.set(unwatched, (answer = { ...report, unwatched: Object.entries(unwatched).map(([path, code]) => ({ path, code })) }));
  return answer;
}

function selectReportWithFaults(state: ServiceState): Report {
  const report = selectModulesReport(state);
  const effects = state.effects ?? {};
  const faults = effectDiagnostics(effects);
  if (faults.length === 0) return report;
  let byEffects = withFaults.get(report);
  if (!byEffects) withFaults.set(report, (byEffects = new WeakMap()));
  let answer = byEffects.get(effects);
  if (!answer) byEffects.set(effects, (answer = { ...report, diagnostics: [...report.diagnostics, ...faults] }));
  return answer;
}

/** Failures in a row of one effect after which `/state` reports it (for the rest of the session). */
export const EFFECT_FAILURE_BOUND = 5;

function effectDiagnostics(effects: ServiceState['effects']): Diagnostic[] {
  return Object.entries(effects)
    .filter(([, fault]) => fault.worst >= EFFECT_FAILURE_BOUND)
    .map(([name, fault]) =>
      diagnostic('EFFECT_FAILED', `the ${name} effect failed ${fault.worst} times in a row (last: ${fault.message}); it keeps restarting. This is a defect of core: please report it with a log (core run --record FILE)`),
    );
}

/** The report of the modules; computed once per (workspace, builds) pair. */
function selectModulesReport(state: ServiceState): Report {
  let byBuilds = reports.get(state.workspace);
  if (!byBuilds) reports.set(state.workspace, (byBuilds = new WeakMap()));
  const cached = byBuilds.get(state.builds);
  if (cached) return cached;
  const records = defaultRecords(state);
  const helpers = sharedHelpers(state);
  const production = productionRecordsOf.get(records)!;
  const judged = withInvalidImports(
    state,
    state.workspace.modules.map((module, index) => linkedStatus(state, records[index], selectModuleReport(state, module, records[index]!, helpers))),
    production,
  );
  // After the walk of invalid imports: a development page that imports a module of a package in
  // development whose production build alone fails runs (README "Addresses").
  const modules = production.size === 0 ? judged : judged.map((report, index) => withProductionVerdict(state, state.workspace.modules[index]!, production.get(index), report));
  const warningGroups = groupStructureWarnings(modules);
  const report: Report = {
    diagnostics: state.workspace.diagnostics,
    ...(state.workspace.warnings?.length ? { warnings: state.workspace.warnings } : {}),
    ...(warningGroups.length > 0 ? { warningGroups } : {}),
    modules,
  };
  byBuilds.set(state.builds, report);
  return report;
}

const importersOf = new WeakMap<object, WeakMap<WorkspaceModel, number[][]>>();

/**
 * Who imports each module: for each of the workspace's modules (by index), the indexes of the
 * other modules whose last build of the default variant imports its specifier, each once, in the
 * workspace's order. Once per (builds, workspace), as `defaultRecords`: the report's walk of
 * invalid imports and the dashboard's importers read the same index.
 */
export function selectImporters(state: ServiceState): readonly (readonly number[])[] {
  return perBuildsAndWorkspace(importersOf, state, () => {
    const records = defaultRecords(state);
    const indexOf = new Map(state.workspace.modules.map((module, index) => [module.specifier, index]));
    const importers = state.workspace.modules.map((): number[] => []);
    for (const [index, record] of records.entries()) {
      for (const { specifier } of record?.imports ?? []) {
        const imported = indexOf.get(specifier);
        // Importers come in the workspace's order, so one imported twice is the last pushed.
        if (imported !== undefined && imported !== index && importers[imported]!.at(-1) !== index) importers[imported]!.push(index);
      }
    }
    return importers;
  });
}

/**
 * The module lines of the valid modules that reach invalid ones through their bare imports, with
 * `invalidImports`: a build judges only its own module, and the page fails on the first module
 * that does not answer. Only modules of packages in development count (the CDN serves the
 * others), and only through them, but for a left-out package's module whose production build
 * failed while the local CDN serves that build (`failingInProduction`). A walk from each invalid
 * module up its valid importers: its cost grows with the invalid modules, not with every valid
 * module's whole graph. An import of a package whose package.json could not be read is of an
 * invalid module too (README "Workspaces"): its importer names it, and so do the valid modules
 * that reach that importer.
 */
function withInvalidImports(state: ServiceState, modules: ModuleReport[], production: ReadonlyMap<number, BuildRecord>): ModuleReport[] {
  const { workspace } = state;
  const { packageTable } = indexWorkspace(workspace);
  const unread = packageTable.someUnread;
  const selection = workspace.selection === null ? null : new Set(workspace.selection);
  const served = (module: ModuleReport) => selection === null || selection.has(module.package);
  const failing = failingInProduction(state, modules, production, served);
  if (!unread && failing.length === 0 && !modules.some((module) => module.status === 'invalid')) return modules;
  const importers = selectImporters(state);
  const reached = new Map<number, Set<string>>();
  const reach = (index: number, specifiers: readonly string[]) => {
    let found = reached.get(index);
    if (!found) reached.set(index, (found = new Set()));
    for (const specifier of specifiers) found.add(specifier);
  };
  // From `start` (not itself counted) up its valid importers, each told of `specifiers`.
  const walkUp = (start: number, specifiers: readonly string[]) => {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      for (const importer of importers[queue.pop()!]!) {
        if (seen.has(importer) || modules[importer]!.status !== 'valid') continue;
        seen.add(importer);
        reach(importer, specifiers);
        if (served(modules[importer]!)) queue.push(importer);
      }
    }
  };
  modules.forEach((module, index) => {
    if (module.status === 'invalid' && served(module)) walkUp(index, [module.specifier]);
  });
  for (const index of failing) walkUp(index, [modules[index]!.specifier]);
  if (unread) {
    const records = defaultRecords(state);
    modules.forEach((module, index) => {
      if (module.status !== 'valid' || !served(module)) return;
      const held = unreadImports(packageTable, module.package, records[index]);
      if (held.length === 0) return;
      reach(index, held);
      walkUp(index, held);
    });
  }
  if (reached.size === 0) return modules;
  return modules.map((module, index) => {
    const found = reached.get(index);
    return found ? { ...module, invalidImports: [...found].sort() } : module;
  });
}

/**
 * The indexes of the modules of packages left out of development whose production build, built
 * from the current sources, failed, when the preview runs that build (the local CDN; README "The
 * local CDN"): their importers' pages fail on them. None with another CDN origin, whose build of
 * the package is not this one.
 */
function failingInProduction(state: ServiceState, modules: readonly ModuleReport[], production: ReadonlyMap<number, BuildRecord>, served: (module: ModuleReport) => boolean): number[] {
  if (!state.localCdn || production.size === 0) return [];
  const failing: number[] = [];
  for (const [index, record] of production) {
    const module = modules[index]!;
    if (module.status === 'pending' || served(module)) continue;
    if (selectBuildDiagnostics(state, state.workspace.modules[index]!, record).length > 0) failing.push(index);
  }
  return failing;
}

/** The bare imports of `record`, of a module of `packageName`, that may be of packages whose package.json could not be read (`PackageTable.ofImport`). */
function unreadImports(packageTable: PackageTable, packageName: string, record: BuildRecord | null | undefined): string[] {
  const held = new Set<string>();
  for (const { specifier } of record?.imports ?? []) {
    if (packageTable.ofImport(packageName, specifier)?.kind === 'unread') held.add(specifier);
  }
  return [...held];
}

interface KeptModuleReport {
  workspace: WorkspaceModel;
  namesSeen: ServiceState['packageNamesSeen'];
  record: BuildRecord | null;
  shared: Diagnostic[] | undefined;
  /** The warnings a judgement across modules replaced (README "Bundling real code", Shims). */
  replaced: Diagnostic[] | undefined;
  report: ModuleReport;
}

const moduleReports = new WeakMap<ModuleModel, KeptModuleReport>();

/**
 * One module's line of the report, the same object for as long as what it is made of is: its
 * model, the workspace its imports are checked against, its last build and the helper warnings
 * about it. A build changes one module's line, not every module's (and `/state`'s JSON is
 * written from the lines, each serialized once: `reportJson` in src/http/routes/state.ts).
 */
function selectModuleReport(state: ServiceState, module: ModuleModel, record: BuildRecord | null, helpers: Map<string, Diagnostic[]>): ModuleReport {
  const shared = helpers.get(module.specifier);
  const kept = moduleReports.get(module);
  // The warnings a judgement across modules replaces change with the modules it consulted.
  const replaced = replacedWarnings(state, record);
  if (kept && kept.workspace === state.workspace && kept.namesSeen === state.packageNamesSeen && kept.record === record && kept.shared === shared && kept.replaced === replaced) return kept.report;
  // The record and the helper warnings as looked up for the whole report, not again per module.
  const warnings = warningsOf(state, module, record, shared);
  const { status, diagnostics } = moduleStatusOf(module, record, state.workspace);
  const report: ModuleReport = { ...moduleNames(module), platforms: module.platforms, bundler: module.bundler.name, status, diagnostics };
  if (warnings.length > 0) report.warnings = warnings;
  moduleReports.set(module, { workspace: state.workspace, namesSeen: state.packageNamesSeen, record, shared, replaced, report });
  return report;
}

const settled = new WeakMap<ServiceState, boolean>();

/** Is every module's default variant built from the current sources and manifests? (Once per state: every waiting request asks.) */
export function selectSettled(state: ServiceState): boolean {
  let answer = settled.get(state);
  if (answer === undefined) settled.set(state, (answer = isSettled(state)));
  return answer;
}

function isSettled(state: ServiceState): boolean {
  if (!state.workspaceRead || state.workspaceStale) return false;
  for (const module of state.workspace.modules) {
    if (!isBuildable(module)) continue;
    const variant = selectVariant(state, module.specifier, defaultVariantKey(module));
    if (!variant || variant.status !== 'done') return false;
    // A left-out package's module is judged by the production build the preview runs (README "The local CDN").
    if (runsInProduction(state.workspace, module) && selectVariant(state, module.specifier, PRODUCTION_BROWSER_KEY)?.status !== 'done') return false;
  }
  // A copy of a shared file is built again, importing it (README "Shared files").
  return selectSharedFileCopies(state).length === 0;
}

export interface BuildTarget {
  module: ModuleModel;
  variant: string;
  generation: number;
  requested: boolean;
  /** The variant has been built before: an incremental rebuild fits. */
  rebuilt: boolean;
  /** Built because something changed since the start: built before, or made by a read of the workspace after a manifest changed. */
  changed: boolean;
}

/** Variants that need a build and are wanted, requested ones first. */
export function selectBuildQueue(state: ServiceState): BuildTarget[] {
  if (!state.workspaceRead || state.workspaceStale) return [];
  return perBuildsAndWorkspace(queuesOf, state, () => {
    const requested: BuildTarget[] = [];
    const eager: BuildTarget[] = [];
    const index = indexWorkspace(state.workspace);
    for (const specifier in state.builds) {
      const module = index.modules.get(specifier);
      if (!module) continue;
      const queue = entryQueue(module, state.builds[specifier]!);
      for (const target of queue.requested) requested.push(target);
      for (const target of queue.eager) eager.push(target);
    }
    return requested.concat(eager);
  });
}

const queuesOf = new WeakMap<object, WeakMap<WorkspaceModel, BuildTarget[]>>();

interface EntryQueue {
  module: ModuleModel;
  requested: BuildTarget[];
  eager: BuildTarget[];
}

const entryQueues = new WeakMap<ModuleBuilds, EntryQueue>();

/** One module's variants waiting to be built, kept with its build entry: each state's queue looks again only at the entries that changed. */
function entryQueue(module: ModuleModel, builds: ModuleBuilds): EntryQueue {
  const kept = entryQueues.get(builds);
  if (kept && kept.module === module) return kept;
  const queue: EntryQueue = { module, requested: [], eager: [] };
  for (const [variant, entry] of Object.entries(builds.variants)) {
    if (entry.status !== 'pending' || !(entry.eager || entry.requested)) continue;
    const target = { module, variant, generation: entry.generation, requested: entry.requested, rebuilt: entry.last !== null, changed: entry.last !== null || entry.afterChange === true };
    (entry.requested ? queue.requested : queue.eager).push(target);
  }
  entryQueues.set(builds, queue);
  return queue;
}

/** The hashes recorded for one path: how many records name each. */
export interface RecordedHashSet {
  readonly size: number;
  has(hash: string | null): boolean;
}

/** Workspace-relative paths (a trailing `/`: a directory's listing) with the hashes the state recorded for each. */
export type RecordedHashes = ReadonlyMap<string, RecordedHashSet>;

/**
 * The index of recorded hashes of one workspace, as of the builds it was last brought to: a
 * module's inputs are counted in or out when its build entry is another object, so a build costs
 * its own inputs and a look at each module's entry, not every module's inputs again.
 */
interface RecordedIndex {
  builds: ServiceState['builds'] | null;
  entries: Map<string, ModuleBuilds>;
  counts: Map<string, Map<string | null, number>>;
}

const recordedIndexes = new WeakMap<WorkspaceModel, RecordedIndex>();

function countInputs(counts: RecordedIndex['counts'], entry: ModuleBuilds, by: 1 | -1): void {
  for (const variant of Object.values(entry.variants)) {
    const inputs = variant.last?.inputs;
    // The newest hash the state knows for each input: a change reported since the last build counts.
    if (inputs) for (const path in inputs) countHash(counts, path, knownInputHash(variant, path) ?? null, by);
  }
}

function countHash(counts: RecordedIndex['counts'], path: string, hash: string | null, by: 1 | -1): void {
  let hashes = counts.get(path);
  if (!hashes) counts.set(path, (hashes = new Map()));
  const count = (hashes.get(hash) ?? 0) + by;
  if (count > 0) hashes.set(hash, count);
  else {
    hashes.delete(hash);
    if (hashes.size === 0) counts.delete(path);
  }
}

/**
 * Every path the state depends on, with the hashes it recorded for it. What it answers is the
 * state last asked about: read it at once, never keep it past another call.
 */
export function selectRecordedHashes(state: ServiceState): RecordedHashes {
  const { workspace, builds } = state;
  let index = recordedIndexes.get(workspace);
  if (!index) {
    index = { builds: null, entries: new Map(), counts: new Map() };
    for (const [path, hash] of Object.entries(workspace.sources)) countHash(index.counts, path, hash, 1);
    recordedIndexes.set(workspace, index);
  }
  if (index.builds === builds) return index.counts;
  const { entries, counts } = index;
  let present = 0;
  for (const specifier in builds) {
    present += 1;
    const entry = builds[specifier]!;
    const before = entries.get(specifier);
    if (before === entry) continue;
    if (before) countInputs(counts, before, -1);
    countInputs(counts, entry, 1);
    entries.set(specifier, entry);
  }
  if (entries.size > present) {
    for (const [specifier, entry] of entries) {
      if (builds[specifier] !== undefined) continue;
      countInputs(counts, entry, -1);
      entries.delete(specifier);
    }
  }
  index.builds = builds;
  return counts;
}

/**
 * The hashes the state recorded for each of `paths`, as `selectRecordedHashes` holds them (a path
 * the state does not depend on is absent), copied: the watcher keeps them while it reads the files
 * it was told of, and the whole map answers for the state last asked about only. The whole map is
 * brought to a new state by the build entries that changed (ARCHITECTURE.md "One stylesheet edit").
 */
export function selectRecordedHashesOf(state: ServiceState, paths: Iterable<string>): RecordedHashes {
  const whole = selectRecordedHashes(state) as ReadonlyMap<string, ReadonlyMap<string | null, number>>;
  const recorded = new Map<string, Set<string | null>>();
  for (const path of paths) {
    const hashes = whole.get(path);
    if (hashes) recorded.set(path, new Set(hashes.keys()));
  }
  return recorded;
}
