// A module variant rebuilt in its kept esbuild context (context-pool.ts). The context is made
// without the CSS module scripts plugin, as a batch build is first (esbuild-batch.ts): its
// filter cannot tell a stylesheet import's attributes, so every rebuild waited for one call into
// this process per `import './x.css'`, which answered nothing, while the request that asked for
// the build waited too. A rebuild that meets a CSS module script (esbuild refuses it, or keeps a
// bare one: the metafile says so) is done again in a context with the plugin, which the module
// variant keeps from then on. Outputs and diagnostics are the same either way.
import type * as esbuild from 'esbuild';
import type { Variant } from '../workspace/variant.js';
import { isBuildFailure } from './build-results.js';
import type { ContextPool } from './context-pool.js';
import { importsCssModuleScript, type BuildOptionsOf } from './esbuild-batch.js';
import type { LinksWord } from './esbuild-options.js';
import { CSS_MODULE_SCRIPTS } from './plugins/css-module-scripts.js';
import type { BundleTarget } from './types.js';

export interface KeptRebuilds {
  /** The rebuild of `key` (a module variant) in its kept context; rejects with esbuild's failure. */
  rebuild(key: string, signature: string, target: BundleTarget, variant: Variant, signal?: AbortSignal, word?: LinksWord): Promise<esbuild.BuildResult>;
  clear(): void;
}

/**
 * esbuild's own refusal of an import `with { type: 'css' }`, which the plugin answers instead,
 * told by where it is, not by its wording (which may change with any esbuild version): the
 * refusal carries no message id (esbuild gives ids only to warnings a log override can silence),
 * no plugin name, no class but BuildFailure's, and a failed context keeps no metafile to ask. It
 * is located at the attribute's value, so its line holds `type: 'css'`. Another error on such a
 * line is built once more with the plugin too, which then reports it as it is.
 */
const atCssTypeAttribute = (message: esbuild.Message): boolean => /\btype["']?\s*:\s*(["'])css\1/.test(message.location?.lineText ?? '');

export function createKeptRebuilds(contexts: ContextPool, buildOptions: BuildOptionsOf): KeptRebuilds {
  // The module variants whose sources imported a CSS module script: their contexts hold its plugin.
  const withPlugin = new Set<string>();
  return {
    // `word`: the watcher's word on links the signature holds, so the context is made with it.
    async rebuild(key, signature, target, variant, signal, word = {}) {
      if (!withPlugin.has(key)) {
        try {
          const result = await contexts.rebuild(key, signature, () => buildOptions([target], variant, { cssModuleScripts: false, ...word }), signal);
          if (!importsCssModuleScript(result.metafile!)) return result;
        } catch (error) {
          if (!isBuildFailure(error) || !error.errors.some(atCssTypeAttribute)) throw error;
        }
        withPlugin.add(key);
      }
      // Another signature: the pool replaces the context without the plugin.
      return contexts.rebuild(key, `${signature}\0${CSS_MODULE_SCRIPTS}`, () => buildOptions([target], variant, word), signal);
    },
    clear: () => withPlugin.clear(),
  };
}
