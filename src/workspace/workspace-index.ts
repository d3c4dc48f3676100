// Lookup tables over a workspace model, built once per model (models are immutable).
import type { ModuleModel, PackageModel, WorkspaceModel } from './model.js';

export interface WorkspaceIndex {
  packages: Map<string, PackageModel>;
  modules: Map<string, ModuleModel>;
  modulesOf: Map<string, ModuleModel[]>;
}

const cache = new WeakMap<WorkspaceModel, WorkspaceIndex>();

export function indexWorkspace(workspace: WorkspaceModel): WorkspaceIndex {
  let index = cache.get(workspace);
  if (index) return index;
  index = { packages: new Map(), modules: new Map(), modulesOf: new Map() };
  for (const pkg of workspace.packages) {
    index.packages.set(pkg.name, pkg);
    index.modulesOf.set(pkg.name, []);
  }
  for (const module of workspace.modules) {
    index.modules.set(module.specifier, module);
    index.modulesOf.get(module.package)?.push(module);
  }
  cache.set(workspace, index);
  return index;
}
