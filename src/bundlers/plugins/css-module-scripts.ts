// CSS module scripts (`import sheet from './x.css' with { type: 'css' }`, README "Stylesheet
// modules"): esbuild cannot build them, and the browser makes the sheet itself from a `text/css`
// answer. A sheet declared under `assets` stays that import, with its attribute, at the asset's
// address relative to the module (as `import url from './x.svg'` is), so it is served as written
// in development and from `core dist` alike. Any other is a diagnostic naming what works.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { BundleTarget } from '../types.js';
import { assetAddress } from './assets.js';

export function cssModuleScriptsPlugin(root: string, targets: BundleTarget[]): esbuild.Plugin {
  const declared = new Map<string, string>();
  for (const target of targets) {
    for (const file of target.assets) if (file.toLowerCase().endsWith('.css')) declared.set(path.join(root, target.dir, file), assetAddress(target.subpath, file));
  }
  return {
    name: 'core-css-module-scripts',
    setup(build) {
      // Only imports of `.css` files reach this callback; esbuild's own check of the attribute comes after it.
      build.onResolve({ filter: /\.css$/i }, (args) => {
        if (args.with?.type !== 'css') return undefined;
        if (!/^\.\.?\//.test(args.path)) {
          return { errors: [{ text: `STYLESHEET_IMPORTED_AS_VALUE: "${args.path}" is imported as a CSS module script by bare specifier, which the import map maps to a module of code` }] };
        }
        const address = declared.get(path.resolve(args.resolveDir, args.path));
        if (address === undefined) {
          return { errors: [{ text: `STYLESHEET_IMPORTED_AS_VALUE: "${args.path}" is imported as a CSS module script but is not a declared asset: add "${path.basename(args.path)}" to "assets" in the module.json beside the module's entry` }] };
        }
        return { path: address, external: true };
      });
    },
  };
}
