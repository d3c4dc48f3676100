// Derives the workspace model from its manifests: `core.json`, each `package.json`, every
// `module.json` under `core.modules`, and `.core/selection.json` (README "Workspaces", README "The command line").
// Pure over a SourceReader, so tests declare the files as a map.
import { diagnostic, manifestInvalid, notAFileText, type Diagnostic } from './diagnostics.js';
import { listedNotAFile } from './source-finder.js';
import { isObject, parseJson, describeType } from './json.js';
import type { PackageModel, WorkspaceModel } from './model.js';
import type { PackageContext } from './package-context.js';
import { parsePackageManifest, isPackageName } from './package-manifest.js';
import { packageModules } from './package-modules.js';
import { parseWorkspaceManifest } from './workspace-manifest.js';
import { readableIdentity } from './unread-packages.js';
import { lockfileIdentity, type KnownIdentities } from './known-identity.js';
import type { SourceReader } from './source-reader.js';
import { parseBareSpecifier } from './specifiers.js';
import { LINK_TARGET } from './paths.js';
import { linkedDirsOf } from './linked-dirs.js';
import { modulesDirOf } from './module-manifests.js';
import type { LoadedTsconfig } from './tsconfig.js';

export type { SourceReader };

export const WORKSPACE_MANIFEST = 'core.json';
export const SELECTION_FILE = '.core/selection.json';
export { BUILTIN_BUNDLERS } from './module-bundlers.js';

/**
 * `deepImports`: bare specifiers of files of packages without `exports` that workspace modules
 * import (found by their builds): each is a module when it names a file Node would resolve.
 * `known`: the name each package directory had in an earlier model (`knownIdentities`), for
 * one found without a package.json.
 */
export function readWorkspace(reader: SourceReader, deepImports: readonly string[] = [], known: KnownIdentities = new Map()): WorkspaceModel {
  const sources: Record<string, string | null> = {};
  const read = (path: string) => {
    const file = reader.readText(path);
    sources[path] = file ? file.hash : null;
    return file;
  };
  const list = (path: string) => {
    const dir = reader.listDir(path);
    sources[path === '.' ? './' : `${path}/`] = dir ? dir.hash : null;
    return dir;
  };

  const model: WorkspaceModel = { preview: null, packages: [], modules: [], selection: null, diagnostics: [], sources };
  const coreJson = read(WORKSPACE_MANIFEST);
  if (!coreJson) {
    const kind = listedNotAFile(list, WORKSPACE_MANIFEST);
    model.diagnostics.push(manifestInvalid(WORKSPACE_MANIFEST, kind !== null ? notAFileText(WORKSPACE_MANIFEST, kind) : `there is no ${WORKSPACE_MANIFEST} in the workspace directory`));
    return model;
  }
  const workspace = parseWorkspaceManifest(coreJson.text, WORKSPACE_MANIFEST);
  model.diagnostics.push(...workspace.diagnostics);
  if (!workspace.value) return model;
  model.preview = workspace.value.preview;

  // A name taken twice is found without a walk of the packages read before.
  const packagesByName = new Map<string, PackageModel>();
  const tsconfigs = new Map<string, LoadedTsconfig>();
  for (const dir of workspace.value.packages) readPackage(reader, read, list, model, { packagesByName, tsconfigs, known }, dir, deepImports);
  model.selection = readSelection(read, model);
  return model;
}

/** What the packages of one read share: the names taken, the tsconfig files loaded, and the names known from before. */
interface ReadSoFar {
  packagesByName: Map<string, PackageModel>;
  tsconfigs: Map<string, LoadedTsconfig>;
  known: KnownIdentities;
}

