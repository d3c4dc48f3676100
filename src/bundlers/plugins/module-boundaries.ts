// Module boundaries (README "Bundling real code"): the code of a public module is in its own
// output only once on a page.
// - A bare import of a workspace package stays bare even where a tsconfig `paths` entry maps it
//   to the other package's sources (esbuild applies `paths` before `packages: 'external'`, but
//   after its `external` patterns).
// - A relative import that reaches another public module's entry file (Lit's entries import
//   each other by relative path) is an import of that module: it stays external, written as
//   the module's public specifier, so its classes and state are not copied into this one.
//   From a TypeScript file, the import goes through a module of this plugin that re-exports
//   only the other module's values: TypeScript imports and re-exports types by the same syntax
//   (`export { Part } from './lit-html.js'`, where `Part` is a type), which tsc erases knowing
//   the other file, and esbuild erases inside one bundle only. Kept external as written, such
//   a name is imported from an output that has no such export, and the page fails to link.
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { BundleTarget } from '../types.js';
import { escapeRegExp } from '../filters.js';
import { boundaryCrossedText } from '../../workspace/diagnostics.js';
import { CSS_MODULE_SCRIPTS } from './css-module-scripts.js';
import { WORKSPACE_CONFINEMENT } from './workspace-confinement.js';
import { LINKED_DIRS } from './linked-dirs.js';
import { NON_REGULAR_GUARD } from '../non-regular-files.js';
import { isReallyInside, readRegularFile, unchangedReads } from '../../regular-files.js';
import { isObject } from '../../workspace/json.js';
import { isInside, isSkippedDirectory } from '../../workspace/paths.js';
import { loadTsconfig, tsconfigPlaces } from '../../workspace/tsconfig.js';
import { VITE_QUERY_SUFFIX } from '../vite-query-imports.js';
import type { WorkspaceBoundaries } from '../../workspace/boundaries.js';
import { noticingDeath, serviceCall } from '../esbuild-service.js';

const stem = (file: string) => file.replace(/\.(?:d\.)?[cm]?[jt]sx?$/, '');

/**
 * esbuild's `external` patterns of the workspace's packages: checked in Go before tsconfig
 * `paths`, and before any resolution (a plugin's callback for each import of a workspace
 * package took the main thread: an app importing 1,000 modules waited for 1,000 of them).
 */
export function workspacePackagesExternal(targets: BundleTarget[]): string[] {
  return (targets[0]?.workspace?.packages ?? []).flatMap((name) => [name, `${name}/*`]);
}

const BOUNDARIES = 'core-module-boundaries';

/**
 * Whether a TypeScript file has a named export list (`export { A } from`, `export { A }`), once per
 * build and file: esbuild itself drops an import used only as a type, so only such a list can
 * name a type of another module in the output; every other file imports as written, at no cost.
 */
function namedExportsOf() {
  const known = new Map<string, boolean>();
  return {
    of(file: string): boolean {
      let found = known.get(file);
      if (found === undefined) {
        try {
          // Never waits on a FIFO (README "Files that are not files"): its load is refused.
          found = NAMED_EXPORT_LIST.test(readRegularFile(file).bytes.toString('utf8'));
        } catch {
          found = false;
        }
        known.set(file, found);
      }
      return found;
    },
    clear: () => known.clear(),
  };
}

const NAMED_EXPORT_LIST = /\bexport\s*\{/;
// The engine's plugins that decide what a source is (esbuild-options.ts), by name; the refusal of
// the known special files too, or the inner build waits forever in a FIFO's open.
const SOURCE_PLUGINS = new Set([LINKED_DIRS, NON_REGULAR_GUARD, 'core-url-imports', CSS_MODULE_SCRIPTS, 'core-assets', WORKSPACE_CONFINEMENT, 'core-refuse-sources']);

/**
 * The names an unminified ES module bundle of esbuild exports: its one closing `export { ... }`
 * clause. Not the metafile's `exports`, which still list a type re-exported from TypeScript
 * (the name the bundle drops). Null when it re-exports all of a bare import (`export * from`).
 */
export function exportedNames(code: string): string[] | null {
  if (/^export \* from /m.test(code)) return null;
  const start = code.lastIndexOf('\nexport {');
  if (start === -1) return [];
  const end = code.indexOf('};', start);
  if (end === -1) return null;
  return code
    .slice(start + '\nexport {'.length, end)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const exported = item.split(/\s+as\s+/).pop()!;
      return exported.startsWith('"') ? (JSON.parse(exported) as string) : exported;
    });
}

