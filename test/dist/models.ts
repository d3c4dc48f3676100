// Small workspace models for the distribution tests, declared inline.
import type { ModuleModel, PackageModel, WorkspaceModel } from '../../src/workspace/model.js';
import { moduleModel } from '../helpers/models.js';

/** A buildable web module named by its specifier (`@scope/name/subpath`), in `name/subpath`. */
export function moduleOf(specifier: string, overrides: Partial<ModuleModel> = {}): ModuleModel {
  const [scope, name, ...rest] = specifier.split('/');
  return moduleModel(rest.join('/'), { package: `${scope}/${name}`, ...overrides });
}

export function workspaceOf(modules: ModuleModel[], packages: Partial<PackageModel>[] = []): WorkspaceModel {
  const names = [...new Set([...packages.map((p) => p.name!), ...modules.map((m) => m.package)])];
  return {
    preview: null,
    packages: names.map((name) => ({
      name,
      version: modules.find((m) => m.package === name)?.version ?? '1.0.0',
      dir: name.split('/')[1]!,
      dependencies: {},
      ...packages.find((p) => p.name === name),
    })),
    modules,
    selection: null,
    diagnostics: [],
    sources: {},
  };
}
