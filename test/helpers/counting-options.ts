// The engine's options with the calls into the CSS module scripts plugin counted: a test of a
// build that should leave the plugin out sees whether esbuild still called it.
import type * as esbuild from 'esbuild';
import { esbuildOptions, type OptionalPlugins } from '../../src/bundlers/esbuild-options.js';
import { CSS_MODULE_SCRIPTS } from '../../src/bundlers/plugins/css-module-scripts.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import type { Variant } from '../../src/workspace/variant.js';

/** Options of `variant` for the workspace `rootOf()` names, each plugin call adding one to `calls.count`. */
export function countingCssModuleScripts(rootOf: () => string, variant: Variant, calls: { count: number }) {
  return (targets: BundleTarget[], _variant: unknown, optional?: OptionalPlugins): esbuild.BuildOptions => {
    const options = esbuildOptions(rootOf(), targets, variant, undefined, optional);
    const plugins = (options.plugins ?? []).map((plugin) =>
      plugin.name !== CSS_MODULE_SCRIPTS
        ? plugin
        : {
            ...plugin,
            setup: (build: esbuild.PluginBuild) =>
              plugin.setup({
                ...build,
                onResolve: (filter, callback) =>
                  build.onResolve(filter, (args) => {
                    calls.count += 1;
                    return callback(args);
                  }),
              }),
          },
    );
    return { ...options, plugins };
  };
}
