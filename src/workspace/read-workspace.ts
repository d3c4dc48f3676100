// Derives the workspace model from its manifests: `core.json`, each `package.json`, every
// `module.json` under `core.modules`, and `.core/selection.json` (README "Workspaces", README "The command line").
// Pure over a SourceReader, so tests declare the files as a map.
import { diagnostic, manifestInvalid, type Diagnostic } from './diagnostics.js';
import { isObject, parseJson, describeType } from './json.js';
import type { BundlerRef, ModuleModel, PackageModel, Platform, WorkspaceModel } from './model.js';
import { parseModuleManifest, isSubpath, type ModuleManifest } from './module-manifest.js';
import { parsePackageManifest, isPackageName, type PackageManifest } from './package-manifest.js';
import { dirOf, isInside, isSkippedDirectory, joinRelative, normalizeRelative, relativeTo } from './paths.js';
import { parseWorkspaceManifest } from './workspace-manifest.js';
import { createSourceFinder } from './source-finder.js';
import type { SourceReader } from './source-reader.js';
import { moduleSpecifier, parseBareSpecifier, ROOT_SUBPATH } from './specifiers.js';

export type { SourceReader };

export const WORKSPACE_MANIFEST = 'core.json';
export const SELECTION_FILE = '.core/selection.json';
export const BUILTIN_BUNDLERS: Readonly<Record<string, string>> = {
  ts: '@core-js/packages/bundlers/ts',
  esbuild: '@core-js/packages/bundlers/esbuild',
};

// Targets that are code entry points; `.d.ts` files and data are not modules.
const SOURCE_FILE = /\.(?:[cm]?tsx?|[cm]?jsx?)$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;
const STYLESHEET_FILE = /\.css$/;

/**
 * `deepImports`: bare specifiers of files of packages without `exports` that workspace modules
 * import (found by their builds): each is a module when it names a file Node would resolve.
 */
export function readWorkspace(reader: SourceReader, deepImports: readonly string[] = []): WorkspaceModel {
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
    model.diagnostics.push(manifestInvalid(WORKSPACE_MANIFEST, `there is no ${WORKSPACE_MANIFEST} in the workspace directory`));
    return model;
  }
  const workspace = parseWorkspaceManifest(coreJson.text, WORKSPACE_MANIFEST);
  model.diagnostics.push(...workspace.diagnostics);
  if (!workspace.value) return model;
  model.preview = workspace.value.preview;

  for (const dir of workspace.value.packages) {
    const file = dir === '.' ? 'package.json' : `${dir}/package.json`;
    const packageJson = read(file);
    if (!packageJson) {
      const which = reader.leaves?.(dir) ? 'is a symbolic link leaving the workspace (not followed)' : 'has no package.json';
      model.diagnostics.push(manifestInvalid(WORKSPACE_MANIFEST, `${WORKSPACE_MANIFEST} lists the package directory "${dir}", which ${which}`));
      continue;
    }
    const manifest = parsePackageManifest(packageJson.text, file);
    model.diagnostics.push(...manifest.diagnostics);
    if (!manifest.value) continue;
    const pkg = manifest.value;
    const taken = model.packages.find((p) => p.name === pkg.name);
    if (taken) {
      const other = taken.dir === '.' ? 'package.json' : `${taken.dir}/package.json`;
      model.diagnostics.push(manifestInvalid(file, `${file}: the package name "${pkg.name}" is already used by ${other}, listed before it in core.json; rename one of them`));
      continue;
    }
    model.packages.push({ name: pkg.name, version: pkg.version, dir, dependencies: pkg.dependencies, ...(pkg.rootMembers !== null ? { withoutExports: true as const } : {}) });
    const warnings: Diagnostic[] = [];
    const deepSubpaths = pkg.rootMembers === null ? [] : deepImports.map((specifier) => parseBareSpecifier(specifier)).filter((bare) => bare !== null && bare.packageName === pkg.name && bare.subpath !== '').map((bare) => bare!.subpath);
    const modules = packageModules(pkg, dir, file, read, list, model.diagnostics, warnings, deepSubpaths, (path) => reader.leaves?.(path) ?? false, (path) => reader.realPath?.(path) ?? path);
    model.modules.push(...modules);
    if (warnings.length > 0) (model.warnings ??= []).push(...warnings);
    if (modules.length === 0) {
      (model.warnings ??= []).push(
        diagnostic('NO_PUBLIC_MODULE', `${pkg.name} (${file}) publishes no module: declare one in "exports" ("./main": "./main/index.ts", or "." for the package root), or put a module.json beside an entry file under "core.modules"${pkg.rootMembers !== null ? `; without "exports", a file of it is also a module once a workspace module imports it ("${pkg.name}/<file>.js")` : ''}`, { file }),
      );
    }
  }

  model.selection = readSelection(read, model);
  return model;
}

