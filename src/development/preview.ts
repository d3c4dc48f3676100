// The preview's entry report (README "Preview and stylesheet push"): the entry, the import map for every bare
// specifier reached from the entry package's modules, and every module listed with its
// addresses. Pure over the state; the versions of installed packages come in as a function.
import semver from 'semver';
import { selectModuleStatus, defaultVariantKey, selectReport } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import { codeAddress, stylesAddress } from '../protocol/push.js';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { moduleNames, type ModuleModel, type ModuleNames, type PackageModel } from '../workspace/model.js';
import { declaredPackage, isBuiltin, parseBareSpecifier, ROOT_SUBPATH } from '../workspace/specifiers.js';
import { canonicalSpecifier } from '../workspace/boundaries.js';
import { indexWorkspace, type PackageOwner, type WorkspaceIndex } from '../workspace/workspace-index.js';
import { choosePreviewEntry, type NoPreviewEntry } from '../workspace/preview-entry.js';
import { importsAroundSheet, type ImportRecord } from '../workspace/checks.js';
import { formerNames } from '../workspace/former-names.js';
import type { InstalledCopy } from '../io/installed-packages.js';

/** The version an address of an unread package's module carries when its manifest writes none: any answers the manifest's problem. */
const UNREAD_VERSION = 'unread';

export interface PreviewModule extends ModuleNames {
  source: 'package' | 'environment';
  code: string;
  styles: string | null;
}

export interface PreviewDiagnostic extends Diagnostic {
  /** The module it concerns, when it concerns one. */
  module?: string;
}

export interface Preview {
  entry: string;
  diagnostics: PreviewDiagnostic[];
  /** Warnings of the modules served here (README "Warnings"); present only when there are some. */
  warnings?: PreviewDiagnostic[];
  imports: Record<string, string>;
  /** The import map's scopes: what a module whose address starts with a key (or is it) loads by a bare specifier instead of `imports`' entry; present only when there are some (README "The local CDN"). */
  scopes?: Record<string, Record<string, string>>;
  modules: PreviewModule[];
  /** The specifiers the page loads: the entry and what it imports, transitively, as far as built (README "Preview and stylesheet push"). */
  loads: string[];
  /** Sheets a CDN serves (README "Stylesheet modules", "The local CDN"): stylesheet modules', and the local CDN's of the script modules it serves; the page links each; present only when there are some. `at`: the import map's entry (an installed package importing it) whose place in the cascade it takes, right before that entry's own sheet; not part of `entry.json`. */
  stylesheets?: { specifier: string; href: string; at?: string }[];
  /**
   * The cascade (README "Preview and stylesheet push"): every specifier the walk reached, what a
   * module imports before the module, in the order `modules` keeps; where `/preview/` links a
   * CDN's sheet among the development ones. Not part of `entry.json`.
   */
  cascade?: string[];
  /** How many of `cascade`'s first specifiers the entry reaches; the rest are the entry package's modules it never imports. Not part of `entry.json`. */
  cascadeReached?: number;
}

export interface PreviewOptions {
  /** `?entry=`; else core.json `preview`; else the first web module of the first package. */
  entry?: string;
  cdnOrigin: string;
  /** The copy of `name` installed where the package in `packageDir` would load it, or null; a link npm left under a former name is no install (README "Workspaces"). */
  installed(name: string, packageDir: string): InstalledCopy | null;
}

const installedVersionOf = (copy: InstalledCopy | null): string | null => (copy && 'version' in copy ? copy.version : null);

export type PreviewResult = { ok: true; preview: Preview } | { ok: false; reason: 'unknown-entry' | 'not-web'; message: string };

export function chooseEntry(state: ServiceState, requested?: string): ModuleModel | NoPreviewEntry {
  return choosePreviewEntry(state.workspace, requested);
}

