// Derives the workspace model from its manifests: `core.json`, each `package.json`, every
// `module.json` under `core.modules`, and `.core/selection.json` (README "Workspaces", README "The command line").
// Pure over a SourceReader, so tests declare the files as a map.
import { diagnostic, manifestInvalid, notAFileText, type Diagnostic } from './diagnostics.js';
import { listedEntry, listedNotAFile } from './source-finder.js';
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
  // A listed directory reached through a link: where it leads is an input, as a retarget
  // may make it another package or the one already listed (README "Links and large trees").
  const listedRealPath = reader.realPath
    ? (dir: string) => {
        const real = reader.realPath!(dir);
        if (real !== null && real !== dir && reader.linkHash) sources[`${dir}${LINK_TARGET}`] = reader.linkHash(dir);
        return real;
      }
    : undefined;
  const workspace = parseWorkspaceManifest(coreJson.text, WORKSPACE_MANIFEST, listedRealPath);
  model.diagnostics.push(...workspace.diagnostics);
  if (!workspace.value) return model;
  model.preview = workspace.value.preview;

  // Every manifest first: a name two listed packages write is known before either is taken.
  const manifests = workspace.value.packages.map((dir) => manifestOf(reader, dir, known));
  const contested = contestedNames(manifests);
  const tsconfigs = new Map<string, LoadedTsconfig>();
  for (const manifest of manifests) readPackage(reader, read, list, model, { contested, tsconfigs, known }, manifest, deepImports);
  model.selection = readSelection(reader, read, list, model);
  return model;
}

/** What the packages of one read share: the names contested, the tsconfig files loaded, and the names known from before. */
interface ReadSoFar {
  contested: ReadonlyMap<string, readonly string[]>;
  tsconfigs: Map<string, LoadedTsconfig>;
  known: KnownIdentities;
}

/** A listed directory's package.json, read and parsed, not yet recorded as a source. */
interface ListedManifest {
  dir: string;
  file: string;
  packageJson: ReturnType<SourceReader['readText']>;
  manifest: ReturnType<typeof parsePackageManifest> | null;
  /**
   * The name this package contests: the one its file writes; when the file cannot be taken, the
   * name written before its first error, else the name of its last good read (`known`), which it
   * holds until the file is read again or the directory leaves core.json (README "Workspaces").
   */
  claims: { name: string; lastRead: boolean } | null;
}

function manifestOf(reader: SourceReader, dir: string, known: KnownIdentities): ListedManifest {
  const file = dir === '.' ? 'package.json' : `${dir}/package.json`;
  const packageJson = reader.readText(file);
  const manifest = packageJson ? parsePackageManifest(packageJson.text, file) : null;
  const written = manifest?.value?.name ?? (packageJson ? readableIdentity(packageJson.text).name : null);
  const lastRead = known.get(dir)?.name;
  const claims = written !== null ? { name: written, lastRead: false } : lastRead !== undefined ? { name: lastRead, lastRead: true } : null;
  return { dir, file, packageJson, manifest, claims };
}

/**
 * The names more than one listed package.json writes, each with those files in core.json's
 * order. Neither package gets such a name (README "Workspaces"): handed to the one listed first,
 * its importers would run the other package's code with nothing said.
 */
function contestedNames(manifests: readonly ListedManifest[]): Map<string, string[]> {
  const filesByName = new Map<string, string[]>();
  for (const { claims, file } of manifests) {
    if (claims === null) continue;
    const rival = claims.lastRead ? `${file} (unreadable now; it wrote the name at its last read)` : file;
    const files = filesByName.get(claims.name);
    if (files) files.push(rival);
    else filesByName.set(claims.name, [rival]);
  }
  for (const [name, files] of filesByName) if (files.length < 2) filesByName.delete(name);
  return filesByName;
}

