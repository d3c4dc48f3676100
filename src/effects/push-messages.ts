// What the open pages are told (README "Preview and stylesheet push"), derived from successive states: a module
// whose stylesheet was rebuilt with new content (`styles`), whose build became invalid or
// changed its diagnostics, or whose own manifest became wrong (`invalid`), whose code changed or that gained or lost a stylesheet
// (`code`: the page reloads to run it), whose warnings changed (`warnings`, all of them), whose
// declared asset was saved with new content (`asset`, whatever its outputs did: a page that
// fetched the asset's plain address holds the old bytes), and
// one that builds again after being invalid (`valid`, so pages drop its diagnostics even when
// the fix restored the last good outputs); and the workspace's own diagnostics when they
// change, or the modules a preview entry can name (`workspace`: an error page follows it). Only the default browser variant counts, and only
// once it is built from the current sources and the modules whose names it imports are built
// too. A module is looked at again when its own builds change, or when a module its link
// judgement consulted does (an importer made invalid, or healed, by another module's edit).
// Changes are judged against the last good outputs; a stylesheet with a CSS syntax problem is no
// good one (a browser drops rules around it).
import path from 'node:path';
import { map, Observable } from 'rxjs';
import { defaultVariantKey, selectBuildDiagnostics, selectLinkJudgement, selectModuleWarnings, type LinkJudgement } from '../store/selectors.js';
import type { BuildRecord, ModuleBuilds, ServiceState } from '../store/state.js';
import type { ModuleModel } from '../workspace/model.js';
import { assetAddress, moduleLabel, stylesAddress, type PushMessage } from '../protocol/push.js';
import { UNVERIFIED, type BuildOutputs } from '../store/events.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { indexWorkspace } from '../workspace/workspace-index.js';

interface View {
  /** How pages named the module when this view was taken: a new version gives it new addresses. */
  label: string;
  /** Hashes of the last good outputs (kept while the build is invalid). */
  styles: string | null;
  code: string | null;
  /** The diagnostics now, as JSON; null while the build is valid. */
  diagnostics: string | null;
  /** The warnings of the last good build, as JSON. */
  warnings: string;
  /** The content hash of each declared asset (by its path in the module's directory) the last good build recorded. */
  assets: Record<string, string>;
}

/**
 * A message, and for a `styles` one what its `href` names: the module, the sheet's hash and the
 * state it was derived from, so the answer the page then fetches is made from them, not from the
 * address parsed back (ARCHITECTURE.md "One stylesheet edit").
 */
export interface Pushed {
  message: PushMessage;
  sheet?: { module: ModuleModel; hash: string; state: ServiceState };
}

export function pushMessages$(state$: Observable<ServiceState>): Observable<PushMessage> {
  return pushed$(state$).pipe(map((pushed) => pushed.message));
}

