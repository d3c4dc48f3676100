// The page `core dist` writes (README "Distribution: core dist"): the production page of the
// preview entry, so the output directory served by any static server shows the app. Like
// the preview, it links the stylesheet of every module of the entry's package and of every
// module they reach by bare import, in the preview's order (the cascade a developer checked on
// `/preview/`: what a module imports before it); where the bundled preview links a CDN's sheets
// after its joined one, this page keeps each where it is reached (README "Distribution: core dist"). It preloads their code, and imports the entry;
// every address is relative, so the page works at the root of the output directory. Pure.
import { escapeHtml, htmlPage, importMapScript } from '../html-page.js';
import { choosePreviewEntry } from '../workspace/preview-entry.js';
import type { UnreadPackage, WorkspaceModel } from '../workspace/model.js';
import { isBuiltin, parseBareSpecifier } from '../workspace/specifiers.js';
import { unreadPackageReason } from '../workspace/unread-packages.js';
import { importsAroundSheet } from '../workspace/checks.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import type { WrittenModule } from './judge-module.js';
import { codePath, importMapAddress, stylesPath } from './output-paths.js';
import type { UnservedAddresses } from './served-addresses.js';

export const DISTRIBUTION_PAGE = 'index.html';

/** `unresolved`: the page was not written for these bare imports alone, which its import map cannot resolve. */
/** `unserved`: not written for these addresses of its sheets from the origin's root alone, which name no output written (README "Distribution: core dist"). */
export type DistributionPage = { ok: true; entry: string; html: string } | { ok: false; reason: string; unresolved?: string[]; unserved?: string[] };

/**
 * The CDN origin the page maps packages from outside the workspace to (`core dist --cdn`,
 * `CORE_CDN_ORIGIN`; README "Distribution: core dist"), with the exact version each is fetched
 * at for the package importing it; null when none that a static server's page can reach is named.
 */
export interface PageCdn {
  origin: string;
  versionOf(importerPackage: string, packageName: string): string | null;
}

export function distributionPage(workspace: WorkspaceModel, written: readonly WrittenModule[], importMap: { imports: Record<string, string> }, cdn: PageCdn | null = null, unserved: UnservedAddresses = new Map()): DistributionPage {
  const chosen = choosePreviewEntry(workspace);
  if ('reason' in chosen) return { ok: false, reason: chosen.message };
  const browser = new Map(written.filter((outcome) => outcome.target === 'browser').map((outcome) => [outcome.module.specifier, outcome]));
  if (!browser.has(chosen.specifier)) return { ok: false, reason: `the preview entry ${chosen.specifier} was not written` };
  // The package's modules in the workspace's order, as `/preview/` lists them (src/development/preview.ts).
  const packageModules = workspace.modules.filter((module) => module.package === chosen.package && browser.has(module.specifier)).map((module) => module.specifier);
  const reached = previewOrder(chosen.specifier, packageModules, browser);
  const unwritten = unwrittenImports(chosen.specifier, browser, new Set(workspace.modules.map((module) => module.specifier)));
  // A valid entry that imports a module of the workspace not written (invalid) fails to load:
  // no page that cannot run (README "Distribution: core dist").
  if (unwritten.length > 0) return { ok: false, reason: `the preview entry ${chosen.specifier} imports ${unwritten.join(', ')}, which ${unwritten.length === 1 ? 'was' : 'were'} not written` };
  // Nor one that would load a package whose package.json is broken from a CDN (README "Workspaces").
  const unread = unreadImportOf(workspace, chosen.specifier, browser);
  if (unread) return { ok: false, reason: `the preview entry ${chosen.specifier} imports ${unread.specifier}, which is not written: ${unreadPackageReason(unread.pkg, unread.packageName)}` };

  // Mapped as the preview maps them: every package outside the workspace a linked module imports.
  const { imports: cdnImports, scopes } = cdn ? mapToCdn(workspace, reached, cdn, chosen.package) : { imports: {}, scopes: {} };
  const unresolved = outsideImportsOf(workspace, chosen.specifier, browser).filter((specifier) => !(specifier in cdnImports));
  if (unresolved.length > 0) return { ok: false, reason: unresolvedReason(chosen.specifier, unresolved, cdn), unresolved };
  // Nor one whose sheets ask for an address its layout has not (README "Distribution: core dist").
  const unservedSheets = reached.filter((outcome) => unserved.has(outcome.module.specifier));
  if (unservedSheets.length > 0) return unservedPage(chosen.specifier, unservedSheets, unserved);

  const head = [
    ...reached.filter((outcome) => outcome.files.some((file) => file.kind === 'styles')).map((outcome) => `    <link rel="stylesheet" href="${escapeHtml(importMapAddress(stylesPath(outcome.module)))}">`),
    ...reached.map((outcome) => `    <link rel="modulepreload" href="${escapeHtml(importMapAddress(codePath(outcome.module)))}">`),
  ];
  const html = htmlPage(chosen.specifier, [
    importMapScript({ imports: { ...importMap.imports, ...cdnImports }, ...(Object.keys(scopes).length > 0 ? { scopes } : {}) }),
    ...head,
    `    <script type="module" src="${escapeHtml(importMapAddress(codePath(chosen)))}"></script>`,
  ]);
  return { ok: true, entry: chosen.specifier, html };
}

