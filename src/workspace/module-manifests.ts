// The `module.json` files of a package: found under `core.modules` and beside each exported
// module's entry, read, and applied (README "Workspaces"); a module.json alone declares a module.
import { manifestInvalid, notAFileText, type Diagnostic } from './diagnostics.js';
import type { ModuleModel } from './model.js';
import { emptyManifest, parseModuleManifest, isSubpath, type ModuleManifest } from './module-manifest.js';
import { declareModule, newModule, type PackageContext } from './package-context.js';
import { isInside, isSkippedDirectory, joinRelative, normalizeRelative, relativeTo } from './paths.js';
import { listedEntry, listedNotAFile } from './source-finder.js';
import type { SourceReader } from './source-reader.js';
import { hasTypeScriptName, isTypeScriptSource } from './typescript-assets.js';

export interface ReadModuleManifest {
  file: string;
  manifest: ModuleManifest;
  diagnostics: Diagnostic[];
}

/**
 * Reads the package's module.json files, applies each to the modules of its directory or
 * declares the module it describes alone, and checks every module's assets. The manifests by
 * module directory.
 */
export function applyModuleManifests(context: PackageContext): Map<string, ReadModuleManifest> {
  const { pkg, modules } = context;
  const manifests = new Map<string, ReadModuleManifest>();
  const modulesDir = modulesDirOf(pkg, context.dir);
  if (modulesDirIsUsable(context, modulesDir)) for (const moduleDir of findManifestDirs(modulesDir, context.list)) loadManifest(context, manifests, moduleDir);
  for (const module of modules) loadManifest(context, manifests, module.dir);
  for (const [moduleDir, read] of manifests) {
    const described = modules.filter((m) => m.dir === moduleDir);
    if (described.length > 0) for (const module of described) applyManifest(module, read.manifest, read.diagnostics);
    else declareModule(context, manifestModule(context, modulesDir, moduleDir, read), read.file);
  }
  checkAssets(context, manifests);
  return manifests;
}

/** The directory `core.modules` names (the package's own when it names none), workspace-relative. */
export const modulesDirOf = (pkg: PackageContext['pkg'], dir: string): string => (pkg.modulesDir === null ? dir : joinRelative(dir, normalizeRelative(pkg.modulesDir) ?? '.'));

/** Whether `core.modules` names a directory inside the package, that is one; told in package.json when not. */
function modulesDirIsUsable({ pkg, packageFile, diagnostics, dir, leaves, list }: PackageContext, modulesDir: string): boolean {
  if (pkg.modulesDir === null) return true;
  const problem =
    normalizeRelative(pkg.modulesDir) === null || !isInside(relativeTo(dir, modulesDir))
      ? `core.modules must be a directory inside the package; it is "${pkg.modulesDir}"`
      : leaves(modulesDir)
        ? `core.modules "${pkg.modulesDir}" is a symbolic link leaving the workspace (not followed)`
        : list(modulesDir) === null
          ? `core.modules "${pkg.modulesDir}" names no directory of the package (${modulesDir} does not exist)`
          : null;
  if (problem !== null) diagnostics.push(manifestInvalid(packageFile, `${packageFile}: ${problem}`));
  return problem === null;
}

function loadManifest(context: PackageContext, manifests: Map<string, ReadModuleManifest>, moduleDir: string): void {
  if (manifests.has(moduleDir)) return;
  const file = moduleDir === '.' ? 'module.json' : `${moduleDir}/module.json`;
  const text = context.read(file);
  if (!text) {
    // A module.json that is there but cannot be read as one (a FIFO, a directory) is a mistake
    // told at its place, never a module silently without its manifest (README "Files that are
    // not files"); the listing's entry type tells it, so a file put there reads it again.
    const kind = listedNotAFile(context.list, file);
    if (kind !== null) manifests.set(moduleDir, { file, manifest: emptyManifest(), diagnostics: [manifestInvalid(file, notAFileText(file, kind))] });
    return;
  }
  const parsed = parseModuleManifest(text.text, file);
  manifests.set(moduleDir, { file, manifest: parsed.value!, diagnostics: parsed.diagnostics });
}

/** The module a module.json declares alone, its subpath given or its directory's below `core.modules`. */
function manifestModule({ pkg }: PackageContext, modulesDir: string, moduleDir: string, { file, manifest, diagnostics }: ReadModuleManifest): ModuleModel {
  const subpath = manifest.subpath ?? relativeTo(modulesDir, moduleDir);
  const module = newModule(pkg, subpath, moduleDir, manifest.entry === null ? null : joinRelative(moduleDir, manifest.entry));
  module.diagnostics.push(...diagnostics);
  if (!isSubpath(subpath)) {
    module.diagnostics.push(manifestInvalid(file, `${file}: a module.json at the top of core.modules needs a "subpath"`));
    module.subpath = subpath === '.' ? moduleDir : subpath;
    module.specifier = `${pkg.name}/${module.subpath}`;
  }
  if (manifest.entry === null && diagnostics.length === 0) {
    module.diagnostics.push(manifestInvalid(file, `${file}: "entry" is required for a module declared by module.json alone (for example "index.ts")`));
  }
  applyManifest(module, manifest, []);
  return module;
}