/** Adds the package of `dir` and its modules to `model`; a package that cannot be read is told instead. */
function readPackage(reader: SourceReader, read: SourceReader['readText'], list: SourceReader['listDir'], model: WorkspaceModel, { packagesByName, tsconfigs, known }: ReadSoFar, dir: string, deepImports: readonly string[]): void {
  const file = dir === '.' ? 'package.json' : `${dir}/package.json`;
  const packageJson = read(file);
  if (!packageJson) {
    const leaves = reader.leaves?.(dir) ?? false;
    const kind = leaves ? null : listedNotAFile(list, file);
    if (kind !== null) model.diagnostics.push(manifestInvalid(file, `${WORKSPACE_MANIFEST} lists the package directory "${dir}": ${notAFileText(file, kind)}`));
    else model.diagnostics.push(manifestInvalid(WORKSPACE_MANIFEST, `${WORKSPACE_MANIFEST} lists the package directory "${dir}", which ${leaves ? 'is a symbolic link leaving the workspace (not followed)' : 'has no package.json'}`));
    // Still the workspace's while it is away (README "Workspaces"): by the name it had, else
    // npm's lockfile's; with none known, any name outside the model may be its.
    const identity = known.get(dir) ?? lockfileIdentity({ readText: read, ...(reader.leaves ? { leaves: (path: string) => reader.leaves!(path) } : {}) }, dir);
    (model.unreadPackages ??= []).push({ dir, file, name: identity?.name ?? null, version: identity?.version ?? null, absent: true });
    return;
  }
  const manifest = parsePackageManifest(packageJson.text, file);
  model.diagnostics.push(...manifest.diagnostics);
  if (!manifest.value) {
    (model.unreadPackages ??= []).push({ dir, file, ...readableIdentity(packageJson.text) });
    return;
  }
  const pkg = manifest.value;
  const taken = packagesByName.get(pkg.name);
  if (taken) {
    const other = taken.dir === '.' ? 'package.json' : `${taken.dir}/package.json`;
    model.diagnostics.push(manifestInvalid(file, `${file}: the package name "${pkg.name}" is already used by ${other}, listed before it in core.json; rename one of them`));
    return;
  }
  const packageModel: PackageModel = { name: pkg.name, version: pkg.version, dir, dependencies: pkg.dependencies, ...(pkg.rootMembers !== null ? { withoutExports: true as const } : {}), ...(pkg.browserDisabled.length > 0 ? { browserDisabled: pkg.browserDisabled } : {}) };
  model.packages.push(packageModel);
  packagesByName.set(pkg.name, packageModel);
  const warnings: Diagnostic[] = [];
  const deepSubpaths = pkg.rootMembers === null ? [] : deepImports.map((specifier) => parseBareSpecifier(specifier)).filter((bare) => bare !== null && bare.packageName === pkg.name && bare.subpath !== '').map((bare) => bare!.subpath);
  const context: PackageContext = {
    pkg,
    dir,
    packageFile: file,
    read,
    list,
    leaves: (path) => reader.leaves?.(path) ?? false,
    realPath: (path) => reader.realPath?.(path) ?? path,
    leadsTo: (path) => {
      if (reader.linkHash) model.sources[`${path}${LINK_TARGET}`] = reader.linkHash(path);
      return reader.realPath ? reader.realPath(path) : path;
    },
    diagnostics: model.diagnostics,
    warnings,
    modules: [],
    tsconfigs,
  };
  const modules = packageModules(context, deepSubpaths);
  model.modules.push(...modules);
  if (context.dataExports) packageModel.dataExports = context.dataExports;
  const linked = linkedDirsOf(dir, modulesDirOf(pkg, dir), modules.map((module) => module.dir), list, context.realPath, context.leadsTo);
  if (Object.keys(linked).length > 0) model.linkedDirs = { ...model.linkedDirs, ...linked };
  if (warnings.length > 0) (model.warnings ??= []).push(...warnings);
  // Told on each module (`newModule`); with none to tell it on, at the top level.
  if (modules.length === 0) model.diagnostics.push(...pkg.defineProblems);
  if (modules.length === 0) {
    (model.warnings ??= []).push(
      diagnostic('NO_PUBLIC_MODULE', `${pkg.name} (${file}) publishes no module: declare one in "exports" ("./main": "./main/index.ts", or "." for the package root), or put a module.json beside an entry file under "core.modules"${pkg.rootMembers !== null ? `; without "exports", a file of it is also a module once a workspace module imports it ("${pkg.name}/<file>.js")` : ''}`, { file }),
    );
  }
}

function readSelection(read: SourceReader['readText'], model: WorkspaceModel): string[] | null {
  const file = read(SELECTION_FILE);
  if (!file) return null;
  const parsed = parseJson(file.text, SELECTION_FILE);
  if (!parsed.ok) {
    model.diagnostics.push(parsed.diagnostic);
    return null;
  }
  const json = parsed.value;
  const packages = isObject(json) ? json.packages : undefined;
  if (!Array.isArray(packages) || !packages.every((p) => typeof p === 'string' && isPackageName(p))) {
    model.diagnostics.push(manifestInvalid(SELECTION_FILE, `${SELECTION_FILE} must hold {"packages": [<package name>...]}; it holds ${describeType(json)}. It is written by \`core select\`; run \`core select --all\` to reset it`));
    return null;
  }
  return [...new Set(packages as string[])];
}

export type { PackageModel };