export function pushed$(state$: Observable<ServiceState>): Observable<Pushed> {
  return new Observable<Pushed>((subscriber) => {
    // By specifier, not label: a module whose version changed is the same module at new addresses.
    const views = new Map<string, View>();
    let seenBuilds = new WeakSet<ModuleBuilds>();
    const consulted = createConsulted();
    let workspace: ServiceState['workspace'] | null = null;
    const workspaceMessage = createWorkspaceMessages();
    return state$.subscribe({
      // What this throws fails the derivation (its supervisor restarts it), not the process.
      next: (state) => {
        try {
          derive(state);
        } catch (error) {
          subscriber.error(error);
        }
      },
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    function derive(state: ServiceState) {
      // A new workspace model can change diagnostics without a build: look at every module.
      const workspaceRead = state.workspace !== workspace;
      if (workspaceRead) {
        workspace = state.workspace;
        seenBuilds = new WeakSet();
        consulted.clear();
      }
      const looked = new Set<string>();
      const changed: string[] = [];
      for (const module of state.workspace.modules) {
        const builds = state.builds[module.specifier];
        if (!builds || seenBuilds.has(builds)) continue;
        seenBuilds.add(builds);
        changed.push(module.specifier);
        looked.add(module.specifier);
        look(state, module);
      }
      // Importers whose own builds did not change, judged again only when a module they consulted did.
      const modules = changed.some((specifier) => consulted.has(specifier)) ? indexWorkspace(state.workspace).modules : null;
      for (const specifier of changed) {
        for (const importer of consulted.importersOf(specifier)) {
          if (looked.has(importer)) continue;
          looked.add(importer);
          const module = modules!.get(importer);
          const record = module && state.builds[importer]?.variants[defaultVariantKey(module)]?.last;
          if (record && !consulted.holds(importer, selectLinkJudgement(state, record))) look(state, module);
        }
      }
      if (!workspaceRead) return;
      const message = workspaceMessage(state);
      if (message) subscriber.next({ message });
    }
    function look(state: ServiceState, module: ModuleModel) {
      if (!module.platforms.includes('web')) return;
      const judged = judgedBuild(state, module);
      if (!judged) return;
      const { last, diagnostics } = judged;
      const judgement = last && selectLinkJudgement(state, last);
      consulted.judged(module.specifier, judgement);
      // A module it imports is being built: what it links to is not known yet, and a page is told once it is.
      if (diagnostics.length === 0 && judgement?.building) return;
      const before = views.get(module.specifier);
      const outputs = diagnostics.length === 0 ? last!.outputs : null;
      // A first view is what a page was served: no message derives from it, and the warnings
      // about shared helpers (a look at every module) are left to the changes that follow.
      const warnings = !outputs ? [] : before ? selectModuleWarnings(state, module) : (last!.warnings ?? []);
      const view = viewOf(moduleLabel(module), outputs, diagnostics, warnings, before, outputs ? declaredAssetHashes(module, last!, before?.assets ?? {}) : {});
      views.set(module.specifier, view);
      if (before) for (const pushed of changes(state, module, before, view, diagnostics, warnings)) subscriber.next(pushed);
    }
  });
}

/**
 * The default variant's finished build and its diagnostics, null while none is finished. A module
 * whose own manifest is wrong (a declared asset deleted) is built no more: its diagnostics are the
 * manifest's, as /state's, and a page loaded now shows them (its code answers 422).
 */
function judgedBuild(state: ServiceState, module: ModuleModel): { last: BuildRecord | null; diagnostics: Diagnostic[] } | null {
  if (module.diagnostics.length > 0) return { last: null, diagnostics: module.diagnostics };
  const variant = state.builds[module.specifier]?.variants[defaultVariantKey(module)];
  if (!variant || variant.status !== 'done' || !variant.last) return null;
  return { last: variant.last, diagnostics: selectBuildDiagnostics(state, module, variant.last) };
}

/** What a page is shown of a module now: its last good outputs (the ones before while it is invalid), its diagnostics and warnings. */
function viewOf(label: string, outputs: BuildOutputs | null, diagnostics: Diagnostic[], warnings: Diagnostic[], before: View | undefined, assets: Record<string, string>): View {
  if (!outputs) return { label, styles: before?.styles ?? null, code: before?.code ?? null, diagnostics: JSON.stringify(diagnostics), warnings: before?.warnings ?? '[]', assets: before?.assets ?? {} };
  const styles = keepsLastGoodSheet(warnings) && before ? before.styles : (outputs.styles?.hash ?? null);
  return { label, styles, code: codeOf(outputs), diagnostics: null, warnings: JSON.stringify(warnings), assets };
}

/**
 * The hashes a development build recorded for its module's declared assets, every one an input of
 * it (`declaredAssetFiles`), by the path the manifest declares. One not verified yet keeps the
 * hash told before: the module builds again and the next view compares with what pages hold.
 */
function declaredAssetHashes(module: ModuleModel, last: BuildRecord, told: Record<string, string>): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const asset of module.assets) {
    const recorded = last.inputs[path.posix.join(module.dir, asset)];
    const hash = recorded === UNVERIFIED ? told[asset] : recorded;
    if (typeof hash === 'string') hashes[asset] = hash;
  }
  return hashes;
}

/** The messages from one view of a module to the next, in the order a page must hear them. */
function changes(state: ServiceState, module: ModuleModel, before: View, view: View, diagnostics: Diagnostic[], warnings: Diagnostic[]): Pushed[] {
  const { label } = view;
  // A new version (package.json bumped) moves every address of the module: a page that
  // loaded the old ones knows the module by its old label only, and must reload to load
  // the new ones (README "Preview and stylesheet push"). Whatever else changed, it sees then.
  if (before.label !== label) return [{ message: { type: 'code', module: before.label } }];
  if (view.diagnostics !== null) return view.diagnostics !== before.diagnostics ? [{ message: { type: 'invalid', module: label, diagnostics } }] : [];
  const told: Pushed[] = [];
  if (before.diagnostics !== null) told.push({ message: { type: 'valid', module: label } });
  // Before the sheet: a page that keeps its last good sheet for a syntax problem learns it is gone first.
  if (view.warnings !== before.warnings) told.push({ message: { type: 'warnings', module: label, warnings } });
  // A stylesheet gained or lost is a link the page must add or drop: it reloads, as for code.
  // Before the sheet: a page that reloads takes the new sheet with it, and swaps nothing
  // into the page it leaves (the runtime ignores what comes after its reload began).
  if (view.code !== before.code || (view.styles === null) !== (before.styles === null)) told.push({ message: { type: 'code', module: label } });
  if (view.styles !== null && view.styles !== before.styles) {
    told.push({ message: { type: 'styles', module: label, href: stylesAddress(module, view.styles) }, sheet: { module, hash: view.styles, state } });
  }
  // Last: a page that reloads for the code ignores it. The same bytes saved again, or an asset
  // declared since (no page had it from this module), tell nothing.
  for (const [asset, hash] of Object.entries(view.assets)) {
    const was = before.assets[asset];
    if (was !== undefined && was !== hash) told.push({ message: { type: 'asset', module: label, href: assetAddress(module, asset) } });
  }
  return told;
}

/**
 * The link judgement each importer's view was taken with, and who consulted each module in
 * theirs: a module whose builds change makes its importers' judgements due, however deep the
 * whole re-exports between (a judgement consults every module it passes through).
 */
