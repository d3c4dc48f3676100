// The modules a package publishes by `exports` ("." and "./<subpath>", patterns expanded):
// each target that is, or maps back to, a source entry point (README "Exports and sources");
// and, without `exports`, each file a workspace module imports by deep specifier.
import { dataExportReason } from './data-exports.js';
import { diagnostic, manifestInvalid } from './diagnostics.js';
import { isSubpath } from './module-manifest.js';
import { declareModule, newModule, type PackageContext } from './package-context.js';
import { dirOf, isInside, joinRelative, normalizeRelative, relativeTo } from './paths.js';
import type { SourceFinder } from './source-finder.js';
import { ROOT_SUBPATH } from './specifiers.js';

// Targets that are code entry points; `.d.ts` files and data are not modules.
const SOURCE_FILE = /\.(?:[cm]?tsx?|[cm]?jsx?)$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;
const STYLESHEET_FILE = /\.css$/;
// Keyed by subpaths from the manifest: without a prototype, `__proto__` is a name like any other.
const dataTable = (): Record<string, string> => Object.create(null) as Record<string, string>;

/** Declares the modules of the package's `exports` in `context`. */
export function declareExportedModules(context: PackageContext, sources: SourceFinder): void {
  for (const [key, targets] of Object.entries(context.pkg.exports)) {
    if (targets.length === 0) continue; // null excludes, as in Node
    if (key !== '.' && !key.startsWith('./')) continue;
    // The package's own manifest, exported by convention for tools that read a version: data,
    // with no warning, as nearly every published package has it (README "Exports and sources").
    if (key === './package.json') {
      (context.dataExports ??= dataTable())['package.json'] = targets[0]!;
      continue;
    }
    if (key.includes('*')) declarePatternModules(context, sources, key, targets);
    else declareExportedModule(context, sources, key, targets);
  }
}

/**
 * After every declaration: each `exports` name kept as data that no module.json made a module
 * after all is said at the package (`EXPORTS_NAME_UNPUBLISHABLE`), but the conventional
 * `"./package.json"`, metadata with nothing to fix (README "Exports and sources").
 */
export function warnDataExports(context: PackageContext): void {
  const { dataExports, dataExportKeys, pkg, packageFile } = context;
  if (!dataExports) return;
  for (const subpath of Object.keys(dataExports)) {
    if (context.modules.some((module) => module.subpath === subpath)) {
      delete dataExports[subpath];
      if (dataExportKeys) delete dataExportKeys[subpath];
    } else if (subpath !== 'package.json') {
      const key = dataExportKeys?.[subpath] ?? `./${subpath}`;
      context.warnings.push(diagnostic('EXPORTS_NAME_UNPUBLISHABLE', `${packageFile}: exports["${key}"] -> "${dataExports[subpath]}" ${dataExportReason(pkg.name, subpath, dataExports[subpath]!)}`, { file: packageFile }));
    }
  }
  if (Object.keys(dataExports).length === 0) delete context.dataExports;
  if (dataExportKeys && Object.keys(dataExportKeys).length === 0) delete context.dataExportKeys;
}

/** Without `exports`: a file a workspace module imports by deep specifier, resolved as Node resolves it (the file itself, or the source it maps back to); never inside node_modules. */
export function declareDeepImportModules(context: PackageContext, sources: SourceFinder, deepSubpaths: readonly string[]): void {
  for (const subpath of new Set(deepSubpaths)) {
    if (!isSubpath(subpath) || DECLARATION_FILE.test(subpath) || subpath.split('/').includes('node_modules') || context.modules.some((m) => m.subpath === subpath)) continue;
    const found = sources.find(`./${subpath}`, [`./${subpath}`], true);
    if (found.entry !== null) declareModule(context, newModule(context.pkg, subpath, dirOf(found.entry), found.entry), context.packageFile);
  }
}

