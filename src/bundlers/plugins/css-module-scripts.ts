// CSS module scripts (`import sheet from './x.css' with { type: 'css' }`, README "Stylesheet
// modules"): esbuild cannot build them, and the browser makes the sheet itself from a `text/css`
// answer. A sheet declared under `assets` stays that import, with its attribute, at the asset's
// address relative to the module (as `import url from './x.svg'` is), so it is served as written
// in development and from `core dist` alike. Any other is refused here, with `detail`
// CSS_MODULE_SCRIPT_REFUSED, which the build's diagnostics say as STYLESHEET_IMPORTED_AS_VALUE
// (`failed` in build-results.ts): esbuild's own refusal has no id to tell it by.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { BundleTarget } from '../types.js';
import { assetAddress } from './assets.js';

export const CSS_MODULE_SCRIPTS = 'core-css-module-scripts';
export const CSS_MODULE_SCRIPT_REFUSED = 'css-module-script-refused';

export function cssModuleScriptsPlugin(root: string, targets: BundleTarget[]): esbuild.Plugin {
  const declared = new Map<string, string>();
  for (const target of targets) {
    for (const file of target.assets) if (file.toLowerCase().endsWith('.css')) declared.set(path.join(root, target.dir, file), assetAddress(target.subpath, file));
  }
  return {
    name: CSS_MODULE_SCRIPTS,
    setup(build) {
      // Stylesheet imports only reach JavaScript: a callback for every import would wait for the
      // main thread on every rebuild (as module-boundaries.ts says).
      build.onResolve({ filter: /\.css$/i }, (args) => {
        if (args.with?.type !== 'css') return undefined;
        const address = args.path.startsWith('.') ? declared.get(path.resolve(args.resolveDir, args.path)) : undefined;
        if (address !== undefined) return { path: address, external: true };
        return { errors: [{ text: `"${args.path}" is imported as a CSS module script (with { type: 'css' }), which no bundler builds`, detail: CSS_MODULE_SCRIPT_REFUSED }] };
      });
    },
  };
}
