// Lookup tables over a workspace model, built once per model (models are immutable).
import type { ModuleModel, PackageModel, WorkspaceModel } from './model.js';

export interface WorkspaceIndex {
  packages: Map<string, PackageModel>;
  modules: Map<string, ModuleModel>;
  modulesOf: Map<string, ModuleModel[]>;
}

// By the model's modules, then its packages: a read of the workspace that changes nothing but
// the hashes of what it read gives a new model with the same packages and modules (the store
// replaces its sources only), whose index is the one built before.
const cache = new WeakMap<readonly ModuleModel[], { packages: readonly PackageModel[]; index: WorkspaceIndex }>();

export function indexWorkspace(workspace: WorkspaceModel): WorkspaceIndex {
  const known = cache.get(workspace.modules);
  if (known && known.packages === workspace.packages) return known.index;
  const index: WorkspaceIndex = { packages: new Map(), modules: new Map(), modulesOf: new Map() };
  for (const pkg of workspace.packages) {
    index.packages.set(pkg.name, pkg);
    index.modulesOf.set(pkg.name, []);
  }
  for (const module of workspace.modules) {
    index.modules.set(module.specifier, module);
    index.modulesOf.get(module.package)?.push(module);
  }
  cache.set(workspace.modules, { packages: workspace.packages, index });
  return index;
}
