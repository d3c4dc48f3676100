// The esbuild options of every build of the engine: one entry point per module, outputs
// kept in memory, bare imports external, declared assets as addresses. Exported for the
// benchmarks, whose esbuild baselines compile with exactly these options.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { Variant } from '../workspace/variant.js';
import { assetsPlugin } from './plugins/assets.js';
import { cssModuleScriptsPlugin } from './plugins/css-module-scripts.js';
import { cssModulesPlugin } from './plugins/css-modules.js';
import { urlImportsPlugin } from './plugins/url-imports.js';
import { moduleBoundariesPlugin, workspacePackagesExternal } from './plugins/module-boundaries.js';
import { workspaceConfinementPlugin } from './plugins/workspace-confinement.js';
import { linkedDirsPlugin } from './plugins/linked-dirs.js';
import { browserMapPlugin } from './plugins/browser-map.js';
import type { BundleTarget } from './types.js';
import { viteEnvDefines, viteImportMetaMarkers } from './vite-import-meta.js';

/** Output names: `__core_<index>.js` and `.css` for the entry at `index`. */
export const OUT = '__core_';

/** Sources a bundler refuses, and why. */
export interface SourcePolicy {
  filter: RegExp;
  reason: string;
}

/** Which optional plugins a build's options hold (all of them unless told otherwise; `esbuild-batch.ts`). */
export interface OptionalPlugins {
  cssModuleScripts?: boolean;
  /** The tree watcher vouches that no link leads out of the workspace: the confinement looks at fewer relative imports (workspace-confinement.ts). */
  noLinkLeadsOut?: boolean;
  /** The tree watcher has seen a link leading out: bare imports a tsconfig mapping sends through one are looked at too (workspace-confinement.ts). */
  linkLeadsOut?: boolean;
}

/** The watcher's word on links leading out, as a build's options hold it. */
export type LinksWord = Pick<OptionalPlugins, 'noLinkLeadsOut' | 'linkLeadsOut'>;

/** The options of the engine's esbuild builds: the same plugins, loaders and output settings (also used by bench/). */
export function esbuildOptions(root: string, targets: BundleTarget[], variant: Variant, refuse?: SourcePolicy, optional: OptionalPlugins = {}, nonRegularGuard: esbuild.Plugin | null = null): esbuild.BuildOptions {
  // A bare name a package.json's `browser` field maps is resolved by it before the boundaries
  // keep it external (README "Bundling real code"); absent while no workspace package maps one.
  const browserMap = browserMapPlugin(targets[0]?.workspace?.browserDisabled ?? [], root);
  const plugins: esbuild.Plugin[] = [
    // First: a special file is refused before any plugin's load could open it (non-regular-files.ts).
    ...(nonRegularGuard ? [nonRegularGuard] : []),
    ...(browserMap ? [browserMap] : []),
    urlImportsPlugin(),
    moduleBoundariesPlugin(root, targets),
    ...(optional.cssModuleScripts === false ? [] : [cssModuleScriptsPlugin(root, targets)]),
    assetsPlugin(root, targets),
    workspaceConfinementPlugin(root, optional.noLinkLeadsOut === true, optional.linkLeadsOut === true),
  ];
  if (refuse) plugins.push(refusePlugin(refuse));
  // Last: a sheet another plugin refuses, or one outside the workspace, is never read by it.
  plugins.push(cssModulesPlugin(root));
  // The last to resolve: every other plugin has seen the path through the link by then.
  const linked = linkedDirsPlugin(root, targets[0]?.workspace?.linkedDirs);
  if (linked) plugins.push(linked);
  return {
    absWorkingDir: root,
    entryPoints: targets.map((target, index) => ({ in: path.join(root, target.entry), out: `${OUT}${index}` })),
    outdir: root,
    bundle: true,
    // Every bare import stays external and verbatim (README "Workspaces"): another public
    // module, a package from outside the workspace or a built-in is never copied in. CSS
    // `@import "x.css"` and `url(x.png)` still resolve relative first, by the rules of CSS.
    packages: 'external',
    external: workspacePackagesExternal(targets),
    splitting: false,
    write: false,
    metafile: true,
    format: 'esm',
    platform: variant.target === 'node' ? 'node' : 'browser',
    // `process.env.NODE_ENV` follows `env` whatever the package defines; Vite's built-in
    // `import.meta.env` members follow the variant unless the package defines them; the other
    // `import.meta` members it leaves undefined are marked, to be reported (`vite-import-meta.ts`).
    define: {
      ...viteImportMetaMarkers(targets[0]?.define),
      ...viteEnvDefines(variant, targets[0]?.define),
      ...targets[0]?.define,
      'process.env.NODE_ENV': JSON.stringify(variant.env),
    },
    ...outputOptions(variant),
    logLevel: 'silent',
    plugins,
  };
}

/** How a variant prints its outputs, whatever the entries: every build's, and the engine's transform of a lone stylesheet. */
export function outputOptions(variant: Variant) {
  return {
    minify: variant.min,
    sourcemap: variant.sourcemap === 'inline' ? ('inline' as const) : false,
    // The default target is the newest syntax (esnext), except what no shipping browser runs
    // yet: decorators, standard or TypeScript's experimental ones, are always lowered, whatever
    // the tsconfig says, so that a module reported valid also runs (README "Bundling real code").
    supported: { decorators: false },
    charset: 'utf8' as const,
  };
}

function refusePlugin(refuse: SourcePolicy): esbuild.Plugin {
  return {
    name: 'core-refuse-sources',
    setup(build) {
      build.onLoad({ filter: refuse.filter }, (args) => ({ errors: [{ text: `${path.basename(args.path)}: ${refuse.reason}` }] }));
    },
  };
}