interface Candidate {
  file: string;
  specifier: string;
  within?: string;
}

// The entries' part of the map and its filter, made once per workspace model (its boundaries
// are one object until the workspace changes): a first start makes a plugin for each batch of
// 100 modules, and each made this map of 1,000 entries again.
interface EntryReach {
  root: string;
  byStem: Map<string, Candidate>;
  /** The folders of a package on the way to one of its entries (absolute), the package's own folder too: a `package.json` in one may name that entry (`main`, `module`), which esbuild follows for an import of the folder. */
  folders: Set<string>;
  /** The symbolic links inside the entries' packages leading to one of `folders` or to an entry file (absolute, as named), with where each leads. */
  links: Map<string, string>;
  /** The names the filter passes besides the entries': the `folders` inside packages, the `links`, and those from the workspace's root to a package. */
  names: string[];
  /** The `tsconfig.json` and `jsconfig.json` files the walk for `links` found inside the packages (absolute): one nearer to a file of a module than its entry's config gives that file's imports its `paths`. */
  configs: string[];
  filter: RegExp | null;
}
const entryCandidates = new WeakMap<Record<string, string>, EntryReach>();

function candidatesOf(root: string, boundaries: WorkspaceBoundaries | undefined): EntryReach {
  const entries = boundaries?.entries ?? {};
  const known = entryCandidates.get(entries);
  if (known && known.root === root) return known;
  const byStem = new Map<string, Candidate>();
  const packageDirs = new Set(Object.values(boundaries?.manifests ?? {}).map((manifest) => path.join(root, path.posix.dirname(manifest))));
  const folders = new Set<string>();
  for (const [file, specifier] of Object.entries(entries)) {
    // A stylesheet module's sheet imported by relative path stays in the importer's styles, as
    // before it was published: rules hold no state to duplicate (README "Stylesheet modules").
    if (file.endsWith('.css')) continue;
    byStem.set(stem(path.join(root, file)), { file: path.join(root, file), specifier });
    for (const folder of foldersToward(path.join(root, file), packageDirs)) folders.add(folder);
  }
  const { links, configs } = byStem.size === 0 ? { links: new Map<string, string>(), configs: [] } : linksToward(packageDirs, folders, byStem);
  const linkNames = [...links.keys()].map((link) => stem(path.basename(link)));
  const names = [...folderNames(folders, packageDirs), ...linkNames, ...foldersAbove(root, packageDirs)];
  const made = { root, byStem, folders, links, names, configs, filter: byStem.size === 0 ? null : entryImportFilter(byStem.keys(), names) };
  entryCandidates.set(entries, made);
  return made;
}

// The folders from an entry's own up to its package's (included); none when no package holds it.
function foldersToward(file: string, packageDirs: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    found.push(dir);
    if (packageDirs.has(dir)) return found;
  }
  return [];
}

/**
 * Whether a build for `target` bundled another public module's entry file (its output's inputs,
 * workspace-relative), and a walk for links done now finds other links than the one its plugin
 * was made with: a link made since (`linksToward`), which the next build, in a new context,
 * keeps as that module's import. The walk found is kept for the plugins made next.
 */
export function copiedThroughNewLink(root: string, target: BundleTarget, inputs: readonly string[]): boolean {
  const entries = target.workspace?.entries;
  if (!entries || !inputs.some((input) => input !== target.entry && !input.endsWith('.css') && input in entries)) return false;
  const before = entryCandidates.get(entries);
  entryCandidates.delete(entries);
  const now = candidatesOf(root, target.workspace);
  return before === undefined || before.root !== root || JSON.stringify([...before.links]) !== JSON.stringify([...now.links]);
}

/**
 * The symbolic links inside the packages holding the entries that lead to a folder on the way to an
 * entry, or to an entry file (`src/alias` -> `reg`): esbuild resolves an import through one to the
 * real file, another module's entry, which is then that module's import (README "Bundling real
 * code"). Each link is judged by its real path, which must be the folder's or the file's (a link
 * leading out of the workspace is never one); links are not followed in the walk, nor are
 * `node_modules`, dot-directories and another package's folder. At most `MAX_WALKED` folders.
 */