export function derivePreview(state: ServiceState, options: PreviewOptions): PreviewResult {
  const chosen = chooseEntry(state, options.entry);
  if ('reason' in chosen) return { ok: false, ...chosen };
  const { workspace } = state;
  const walk: PreviewWalk = {
    state,
    options,
    index: indexWorkspace(workspace),
    entryPackage: chosen.package,
    // A broken manifest is shown as itself (its file and position), before anything it causes.
    preview: { entry: chosen.specifier, diagnostics: [...workspace.diagnostics], imports: {}, modules: [], loads: [] },
    listed: new Map(),
    queue: [],
    unresolved: new Set(),
    // The entry's own package is always served by the service, selected or not: a preview of a
    // page fetched from a CDN would show what was published, not what is being developed.
    inDevelopment: (name) => workspace.selection === null || workspace.selection.includes(name) || name === chosen.package,
  };
  for (const module of walk.index.modulesOf.get(chosen.package) ?? []) {
    if (module.platforms.includes('web')) list(walk, module);
  }
  while (walk.queue.length > 0) visit(walk, walk.queue.shift()!);
  const { preview } = walk;
  [preview.cascade, preview.cascadeReached] = cascadeOrder(walk, chosen);
  const rank = new Map(preview.cascade.map((specifier, at) => [specifier, at]));
  preview.modules = [...walk.listed.values()].sort((a, b) => (rank.get(a.specifier) ?? Infinity) - (rank.get(b.specifier) ?? Infinity));
  preview.loads = loadedFrom(state, chosen.specifier, preview.imports);
  return { ok: true, preview };
}

/**
 * `derivePreview` kept with the state it was derived from: a page asked for again from the same
 * state (the one a restart prepared, a reload) is derived once. Its only reads of the disk, the
 * versions of installed packages, are asked again, and any other answer derives it anew. The
 * preview answered is shared: whoever adds to it copies it first.
 */
export function createPreviewDeriver(installed: PreviewOptions['installed']): (state: ServiceState, options: Omit<PreviewOptions, 'installed'>) => PreviewResult {
  const derived = new WeakMap<ServiceState, Map<string, { result: PreviewResult; versions: [name: string, dir: string, copy: string][] }>>();
  return (state, { entry, cdnOrigin }) => {
    const key = `${entry ?? ''}\0${cdnOrigin}`;
    let byKey = derived.get(state);
    if (!byKey) derived.set(state, (byKey = new Map()));
    const kept = byKey.get(key);
    if (kept && kept.versions.every(([name, dir, copy]) => JSON.stringify(installed(name, dir)) === copy)) return kept.result;
    const versions: [string, string, string][] = [];
    // Each package's look-up once: every import of a name outside is asked of (README "Workspaces").
    const copies = new Map<string, InstalledCopy | null>();
    const asked = (name: string, dir: string) => {
      const key = `${name}\0${dir}`;
      if (copies.has(key)) return copies.get(key)!;
      const copy = installed(name, dir);
      copies.set(key, copy);
      versions.push([name, dir, JSON.stringify(copy)]);
      return copy;
    };
    const result = derivePreview(state, { entry, cdnOrigin, installed: asked });
    // Only a preview is kept: `entry` is the address's own query, and a refused one (any text)
    // must not grow the map of a state that lasts.
    if (result.ok) byKey.set(key, { result, versions });
    return result;
  };
}

/** A sheet a CDN serves, which the page links (`Preview.stylesheets`). */
export type CdnSheet = NonNullable<Preview['stylesheets']>[number];

/** A stylesheet the page links: a development module's, or one a CDN serves. */
export type LinkedSheet = { module: PreviewModule } | { cdn: CdnSheet };

/**
 * The page's stylesheets in the cascade (README "Preview and stylesheet push"): the development
 * ones in the order `modules` keeps, each CDN sheet at its specifier's place (or its importer's,
 * `at`). One whose specifier the walk did not reach (another package's sheet an installed
 * package imports, listed right before its importer's: README "The local CDN") keeps its place
 * before the sheet listed after it; when none follows, after the sheets the entry reaches, before
 * those of the entry package's modules the entry never imports. `/preview/` links them so, and the
 * bundled preview joins each run of development sheets between two CDN sheets into one part.
 */
export function linkedSheets(preview: Preview): LinkedSheet[] {
  const sheets: (LinkedSheet & { specifier: string })[] = [
    ...preview.modules.filter((module) => module.styles !== null).map((module) => ({ module, specifier: module.specifier })),
    ...(preview.stylesheets ?? []).map((cdn) => ({ cdn, specifier: cdn.at ?? cdn.specifier })),
  ];
  const rank = new Map((preview.cascade ?? []).map((specifier, at) => [specifier, at]));
  let next = preview.cascadeReached ?? rank.size + sheets.length;
  const placed = sheets.map((sheet, given) => ({ sheet, given, at: 0 }));
  for (let given = placed.length - 1; given >= 0; given -= 1) {
    const own = rank.get(sheets[given]!.specifier);
    if (own !== undefined) next = own;
    placed[given]!.at = own ?? next - 0.5;
  }
  return placed.sort((a, b) => a.at - b.at || a.given - b.given).map(({ sheet: { specifier: _specifier, ...sheet } }) => sheet as LinkedSheet);
}