function declarePatternModules(context: PackageContext, sources: SourceFinder, key: string, targets: string[]): void {
  const { pkg, packageFile } = context;
  // A pattern whose targets are data (`"./*.json": "./cfg/*.json"`): each file it maps to is kept
  // as the exact key's target is, said at the package and to its importers (README "Exports and sources").
  if (!targets.some((target) => SOURCE_FILE.test(target) || STYLESHEET_FILE.test(target) || /\*$/.test(target))) {
    for (const { subpath, target } of sources.expandDataPattern(key, targets)) {
      if (!isSubpath(subpath)) continue;
      (context.dataExports ??= dataTable())[subpath] = target;
      (context.dataExportKeys ??= dataTable())[subpath] = key;
    }
    return;
  }
  // A `null` key more specific than this one takes what it matches, as in Node (`exportsKeyFor`).
  const matched = sources.expandPattern(key, targets);
  const expanded = matched.filter(({ subpath }) => isSubpath(subpath));
  for (const { subpath, entry } of expanded) declareModule(context, newModule(pkg, subpath, dirOf(entry), entry), packageFile);
  // A file the pattern matches whose subpath no address can carry is said, one warning each: an
  // importer would otherwise hear only that the name is not a public module (README "Exports and sources").
  for (const { subpath, entry } of matched) {
    if (isSubpath(subpath)) continue;
    context.warnings.push(
      diagnostic('EXPORTS_NAME_UNPUBLISHABLE', `${packageFile}: exports["${key}"] matches ${entry}, but its subpath "${subpath}" is not one this service can publish (segments of letters, digits, ".", "_", "-"), so no module is published for it; rename the file, or exclude it with a null key`, { file: packageFile }),
    );
  }
  const codeTargets = targets.filter((target) => target.includes('*') && (/\*$/.test(target) || (SOURCE_FILE.test(target) && !DECLARATION_FILE.test(target))));
  if (matched.length === 0 && codeTargets.length > 0) {
    context.warnings.push(
      diagnostic('EXPORTS_NO_SOURCE', `${packageFile}: exports["${key}"] -> ${codeTargets.map((t) => `"${t}"`).join(', ')} publishes no module: no file of the package, built or source, is what Node would resolve through it${describeTsconfigs(sources.tsconfigs(), sources.tsconfigProblems())}; add the files, or correct the target`, { file: packageFile }),
    );
  }
}

function declareExportedModule(context: PackageContext, sources: SourceFinder, key: string, targets: string[]): void {
  const { pkg, dir, packageFile } = context;
  const subpath = key === '.' ? ROOT_SUBPATH : key.slice(2);
  if (key !== '.' && !isSubpath(subpath)) {
    context.diagnostics.push(manifestInvalid(packageFile, `${packageFile}: exports["${key}"] is not a subpath this service can publish (segments of letters, digits, ".", "_", "-")`));
    return;
  }
  const outside = targets.find((target) => {
    const relative = normalizeRelative(target);
    return relative === null || !isInside(relative);
  });
  if (outside !== undefined) {
    context.diagnostics.push(manifestInvalid(packageFile, `${packageFile}: exports["${key}"] must map to a file of the package; it maps to "${outside}"`));
    return;
  }
  const found = sources.find(key, targets);
  // A stylesheet target that exists is a module of its own (README "Stylesheet modules"):
  // its styles output is the sheet, its code output empty, so a bare import of it is linked
  // by the page and maps like any module.
  const entry = found.entry ?? sources.stylesheet(targets);
  if (entry !== null) {
    declareModule(context, newModule(pkg, subpath, dirOf(entry), entry), packageFile);
    return;
  }
  // Other targets that are not code (JSON, an image) publish no module, while Node resolves the
  // name: said at the package, and to an importer (README "Exports and sources"). A code target
  // that is not there is still the module: invalid, saying what was looked at.
  const first = targets.find((target) => SOURCE_FILE.test(target) && !DECLARATION_FILE.test(target));
  if (first === undefined) {
    if (key !== '.' && !targets.some((target) => SOURCE_FILE.test(target) || STYLESHEET_FILE.test(target))) (context.dataExports ??= dataTable())[subpath] = targets[0]!;
    return;
  }
  const missing = joinRelative(dir, normalizeRelative(first)!);
  const module = newModule(pkg, subpath, dirOf(missing), missing);
  if (!/\.[cm]?tsx?$/.test(first)) module.diagnostics.push(manifestInvalid(packageFile, noSourceMessage(context, key, first, found.looked, sources)));
  declareModule(context, module, packageFile);
}

/**
 * A code target that names no source, said in the package's own words: the member it comes
 * from (`exports["./x"]`, or `module`/`main` of a package without `exports`), the tsconfig read
 * for `outDir`, and the fix that fits (README "Exports and sources").
 */
function noSourceMessage({ pkg, packageFile }: PackageContext, key: string, target: string, looked: string[], sources: SourceFinder): string {
  const tsconfigs = sources.tsconfigs();
  const index = pkg.exports[key]?.indexOf(target) ?? -1;
  const member = pkg.rootMembers !== null && key === '.' ? `"${pkg.rootMembers[index] ?? 'main'}"` : `exports["${key}"]`;
  const where = `${member} -> "${target}" names no source: it does not exist and maps to no TypeScript source (looked at ${looked.join(', ')}${describeTsconfigs(tsconfigs, sources.tsconfigProblems())})`;
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