function linksToward(packageDirs: ReadonlySet<string>, folders: ReadonlySet<string>, byStem: ReadonlyMap<string, Candidate>): { links: Map<string, string>; configs: string[] } {
  const realOf = (file: string): string | null => {
    try {
      return fs.realpathSync.native(file);
    } catch {
      return null;
    }
  };
  const targets = new Map<string, string>();
  for (const place of [...folders, ...[...byStem.values()].map((candidate) => candidate.file)]) {
    const real = realOf(place);
    if (real !== null && !targets.has(real)) targets.set(real, place);
  }
  const links = new Map<string, string>();
  const configs: string[] = [];
  const pending = [...packageDirs].filter((dir) => folders.has(dir));
  for (let walked = 0; pending.length > 0 && walked < MAX_WALKED; walked += 1) {
    const dir = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory() && !isSkippedDirectory(entry.name) && !packageDirs.has(at)) pending.push(at);
      if (entry.isFile() && CONFIG_NAME.test(entry.name)) configs.push(at);
      if (!entry.isSymbolicLink()) continue;
      const target = targets.get(realOf(at) ?? '');
      if (target !== undefined && target !== at) links.set(at, target);
    }
  }
  return { links, configs };
}

const CONFIG_NAME = /^[tj]sconfig\.json$/;

const MAX_WALKED = 5_000;

/** `named` (absolute) with a leading link of `links` replaced by where it leads. */
function throughLinks(named: string, links: ReadonlyMap<string, string>): string {
  for (const [link, target] of links) {
    if (named === link || stem(named) === stem(link)) return target;
    if (named.startsWith(link + path.sep)) return target + named.slice(link.length);
  }
  return named;
}

// The names of the folders from the workspace's root to a package, not a package's own (`packages`
// of `packages/lib`): a tsconfig `baseUrl` of the root spells an entry from there
// (`'packages/lib/src/store'`).
function foldersAbove(root: string, packageDirs: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  for (const dir of packageDirs) {
    for (let up = path.dirname(dir); up.startsWith(root + path.sep); up = path.dirname(up)) if (!packageDirs.has(up)) names.add(path.basename(up));
  }
  return [...names];
}

// The names of the folders inside a package (not the package's own: `'../lib'` naming another
// package's folder is rare, and its package name is the import to write).
const folderNames = (folders: ReadonlySet<string>, packageDirs: ReadonlySet<string>): string[] => [...folders].filter((dir) => !packageDirs.has(dir)).map((dir) => path.basename(dir));

/** A relative import this plugin kept as another module or a shared file, with the file esbuild resolved it to (absolute paths). */
export interface KeptExternal {
  importer: string;
  original: string;
  file: string;
  /**
   * From TypeScript, the graph of the files whose exports decided which names the import
   * re-exports (the other module's own, as its metafile names them, relative to the workspace):
   * each file, and what each of its relative imports resolved through, are inputs of the
   * importer, so that a type one of them makes a value is re-exported at the next build.
   */
  graph?: esbuild.Metafile['inputs'];
}

// By build result: esbuild's metafile names no `original` for an import a plugin kept external,
// and what its resolution depended on is an input of the module all the same (README "Bundling
// real code"): `collect` finds them here.
const keptExternals = new WeakMap<object, readonly KeptExternal[]>();

/** The relative imports the build that gave `result` kept external as modules or shared files. */
export const keptExternalOf = (result: object): readonly KeptExternal[] => keptExternals.get(result) ?? [];