/**
 * The bundled preview's sheets in `/preview/`'s order (README "The bundled preview"): each run of
 * development sheets between two CDN sheets joined into one part of the joined sheet, linked at
 * that run's place, so a CDN's sheet keeps its place in the cascade. One part, empty, when there
 * is no development sheet (a module that gains one is changed code: the page reloads).
 */
export function bundledSheetOrder(preview: Preview): { parts: PreviewModule[][]; order: ({ part: number } | { cdn: CdnSheet })[] } {
  const parts: PreviewModule[][] = [];
  const order: ({ part: number } | { cdn: CdnSheet })[] = [];
  let open: PreviewModule[] | null = null;
  for (const sheet of linkedSheets(preview)) {
    if ('cdn' in sheet) {
      order.push(sheet);
      open = null;
      continue;
    }
    if (!open) {
      parts.push((open = []));
      order.push({ part: parts.length - 1 });
    }
    open.push(sheet.module);
  }
  if (parts.length === 0) {
    parts.push([]);
    order.unshift({ part: 0 });
  }
  return { parts, order };
}

/** The walk from the entry package's modules through what their builds import. */
interface PreviewWalk {
  state: ServiceState;
  options: PreviewOptions;
  index: WorkspaceIndex;
  entryPackage: string;
  preview: Preview;
  listed: Map<string, PreviewModule>;
  /** Modules listed whose imports are still to be mapped. */
  queue: ModuleModel[];
  /** Packages outside the workspace already reported without an exact version. */
  unresolved: Set<string>;
  inDevelopment(name: string): boolean;
}

const cdnAddress = (walk: PreviewWalk, name: string, version: string, subpath: string) => `${walk.options.cdnOrigin}/${name}@${version}${subpath ? `/${subpath}` : ''}`;

function list(walk: PreviewWalk, module: ModuleModel): void {
  if (walk.listed.has(module.specifier)) return;
  const { state } = walk;
  const development = walk.inDevelopment(module.package);
  // Two modules with one entry file are one module on a page: both map to one address.
  const canonical = walk.index.modules.get(canonicalSpecifier(state.workspace, module.specifier, module.entry)) ?? module;
  const record = development ? state.builds[canonical.specifier]?.variants[defaultVariantKey(canonical)]?.last : undefined;
  const entry: PreviewModule = {
    ...moduleNames(module),
    source: module.package === walk.entryPackage ? 'package' : 'environment',
    // Named by content hash when built: immutable, so a reload fetches only what changed.
    code: development
      ? codeAddress(canonical, record?.outputs?.code.hash)
      : cdnAddress(walk, module.package, module.version, module.subpath === ROOT_SUBPATH ? '' : module.subpath),
    styles: record?.outputs?.styles ? stylesAddress(canonical, record.outputs.styles.hash) : null,
  };
  walk.listed.set(module.specifier, entry);
  walk.preview.imports[module.specifier] = entry.code;
  // A module served by the CDN keeps its bare imports too (production output is built the
  // same way): what it imports must be in the import map as well, transitively.
  walk.queue.push(module);
}

/**
 * The order the page links sheets in (README "Preview and stylesheet push"), the order every
 * bundler joins them: from the entry, depth first through each module's bare imports as its last
 * build lists them, a module after everything it imports (but what its code writes only after
 * its last import of its own sheet: after it), each where first reached; then, the
 * same way, the entry package's other web modules, which the entry never imports, in the
 * workspace's order. Outside packages' specifiers stand where they are reached, for a CDN's sheet.
 */
function cascadeOrder(walk: PreviewWalk, entry: ModuleModel): [order: string[], reached: number] {
  const order: string[] = [];
  const seen = new Set<string>();
  const reach = (specifier: string): void => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    const module = walk.index.modules.get(specifier);
    const record = module && walk.listed.has(specifier) ? walk.state.builds[specifier]?.variants[defaultVariantKey(module)]?.last : undefined;
    const { before, after } = importsAroundSheet(record?.imports ?? []);
    for (const imported of before) if (imported.specifier in walk.preview.imports) reach(imported.specifier);
    order.push(specifier);
    for (const imported of after) if (imported.specifier in walk.preview.imports) reach(imported.specifier);
  };
  reach(entry.specifier);
  const reached = order.length;
  for (const specifier of walk.listed.keys()) reach(specifier);
  return [order, reached];
}

