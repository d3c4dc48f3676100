// The checks of README "Workspaces" over the bare imports a build found: declared dependencies,
// compatible versions, no built-ins in browser modules, only public modules imported.
// Pure, so a package.json edit changes a module's diagnostics without a rebuild.
import semver from 'semver';
import { dataExportReason } from './data-exports.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { lineAndColumn } from './json.js';
import type { ModuleModel, PackageModel, WorkspaceModel } from './model.js';
import { isSubpath } from './subpaths.js';
import { declaredPackage, isBuiltin, parseBareSpecifier, moduleSpecifier } from './specifiers.js';
import { indexWorkspace } from './workspace-index.js';

/** A bare import found in a module's sources. */
export interface ImportRecord {
  specifier: string;
  /** The importing file, relative to the workspace. */
  file: string;
  line?: number;
  column?: number;
  /**
   * The specifier as the importing file writes it, when the build names the import otherwise: a
   * relative import of a shared file, by its internal specifier (README "Shared files"). Its place
   * is found by this text.
   */
  written?: string;
  /** Written with the import attribute `{ type: 'json' }`, without which Node imports no JSON. */
  json?: true;
  /** First written after the module's last import of a sheet of its own: its sheets come after the module's (README "Preview and stylesheet push"). */
  afterSheet?: true;
  /**
   * A literal `import()` of it in the module's code (the only imports the build itself names so):
   * it runs when that call does, so the bundled preview names no module reached only through one
   * (README "The bundled preview").
   */
  dynamic?: true;
}

/**
 * A module's imports in the order its sheet and theirs join (README "Preview and stylesheet
 * push"): those whose sheets come before the module's own, then those written after its last own
 * sheet import, whose sheets come after it.
 */
export function importsAroundSheet<T extends Pick<ImportRecord, 'afterSheet'>>(imports: readonly T[]): { before: T[]; after: T[] } {
  return { before: imports.filter((record) => !record.afterSheet), after: imports.filter((record) => record.afterSheet) };
}

/**
 * The records with the line and column where each import is written, found in the importing
 * file's text (`read`, relative to the workspace; null when unreadable): diagnostics point there.
 */
export function locateImports(imports: readonly ImportRecord[], read: (file: string) => string | null): ImportRecord[] {
  const texts = new Map<string, string | null>();
  return imports.map((record) => {
    if (record.line !== undefined) return record;
    if (!texts.has(record.file)) texts.set(record.file, read(record.file));
    const text = texts.get(record.file);
    const place = text ? importPlace(text, record.written ?? record.specifier) : null;
    return place ? { ...record, ...place } : record;
  });
}

/** Where `text` first writes `specifier` quoted; null when it does not. */
export function importPlace(text: string, specifier: string): { line: number; column: number } | null {
  for (const quote of ["'", '"', '`']) {
    const at = text.indexOf(`${quote}${specifier}${quote}`);
    if (at !== -1) return lineAndColumn(text, at);
  }
  return null;
}

// The checks read the module, its imports and the workspace's packages and modules, never the
// hashes of the files read (`sources`): a read of the workspace that changes nothing else gives
// a model whose packages and modules are the ones before (the store replaces its sources only),
// and each module's checks are the ones made before, not made again for every module.
// One entry per imports array (each build record has its own), not a map per array.
const judged = new WeakMap<readonly ImportRecord[], { module: ModuleModel; packages: readonly PackageModel[]; modules: readonly ModuleModel[]; diagnostics: Diagnostic[] }>();

export function checkImports(module: ModuleModel, imports: readonly ImportRecord[], workspace: WorkspaceModel): Diagnostic[] {
  const known = judged.get(imports);
  if (known && known.module === module && known.packages === workspace.packages && known.modules === workspace.modules) return known.diagnostics;
  const diagnostics = judgeImports(module, imports, workspace);
  judged.set(imports, { module, packages: workspace.packages, modules: workspace.modules, diagnostics });
  return diagnostics;
}