export function moduleBoundariesPlugin(root: string, targets: BundleTarget[]): esbuild.Plugin {
  // Entry files by path without extension: an import of `./reactive-element.js` names `reactive-element.ts`.
  // A shared file (README "Shared files") is imported by its internal specifier from its own package only.
  const ofEntries = candidatesOf(root, targets[0]?.workspace);
  const { folders, links } = ofEntries;
  let byStem = ofEntries.byStem;
  let filter = ofEntries.filter;
  for (const target of targets) {
    const within = target.package ? path.join(root, target.package.dir) + path.sep : undefined;
    for (const [file, specifier] of Object.entries(target.shared ?? {})) {
      if (byStem.has(stem(path.join(root, file)))) continue;
      if (byStem === ofEntries.byStem) byStem = new Map(byStem);
      byStem.set(stem(path.join(root, file)), { file: path.join(root, file), specifier, within });
    }
  }
  if (byStem !== ofEntries.byStem) filter = entryImportFilter(byStem.keys(), ofEntries.names);
  return {
    name: BOUNDARIES,
    setup(build) {
      if (filter === null) return;
      // Read as esbuild sets the plugin up, not as the options are made: options are made for a
      // stylesheet's build and a kept context's signature too, and a sheet's edit reads no config
      // (ARCHITECTURE.md "One stylesheet edit").
      const aliases = pathsAliasesOf(root, targets, ofEntries.configs, entryNameSource(byStem.keys(), ofEntries.names));
      const imports = aliases.length === 0 ? filter : new RegExp(`${filter.source}|^(?:${aliases.join('|')})(?:[?#].*)?$`);
      const valueExports = valueExportsOf(root, build);
      const exportsByName = namedExportsOf();
      // One list per build of a kept context: handed to its result as it ends, a new one begun.
      // What a build learnt of the files is forgotten as it ends too, not at the next start: esbuild
      // runs on-start callbacks beside the build (a resolve may come first), and on-end callbacks
      // after every build, a cancelled or failed one included. An on-start callback would also
      // cost every rebuild one more exchange with esbuild's process (README "Performance").
      let kept: KeptExternal[] = [];
      build.onEnd((result) => {
        keptExternals.set(result, kept);
        kept = [];
        valueExports.clear();
        exportsByName.clear();
      });
      build.onResolve({ filter: imports }, async (args) => {
        if (args.pluginData === SKIP) return undefined;
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import' && args.kind !== 'require-call') return undefined;
        // Vite's query imports are not the module (`?raw`: its text), and told as such (vite-query-imports.ts).
        if (VITE_QUERY_SUFFIX.test(args.path)) return undefined;
        // A directory (`'../store'`, `'../store/'`) reaches its index as a file named so does, or
        // the file its package.json names. What an alias maps (tsconfig `paths` and `baseUrl`,
        // `#imports`) only esbuild's resolution tells. esbuild reads `?v=2` or `#x` after a file's
        // name as no part of it.
        // Through a link of ours (`'./alias'`), by where it leads.
        const named = throughLinks(path.resolve(args.resolveDir, args.path.replace(/[?#].*$/s, '')), links);
        if (args.path.startsWith('.') && !byStem.has(stem(named)) && !byStem.has(path.join(named, 'index')) && !folders.has(named)) return undefined;
        // Decided by the file esbuild's own resolution reaches (extensions, a directory's index,
        // tsconfig), never by the spelling: the same file as an entry's, or not ours.
        const resolved = await noticingDeath(build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SKIP }));
        if (resolved.errors.length > 0) return undefined;
        const candidate = byStem.get(stem(resolved.path));
        if (!candidate || resolved.path !== candidate.file) return undefined;
        // A shared file is imported by relative path only; one an alias reaches stays a copy (README "Shared files").
        if (candidate.within !== undefined && (!args.importer.startsWith(candidate.within) || !args.path.startsWith('.'))) return undefined;
        const crossing = { importer: args.importer, original: args.path, file: candidate.file };
        if (candidate.within !== undefined) {
          kept.push(crossing);
          return { path: candidate.specifier, external: true };
        }
        const warnings = [{ text: `MODULE_BOUNDARY_CROSSED: ${boundaryCrossedText(args.path, candidate.specifier)}` }];
        const values = TYPESCRIPT.test(args.importer) && exportsByName.of(args.importer) ? await valueExports.of(candidate.file) : null;
        kept.push(values === null ? crossing : { ...crossing, graph: values.graph });
        if (values === null) return { path: candidate.specifier, external: true, warnings };
        const { names } = values;
        // Imported for its effects as well, as the import was before: only the types are gone.
        const quoted = JSON.stringify(candidate.specifier);
        const reexport = `import ${quoted};\n${names.length === 0 ? '' : `export { ${names.map((name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name))).join(', ')} } from ${quoted};\n`}`;
        return { path: path.relative(root, candidate.file).split(path.sep).join('/'), namespace: CROSSED, pluginData: reexport, warnings };
      });
      build.onResolve({ filter: /.*/, namespace: CROSSED }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace: CROSSED }, (args) => ({ contents: args.pluginData as string, loader: 'js' }));
    },
  };
}

/**
 * The namespace of the modules standing for another public module, imported from TypeScript:
 * each re-exports that module's values from its specifier. Its path is the other module's entry,
 * workspace-relative, an input of the build (a change of its exports changes this output).
 */
export const CROSSED = 'core-crossed';

/** Is this metafile path a module standing for another module (`CROSSED`), not a file? */
export const isCrossed = (input: string): boolean => input.startsWith(`${CROSSED}:`);