/** A listed module: its problems, then what its last build imports, mapped. */
function visit(walk: PreviewWalk, module: ModuleModel): void {
  const { state, preview } = walk;
  const { status, diagnostics } = selectModuleStatus(state, module);
  // A module the CDN serves is judged by what was published, not by the sources here.
  if (walk.inDevelopment(module.package)) {
    for (const problem of diagnostics) preview.diagnostics.push({ ...problem, module: module.specifier });
    for (const warning of selectReportModule(state, module.specifier)?.warnings ?? []) (preview.warnings ??= []).push({ ...warning, module: module.specifier });
  }
  if (status === 'pending') return;
  const record = state.builds[module.specifier]?.variants[defaultVariantKey(module)]?.last;
  const owner = walk.index.packages.get(module.package)!;
  // The shared files its code imports (README "Shared files"): one address each on the page.
  for (const [specifier, chunk] of Object.entries(record?.outputs?.chunks ?? {})) {
    const subpath = specifier.slice(module.package.length + 1);
    preview.imports[specifier] ??= walk.inDevelopment(module.package) ? codeAddress({ package: module.package, version: module.version, subpath }, chunk.hash) : cdnAddress(walk, module.package, module.version, subpath);
  }
  for (const imported of record?.imports ?? []) {
    const { specifier } = imported;
    if (isBuiltin(specifier) && !declaredPackage(owner, specifier)) continue;
    if (specifier in preview.imports) scopeImport(walk, module, owner, imported);
    else mapImport(walk, module, owner, imported);
  }
}

/** The scope of a workspace package's addresses in the import map: its modules' (`/m/<package>@<version>/...`), and a left-out one's after the local CDN's redirect there. */
export const packageScopeOf = (module: { package: string; version: string }): string => `/m/${module.package}@${module.version}/`;

/**
 * A bare import of a package outside the workspace that the import map's top level maps at
 * another version than this module's package loads (its own exact `dependencies` entry, or a copy
 * installed in its own node_modules): a scope of the package's addresses maps it to its version
 * (README "The local CDN").
 */
function scopeImport(walk: PreviewWalk, module: ModuleModel, owner: PackageModel, imported: ImportRecord): void {
  const bare = parseBareSpecifier(imported.specifier);
  if (!bare || walk.index.packageTable.ofName(bare.packageName).kind !== 'outside') return;
  const version = externalVersion(owner, bare.packageName, walk.options);
  const address = version === null ? null : cdnAddress(walk, bare.packageName, version, bare.subpath);
  if (address === null || address === walk.preview.imports[imported.specifier]) return;
  const scope = packageScopeOf(module);
  if (walk.preview.scopes?.[scope]?.[imported.specifier] !== undefined) return;
  warnNotInstalled(walk, module, owner, imported, true);
  ((walk.preview.scopes ??= {})[scope] ??= {})[imported.specifier] = address;
}

/**
 * The service's own address for a bare import of a package whose package.json is unread (README
 * "Workspaces"): it answers the manifest's problem, never code from elsewhere under that name.
 */
export function unreadPackageAddress(packageOwner: Extract<PackageOwner, { kind: 'unread' }>, bare: { packageName: string; subpath: string }): string {
  const { package: unread, named } = packageOwner;
  const version = named && unread.version !== null ? encodeURIComponent(unread.version) : UNREAD_VERSION;
  return codeAddress({ package: bare.packageName, version, subpath: bare.subpath === '' ? ROOT_SUBPATH : bare.subpath });
}

/** A bare import: a workspace module is listed, a package outside the workspace mapped to the CDN at its exact version. */
function mapImport(walk: PreviewWalk, module: ModuleModel, owner: PackageModel, imported: ImportRecord): void {
  const { specifier } = imported;
  const bare = parseBareSpecifier(specifier);
  if (!bare) return;
  const target = walk.index.modules.get(specifier);
  const packageOwner = walk.index.packageTable.ofName(bare.packageName);
  if (packageOwner.kind === 'model') {
    if (target) list(walk, target); // an unknown one is already a diagnostic of the importer
    return;
  }
  // A workspace package whose package.json is broken is still the workspace's: its address here
  // answers the manifest's problem, where a CDN would run whatever was published under its name
  // (README "Workspaces").
  if (packageOwner.kind === 'unread') {
    walk.preview.imports[specifier] = unreadPackageAddress(packageOwner, bare);
    return;
  }
  const version = externalVersion(owner, bare.packageName, walk.options);
  warnNotInstalled(walk, module, owner, imported, version !== null);
  if (version !== null) {
    walk.preview.imports[specifier] = cdnAddress(walk, bare.packageName, version, bare.subpath);
    return;
  }
  if (walk.unresolved.has(bare.packageName)) return;
  walk.unresolved.add(bare.packageName);
  const range = owner.dependencies[bare.packageName];
  walk.preview.diagnostics.push({
    ...diagnostic(
      'PREVIEW_VERSION_UNRESOLVED',
      `${bare.packageName} has no exact version: ${owner.name} declares ${range === undefined ? 'no range' : `the range "${range}"`} and no copy is installed; declare the exact version (for example "${bare.packageName}": "1.2.3") in ${owner.dir}/package.json`,
      { file: `${owner.dir}/package.json` },
    ),
    module: module.specifier,
  });
}

