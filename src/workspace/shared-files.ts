// Shared files (README "Shared files"): a source file that several public modules of one package
// reach runs once per page. It is not bundled into each of them: it is an internal module of the
// package, at an address of its own, which the modules import by its internal specifier
// `<package>/.shared/<path in the package>` (ARCHITECTURE.md "Shared files").
import type { WorkspaceModel } from './model.js';
import { pathRecord } from './path-records.js';

/** The first segment of an internal module's subpath: no declared subpath starts with it. */
export const SHARED_SEGMENT = '.shared';

/** Files that carry code of their own (a `.d.ts` carries none). */
export const isCodeFile = (file: string): boolean => /\.[cm]?[jt]sx?$/.test(file) && !/\.d\.[cm]?ts$/.test(file);

// Each segment of the path must survive an address unchanged (README "Addresses"); a file with
// any other name stays a copy in each module, and HELPER_SHARED says so.
const SAFE_SEGMENT = /^(?!\.\.?$)[A-Za-z0-9._@+~-]+$/;

/** The internal subpath of `file` (workspace-relative) in the package at `packageDir`, or null when it cannot have one. */
export function sharedSubpath(packageDir: string, file: string): string | null {
  const prefix = packageDir === '.' || packageDir === '' ? '' : `${packageDir}/`;
  if (!file.startsWith(prefix)) return null;
  const inside = file.slice(prefix.length);
  const segments = inside.split('/');
  if (segments.some((segment) => !SAFE_SEGMENT.test(segment)) || segments[0] === 'node_modules' || segments.includes('node_modules')) return null;
  return `${SHARED_SEGMENT}/${inside}`;
}

export const isSharedSubpath = (subpath: string): boolean => subpath.startsWith(`${SHARED_SEGMENT}/`);

/** Is `specifier` an internal specifier of a shared file of `packageName`, each segment one an address carries unchanged? */
export function isSharedSpecifier(packageName: string, specifier: string): boolean {
  if (!specifier.startsWith(`${packageName}/${SHARED_SEGMENT}/`)) return false;
  return specifier.slice(packageName.length + SHARED_SEGMENT.length + 2).split('/').every((segment) => SAFE_SEGMENT.test(segment));
}

/** Shared files by package: file (workspace-relative) -> internal specifier. */
export type SharedFiles = Map<string, Record<string, string>>;

/**
 * The files of each package that two or more of its public modules reach, by what their builds
 * read (`inputsOf`): what a module's code imports beyond its entry. Entries of public modules are
 * imported by their specifiers already; files outside the package stay copies.
 */
export function findSharedFiles(workspace: WorkspaceModel, inputsOf: (specifier: string) => Iterable<string> | undefined): SharedFiles {
  const entries = new Set(workspace.modules.map((module) => module.entry));
  const dirs = new Map(workspace.packages.map((pkg) => [pkg.name, pkg.dir]));
  const reaches: ModuleReach[] = [];
  for (const module of workspace.modules) {
    const inputs = inputsOf(module.specifier);
    const packageDir = dirs.get(module.package);
    if (inputs && packageDir !== undefined) reaches.push({ packageName: module.package, packageDir, files: [...inputs].filter((file) => !entries.has(file)) });
  }
  return sharedAmong(reaches);
}

/** What one module's code reaches: the files it read, less those imported by specifier anyway (public modules' entries). */
export interface ModuleReach {
  packageName: string;
  packageDir: string;
  files: Iterable<string>;
}

/**
 * The one rule of shared files, for the builds of a workspace and for one batch of builds alike:
 * a code file of a package that two or more of its modules reach, when its path can be an address.
 */
export function sharedAmong(reaches: Iterable<ModuleReach>): SharedFiles {
  const counts = new Map<string, { dir: string; files: Map<string, number> }>();
  for (const { packageName, packageDir, files } of reaches) {
    let counted = counts.get(packageName);
    if (!counted) counts.set(packageName, (counted = { dir: packageDir, files: new Map() }));
    for (const file of files) if (isCodeFile(file)) counted.files.set(file, (counted.files.get(file) ?? 0) + 1);
  }
  const shared: SharedFiles = new Map();
  for (const [name, { dir, files }] of counts) {
    for (const [file, count] of files) {
      const subpath = count >= 2 ? sharedSubpath(dir, file) : null;
      if (subpath === null) continue;
      let found = shared.get(name);
      // One per package, keyed by its paths and kept (ARCHITECTURE.md "One module's requests at 10,000 modules").
      if (!found) shared.set(name, (found = pathRecord()));
      found[file] = `${name}/${subpath}`;
    }
  }
  return shared;
}

/** What a module declares that a shared file's assets depend on: its directory, subpath and declared assets. */
export interface ModuleDeclaration {
  dir: string;
  subpath: string;
  assets: string[];
}

const declarationsOf = new WeakMap<WorkspaceModel, Map<string, ModuleDeclaration[]>>();

/** Each package's modules' declarations, in the model's order (by subpath): once per workspace model. */
export function packageDeclarations(workspace: WorkspaceModel): Map<string, ModuleDeclaration[]> {
  let byPackage = declarationsOf.get(workspace);
  if (!byPackage) {
    byPackage = new Map();
    for (const module of workspace.modules) {
      let list = byPackage.get(module.package);
      if (!list) byPackage.set(module.package, (list = []));
      list.push({ dir: module.dir, subpath: module.subpath, assets: module.assets });
    }
    declarationsOf.set(workspace, byPackage);
  }
  return byPackage;
}

/**
 * The module whose declaration an asset a shared file imports resolves by (README "Shared
 * files"): of the modules declaring `file` (workspace-relative), the one whose directory is the
 * nearest holding it; of several in that directory, the first by subpath. Null when none declares
 * it. Where the file lies and who declares it decide, never which module found the shared file.
 */
export function assetOwner<T extends ModuleDeclaration>(declarations: readonly T[], file: string): { declaration: T; asset: string } | null {
  let found: { declaration: T; asset: string } | null = null;
  for (const declaration of declarations) {
    if (!holds(declaration.dir, file) || (found !== null && declaration.dir.length <= found.declaration.dir.length)) continue;
    const asset = declaration.assets.find((name) => joinedPath(declaration.dir, name) === file);
    if (asset !== undefined) found = { declaration, asset };
  }
  return found;
}

/** The modules whose directory holds `file`: the declarations that may own it (`assetOwner`). */
export const holdingModules = <T extends ModuleDeclaration>(declarations: readonly T[], file: string): T[] => declarations.filter((declaration) => holds(declaration.dir, file));

const holds = (dir: string, file: string): boolean => dir === '.' || dir === '' || file.startsWith(`${dir}/`);
const joinedPath = (dir: string, name: string): string => (dir === '.' || dir === '' ? name : `${dir}/${name}`);

/** The manifest whose `assets` a module's declaration comes from, workspace-relative: an input of each build depending on it. */
export const declarationManifest = (declaration: ModuleDeclaration): string => joinedPath(declaration.dir, 'module.json');