function packageModules(
  pkg: PackageManifest,
  dir: string,
  packageFile: string,
  read: SourceReader['readText'],
  list: SourceReader['listDir'],
  workspaceDiagnostics: Diagnostic[],
  workspaceWarnings: Diagnostic[],
  deepSubpaths: readonly string[],
  leaves: (path: string) => boolean = () => false,
  realPath: (path: string) => string | null = (path) => path,
): ModuleModel[] {
  const modules: ModuleModel[] = [];
  const declare = (module: ModuleModel, file: string) => {
    const taken = modules.find((m) => m.subpath === module.subpath);
    if (taken) {
      workspaceDiagnostics.push(manifestInvalid(file, `${file} declares the module "${module.specifier}" again; it is already declared in ${taken.dir}`));
      return;
    }
    modules.push(module);
  };

  // 1. `exports` entries ("." and "./<subpath>", patterns expanded) whose targets are, or map
  // back to, a source entry point (README "Exports and sources").
  const sources = createSourceFinder(pkg, dir, read, list, realPath);
  for (const [key, targets] of Object.entries(pkg.exports)) {
    if (targets.length === 0 || key === './package.json') continue; // null excludes, as in Node; package.json is data
    if (key !== '.' && !key.startsWith('./')) continue;
    if (key.includes('*')) {
      // A `null` key more specific than this one takes what it matches, as in Node (`exportsKeyFor`).
      const expanded = sources.expandPattern(key, targets).filter(({ subpath }) => isSubpath(subpath));
      for (const { subpath, entry } of expanded) declare(newModule(pkg, subpath, dirOf(entry), entry), packageFile);
      const codeTargets = targets.filter((target) => target.includes('*') && (/\*$/.test(target) || (SOURCE_FILE.test(target) && !DECLARATION_FILE.test(target))));
      if (expanded.length === 0 && codeTargets.length > 0) {
        workspaceWarnings.push(
          diagnostic('EXPORTS_NO_SOURCE', `${packageFile}: exports["${key}"] -> ${codeTargets.map((t) => `"${t}"`).join(', ')} publishes no module: no file of the package, built or source, is what Node would resolve through it${describeTsconfigs(sources.tsconfigs(), sources.tsconfigProblems())}; add the files, or correct the target`, { file: packageFile }),
        );
      }
      continue;
    }
    const subpath = key === '.' ? ROOT_SUBPATH : key.slice(2);
    if (key !== '.' && !isSubpath(subpath)) {
      workspaceDiagnostics.push(manifestInvalid(packageFile, `${packageFile}: exports["${key}"] is not a subpath this service can publish (segments of letters, digits, ".", "_", "-")`));
      continue;
    }
    const outside = targets.find((target) => {
      const relative = normalizeRelative(target);
      return relative === null || !isInside(relative);
    });
    if (outside !== undefined) {
      workspaceDiagnostics.push(manifestInvalid(packageFile, `${packageFile}: exports["${key}"] must map to a file of the package; it maps to "${outside}"`));
      continue;
    }
    const found = sources.find(key, targets);
    if (found.entry !== null) {
      declare(newModule(pkg, subpath, dirOf(found.entry), found.entry), packageFile);
      continue;
    }
    // A stylesheet target that exists is a module of its own (README "Stylesheet modules"):
    // its styles output is the sheet, its code output empty, so a bare import of it is linked
    // by the page and maps like any module.
    const sheet = stylesheetTarget(targets, dir, list);
    if (sheet !== null) {
      declare(newModule(pkg, subpath, dirOf(sheet), sheet), packageFile);
      continue;
    }
    // Other targets that are not code (JSON, an image) publish no module. A code target
    // that is not there is still the module: invalid, saying what was looked at.
    const first = targets.find((target) => SOURCE_FILE.test(target) && !DECLARATION_FILE.test(target));
    if (first === undefined) continue;
    const entry = joinRelative(dir, normalizeRelative(first)!);
    const module = newModule(pkg, subpath, dirOf(entry), entry);
    if (!/\.[cm]?tsx?$/.test(first)) module.diagnostics.push(manifestInvalid(packageFile, noSourceMessage(pkg, packageFile, key, first, found.looked, sources.tsconfigs(), sources.tsconfigProblems())));
    declare(module, packageFile);
  }

  // 1b. Without `exports`, a file a workspace module imports by deep specifier, resolved as Node
  // resolves it (the file itself, or the source it maps back to); never inside node_modules.
  for (const subpath of new Set(deepSubpaths)) {
    if (!isSubpath(subpath) || DECLARATION_FILE.test(subpath) || subpath.split('/').includes('node_modules') || modules.some((m) => m.subpath === subpath)) continue;
    const found = sources.find(`./${subpath}`, [`./${subpath}`], true);
    if (found.entry !== null) declare(newModule(pkg, subpath, dirOf(found.entry), found.entry), packageFile);
  }

  // 2. `module.json` files under `core.modules`, and beside each exports target.
  const manifests = new Map<string, { file: string; manifest: ModuleManifest; diagnostics: Diagnostic[] }>();
  const loadManifest = (moduleDir: string) => {
    if (manifests.has(moduleDir)) return;
    const file = moduleDir === '.' ? 'module.json' : `${moduleDir}/module.json`;
    const text = read(file);
    if (!text) return;
    const parsed = parseModuleManifest(text.text, file);
    manifests.set(moduleDir, { file, manifest: parsed.value!, diagnostics: parsed.diagnostics });
  };
  const modulesDir = pkg.modulesDir === null ? dir : joinRelative(dir, normalizeRelative(pkg.modulesDir) ?? '.');
  if (pkg.modulesDir !== null && (normalizeRelative(pkg.modulesDir) === null || !isInside(relativeTo(dir, modulesDir)))) {
    workspaceDiagnostics.push(manifestInvalid(packageFile, `${packageFile}: core.modules must be a directory inside the package; it is "${pkg.modulesDir}"`));
  } else if (pkg.modulesDir !== null && leaves(modulesDir)) {
    workspaceDiagnostics.push(manifestInvalid(packageFile, `${packageFile}: core.modules "${pkg.modulesDir}" is a symbolic link leaving the workspace (not followed)`));
  } else if (pkg.modulesDir !== null && list(modulesDir) === null) {
    workspaceDiagnostics.push(manifestInvalid(packageFile, `${packageFile}: core.modules "${pkg.modulesDir}" names no directory of the package (${modulesDir} does not exist)`));
  } else {
    for (const moduleDir of findManifestDirs(modulesDir, list)) loadManifest(moduleDir);
  }
  for (const module of modules) loadManifest(module.dir);

  for (const [moduleDir, { file, manifest, diagnostics }] of manifests) {
    const described = modules.filter((m) => m.dir === moduleDir);
    if (described.length > 0) {
      for (const module of described) applyManifest(module, manifest, diagnostics);
      continue;
    }
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
    declare(module, file);
  }

  // A declared asset that is not there is a mistake of the manifest, in development as in
  // `core dist` (which could not write it): the module says so rather than answering 404 later.
  for (const module of modules) {
    const file = manifests.get(module.dir)?.file ?? packageFile;
    for (const asset of module.assets) {
      const path = joinRelative(module.dir, asset);
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (list(dirOf(path))?.entries.some((entry) => entry.name === name && !entry.directory)) continue;
      module.diagnostics.push(manifestInvalid(file, `${file}: "assets" declares "${asset}", but ${path} does not exist: add the file or remove it from "assets"`));
    }
  }

  // 3. Bundlers, by name through the package's registry, then the built-in ones.
  for (const module of modules) {
    const file = manifests.get(module.dir)?.file ?? packageFile;
    const name = manifests.get(module.dir)?.manifest.bundler ?? pkg.defaultBundler ?? 'ts';
    const resolved = resolveBundler(pkg, name);
    if (resolved) module.bundler = resolved;
    else {
      module.bundler = { name, specifier: '' };
      module.diagnostics.push(manifestInvalid(file, `${file}: the bundler "${name}" is not registered: add it to "bundlers" in ${packageFile} or use "ts" or "esbuild"`));
    }
  }
  return modules.sort((a, b) => (a.subpath < b.subpath ? -1 : a.subpath > b.subpath ? 1 : 0));
}