const TYPESCRIPT = /\.[cm]?tsx?$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The names another module's entry exports as values, and the graph of the files its bundle read to know them (its metafile's). */
interface ValueExports {
  names: string[];
  graph: esbuild.Metafile['inputs'];
}

/**
 * The names another module's entry exports as values, found by esbuild bundling it alone (its
 * own crossings bundled too: the names are the same), once per build and entry. Null when they
 * cannot be known: the bundle fails, or re-exports all of a bare import (`export * from 'x'`),
 * whose names only the page sees; the import then stays external as written.
 */
function valueExportsOf(root: string, build: esbuild.PluginBuild) {
  const known = new Map<string, Promise<ValueExports | null>>();
  const find = async (file: string): Promise<ValueExports | null> => {
    const { plugins = [], external, loader, define, platform, tsconfig, tsconfigRaw, conditions, mainFields } = build.initialOptions;
    try {
      const result = await serviceCall(() =>
        build.esbuild.build({
          absWorkingDir: root,
          entryPoints: [file],
          outdir: root,
          bundle: true,
          write: false,
          metafile: true,
          format: 'esm',
          logLevel: 'silent',
          packages: 'external',
          ...(external ? { external } : {}),
          ...(loader ? { loader } : {}),
          ...(define ? { define } : {}),
          ...(platform ? { platform } : {}),
          ...(tsconfig ? { tsconfig } : {}),
          ...(tsconfigRaw ? { tsconfigRaw } : {}),
          ...(conditions ? { conditions } : {}),
          ...(mainFields ? { mainFields } : {}),
          // The build's own plugins that decide what a source is (confinement first of all), not
          // this one (the names would stop at the next boundary) nor one that watches the build.
          plugins: plugins.filter((plugin) => SOURCE_PLUGINS.has(plugin.name)),
        }),
      );
      const code = result.outputFiles.find((out) => out.path.endsWith('.js'))?.text;
      const names = code === undefined ? null : exportedNames(code);
      return names === null ? null : { names, graph: result.metafile.inputs };
    } catch {
      return null;
    }
  };
  return {
    of(file: string): Promise<ValueExports | null> {
      let names = known.get(file);
      if (!names) known.set(file, (names = find(file)));
      return names;
    },
    clear: () => known.clear(),
  };
}

// Which imports can reach an entry, decided in Go. Relative ones whose last segment is an
// entry's name (with or without an extension), the directory of an `index` entry, or a folder on
// the way to an entry inside its package (`folders`: its package.json may name the entry), and
// those ending in `.`, `..` or `/` (they name a directory, or its name as a file). So can an alias
// whose first character no package name has (`@/`, `~/`, `#`, `$`: a tsconfig `paths` entry or
// package.json `imports`) and whose last segment is such a name, and a tsconfig `baseUrl`
// spelling: a bare one that begins with one of those folders and ends in such a name, or is that
// folder (`'src/store'`, `'store'`). A package's name never does (its folder is not one of them),
// nor an entry's file name alone (`'lit-html'`, a package beside Lit's `lit-html.ts`, would wait
// for JavaScript at every rebuild: README "Bundling real code"). Each may end in a query or a fragment
// (`?v=2`), which esbuild reads as no part of the file's name. Every other import never reaches
// JavaScript: a rebuild of a module asks its plugins again for every import it resolves, and a
// callback waits for the main thread, which is answering the request that asked for the build.
export function entryImportFilter(stems: Iterable<string>, folders: Iterable<string> = []): RegExp {
  const plain = [...folders];
  const inside = [...new Set(plain.map(escapeRegExp))].sort();
  const name = entryNameSource(stems, plain);
  const suffix = '(?:[?#].*)?$';
  const relative = `\\.\\.?(?:$|/(?:.*/)?(?:${name}|\\.\\.?)?${suffix})`;
  const alias = `(?:@/|[^@A-Za-z0-9./_-])(?:.*/)?${name}/?${suffix}`;
  const baseUrl = inside.length === 0 ? null : `(?:${inside.join('|')})(?:/(?:.*/)?${name})?/?${suffix}`;
  return new RegExp(`^(?:${[relative, alias, ...(baseUrl === null ? [] : [baseUrl])].join('|')})`);
}

/**
 * The last segment of an import that may name an entry (with or without an extension), the
 * directory of an `index` entry, or one of `folders` (already escaped or plain names), as the
 * source of a regular expression.
 */
