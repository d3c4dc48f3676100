// CSS module scripts (`import sheet from './x.css' with { type: 'css' }`, README "Stylesheet
// modules"): esbuild cannot build them, and the browser makes the sheet itself from a `text/css`
// answer. A sheet declared under `assets` stays that import, with its attribute, at the asset's
// address relative to the module (as `import url from './x.svg'` is), so it is served as written
// in development and from `core dist` alike. esbuild refuses any other, which the build's
// diagnostics say as STYLESHEET_IMPORTED_AS_VALUE (`failed` in build-results.ts).
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { escapeRegExp } from '../filters.js';
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
      if (declared.size === 0) return;
      // Only imports naming a declared sheet reach JavaScript: a callback per stylesheet import
      // would wait for the main thread on every rebuild (as module-boundaries.ts says).
      const names = [...new Set([...declared.keys()].map((file) => escapeRegExp(path.basename(file))))].sort();
      build.onResolve({ filter: new RegExp(`^\\.\\.?/(?:.*/)?(?:${names.join('|')})$`) }, (args) => {
        if (args.with?.type !== 'css') return undefined;
        const address = declared.get(path.resolve(args.resolveDir, args.path));
        return address === undefined ? undefined : { path: address, external: true };
      });
    },
  };
}