/**
 * The written modules in the order `/preview/` links its development modules' sheets (README
 * "Preview and stylesheet push"): from the entry, depth first through each module's bare imports
 * in the order its build lists them, a module after everything it imports (but what its code
 * writes only after its last import of its own sheet: after it), each where first
 * reached; then, the same way, the entry package's other modules, which the entry never imports.
 * The order of the page's links: stylesheet order is the cascade, the order every bundler joins
 * sheets in, so an app's own sheet overrides the library it imports. A package left out of
 * development is kept where it is reached (README "Distribution: core dist").
 */
function previewOrder(entry: string, roots: readonly string[], written: ReadonlyMap<string, WrittenModule>): WrittenModule[] {
  const order: WrittenModule[] = [];
  const seen = new Set<string>();
  const reach = (specifier: string): void => {
    const outcome = written.get(specifier);
    if (!outcome || seen.has(specifier)) return;
    seen.add(specifier);
    const { before, after } = importsAroundSheet(outcome.imports);
    for (const imported of before) reach(imported.specifier);
    order.push(outcome);
    for (const imported of after) reach(imported.specifier);
  };
  for (const specifier of [entry, ...roots]) reach(specifier);
  return order;
}

/** The first import, by the entry or a written module it reaches, of a package whose package.json could not be read; null when none. */
function unreadImportOf(workspace: WorkspaceModel, entry: string, written: ReadonlyMap<string, WrittenModule>): { specifier: string; packageName: string; pkg: UnreadPackage } | null {
  const { packageTable } = indexWorkspace(workspace);
  if (!packageTable.someUnread) return null;
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const importer = written.get(queue.shift()!);
    for (const { specifier } of importer?.imports ?? []) {
      if (seen.has(specifier)) continue;
      seen.add(specifier);
      if (written.has(specifier)) queue.push(specifier);
      const packageOwner = packageTable.ofImport(importer!.module.package, specifier);
      if (packageOwner?.kind === 'unread') return { specifier, packageName: parseBareSpecifier(specifier)!.packageName, pkg: packageOwner.package };
    }
  }
  return null;
}

/** The modules of the workspace the entry imports, itself or through written modules, that were not written. */
function unwrittenImports(entry: string, written: ReadonlyMap<string, WrittenModule>, workspaceModules: ReadonlySet<string>): string[] {
  const unwritten = new Set<string>();
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const { specifier } of written.get(queue.pop()!)?.imports ?? []) {
      if (seen.has(specifier)) continue;
      seen.add(specifier);
      if (written.has(specifier)) queue.push(specifier);
      else if (workspaceModules.has(specifier)) unwritten.add(specifier);
    }
  }
  return [...unwritten].sort();
}

/**
 * The bare imports of packages outside the workspace that the entry's code imports, itself or
 * through written modules (statically or not): each fails the page unless its import map maps
 * it. Built-ins need no map; a module only preloaded is never run.
 */
