// The modules of one package, in the order they are declared (README "Workspaces"): its
// `exports`, files imported by deep specifier (without `exports`), its module.json files;
// then each module's bundler.
import { assignBundlers } from './module-bundlers.js';
import { applyModuleManifests } from './module-manifests.js';
import { declareDeepImportModules, declareExportedModules, warnDataExports } from './exported-modules.js';
import type { ModuleModel } from './model.js';
import type { PackageContext } from './package-context.js';
import { createSourceFinder } from './source-finder.js';

/** The package's modules, sorted by subpath; problems go to the modules, or to the context's diagnostics and warnings. */
export function packageModules(context: PackageContext, deepSubpaths: readonly string[]): ModuleModel[] {
  const sources = createSourceFinder(context.pkg, context.dir, context.read, context.list, context.realPath, context.tsconfigs);
  declareExportedModules(context, sources);
  declareDeepImportModules(context, sources, deepSubpaths);
  const manifests = applyModuleManifests(context);
  warnDataExports(context);
  const packageBundlerUsed = assignBundlers(context.pkg, context.packageFile, context.modules, (module) => {
    const read = manifests.get(module.dir);
    return read && { file: read.file, bundler: read.manifest.bundler };
  });
  if (!packageBundlerUsed) context.diagnostics.push(...context.pkg.bundlerProblems);
  return context.modules.sort((a, b) => (a.subpath < b.subpath ? -1 : a.subpath > b.subpath ? 1 : 0));
}