/** Adds the package of `dir` and its modules to `model`; a package that cannot be read is told instead. */
function readPackage(reader: SourceReader, read: SourceReader['readText'], list: SourceReader['listDir'], model: WorkspaceModel, { contested, tsconfigs, known }: ReadSoFar, listed: ListedManifest, deepImports: readonly string[]): void {
  const { dir, file, packageJson, manifest } = listed;
  // Recorded here, in the order the sources were always read in (test/workspace/read-workspace-model.json).
  model.sources[file] = packageJson ? packageJson.hash : null;
  if (!packageJson || !manifest) {
    const leaves = reader.leaves?.(dir) ?? false;
    const kind = leaves ? null : listedNotAFile(list, file);
    // Still the workspace's while it is away (README "Workspaces"): by the name it had, else
    // npm's lockfile's; with none known, any name outside the model may be its.
    const identity = known.get(dir) ?? lockfileIdentity({ readText: read, ...(reader.leaves ? { leaves: (path: string) => reader.leaves!(path) } : {}) }, dir);
    // Nameless, it holds back every import from outside: the problem says so where it is told (the terminal, /state, the page).
    const remedy = kind !== null ? `make ${file} a regular file` : leaves ? `make "${dir}" a directory inside the workspace` : `put ${file} back`;
    const nameless = identity ? '' : `; no name of it is known (no earlier read, build cache or npm lockfile names it), so any import of a package outside the workspace may be of it and is held back, never sent to a CDN: ${remedy}, or remove "${dir}" from ${WORKSPACE_MANIFEST}'s "packages"`;
    if (kind !== null) model.diagnostics.push(manifestInvalid(file, `${WORKSPACE_MANIFEST} lists the package directory "${dir}": ${notAFileText(file, kind)}${nameless}`));
    else model.diagnostics.push(manifestInvalid(WORKSPACE_MANIFEST, `${WORKSPACE_MANIFEST} lists the package directory "${dir}", which ${leaves ? 'is a symbolic link leaving the workspace (not followed)' : 'has no package.json'}${nameless}`));
    (model.unreadPackages ??= []).push({ dir, file, name: identity?.name ?? null, version: identity?.version ?? null, absent: true });
    return;
  }
  model.diagnostics.push(...manifest.diagnostics);
  if (!manifest.value) {
    (model.unreadPackages ??= []).push({ dir, file, ...readableIdentity(packageJson.text), ...(listed.claims?.lastRead ? { lastReadName: listed.claims.name } : {}) });
    return;
  }
  const pkg = manifest.value;
  const rivals = contested.get(pkg.name)?.filter((other) => other !== file);
  if (rivals) {
    // An unread package of that name: its importers' imports are invalid, and its address
    // answers this problem, as for any package.json not taken (README "Workspaces").
    model.diagnostics.push(manifestInvalid(file, `${file}: the package name "${pkg.name}" is also written by ${rivals.join(' and ')} (core.json lists ${rivals.length === 1 ? 'both' : 'them all'}); none of them is served under that name and every import of it is invalid until one of them is renamed`));
    (model.unreadPackages ??= []).push({ dir, file, name: pkg.name, version: pkg.version });
    return;
  }
  const packageModel: PackageModel = { name: pkg.name, version: pkg.version, dir, dependencies: pkg.dependencies, ...(pkg.rootMembers !== null ? { withoutExports: true as const } : {}), ...(pkg.browserDisabled.length > 0 ? { browserDisabled: pkg.browserDisabled } : {}) };
  model.packages.push(packageModel);
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
  if (context.dataExportKeys) packageModel.dataExportKeys = context.dataExportKeys;
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

// The selection is a manifest (README "Files that are not files"): one that cannot be taken as
// written is said at it, and every package is in development meanwhile, as without one.
function readSelection(reader: SourceReader, read: SourceReader['readText'], list: SourceReader['listDir'], model: WorkspaceModel): string[] | null {
  const file = read(SELECTION_FILE);
  if (!file) {
    const problem = selectionNotAFile(reader, list, model);
    if (problem !== null) model.diagnostics.push(manifestInvalid(SELECTION_FILE, `"${SELECTION_FILE}" ${problem}: the selection is read from a regular file of the workspace only, so every package is in development until it is one; \`core select --all\` removes it (a directory only while empty) and \`core select <package>...\` replaces it`));
    return null;
  }
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
  const selected = [...new Set(packages as string[])];
  const unknown = unknownSelected(selected, model);
  if (unknown.length > 0) {
    const names = unknown.map((name) => `"${name}"`).join(', ');
    const known = model.packages.map((pkg) => pkg.name).join(', ') || '(none)';
    model.diagnostics.push(manifestInvalid(SELECTION_FILE, `${SELECTION_FILE} selects ${names}, ${unknown.length === 1 ? 'which is no package' : 'which are no packages'} of the workspace (its packages: ${known}; renamed since it was selected?), a name \`core select\` refuses: every package is in development until the selection names packages of the workspace only; run \`core select <package>...\` again, or \`core select --all\``));
    return null;
  }
  return selected;
}

/** The names of `selected` that no package of the workspace has, read or not; none when a package's name is not known (it may be one of them). */
function unknownSelected(selected: readonly string[], model: WorkspaceModel): string[] {
  const unread = model.unreadPackages ?? [];
  if (unread.some((pkg) => pkg.name === null && pkg.lastReadName === undefined)) return [];
  const names = new Set(model.packages.map((pkg) => pkg.name));
  for (const pkg of unread) {
    if (pkg.name !== null) names.add(pkg.name);
    if (pkg.lastReadName !== undefined) names.add(pkg.lastReadName);
  }
  return selected.filter((name) => !names.has(name));
}

/**
 * What `.core/selection.json` is, in words, when it is there but cannot be read as a file: told by
 * its directory's listing (never an open), and for a link by where it leads (recorded, so that a
 * retarget reads the workspace again); null when absent.
 */
function selectionNotAFile(reader: SourceReader, list: SourceReader['listDir'], model: WorkspaceModel): string | null {
  const entry = listedEntry(list, SELECTION_FILE);
  if (entry === null) return null;
  if (!entry.link) return entry.directory ? 'is a directory, not a regular file' : entry.special !== undefined ? `is ${entry.special}, not a regular file` : null;
  if (reader.linkHash) model.sources[`${SELECTION_FILE}${LINK_TARGET}`] = reader.linkHash(SELECTION_FILE);
  const target = reader.realPath ? reader.realPath(SELECTION_FILE) : null;
  if (target === null) return reader.leaves?.(SELECTION_FILE) ? 'is a symbolic link leading out of the workspace (not followed)' : 'is a symbolic link leading to nothing (a dangling link)';
  const reached = listedEntry(list, target);
  if (reached === null) return `is a symbolic link to ${target}, which does not exist`;
  if (reached.special !== undefined) return `is a symbolic link to ${target}, ${reached.special}, not a regular file`;
  return reached.directory ? `is a symbolic link to ${target}, a directory, not a regular file` : null;
}

export type { PackageModel };
