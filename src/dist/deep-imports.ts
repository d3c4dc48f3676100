// `core dist` reads the workspace once, but a deep import of a package without `exports`
// (`pkg/button/filled-button.js`) is a module only once a build has found it (README "Exports
// and sources"). Before the distribution, the modules that may import one (their package
// declares such a workspace package) are built once for their bare imports, and the workspace
// is read again with those found, until no new module can import another.
import { isDeepImport } from '../store/reducer.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';

export async function readWithDeepImports(
  read: (deepImports: readonly string[]) => WorkspaceModel,
  importsOf: (workspace: WorkspaceModel, modules: ModuleModel[]) => Promise<string[]>,
): Promise<WorkspaceModel> {
  const deep: string[] = [];
  const scanned = new Set<string>();
  let workspace = read(deep);
  for (;;) {
    const open = new Set(workspace.packages.filter((p) => p.withoutExports).map((p) => p.name));
    if (open.size === 0) return workspace;
    const declaresOpen = new Set(workspace.packages.filter((p) => Object.keys(p.dependencies).some((name) => open.has(name))).map((p) => p.name));
    const modules = workspace.modules.filter((m) => !scanned.has(m.specifier) && declaresOpen.has(m.package));
    if (modules.length === 0) return workspace;
    for (const module of modules) scanned.add(module.specifier);
    let added = false;
    const index = indexWorkspace(workspace);
    for (const specifier of await importsOf(workspace, modules)) {
      if (deep.includes(specifier) || !isDeepImport(index, specifier)) continue;
      deep.push(specifier);
      added = true;
    }
    if (!added) return workspace;
    workspace = read(deep);
  }
}
