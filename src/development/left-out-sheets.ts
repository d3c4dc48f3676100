// The production stylesheet of a script module of a workspace package left out of development
// (README "The local CDN", "Preview and stylesheet push"): its `/cdn/` address answers its code
// only, so the preview links the sheet at `?styles`, which answers the bytes of
// `/m/...?env=production`'s stylesheet. Linked only where that answer is a sheet: a build that
// failed fails the module's code too, and the page's overlay says why.
import type { ExtensionHost } from '../extension.js';
import { isServiceError } from '../http/errors.js';
import { buildDiagnostics, selectProductionDiagnostics } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import type { ModuleModel } from '../workspace/model.js';
import type { WorkspaceIndex } from '../workspace/workspace-index.js';
import { productionVariant, variantKey } from '../workspace/variant.js';
import { hasDevelopmentSheet } from './preview.js';

const PRODUCTION_BROWSER = variantKey(productionVariant('browser'));

/** Whether the local CDN's `?styles` of `module` answers a stylesheet: its production build's, asked for as the page's code request would. */
async function hasProductionSheet(host: Pick<ExtensionHost, 'getState' | 'readiness'>, module: ModuleModel): Promise<boolean> {
  // The development build, already made, says whether there is a sheet at all: a module without
  // one costs no production build before the page asks for its code.
  if (!module.platforms.includes('web') || !hasDevelopmentSheet(host.getState(), module)) return false;
  let built: Awaited<ReturnType<ExtensionHost['readiness']['variant']>>;
  try {
    built = await host.readiness.variant(module.specifier, PRODUCTION_BROWSER);
  } catch (error) {
    // Unbuildable (a broken manifest): its address answers that error, as its code's does.
    if (isServiceError(error)) return false;
    throw error;
  }
  if (!built?.record.outputs?.styles) return false;
  return buildDiagnostics(module, built.record, built.state.workspace).length === 0;
}

/**
 * Of the script modules of workspace packages that `imports` maps to addresses under `prefix`
 * (the local CDN's), those whose `?styles` answers a sheet. Their production builds are asked for
 * at once, not one after another: the first page of many left-out modules waits for one round.
 */
export async function leftOutProductionSheets(host: Pick<ExtensionHost, 'getState' | 'readiness'>, imports: Record<string, string>, workspace: WorkspaceIndex, prefix: string): Promise<Set<string>> {
  const scripts = Object.entries(imports).flatMap(([specifier, address]) => {
    const module = address.startsWith(`${prefix}/`) ? workspace.modules.get(specifier) : undefined;
    return module && !module.entry?.endsWith('.css') ? [module] : [];
  });
  const sheets = await Promise.all(scripts.map((module) => hasProductionSheet(host, module)));
  return new Set(scripts.filter((_, at) => sheets[at]).map((module) => module.specifier));
}

/**
 * What the production builds of the workspace modules that `imports` maps to addresses under
 * `prefix` (the local CDN's, which run those builds) find wrong, each with its module: the page
 * fails on them, and `/preview/entry.json` says so before it is opened (README "The local CDN").
 */
export function leftOutProductionDiagnostics(state: ServiceState, imports: Record<string, string>, workspace: WorkspaceIndex, prefix: string): (Diagnostic & { module: string })[] {
  const found: (Diagnostic & { module: string })[] = [];
  for (const [specifier, address] of Object.entries(imports)) {
    const module = address.startsWith(`${prefix}/`) ? workspace.modules.get(specifier) : undefined;
    if (!module) continue;
    for (const problem of selectProductionDiagnostics(state, module)) found.push({ ...problem, env: 'production', module: specifier });
  }
  return found;
}