function createConsulted() {
  // The modules its link names and its reads taken as defined (README "Bundling real code", Shims) were judged by.
  const consultedModules = (judgement: LinkJudgement): string[] => [...judgement.consulted.keys(), ...(judgement.shims?.consulted.keys() ?? [])];
  const judgements = new Map<string, LinkJudgement>();
  const consultedBy = new Map<string, Set<string>>();
  return {
    clear() {
      judgements.clear();
      consultedBy.clear();
    },
    has: (specifier: string): boolean => consultedBy.has(specifier),
    /** A copy: a look keeps the importers of what it consulted anew. */
    importersOf: (specifier: string): string[] => [...(consultedBy.get(specifier) ?? [])],
    /** Is `judgement` the one the importer's view was taken with? */
    holds: (importer: string, judgement: LinkJudgement | null): boolean => (judgements.get(importer) ?? null) === judgement,
    judged(importer: string, judgement: LinkJudgement | null) {
      const before = judgements.get(importer);
      if (before === judgement) return;
      for (const specifier of before ? consultedModules(before) : []) consultedBy.get(specifier)?.delete(importer);
      if (!judgement) {
        judgements.delete(importer);
        return;
      }
      judgements.set(importer, judgement);
      for (const specifier of consultedModules(judgement)) {
        let importers = consultedBy.get(specifier);
        if (!importers) consultedBy.set(specifier, (importers = new Set()));
        importers.add(importer);
      }
    },
  };
}

/**
 * The `workspace` message of each workspace read, if any. A broken manifest concerns no module:
 * pages show it as a page loaded now would (README "Preview and stylesheet push"), and drop it
 * once fixed. An entry declared (or dropped, or its platforms changed) makes a preview possible
 * that was not: the error page of an entry no manifest declared hears it here, and asks for
 * itself again only then. A new version is no new entry: pages hear it as `code`.
 */
function createWorkspaceMessages(): (state: ServiceState) => PushMessage | null {
  let diagnosticsTold = '[]';
  let entriesNamed: string | null = null;
  return (state) => {
    const diagnostics = JSON.stringify(state.workspace.diagnostics);
    // The model before the first read is no workspace a page was served from.
    const entries = state.workspaceRead ? previewEntriesKey(state.workspace) : null;
    const entriesChanged = entriesNamed !== null && entries !== null && entries !== entriesNamed;
    const told = diagnostics !== diagnosticsTold || entriesChanged;
    diagnosticsTold = diagnostics;
    entriesNamed = entries;
    return told ? { type: 'workspace', diagnostics: [...state.workspace.diagnostics] } : null;
  };
}

/** What a preview entry can name and how it is chosen: the modules, their platforms, core.json `preview`. */
const previewEntriesKey = (workspace: ServiceState['workspace']): string =>
  JSON.stringify([workspace.preview ?? null, workspace.modules.map((module) => [module.specifier, module.platforms])]);

/** An `invalid` message for every browser module with diagnostics now, its build's or its own manifest's: what a page that connects has missed. */
export function invalidMessages(state: ServiceState): PushMessage[] {
  const messages: PushMessage[] = [];
  for (const module of state.workspace.modules) {
    if (!module.platforms.includes('web')) continue;
    const last = state.builds[module.specifier]?.variants[defaultVariantKey(module)]?.last;
    // A module whose own manifest is wrong has no build: its manifest's diagnostics, as /state says.
    const diagnostics = module.diagnostics.length > 0 ? module.diagnostics : last ? selectBuildDiagnostics(state, module, last) : [];
    if (diagnostics.length > 0) messages.push({ type: 'invalid', module: moduleLabel(module), diagnostics });
  }
  return messages;
}

/** The workspace's own diagnostics, when it has some: what a page that connects has missed. */
export const workspaceMessages = (state: ServiceState): PushMessage[] => (state.workspace.diagnostics.length > 0 ? [{ type: 'workspace', diagnostics: [...state.workspace.diagnostics] }] : []);

/** A `warnings` message for every valid browser module with warnings now: what a page that reconnects has missed. */
export function warningMessages(state: ServiceState): PushMessage[] {
  const messages: PushMessage[] = [];
  for (const module of state.workspace.modules) {
    if (!module.platforms.includes('web')) continue;
    const warnings = selectModuleWarnings(state, module);
    if (warnings.length > 0) messages.push({ type: 'warnings', module: moduleLabel(module), warnings });
  }
  return messages;
}

// The module's code on a page includes the shared files it imports (README "Shared files"): a change of one is a change of its code.
/** A stylesheet with a syntax problem is not pushed: a page keeps its last good sheet (README "Warnings"). */
export const keepsLastGoodSheet = (warnings: readonly Diagnostic[]): boolean => warnings.some((warning) => warning.kind === 'CSS_SYNTAX');

export const codeOf = (outputs: BuildOutputs): string => (outputs.chunks ? [outputs.code.hash, ...Object.values(outputs.chunks).map((chunk) => chunk.hash)].join(' ') : outputs.code.hash);