function outsideImportsOf(workspace: WorkspaceModel, entry: string, written: ReadonlyMap<string, WrittenModule>): string[] {
  const { packageTable } = indexWorkspace(workspace);
  const outside = new Set<string>();
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const importer = written.get(queue.pop()!)!;
    for (const { specifier } of importer.imports) {
      if (written.has(specifier) && !seen.has(specifier)) queue.push(specifier);
      seen.add(specifier);
      if (parseBareSpecifier(specifier) && !isBuiltin(specifier) && packageTable.ofImport(importer.module.package, specifier)?.kind === 'outside') outside.add(specifier);
    }
  }
  return [...outside].sort();
}

/**
 * `${origin}/<package>@<version>[/<subpath>]` for each outside import of the linked modules that
 * has a version, the entry package's at the top level (else the first importer's, in the
 * cascade's order); a package loading another version of it (its own exact dependency, or its
 * own installed copy) has it in the scope of its directory, `./<package>@<version>/`, as
 * `/preview/` scopes it (README "Distribution: core dist").
 */
function mapToCdn(workspace: WorkspaceModel, linked: readonly WrittenModule[], cdn: PageCdn, entryPackage: string): { imports: Record<string, string>; scopes: Record<string, Record<string, string>> } {
  const { packageTable } = indexWorkspace(workspace);
  const mapped: Record<string, string> = {};
  const scopes: Record<string, Record<string, string>> = {};
  const entryFirst = [...linked.filter(({ module }) => module.package === entryPackage), ...linked.filter(({ module }) => module.package !== entryPackage)];
  for (const { module, imports } of entryFirst) {
    for (const { specifier } of imports) {
      const bare = parseBareSpecifier(specifier);
      if (!bare || isBuiltin(specifier) || packageTable.ofImport(module.package, specifier)?.kind !== 'outside') continue;
      const version = cdn.versionOf(module.package, bare.packageName);
      if (version === null) continue;
      const address = `${cdn.origin}/${bare.packageName}@${version}${bare.subpath ? `/${bare.subpath}` : ''}`;
      if (!(specifier in mapped)) mapped[specifier] = address;
      else if (mapped[specifier] !== address) (scopes[importMapAddress(`${module.package}@${module.version}/`)] ??= {})[specifier] = address;
    }
  }
  return { imports: mapped, scopes };
}

// What the command says of a page it does not write for imports no address maps (README
// "Distribution: core dist"): the fix is the CDN origin, or the version the CDN needs.
function unresolvedReason(entry: string, unresolved: readonly string[], cdn: PageCdn | null): string {
  const named = unresolved.map((specifier) => `"${specifier}"`).join(', ');
  const which = `the preview entry ${entry} imports ${named}, from outside the workspace, which the page's import map cannot resolve`;
  if (cdn) return `${which}: no exact version to fetch ${unresolved.length === 1 ? 'it' : 'them'} at from ${cdn.origin} (declare the exact version in dependencies, or install the package)`;
  return `${which} (a static file server has no CDN): name a CDN origin with --cdn ORIGIN or CORE_CDN_ORIGIN (https://esm.sh, for instance), and the page maps each to it at its installed version`;
}

// What the command says of a page whose linked sheets name addresses from the origin's root that
// no output of `core dist` has: the page would miss those rules or images (README "Distribution: core dist").
function unservedPage(entry: string, sheets: readonly WrittenModule[], unserved: UnservedAddresses): DistributionPage {
  const addresses = [...new Set(sheets.flatMap((outcome) => unserved.get(outcome.module.specifier)!))];
  const named = sheets.map((outcome) => `${outcome.module.specifier} names ${unserved.get(outcome.module.specifier)!.join(', ')}`).join('; ');
  const reason = `the page of ${entry} links sheets that name addresses from the origin's root which no file written here has (${named}): a static file server answers them 404. Name the file by its path from the sheet, or import the other module's stylesheet from the code (the page then links it)`;
  return { ok: false, reason, unserved: addresses };
}
