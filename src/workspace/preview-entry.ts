// The module a page of the workspace opens: the preview's (README "Preview and stylesheet
// push") and the page `core dist` writes (README "Distribution: core dist") are one rule.
import type { ModuleModel, WorkspaceModel } from './model.js';
import { indexWorkspace } from './workspace-index.js';

export type NoPreviewEntry = { reason: 'unknown-entry' | 'not-web'; message: string };

/** `requested` (the preview's `?entry=`); else core.json `preview`; else the first web module of the first package. */
export function choosePreviewEntry(workspace: WorkspaceModel, requested?: string): ModuleModel | NoPreviewEntry {
  const index = indexWorkspace(workspace);
  const wanted = requested ?? workspace.preview ?? undefined;
  if (wanted !== undefined) {
    const module = index.modules.get(wanted);
    if (!module) return { reason: 'unknown-entry', message: `the preview entry ${wanted} is not a public module of the workspace` };
    if (!module.platforms.includes('web')) return { reason: 'not-web', message: `the preview entry ${wanted} does not run in browsers (platforms ${JSON.stringify(module.platforms)})` };
    return module;
  }
  for (const pkg of workspace.packages) {
    const module = (index.modulesOf.get(pkg.name) ?? []).find((m) => m.platforms.includes('web'));
    if (module) return module;
  }
  return { reason: 'unknown-entry', message: 'the workspace has no module for browsers to preview' };
}