/** The first `.css` target that is a file of the package, workspace-relative; null when none is. */
function stylesheetTarget(targets: string[], dir: string, list: SourceReader['listDir']): string | null {
  for (const target of targets) {
    if (!STYLESHEET_FILE.test(target)) continue;
    const relative = normalizeRelative(target);
    if (relative === null || !isInside(relative)) continue;
    const file = joinRelative(dir, relative);
    const name = file.slice(file.lastIndexOf('/') + 1);
    if (list(dirOf(file))?.entries.some((entry) => entry.name === name && !entry.directory)) return file;
  }
  return null;
}

/**
 * A code target that names no source, said in the package's own words: the member it comes
 * from (`exports["./x"]`, or `module`/`main` of a package without `exports`), the tsconfig read
 * for `outDir`, and the fix that fits (README "Exports and sources").
 */
function noSourceMessage(pkg: PackageManifest, packageFile: string, key: string, target: string, looked: string[], tsconfigs: string[], problems: string[]): string {
  const index = pkg.exports[key]?.indexOf(target) ?? -1;
  const member = pkg.rootMembers !== null && key === '.' ? `"${pkg.rootMembers[index] ?? 'main'}"` : `exports["${key}"]`;
  const where = `${member} -> "${target}" names no source: it does not exist and maps to no TypeScript source (looked at ${looked.join(', ')}${describeTsconfigs(tsconfigs, problems)})`;
  // A config above the package (a monorepo root) is shared: the fix goes into the package's own.
  const own = tsconfigs.find((file) => dirOf(file) === dirOf(packageFile));
  const ownFile = joinRelative(dirOf(packageFile), 'tsconfig.json');
  const outDir = own !== undefined
    ? `set "outDir" and "rootDir" in ${own} so that it maps to the source`
    : `add ${ownFile}${tsconfigs.length > 0 ? ` (extending ${relativeTo(dirOf(packageFile), tsconfigs[0]!)})` : ''} whose "outDir" and "rootDir" map it to the source`;
  const fix = pkg.rootMembers !== null ? `${outDir}, or publish the source with "exports": {".": {"source": "./<entry>.ts", "default": "${target}"}}` : `${pkg.sourceKeys.includes(key) ? `point the "source" condition of exports["${key}"] at the entry file` : `add a "source" condition naming the entry file to exports["${key}"]`}, or ${outDir}`;
  return `${packageFile}: ${where}; ${fix}`;
}

