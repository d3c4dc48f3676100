// The production stylesheet of a script module of a workspace package left out of development
// (README "The local CDN", "Preview and stylesheet push"): its `/cdn/` address answers its code
// only, so the preview links the sheet at `?styles`, which answers the bytes of
// `/m/...?env=production`'s stylesheet. Linked only where that answer is a sheet: a build that
// failed fails the module's code too, and the page's overlay says why.
import type { ExtensionHost } from '../extension.js';
import { isServiceError } from '../http/errors.js';
import { buildDiagnostics } from '../store/selectors.js';
import type { ModuleModel } from '../workspace/model.js';
import { productionVariant, variantKey } from '../workspace/variant.js';
import { hasDevelopmentSheet } from './preview.js';

const PRODUCTION_BROWSER = variantKey(productionVariant('browser'));

/** Whether the local CDN's `?styles` of `module` answers a stylesheet: its production build's, asked for as the page's code request would. */
export async function hasProductionSheet(host: Pick<ExtensionHost, 'getState' | 'readiness'>, module: ModuleModel): Promise<boolean> {
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