function applyManifest(module: ModuleModel, manifest: ModuleManifest, diagnostics: Diagnostic[]): void {
  if (manifest.platforms) module.platforms = manifest.platforms;
  module.assets = manifest.assets;
  module.diagnostics.push(...diagnostics);
}

// A declared asset that is not there is a mistake of the manifest, in development as in
// `core dist` (which could not write it): the module says so rather than answering 404 later.
// So is one that is there but no regular file (a FIFO, a socket, a device: README "Files that are
// not files"), which serving answers 404 too: the listing's entry types tell it, with no stat and
// never an open of the file.
function checkAssets(context: PackageContext, manifests: Map<string, ReadModuleManifest>): void {
  for (const module of context.modules) {
    const file = manifests.get(module.dir)?.file ?? context.packageFile;
    for (const asset of module.assets) {
      const path = joinRelative(module.dir, asset);
      const problem = assetProblem(context, path);
      if (problem !== null) {
        module.diagnostics.push(manifestInvalid(file, `${file}: "assets" declares "${asset}", but ${path} ${problem} or remove it from "assets"`));
        continue;
      }
      // Read only for a TypeScript name (a `.ts` video is told by its bytes), so no other asset's edit reads the workspace again.
      if (hasTypeScriptName(asset) && isTypeScriptSource(asset, context.read(path)?.text ?? '')) {
        module.diagnostics.push(manifestInvalid(file, `${file}: "assets" declares "${asset}", a TypeScript source: an asset is served as written, and a browser cannot run TypeScript; write it in JavaScript (${asset.replace(/\.([cm]?)tsx?$/, '.$1js')}) and declare that`));
      }
    }
  }
}

/** What keeps the declared asset at `path` from being served, in words; null when it is a regular file its package holds. */
function assetProblem(context: PackageContext, path: string): string | null {
  const listed = listedEntry(context.list, path);
  if (listed === null) return 'does not exist: add the file';
  if (listed.special !== undefined) return `is ${listed.special}, not a regular file: put a regular file there`;
  if (listed.link) return linkProblem(context, path);
  if (listed.directory) return 'is a directory, not a regular file: put a regular file there';
  return null;
}

// A symbolic link is served as what it leads to, confined by its real path to its package
// (README "Files that are not files", SECURITY.md): so it is judged by that, the one place a
// listing's type cannot tell. Only a link's entry costs anything here: where it leads (one real
// path, recorded as `<path> ->`) and the listing of the folder holding its target (recorded as a
// source too), whose types tell what the target is without opening it; a target replaced there,
// or the link retargeted, reads the workspace again (README "Links and large trees").
function linkProblem({ dir, leaves, leadsTo, realPath, list }: PackageContext, path: string): string | null {
  const fix = 'make it lead to a regular file of its package';
  const target = leadsTo(path);
  if (target === null) return leaves(path) ? `is a symbolic link leading out of the workspace (not followed): ${fix}` : `is a symbolic link leading to nothing (a dangling link): ${fix}`;
  const packageDir = realPath(dir) ?? dir;
  if (!isInside(relativeTo(packageDir, target))) return `is a symbolic link to ${target}, which leaves its package ${packageDir}: ${fix}`;
  const reached = listedEntry(list, target);
  if (reached === null) return `is a symbolic link to ${target}, which does not exist: ${fix}`;
  if (reached.special !== undefined) return `is a symbolic link to ${target}, ${reached.special}, not a regular file: ${fix}`;
  if (reached.directory) return `is a symbolic link to ${target}, a directory, not a regular file: ${fix}`;
  return null;
}

// Directories holding a module.json, depth first; node_modules and dot-directories are
// skipped, and so is a directory with its own package.json: another package's modules. A loop
// of its own, not recursion: a directory chain thousands deep would exhaust the stack.
function findManifestDirs(start: string, list: SourceReader['listDir']): string[] {
  const found: string[] = [];
  const visited = new Set<string>();
  const pending = [start];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const listing = list(dir);
    if (!listing) continue;
    if (listing.id !== undefined) {
      if (visited.has(listing.id)) continue;
      visited.add(listing.id);
    }
    let packageJson = false;
    let moduleJson = false;
    for (const entry of listing.entries) {
      // A directory named module.json is found too: it is told, as a FIFO is, where it stands.
      if (entry.name === 'module.json') moduleJson = true;
      if (entry.directory) continue;
      if (entry.name === 'package.json') packageJson = true;
    }
    if (dir !== start && packageJson) continue;
    if (moduleJson) found.push(dir);
    // Reversed onto the stack, so they are taken in the listing's order, as a recursion would.
    for (let index = listing.entries.length - 1; index >= 0; index -= 1) {
      const entry = listing.entries[index]!;
      if (!entry.directory || isSkippedDirectory(entry.name)) continue;
      pending.push(dir === '.' ? entry.name : `${dir}/${entry.name}`);
    }
  }
  return found;
}