/**
 * `PREVIEW_OUTSIDE_NOT_INSTALLED` (README "Workspaces"): an import mapped to a CDN as a package
 * outside the workspace though no copy of it is installed where its importer would load it, when
 * a workspace package may be the one it meant (npm's link of the import's package leads to it,
 * or its directory is named as that package, its own name another: a rename this run did not
 * see; such a link is no install), or when the CDN is the local one, which
 * serves installed copies only. A CDN of the web without node_modules is a setup of its own: an
 * import not installed is no warning there by itself. An import of a name this run saw renamed
 * has `IMPORT_OF_FORMER_NAME` on its module already. `mapped`: whether it has a version to map at.
 */
function warnNotInstalled(walk: PreviewWalk, module: ModuleModel, owner: PackageModel, imported: ImportRecord, mapped: boolean): void {
  const bare = parseBareSpecifier(imported.specifier)!;
  if (formerNames(walk.state.workspace, walk.state.packageNamesSeen).has(bare.packageName)) return;
  // An origin that is a path is the service itself: the local CDN (README "The local CDN").
  const localCdn = walk.options.cdnOrigin.startsWith('/');
  const copy = walk.options.installed(bare.packageName, owner.dir);
  if (installedVersionOf(copy) !== null) return;
  // npm's link of the name, left by a rename, names the package it meant better than a directory's name.
  const formerLink = copy !== null && 'formerNameLinkTo' in copy;
  const linkedTo = formerLink ? copy.formerNameLinkTo : null;
  const lastSegment = bare.packageName.slice(bare.packageName.lastIndexOf('/') + 1);
  const candidate =
    walk.state.workspace.packages.find((pkg) => pkg.name !== bare.packageName && pkg.dir === linkedTo) ??
    walk.state.workspace.packages.find((pkg) => pkg.name !== bare.packageName && pkg.dir.slice(pkg.dir.lastIndexOf('/') + 1) === lastSegment);
  // Not mapped, it has its error (`PREVIEW_VERSION_UNRESOLVED`): only a suggested name adds to it.
  if (!candidate && (!localCdn || !mapped)) return;
  const loaded = !mapped
    ? 'it has no version to map at (PREVIEW_VERSION_UNRESOLVED)'
    : localCdn
      ? 'the local CDN, which serves installed copies only, answers its address 404'
      : `the page loads whatever ${walk.options.cdnOrigin} has published under that name`;
  const importInstead = candidate ? `import "${candidate.name}${bare.subpath ? `/${bare.subpath}` : ''}" and declare "${candidate.name}" in dependencies` : '';
  const link = formerLink ? `node_modules/${bare.packageName} is a link whose package.json names another package: no install of ${bare.packageName}; ` : '';
  const instead =
    candidate && linkedTo !== null && candidate.dir === linkedTo
      ? `node_modules/${bare.packageName} is npm's link of that name to ${candidate.dir}, whose package is ${candidate.name} now (renamed), no install of ${bare.packageName}: ${importInstead}; else install ${bare.packageName}`
      : candidate
        ? `${link}${candidate.dir} holds ${candidate.name}: if ${bare.packageName} was its name before a rename, ${importInstead}; else install ${bare.packageName}`
        : `${link}install it, or, if it is a workspace package renamed, import it by the name it has now`;
  (walk.preview.warnings ??= []).push({
    ...diagnostic('PREVIEW_OUTSIDE_NOT_INSTALLED', `${module.specifier} imports "${imported.specifier}", a package outside the workspace of which no copy is installed where ${owner.name} would load it, so ${loaded}; ${instead}`, imported),
    module: module.specifier,
  });
}

