// Selectors: everything the service answers is derived from the state here, so `/state`,
// the push channel and `core replay` can never disagree.
import { checkImports } from '../workspace/checks.js';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import type { ModuleModel, Platform, WorkspaceModel } from '../workspace/model.js';
import { defaultVariant, variantKey } from '../workspace/variant.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { isBuildable } from './reducer.js';
import type { BuildRecord, ServiceState, VariantState } from './state.js';

export type ModuleStatus = 'valid' | 'invalid' | 'pending';

export interface ModuleReport {
  specifier: string;
  package: string;
  version: string;
  subpath: string;
  platforms: Platform[];
  bundler: string;
  status: ModuleStatus;
  diagnostics: Diagnostic[];
  /** Present when the last build warned: never a reason to be invalid. */
  warnings?: Diagnostic[];
}

/** The `/state` document of README "Addresses". */
export interface Report {
  diagnostics: Diagnostic[];
  /** Hints that make nothing invalid (README "Warnings"); present only when there are some. */
  warnings?: Diagnostic[];
  modules: ModuleReport[];
  /** Paths the watcher cannot look at, with the error code (README "Links and large trees"); present only when there are some. */
  unwatched?: { path: string; code: string }[];
}


export const selectPackage = (state: ServiceState, name: string) => indexWorkspace(state.workspace).packages.get(name);

export const selectVariant = (state: ServiceState, specifier: string, key: string): VariantState | undefined =>
  state.builds[specifier]?.variants[key];

export const defaultVariantKey = (module: ModuleModel): string => variantKey(defaultVariant(module));

const diagnosticsOf = new WeakMap<BuildRecord, WeakMap<WorkspaceModel, Diagnostic[]>>();

/**
 * Diagnostics of a finished build: the bundler's errors, then the dependency checks.
 * Computed once per (record, workspace): both are immutable, and every answer asks.
 */
export function buildDiagnostics(module: ModuleModel, record: BuildRecord, workspace: WorkspaceModel): Diagnostic[] {
  let byWorkspace = diagnosticsOf.get(record);
  if (!byWorkspace) diagnosticsOf.set(record, (byWorkspace = new WeakMap()));
  let diagnostics = byWorkspace.get(workspace);
  if (!diagnostics) {
    const checks = checkImports(module, record.imports, workspace);
    diagnostics = record.errors.length === 0 ? checks : [...record.errors, ...checks];
    byWorkspace.set(workspace, diagnostics);
  }
  return diagnostics;
}

/** The status and diagnostics of one module, judged by its default variant. */
export function selectModuleStatus(state: ServiceState, module: ModuleModel): { status: ModuleStatus; diagnostics: Diagnostic[] } {
  if (module.diagnostics.length > 0) return { status: 'invalid', diagnostics: module.diagnostics };
  const record = selectVariant(state, module.specifier, defaultVariantKey(module))?.last;
  if (!record) return { status: 'pending', diagnostics: [] };
  const diagnostics = buildDiagnostics(module, record, state.workspace);
  return { status: diagnostics.length === 0 ? 'valid' : 'invalid', diagnostics };
}

/** Warnings of the module's last build, beside its status (README "Warnings"): only when there are some. */
function moduleWarnings(state: ServiceState, module: ModuleModel): { warnings?: Diagnostic[] } {
  const own = selectVariant(state, module.specifier, defaultVariantKey(module))?.last?.warnings ?? [];
  const shared = sharedHelpers(state).get(module.specifier) ?? [];
  const warnings = shared.length === 0 ? own : [...own, ...shared];
  return warnings.length > 0 ? { warnings } : {};
}

const CODE_FILE = /\.[cm]?[jt]sx?$/;
const helperWarnings = new WeakMap<object, Map<string, Diagnostic[]>>();

// A helper file bundled into several modules exists once per module on a page: its classes
// (`instanceof` fails across them) and its module state are duplicated. Each module says so.
function sharedHelpers(state: ServiceState): Map<string, Diagnostic[]> {
  let byModule = helperWarnings.get(state.builds);
  if (byModule) return byModule;
  byModule = new Map();
  const entries = new Set(state.workspace.modules.map((module) => module.entry));
  const bundledInto = new Map<string, string[]>();
  for (const module of state.workspace.modules) {
    const inputs = selectVariant(state, module.specifier, defaultVariantKey(module))?.last?.inputs ?? {};
    for (const [file, hash] of Object.entries(inputs)) {
      if (hash === null || entries.has(file) || !CODE_FILE.test(file) || /\.d\.[cm]?ts$/.test(file)) continue;
      const modules = bundledInto.get(file);
      if (modules) modules.push(module.specifier);
      else bundledInto.set(file, [module.specifier]);
    }
  }
  for (const [file, modules] of bundledInto) {
    if (modules.length < 2) continue;
    const shown = modules.length > 5 ? `${modules.slice(0, 5).join(', ')} and ${modules.length - 5} more` : modules.join(', ');
    const warning = diagnostic('HELPER_SHARED', `${file} is bundled into ${modules.length} modules (${shown}): each has its own copy of its classes and state; keep it in one module, or make it a public module and import it by its specifier`, { file });
    for (const module of modules) byModule.set(module, [...(byModule.get(module) ?? []), warning]);
  }
  helperWarnings.set(state.builds, byModule);
  return byModule;
}

const reports = new WeakMap<object, WeakMap<object, Report>>();
const withFaults = new WeakMap<Report, WeakMap<object, Report>>();

const withUnwatched = new WeakMap<Report, WeakMap<object, Report>>();

/** The `/state` report: the modules, the workspace's and the failing effects' diagnostics, and what the watcher cannot watch. */
export function selectReport(state: ServiceState): Report {
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
  const report: Report = {
    diagnostics: state.workspace.diagnostics,
    ...(state.workspace.warnings?.length ? { warnings: state.workspace.warnings } : {}),
    modules: state.workspace.modules.map((module) => ({
      specifier: module.specifier,
      package: module.package,
      version: module.version,
      subpath: module.subpath,
      platforms: module.platforms,
      bundler: module.bundler.name,
      ...selectModuleStatus(state, module),
      ...moduleWarnings(state, module),
    })),
  };
  byBuilds.set(state.builds, report);
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
  }
  return true;
}

export interface BuildTarget {
  module: ModuleModel;
  variant: string;
  generation: number;
  requested: boolean;
  /** The variant has been built before: an incremental rebuild fits. */
  rebuilt: boolean;
}

/** Variants that need a build and are wanted, requested ones first. */
export function selectBuildQueue(state: ServiceState): BuildTarget[] {
  if (!state.workspaceRead || state.workspaceStale) return [];
  const requested: BuildTarget[] = [];
  const eager: BuildTarget[] = [];
  const index = indexWorkspace(state.workspace);
  for (const [specifier, builds] of Object.entries(state.builds)) {
    const module = index.modules.get(specifier);
    if (!module) continue;
    for (const [variant, entry] of Object.entries(builds.variants)) {
      if (entry.status !== 'pending' || !(entry.eager || entry.requested)) continue;
      const target = { module, variant, generation: entry.generation, requested: entry.requested, rebuilt: entry.last !== null };
      (entry.requested ? requested : eager).push(target);
    }
  }
  return requested.concat(eager);
}