const describeTsconfigs = (tsconfigs: string[], problems: string[]): string =>
  (tsconfigs.length === 0 ? '; no tsconfig.json applies to the package' : `; tsconfig read: ${tsconfigs.join(', ')}`) + problems.map((problem) => `; ${problem}`).join('');

function newModule(pkg: PackageManifest, subpath: string, dir: string, entry: string | null): ModuleModel {
  return {
    specifier: moduleSpecifier(pkg.name, subpath),
    package: pkg.name,
    version: pkg.version,
    subpath,
    dir,
    entry,
    platforms: ['web'] as Platform[],
    bundler: { name: 'ts', specifier: BUILTIN_BUNDLERS.ts! },
    assets: [],
    diagnostics: [],
    ...(Object.keys(pkg.define).length > 0 ? { define: { ...pkg.define } } : {}),
  };
}

function applyManifest(module: ModuleModel, manifest: ModuleManifest, diagnostics: Diagnostic[]) {
  if (manifest.platforms) module.platforms = manifest.platforms;
  module.assets = manifest.assets;
  module.diagnostics.push(...diagnostics);
}

function resolveBundler(pkg: PackageManifest, name: string): BundlerRef | null {
  // Own members only: a bundler named `constructor` or `toString` is not registered by Object.prototype.
  const registered = Object.hasOwn(pkg.bundlers, name) ? pkg.bundlers[name] : undefined;
  if (registered) {
    return registered.processors ? { name, specifier: registered.specifier, processors: registered.processors } : { name, specifier: registered.specifier };
  }
  const builtin = Object.hasOwn(BUILTIN_BUNDLERS, name) ? BUILTIN_BUNDLERS[name] : undefined;
  return builtin ? { name, specifier: builtin } : null;
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
    if (dir !== start && listing.entries.some((e) => e.name === 'package.json' && !e.directory)) continue;
    if (listing.entries.some((e) => e.name === 'module.json' && !e.directory)) found.push(dir);
    // Reversed onto the stack, so they are taken in the listing's order, as a recursion would.
    for (let index = listing.entries.length - 1; index >= 0; index -= 1) {
      const entry = listing.entries[index]!;
      if (!entry.directory || isSkippedDirectory(entry.name)) continue;
      pending.push(dir === '.' ? entry.name : `${dir}/${entry.name}`);
    }
  }
  return found;
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