// The entry and every specifier of the import map its build imports, transitively: what the
// page loads, which the overlay and the preloads cover. A module not built (or broken) imports
// nothing known yet; the page reloads once it builds.
function loadedFrom(state: ServiceState, entry: string, imports: Record<string, string>): string[] {
  const index = indexWorkspace(state.workspace);
  const loads = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const module = index.modules.get(queue.shift()!);
    if (!module) continue;
    const canonical = index.modules.get(canonicalSpecifier(state.workspace, module.specifier, module.entry)) ?? module;
    for (const { specifier } of state.builds[canonical.specifier]?.variants[defaultVariantKey(canonical)]?.last?.imports ?? []) {
      if (!(specifier in imports) || loads.has(specifier)) continue;
      loads.add(specifier);
      queue.push(specifier);
    }
  }
  return [...loads];
}

/** An empty module, which needs no request: what a stylesheet's import stands for once the page links its sheet. */
export const EMPTY_MODULE = 'data:text/javascript,';

/**
 * A CDN's stylesheets (README "Stylesheet modules"): a CDN answers a published `.css` file as
 * itself, `text/css`, which a module import refuses. The page links it instead, and the import
 * map names an empty module for its import.
 */
export function linkCdnStylesheets(preview: Preview, cdnOrigin: string): void {
  for (const [specifier, address] of Object.entries(preview.imports)) {
    if (!specifier.endsWith('.css') || !address.startsWith(`${cdnOrigin}/`)) continue;
    preview.imports[specifier] = EMPTY_MODULE;
    (preview.stylesheets ??= []).push({ specifier, href: address });
  }
}

/**
 * The script modules of workspace packages left out of development that `imports` maps to
 * `cdnOrigin` and whose build here has a stylesheet (README "Preview and stylesheet push"): that
 * CDN's address answers their code only. The local CDN links each sheet at `?styles`; another
 * origin has no address for it, and the page would show it unstyled without a word.
 */
export function leftOutScriptSheets(state: ServiceState, imports: Record<string, string>, cdnOrigin: string): ModuleModel[] {
  const index = indexWorkspace(state.workspace);
  const found: ModuleModel[] = [];
  for (const [specifier, address] of Object.entries(imports)) {
    const module = index.modules.get(specifier);
    if (!module || module.entry?.endsWith('.css') || !address.startsWith(`${cdnOrigin}/`)) continue;
    if (hasDevelopmentSheet(state, module)) found.push(module);
  }
  return found;
}

/**
 * Whether the module's last development build made a stylesheet: its sources import one. A
 * production build reads the same imports (only minified), so one without a sheet here has none there.
 */
export const hasDevelopmentSheet = (state: ServiceState, module: ModuleModel): boolean => state.builds[module.specifier]?.variants[defaultVariantKey(module)]?.last?.outputs?.styles != null;

/** A CDN origin of its own cannot serve a left-out script module's sheet: the preview says so, as a warning of that module. */
export function warnUnlinkedScriptSheets(state: ServiceState, preview: Preview, cdnOrigin: string): void {
  const unlinked = leftOutScriptSheets(state, preview.imports, cdnOrigin).map((module) => ({
    ...diagnostic(
      'PREVIEW_STYLESHEET_UNLINKED',
      `${module.specifier} imports a stylesheet, and ${preview.imports[module.specifier]} answers its code only: the page links no sheet for it (its package, ${module.package}, is left out of development)`,
    ),
    module: module.specifier,
  }));
  // A new list: the preview's own may be the one kept with the state it was derived from.
  if (unlinked.length > 0) preview.warnings = [...(preview.warnings ?? []), ...unlinked];
}

// The exact version a package outside the workspace is fetched at: its `dependencies`
// entry when that is exact, else the copy installed in node_modules.
function externalVersion(owner: PackageModel, name: string, options: PreviewOptions): string | null {
  const declared = owner.dependencies[name];
  if (declared !== undefined) {
    const exact = semver.valid(declared.replace(/^=/, ''));
    if (exact) return exact;
  }
  const installed = installedVersionOf(options.installed(name, owner.dir));
  return installed && semver.valid(installed) ? installed : null;
}

const reportIndexes = new WeakMap<object, Map<string, ReturnType<typeof selectReport>['modules'][number]>>();
function selectReportModule(state: ServiceState, specifier: string) {
  const report = selectReport(state);
  let index = reportIndexes.get(report);
  if (!index) reportIndexes.set(report, (index = new Map(report.modules.map((m) => [m.specifier, m]))));
  return index.get(specifier);
}
