// Lookup tables over a workspace model, built once per model (models are immutable).
import type { ModuleModel, PackageModel, UnreadPackage, WorkspaceModel } from './model.js';
import { declaredPackage, isBuiltin, parseBareSpecifier } from './specifiers.js';

export interface WorkspaceIndex {
  packages: Map<string, PackageModel>;
  modules: Map<string, ModuleModel>;
  modulesOf: Map<string, ModuleModel[]>;
  /** Whose package a bare import names: the one place that decides it (ARCHITECTURE.md "Layers"). */
  packageTable: PackageTable;
}

/**
 * Whose a package name is (README "Workspaces"): a package of the model; one of the workspace
 * whose package.json could not be taken now (`named`: its file writes this very name; else its
 * name cannot be read, so any name outside the model may be its); or outside the workspace,
 * the only owner a CDN or an installed copy may serve.
 */
export type PackageOwner =
  | { readonly kind: 'model'; readonly package: PackageModel }
  | { readonly kind: 'unread'; readonly package: UnreadPackage; readonly named: boolean }
  | { readonly kind: 'outside' };

export interface PackageTable {
  /** Whether any listed package.json could not be taken: else no name is `unread`. */
  readonly someUnread: boolean;
  /** Whose the package `packageName` is. */
  ofName(packageName: string): PackageOwner;
  /**
   * Whose the package a bare import `specifier` of a module of `ownerPackage` names; null for
   * an import that names no package: a relative one, or a built-in the owner does not declare
   * (README "Workspaces": `events` declared is the npm package).
   */
  ofImport(ownerPackage: string, specifier: string): PackageOwner | null;
}

const OUTSIDE: PackageOwner = { kind: 'outside' };

function packageTable(packages: ReadonlyMap<string, PackageModel>, unread: readonly UnreadPackage[] | undefined): PackageTable {
  const ofName = (packageName: string): PackageOwner => {
    const own = packages.get(packageName);
    if (own) return { kind: 'model', package: own };
    // The one whose file writes that name, else one whose name cannot be read: no name is
    // called a CDN's until every manifest is read.
    const named = unread?.find((pkg) => pkg.name === packageName);
    const nameless = named ? undefined : unread?.find((pkg) => pkg.name === null);
    if (named) return { kind: 'unread', package: named, named: true };
    return nameless ? { kind: 'unread', package: nameless, named: false } : OUTSIDE;
  };
  return {
    someUnread: unread !== undefined,
    ofName,
    ofImport: (ownerPackage, specifier) => {
      const bare = parseBareSpecifier(specifier);
      if (bare === null) return null;
      const owner = packages.get(ownerPackage);
      if (isBuiltin(specifier) && !(owner && declaredPackage(owner, specifier))) return null;
      return ofName(bare.packageName);
    },
  };
}

// By the model's modules, then its packages and unread packages: a read of the workspace that
// changes nothing but the hashes of what it read gives a new model with the same packages and
// modules (the store replaces its sources only), whose index is the one built before.
const cache = new WeakMap<readonly ModuleModel[], { packages: readonly PackageModel[]; unread: readonly UnreadPackage[] | undefined; index: WorkspaceIndex }>();

export function indexWorkspace(workspace: WorkspaceModel): WorkspaceIndex {
  const known = cache.get(workspace.modules);
  if (known && known.packages === workspace.packages && known.unread === workspace.unreadPackages) return known.index;
  const packages = new Map<string, PackageModel>();
  const index: WorkspaceIndex = { packages, modules: new Map(), modulesOf: new Map(), packageTable: packageTable(packages, workspace.unreadPackages) };
  for (const pkg of workspace.packages) {
    index.packages.set(pkg.name, pkg);
    index.modulesOf.set(pkg.name, []);
  }
  for (const module of workspace.modules) {
    index.modules.set(module.specifier, module);
    index.modulesOf.get(module.package)?.push(module);
  }
  cache.set(workspace.modules, { packages: workspace.packages, unread: workspace.unreadPackages, index });
  return index;
}