function entryNameSource(stems: Iterable<string>, folders: Iterable<string>): string {
  // An entry named `index` is reached by its directory's name too (`'../store'`), as esbuild resolves it.
  const named = [...stems].flatMap((file) => (path.basename(file) === 'index' ? [path.basename(file), path.basename(path.dirname(file))] : [path.basename(file)]));
  const names = [...new Set([...named, ...folders].map((name) => escapeRegExp(name)))].sort();
  return `(?:${names.join('|')})(?:\\.d)?(?:\\.[cm]?[jt]sx?)?`;
}

/**
 * The tsconfig `paths` patterns that read as a bare name (`"lib/*"`, `"registry"`, `"@acme/ui"`)
 * of the nearest tsconfig.json or jsconfig.json of each target's entry folder, and of each config
 * inside the target's package (`configs`, found by the walk for links: one nearer to a file of the
 * module than its entry's gives that file's imports its own `paths`, as esbuild reads them), each
 * with its `extends` chain inside the workspace, through an installed package too
 * (`"@acme/tsconfig/base.json"` in a `node_modules` of the workspace), as the sources of regular
 * expressions: an import matching one may reach another module's entry, as an alias beginning
 * with `@/` or `#` does, and only esbuild's resolution tells (README "Bundling real code"). A
 * catch-all pattern (`"*"`, `"*.js"`) would call into the service for every bare import of every
 * rebuild: it passes only an import whose last segment may name an entry (`entryName`, as a
 * `baseUrl` spelling's). Every other bare import still never reaches JavaScript. Configs are
 * read as regular files inside the workspace's real path only.
 */
function pathsAliasesOf(root: string, targets: readonly BundleTarget[], configs: readonly string[], entryName: string): string[] {
  const read = (relative: string): string | null => {
    const text = isInside(relative) ? configText(path.join(root, relative)) : null;
    return text !== null && isReallyInside(root, path.join(root, relative)) ? text : null;
  };
  const resolvePackage = (specifier: string, fromDir: string): string | null => installedConfig(specifier, fromDir, read);
  const patterns = new Set<string>();
  const places = new Set<string>();
  const seen = new Set<string>();
  for (const target of targets) {
    const dir = path.posix.dirname(target.entry);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const place = tsconfigPlaces(dir)
      .flatMap((tsconfig) => [tsconfig, tsconfig.replace(/tsconfig\.json$/, 'jsconfig.json')])
      .find((file) => read(file) !== null);
    if (place !== undefined) places.add(place);
    const within = target.package ? path.join(root, target.package.dir) + path.sep : null;
    for (const config of configs) if (within !== null && config.startsWith(within)) places.add(path.relative(root, config).split(path.sep).join('/'));
  }
  for (const place of places) {
    const paths = loadTsconfig(place, { read, resolvePackage }).compilerOptions.paths;
    if (isObject(paths)) for (const pattern of Object.keys(paths)) patterns.add(pattern);
  }
  return [...patterns]
    .filter((pattern) => !/^[./]/.test(pattern) && pattern.indexOf('*') === pattern.lastIndexOf('*'))
    .map((pattern) => {
      const [before, after = ''] = pattern.split('*').map(escapeRegExp);
      if (!pattern.includes('*')) return before!;
      return pattern.startsWith('*') ? `(?:.*/)?${entryName}/?${after}` : `${before}.*${after}`;
    })
    .sort();
}

/** The config an `extends` naming a package leads to: `node_modules/<specifier>` (`.json`, `/tsconfig.json`) from `fromDir` up to the workspace's root, as esbuild looks for it. */
function installedConfig(specifier: string, fromDir: string, read: (relative: string) => string | null): string | null {
  for (let dir = fromDir; ; dir = path.posix.dirname(dir)) {
    const base = path.posix.join(dir, 'node_modules', specifier);
    for (const file of [base, `${base}.json`, `${base}/tsconfig.json`]) if (read(file) !== null) return file;
    if (dir === '.' || dir === '/' || dir === '') return null;
  }
}

/** A config's text, read again only when it changed: a stylesheet's edit makes its module's context, and reads no config (ARCHITECTURE.md "One stylesheet edit"). */
const configText = unchangedReads((bytes) => bytes.toString('utf8'));

// Marks the resolution this plugin asks for itself, so that it does not answer it again.
const SKIP = Symbol('core-module-boundaries');
