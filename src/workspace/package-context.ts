// What the readers of one package's modules share (README "Workspaces"): the package, where
// it is, the reader, where problems go, and the modules declared so far.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import type { ModuleModel } from './model.js';
import { BUILTIN_BUNDLERS } from './module-bundlers.js';
import type { PackageManifest } from './package-manifest.js';
import type { SourceReader } from './source-reader.js';
import { moduleSpecifier } from './specifiers.js';
import type { LoadedTsconfig } from './tsconfig.js';

export interface PackageContext {
  pkg: PackageManifest;
  /** The package's directory, workspace-relative. */
  dir: string;
  /** Its package.json, workspace-relative. */
  packageFile: string;
  read: SourceReader['readText'];
  list: SourceReader['listDir'];
  /** Whether a path is a symbolic link leaving the workspace (not followed). */
  leaves: (path: string) => boolean;
  realPath: (path: string) => string | null;
  /**
   * Where a symbolic link leads, as `realPath` says it, with `<path> ->` (`LINK_TARGET`) recorded
   * among the read's sources: a link retargeted reads the workspace again.
   */
  leadsTo: (path: string) => string | null;
  /** The workspace's diagnostics: problems of a manifest that no one module owns. */
  diagnostics: Diagnostic[];
  warnings: Diagnostic[];
  /** The package's modules, declared so far. */
  modules: ModuleModel[];
  /** `exports` names whose target is no module this service publishes (JSON, an image), subpath to target: `PackageModel.dataExports`. */
  dataExports?: Record<string, string>;
  /** Of `dataExports`, those a `*` pattern maps: subpath to the key (`PackageModel.dataExportKeys`). */
  dataExportKeys?: Record<string, string>;
  /** The tsconfig files loaded so far in this read of the workspace, shared by its packages. */
  tsconfigs?: Map<string, LoadedTsconfig>;
}

/** Adds `module` to the package's modules; a subpath declared twice is told in `file`, the first declaration kept. */
export function declareModule(context: PackageContext, module: ModuleModel, file: string): void {
  const taken = context.modules.find((m) => m.subpath === module.subpath);
  if (taken) {
    context.diagnostics.push(manifestInvalid(file, `${file} declares the module "${module.specifier}" again; it is already declared in ${taken.dir}`));
    return;
  }
  context.modules.push(module);
}

export function newModule(pkg: PackageManifest, subpath: string, dir: string, entry: string | null): ModuleModel {
  const module: ModuleModel = {
    specifier: moduleSpecifier(pkg.name, subpath),
    package: pkg.name,
    version: pkg.version,
    subpath,
    dir,
    entry,
    platforms: ['web'],
    bundler: { name: 'ts', specifier: BUILTIN_BUNDLERS.ts! },
    assets: [],
    diagnostics: [],
  };
  // Assigned, not spread into the literal: a read of a thousand modules makes a thousand, and a
  // spread copies through the runtime while code is still cold (a start reads once).
  if (Object.keys(pkg.define).length > 0) module.define = { ...pkg.define };
  // Built without the constant it may use, the module would fail on the page while `valid`.
  if (pkg.defineProblems.length > 0) module.diagnostics.push(...pkg.defineProblems);
  return module;
}
