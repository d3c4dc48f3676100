// The names each workspace package has had in this run of the service, and the warning for an
// import of one it no longer has (README "Workspaces"): by npm's rule that import is a package
// from outside (a CDN's, or node_modules'), not the renamed one, and would load without a word.
// Pure: the store keeps the names as it takes each read of the workspace.
import { diagnostic, type Diagnostic } from './diagnostics.js';
import type { ImportRecord } from './checks.js';
import type { ModuleModel, PackageModel, WorkspaceModel } from './model.js';
import { parseBareSpecifier } from './specifiers.js';
import { indexWorkspace } from './workspace-index.js';

/** By package directory, every name its package.json has given it in this run, the first first. */
export type PackageNamesSeen = Readonly<Record<string, readonly string[]>>;

/** `seen` with the names of `packages` added; `seen` itself when each is known, so a read that renames nothing changes nothing. */
export function withNamesSeen(seen: PackageNamesSeen | undefined, packages: readonly PackageModel[]): PackageNamesSeen | undefined {
  let next: Record<string, readonly string[]> | undefined;
  for (const pkg of packages) {
    const names = (next ?? seen)?.[pkg.dir];
    if (names?.includes(pkg.name)) continue;
    next ??= { ...seen };
    next[pkg.dir] = [...(names ?? []), pkg.name];
  }
  return next ?? seen;
}

/** A name no package has now: the directory whose package had it, and the name that package has now. */
export interface FormerName {
  readonly dir: string;
  readonly current: string;
}

const formerIndexes = new WeakMap<PackageNamesSeen, { workspace: WorkspaceModel; names: Map<string, FormerName> }>();

/** The names packages of `workspace` had earlier in this run and no package of it has now. */
export function formerNames(workspace: WorkspaceModel, seen: PackageNamesSeen | undefined): ReadonlyMap<string, FormerName> {
  if (!seen) return NO_NAMES;
  const kept = formerIndexes.get(seen);
  if (kept && kept.workspace === workspace) return kept.names;
  const { packages } = indexWorkspace(workspace);
  const names = new Map<string, FormerName>();
  for (const pkg of workspace.packages) {
    for (const name of seen[pkg.dir] ?? []) {
      if (name !== pkg.name && !packages.has(name)) names.set(name, { dir: pkg.dir, current: pkg.name });
    }
  }
  formerIndexes.set(seen, { workspace, names });
  return names;
}

const NO_NAMES: ReadonlyMap<string, FormerName> = new Map();
const NO_WARNINGS: Diagnostic[] = [];

/** The warning for an import of a former name, at the import, naming the name to write instead. */
export function formerNameWarning(importer: string, record: ImportRecord, former: FormerName): Diagnostic {
  const bare = parseBareSpecifier(record.specifier)!;
  const instead = `${former.current}${bare.subpath ? `/${bare.subpath}` : ''}`;
  return diagnostic(
    'IMPORT_OF_FORMER_NAME',
    `${importer} imports "${record.specifier}", but ${bare.packageName} is the name ${former.dir}/package.json wrote earlier in this run: that package is ${former.current} now, so "${bare.packageName}" is a package from outside the workspace (a CDN's or node_modules'), not it; import "${instead}" and declare "${former.current}" in dependencies`,
    { file: record.file, line: record.line, column: record.column },
  );
}

const judged = new WeakMap<readonly ImportRecord[], { module: ModuleModel; workspace: WorkspaceModel; seen: PackageNamesSeen | undefined; warnings: Diagnostic[] }>();

/**
 * The `IMPORT_OF_FORMER_NAME` warnings of a module's imports: each bare import the package table
 * calls outside the workspace whose name a package of it had earlier in this run. The same array
 * while the imports, the workspace and the names are the ones judged.
 */
export function formerNameWarnings(module: ModuleModel, imports: readonly ImportRecord[], workspace: WorkspaceModel, seen: PackageNamesSeen | undefined): Diagnostic[] {
  const names = formerNames(workspace, seen);
  if (names.size === 0) return NO_WARNINGS;
  const kept = judged.get(imports);
  if (kept && kept.module === module && kept.workspace === workspace && kept.seen === seen) return kept.warnings;
  const { packageTable } = indexWorkspace(workspace);
  let warnings = NO_WARNINGS;
  const told = new Set<string>();
  for (const record of imports) {
    const bare = parseBareSpecifier(record.specifier);
    const former = bare && names.get(bare.packageName);
    if (!former || told.has(`${record.file}\0${record.specifier}`)) continue;
    if (packageTable.ofImport(module.package, record.specifier)?.kind !== 'outside') continue;
    told.add(`${record.file}\0${record.specifier}`);
    if (warnings === NO_WARNINGS) warnings = [];
    warnings.push(formerNameWarning(module.specifier, record, former));
  }
  judged.set(imports, { module, workspace, seen, warnings });
  return warnings;
}