/** The checks themselves, kept by `checkImports` with what they were made of. */
function judgeImports(module: ModuleModel, imports: readonly ImportRecord[], workspace: WorkspaceModel): Diagnostic[] {
  const own = indexWorkspace(workspace).packages.get(module.package);
  if (!own) return [];
  const found: Diagnostic[] = [];
  // Most modules import a few packages: the pairs seen are only tracked when there are several.
  const seen = imports.length > 1 ? new Set<string>() : null;
  for (const record of imports) {
    if (seen) {
      const key = `${record.file}\0${record.specifier}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    const problem = checkImport(module, own, record, workspace);
    if (problem) found.push(problem);
  }
  return found;
}

function checkImport(module: ModuleModel, own: PackageModel, record: ImportRecord, workspace: WorkspaceModel): Diagnostic | null {
  const where = { file: record.file, line: record.line, column: record.column };
  const { specifier } = record;
  if (isBuiltin(specifier) && !declaredPackage(own, specifier)) {
    if (!module.platforms.includes('web')) return null;
    return diagnostic('PREVIEW_BUILTIN', `${module.specifier} runs in browsers (platforms ${JSON.stringify(module.platforms)}) but imports the server built-in "${specifier}": remove the import, or declare the module "platforms": ["node"]`, where);
  }
  const bare = parseBareSpecifier(specifier);
  if (!bare) return null;
  const index = indexWorkspace(workspace);
  const target = index.packages.get(bare.packageName);
  if (bare.packageName !== module.package) {
    const range = Object.hasOwn(own.dependencies, bare.packageName) ? own.dependencies[bare.packageName] : undefined;
    if (range === undefined) {
      return diagnostic('DEPENDENCY_NOT_DECLARED', `${module.specifier} imports "${specifier}" but ${own.name} does not declare "${bare.packageName}" in "dependencies" (or "peerDependencies", "optionalDependencies") of ${own.dir}/package.json: declare it${target ? ` (the workspace has version ${target.version})` : ''}`, where);
    }
    if (target && !satisfiesRange(target.version, range)) {
      return diagnostic('DEPENDENCY_INCOMPATIBLE', `${module.specifier} imports "${specifier}": ${own.name} asks for ${bare.packageName} "${range}", but the workspace has version ${target.version}: correct the range or the version`, where);
    }
  }
  if (!target) return null; // a package from outside the workspace; the preview resolves its version
  const imported = index.modules.get(moduleSpecifier(target.name, bare.subpath));
  if (!imported) {
    if (target.withoutExports && bare.subpath !== '') {
      return diagnostic('BUNDLE_ERROR', `${module.specifier} imports "${specifier}", which names no file of ${target.name}: a package without "exports" publishes each of its files as Node resolves it (${target.dir}/${bare.subpath}, or the source it is built from)`, where);
    }
    const available = (index.modulesOf.get(target.name) ?? []).map((m) => m.specifier);
    // A name `exports` maps to data (JSON, an image): Node resolves it, the service publishes no
    // module for it; the importer hears why, not that the manifest lacks it (README "Exports and sources").
    const data = target.dataExports && Object.hasOwn(target.dataExports, bare.subpath) ? target.dataExports[bare.subpath]! : null;
    // A module no browser runs leaves the bare import to Node, which imports JSON written `with {
    // type: 'json' }` (and throws without it): no module of this service is asked for (README
    // "Exports and sources").
    const key = data !== null && target.dataExportKeys && Object.hasOwn(target.dataExportKeys, bare.subpath) ? target.dataExportKeys[bare.subpath]! : `./${bare.subpath}`;
    if (data !== null && !module.platforms.includes('web') && /\.json$/i.test(data)) {
      if (record.json) return null;
      return diagnostic('BUNDLE_ERROR', `${module.specifier} imports "${specifier}": exports["${key}"] of ${target.dir}/package.json maps it to "${data}", JSON, which Node imports only with the attribute { type: 'json' }: write import ... from "${specifier}" with { type: 'json' }`, where);
    }
    if (data !== null) {
      return diagnostic('BUNDLE_ERROR', `${module.specifier} imports "${specifier}": exports["${key}"] of ${target.dir}/package.json maps it to "${data}", which ${dataExportReason(target.name, bare.subpath, data)}${available.length ? `; its modules are ${available.join(', ')}` : ''}`, where);
    }
    // A name no address can carry: a `*` pattern matching its file skips it (README "Exports and sources").
    const unpublishable = bare.subpath !== '' && !isSubpath(bare.subpath) ? ` ("${bare.subpath}" is not a subpath this service can publish: segments of letters, digits, ".", "_", "-")` : '';
    return diagnostic('BUNDLE_ERROR', `${module.specifier} imports "${specifier}", which is not a public module of ${target.name}${unpublishable}${available.length ? `; its modules are ${available.join(', ')}` : ''}`, where);
  }
  if (module.platforms.includes('web') && !imported.platforms.includes('web')) {
    return diagnostic('BUNDLE_ERROR', `${module.specifier} runs in browsers but imports "${specifier}", whose platforms are ${JSON.stringify(imported.platforms)}`, where);
  }
  return null;
}

// `workspace:` ranges (pnpm, yarn) name the workspace's own version; `*` and `workspace:^` accept it.
// A workspace has few distinct pairs, and every answer checks its module's imports again:
// semver parses the range on each call.
const satisfied = new Map<string, boolean>();
const SATISFIED_KEPT = 10_000;

function satisfiesRange(version: string, range: string): boolean {
  const key = `${version}\0${range}`;
  let answer = satisfied.get(key);
  if (answer === undefined) {
    const plain = range.startsWith('workspace:') ? range.slice('workspace:'.length) : range;
    // `satisfies` is false for a range it cannot parse: no `validRange` parse before it.
    answer = plain === '*' || plain === '^' || plain === '~' || plain === '' || semver.satisfies(version, plain, { includePrerelease: true });
    if (satisfied.size >= SATISFIED_KEPT) satisfied.clear();
    satisfied.set(key, answer);
  }
  return answer;
}

