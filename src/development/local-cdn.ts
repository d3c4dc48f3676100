// The service as its own CDN (README "The local CDN"), with `CORE_CDN_ORIGIN=local`:
//   /cdn/<package>@<version>[/<subpath>]
// A workspace package's address redirects to the production output of its module
// (`/m/...?env=production`, at the depth its relative asset addresses are written for); a
// package installed in node_modules answers the entry of that subpath compiled for browsers,
// built once per entry file and kept (within a bound) while every file its build read is
// unchanged. Both are loadable by any origin like every production output.
// An installed package's plain address is revalidated (`no-cache`, its ETag), not immutable though
// it names a version: a file patched in place changes its bytes. The import map names it by the
// hash of the bytes checked (`?v=`), immutable, so a reload fetches nothing unchanged and a patch
// is a new address (README "The local CDN").
// What it may read, and why nothing else, is SECURITY.md's "The local CDN".
import path from 'node:path';
import type { ExtensionHost } from '../extension.js';
import type { HttpContext } from '../http/context.js';
import { ServiceError } from '../http/errors.js';
import { sendOutput } from '../http/send-output.js';
import { bundleInstalled, OutsidePackageError, type InstalledExports } from '../bundlers/installed-bundle.js';
import { createCallsInFlight, type CallsInFlight } from '../bundlers/calls-in-flight.js';
import { isContentHash, outputHash } from '../outputs/content-hash.js';
import { commonJsExportNames, entryOf, exportedAs, findInstalled, findNestedInstalled, linkedWorkspacePackage, stillInstalled, type InstalledPackage } from '../io/installed-packages.js';
import { parseBareSpecifier, ROOT_SUBPATH } from '../workspace/specifiers.js';
import { productionVariant } from '../workspace/variant.js';
import { indexWorkspace, type WorkspaceIndex } from '../workspace/workspace-index.js';
import type { WorkspaceModel } from '../workspace/model.js';
import { parseCdnAddress, type CdnAddress } from './cdn-address.js';
import { leftOutProductionSheets } from './left-out-sheets.js';
import { unreadPackageAddress } from './preview.js';
import { createInstalledBundles, KEPT_BUNDLE_BYTES, UnsettledBundleError, type InstalledBundles, type KeptBundle } from './installed-bundles.js';
import { createFileHashes, type FileHashes } from '../io/file-hashes.js';
import { bufferView } from '../outputs/buffer-view.js';
import { hashInputs, inputsBefore, inputsHold } from '../io/build-inputs.js';
import { runLimited } from '../io/run-limited.js';
import { isSharedSubpath } from '../workspace/shared-files.js';
import { serveSharedFile } from '../http/routes/shared-files.js';
import { answerOutput } from '../http/output-answer.js';
import type { Address } from '../http/address.js';


export const LOCAL_CDN = 'local';
export const LOCAL_CDN_PREFIX = '/cdn';

export const localCdnAddress = (name: string, version: string, subpath: string): string =>
  `${LOCAL_CDN_PREFIX}/${name}@${version}${subpath && subpath !== ROOT_SUBPATH ? `/${subpath}` : ''}`;

/** An import map's scopes: by a prefix (or the exact address) of the modules they apply to, what those load by each bare specifier instead of the top level's entry. */
export type ImportScopes = Record<string, Record<string, string>>;

/** What completing an import map found: see `LocalCdn.complete`. */
export interface CompletedImports {
  /** Bare imports with no copy installed where the importing package would load it. */
  unresolved: string[];
  /** Own files an installed bundle loads by relative URL, with the bundle's address (without `?v=`). */
  unserved: { specifier: string; url: string; address: string }[];
  /** The imports whose bundle the local CDN refuses, with its answer's message. */
  refused: { specifier: string; message: string }[];
  /** A file of an installed package that no export names, joined into two of its bundles the page maps (`specifier` and `other`): the page runs it twice (README "The local CDN"). */
  twice: { specifier: string; other: string; packageName: string; file: string }[];
  /** Where an installed copy loads a name at another version than the top level maps: by its `/cdn/<package>@<version>/` prefix, and by its root's exact address (README "The local CDN"). */
  scopes: ImportScopes;
  /**
   * One version of a package installed twice (`dirs`: the copy the local CDN serves, then the
   * other), whose copies load `specifier` at two addresses (`addresses`, in that order): its one
   * address cannot have both, so the page gives the other copy's importers the first (README "The local CDN").
   */
  unscoped: { packageName: string; version: string; dirs: [string, string]; specifier: string; addresses: [string, string] }[];
  /** Each `@import` of an installed package's sheet that the page does not apply as written (not at the top of its sheet; of another package's sheet with a condition), once per place, with the first bundle the page maps that holds it. */
  ignored: { specifier: string; packageName: string; file: string; line: number; text: string; why: 'misplaced' | 'condition' }[];
  /** Every bare specifier an installed bundle the page maps imports: the bundled preview keeps a workspace module among them out of its join (README "The bundled preview"). */
  importedByBundles: string[];
}

export interface LocalCdn {
  /**
   * Adds to `imports` what the installed packages it maps import, transitively; returns the
   * scopes for the copies that load another version of a name than `imports` maps, the
   * specifiers it could not map, the relative URLs each installed bundle loads by
   * `new URL(..., import.meta.url)` (README "The local CDN": no file of the local CDN), and the
   * files of a package two of its bundles join, and the imports whose bundle it refuses.
   */
  complete(imports: Record<string, string>, scopes: ImportScopes): Promise<CompletedImports>;
  /** The bundles of installed packages kept in memory: how many, the bytes they are counted as, how many builds were made, and how many package directories have a reader (README "The local CDN"). */
  kept(): { count: number; bytes: number; builds: number; readers: number };
  /** The modules `imports` maps to this CDN (installed, or of a package left out of development) that have a sheet (a stylesheet module, or code importing one), each with its sheet's address, for the page to link. */
  stylesheets(imports: Record<string, string>, scopes?: ImportScopes): Promise<{ specifier: string; href: string; at?: string }[]>;
}

/** `keptBytes`: the bound of the kept bundles (`KEPT_BUNDLE_BYTES`), smaller in tests. */
export function registerLocalCdn(host: ExtensionHost, { keptBytes = KEPT_BUNDLE_BYTES }: { keptBytes?: number } = {}): LocalCdn {
  const readers = new Map<string, FileHashes>();
  // A directory's reader goes with its last bundle (SECURITY.md "Bounded memory"): readers are
  // never more than the directories of the kept bundles and of the builds running.
  const bundles = createInstalledBundles(keptBytes, (key) => {
    const dir = directoryOf(key);
    if (!bundles.has((other) => directoryOf(other) === dir)) readers.delete(dir);
  });
  // The builds of installed packages, cancelled and waited for when the service closes (calls-in-flight.ts).
  const calls = createCallsInFlight();
  host.atClose(() => calls.end());
  const cdn: CdnParts = { host, bundles, copies: installedCopies(host), readers, checked: new WeakMap(), calls };
  host.router.get(`${LOCAL_CDN_PREFIX}/*rest`, async function localCdn(ctx: HttpContext) {
    const { name, version, subpath } = parseCdnAddress(ctx.path.slice(LOCAL_CDN_PREFIX.length + 1));
    // A workspace package's answer checks the disk itself (answerOutput): one check, not two. A
    // name the state does not know, or may be a package whose package.json is unread, is looked
    // for again once the workspace is checked (a manifest fixed meanwhile frees the name).
    // One whose package.json is unread is the workspace's too, and while a package.json is unread
    // before its name, so is every name outside the model: the answer is that manifest's problem,
    // never a copy installed under the name (README "Workspaces", "The local CDN").
    const ownerOf = (workspace: WorkspaceModel) => indexWorkspace(workspace).packageTable.ofName(name).kind;
    const owner = ownerOf(host.getState().workspace) === 'model' ? 'model' : ownerOf((await host.readiness.workspace()).workspace);
    if (owner === 'model') return redirectToWorkspaceOutput(ctx, { name, version, subpath });
    if (owner !== 'outside') return serveWorkspaceModule(ctx, host, { version, subpath }, name);
    const copy = cdn.copies.find(name, version);
    if (!copy) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${name}@${version} is not installed in the workspace's node_modules${formerNameLink(host, name) ?? ' (a copy linked there from elsewhere is not served)'}`);
    serveInstalled(ctx, await answeredBundle(cdn, copy, subpath, ctx.query.v), `${name}@${version}${subpath ? `/${subpath}` : ''}`);
  });
  return {
    kept: () => ({ ...cdn.bundles.kept(), readers: readers.size }),
    stylesheets: (imports, scopes) => stylesheetsOf(cdn, imports, scopes),
    complete: (imports, scopes) => completeImports(cdn, imports, scopes),
  };
}

// An address naming its bytes by hash (`v=<hash>`, the ETag value, as the import map writes it) is
// answered from the kept bundle of that hash without a check, since no change on disk can make the
// bytes it names stale, and immutable; the plain address is judged and revalidated (README "The
// local CDN", by the rule of "Addresses").
async function answeredBundle(cdn: CdnParts, pkg: InstalledPackage, subpath: string, token: unknown): Promise<KeptBundle> {
  if (isContentHash(token)) {
    const entry = entryOf(pkg, subpath);
    const kept = entry === null ? undefined : cdn.bundles.peek(bundleKey(pkg.dir, pkg.manifestStamp, entry));
    if (kept && (outputHash(kept.code) === token || (kept.styles && outputHash(kept.styles) === token))) return kept;
  }
  return bundle(cdn, pkg, subpath);
}

function serveInstalled(ctx: HttpContext, built: KeptBundle, named: string): void {
  // A published stylesheet is an empty module at its address, which the import map names, and
  // its sheet at `?styles`, which the preview links (README "Stylesheet modules").
  const sheet = ctx.query.styles !== undefined;
  const json = !sheet && built.json !== undefined && asksForJson(ctx);
  const bytes = sheet ? built.styles : json ? built.json : built.code;
  if (!bytes) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${named} is code, not a stylesheet: it has no ?styles`);
  const hash = outputHash(bytes);
  const token = ctx.query.v;
  // One address, two answers: the import map names a JSON entry's module by its code's hash, whichever is asked.
  if (built.json) ctx.set('Vary', 'Sec-Fetch-Dest, Accept');
  if (isContentHash(token) && token !== (json ? outputHash(built.code) : hash)) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${ctx.path}?v=${token} names other bytes than ${named}${sheet ? '?styles' : ''} has now (a patch since), which are no longer kept: load the page again for the current address`);
  }
  sendOutput(ctx, bytesOf(bytes), { type: sheet ? 'text/css; charset=utf-8' : json ? 'application/json; charset=utf-8' : 'text/javascript; charset=utf-8', hash, anyOrigin: true, immutable: isContentHash(token) });
}

// A browser's JSON module script (`import data from 'pkg/data.json' with { type: 'json' }`) is a
// fetch of destination `json`, which refuses any type but JSON; a plain import of the same
// address is a script's, which refuses JSON (README "The local CDN"). The Accept header the
// browser sets for it tells it where no Sec-Fetch-Dest is sent (an origin that is no secure context).
const asksForJson = (ctx: HttpContext): boolean => ctx.get('sec-fetch-dest') === 'json' || /^application\/json\b/.test(ctx.get('accept'));

/** A kept bundle's bytes as a Buffer, without a copy per answer (its hash is taken once: `outputHash`). */
const bytesOf = bufferView;

interface InstalledCopies {
  /** The installed copy of that version, in the workspace's node_modules or one of its packages', or one met before. */
  find(name: string, version: string): InstalledPackage | null;
  remember(copy: InstalledPackage): void;
}

interface CdnParts {
  host: ExtensionHost;
  bundles: InstalledBundles;
  copies: InstalledCopies;
  /** By an installed package's real directory, the reader that hashes its files, confined to it. */
  readers: Map<string, FileHashes>;
  /** By import map, the sheet of each bundle `complete` checked for it, by specifier: the page links those, not checked again. */
  checked: WeakMap<Record<string, string>, Map<string, CheckedSheet>>;
  calls: CallsInFlight;
}

/**
 * A bundle's sheet: its hash (null: none), and what the page links before it: the packages its
 * code imports (their sheets join first in every bundler's order) and the other packages' sheets
 * it `@import`s (README "The local CDN").
 */
interface CheckedSheet {
  hash: string | null;
  before: string[];
}

const sheetOf = (built: KeptBundle): CheckedSheet => ({
  hash: built.styles ? outputHash(built.styles) : null,
  before: [...built.imports.filter((imported) => !built.sheetImports.includes(imported)), ...built.sheetImports],
});

/** A /cdn/ address without its query (`?v=`, `?styles`). */
const plainAddress = (address: string): string => {
  const query = address.indexOf('?');
  return query < 0 ? address : address.slice(0, query);
};

/**
 * Why a name is no install when node_modules holds npm's link of it to a workspace package renamed
 * since (README "Workspaces"): the page's overlay shows this answer, as `/preview/entry.json`'s
 * `PREVIEW_OUTSIDE_NOT_INSTALLED` says it. Null when no such link is found.
 */
function formerNameLink(host: ExtensionHost, name: string): string | null {
  const { packages } = host.getState().workspace;
  const workspace = { root: host.root, packageDirs: packages.map((pkg) => pkg.dir) };
  for (const dir of [host.root, ...workspace.packageDirs.map((packageDir) => path.join(host.root, packageDir))]) {
    // By the link's real path and the workspace model's name: nothing the link leads to is read.
    const linked = packages.find((pkg) => pkg.dir === linkedWorkspacePackage(name, dir, workspace));
    if (!linked || linked.name === name) continue;
    return `: node_modules/${name} is npm's link of that name to ${linked.dir}, whose package is ${linked.name} now (renamed), no install of ${name}; import it as ${linked.name}, or install ${name}`;
  }
  return null;
}

function installedCopies(host: ExtensionHost): InstalledCopies {
  // Installed copies met while completing import maps: a dependency nested in another
  // package's node_modules is served from there.
  const known = new Map<string, InstalledPackage>();
  return {
    find(name, version) {
      // A copy met before, while it is still the one installed there: an upgrade in place
      // (`npm install`) must answer neither the old version nor the old files.
      const seen = known.get(`${name}@${version}`);
      if (seen && stillInstalled(seen)) return seen;
      known.delete(`${name}@${version}`);
      const dirs = [host.root, ...host.getState().workspace.packages.map((pkg) => `${host.root}/${pkg.dir}`)];
      for (const dir of dirs) {
        const found = findInstalled(name, dir);
        if (found && found.version === version) {
          known.set(`${name}@${version}`, found);
          return found;
        }
      }
      // A version npm nested in another package's node_modules, or pnpm's store holds, asked for
      // before a preview met it (a page open across a restart): found as an install (README "The local CDN").
      const nested = findNestedInstalled(name, version, dirs);
      if (nested) known.set(`${name}@${version}`, nested);
      return nested;
    },
    // The first copy met of a version keeps its address while installed: the import map names its bytes.
    remember(copy) {
      const seen = known.get(`${copy.name}@${copy.version}`);
      if (!seen || !stillInstalled(seen)) known.set(`${copy.name}@${copy.version}`, copy);
    },
  };
}

/**
 * A workspace package's address: a redirect to
 * `/m/<package>@<version>/(modules|styles)/<subpath>?env=production`, which answers its bytes and
 * refusals by its one rule; `?styles` is the module's sheet, which the preview links (README
 * "Stylesheet modules"). Not the bytes themselves: their relative asset addresses
 * (`../assets/<subpath>/x.png`, one `../` per subpath segment) are written for the depth of `/m/`
 * and the browser resolves them, `import.meta.url` and a sheet's `url()`, from the address that
 * answered, which a redirect makes that one (README "The local CDN").
 */
function redirectToWorkspaceOutput(ctx: HttpContext, { name, version, subpath }: { name: string; version: string; subpath: string }): void {
  const kind = ctx.query.styles === undefined ? 'modules' : 'styles';
  const encoded = subpath === '' ? ROOT_SUBPATH : subpath.split('/').map(encodeURIComponent).join('/');
  const token = typeof ctx.query.v === 'string' ? `&v=${encodeURIComponent(ctx.query.v)}` : '';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.redirect(`/m/${name}@${version}/${kind}/${encoded}?env=production${token}`);
}

/**
 * The answer under a name a package.json not read may own (README "Workspaces"): the refusals of
 * `/m/<package>@<version>/(modules|styles)/<subpath>?env=production`, by its one rule, in place.
 */
async function serveWorkspaceModule(ctx: HttpContext, host: ExtensionHost, { version, subpath }: { version: string; subpath: string }, name: string): Promise<void> {
  const address: Address = { kind: ctx.query.styles === undefined ? 'modules' : 'styles', packageName: name, version, segments: subpath === '' ? [] : subpath.split('/') };
  // A shared file of the package, as its production modules import it (README "Shared files").
  if (address.kind === 'modules' && isSharedSubpath(subpath)) return serveSharedFile(ctx, address, productionVariant('browser'), host);
  const answer = await answerOutput(ctx, address, productionVariant('browser'), ctx.query.v, host);
  sendOutput(ctx, answer.body, answer);
}

// Keyed by the package's directory, the copy installed there and the entry's real path: every
// spelling of an address, and every subpath that leads to the same file, share one bundle, and
// another copy installed in the same directory is built from its own files. A kept bundle
// answers while every input of its build hashes as recorded, by the rule of a module's inputs
// (README "Addresses"): a stat per input when unchanged, a read only of what the stat cannot vouch for.
function bundle(cdn: CdnParts, pkg: InstalledPackage, subpath: string): Promise<KeptBundle> {
  const entry = entryOf(pkg, subpath);
  if (entry === null) return Promise.reject(new ServiceError('OUTPUT_NOT_AVAILABLE', `${pkg.name}@${pkg.version} exports no "${subpath === '' ? '.' : `./${subpath}`}"`));
  const files = readerOf(cdn, pkg.dir);
  const named = `${pkg.name}@${pkg.version}${subpath ? `/${subpath}` : ''}`;
  const build = (previous: KeptBundle | undefined) =>
    buildRecorded(cdn.calls, files, pkg, entry, previous).catch((error: unknown) => {
      if (error instanceof OutsidePackageError) throw new ServiceError('CDN_FILE_OUTSIDE_PACKAGE', `${named} is not served: its entry or a file it imports lies outside the package`);
      throw new ServiceError('BUILD_FAILED', `${named} cannot be built for browsers: ${(error as Error).message}`);
    });
  return cdn.bundles.get(bundleKey(pkg.dir, pkg.manifestStamp, entry), build, (kept) => inputsHold(files, kept.recorded)).catch((error: unknown) => {
    if (error instanceof UnsettledBundleError) throw new ServiceError('CDN_PACKAGE_CHANGING', `${named} is not served yet: ${error.message} (an install or a patch still running)`);
    throw error;
  });
}

const bundleKey = (dir: string, manifestStamp: string, entry: string): string => `${dir}\0${manifestStamp}\0${entry}`;
const directoryOf = (key: string): string => key.slice(0, key.indexOf('\0'));

// The inputs of the bundle it replaces hashed before the build reads them, those first met hashed
// after it, one written meanwhile marked unverified (`hashInputs`): a change during the build is
// never recorded as what the build read, and the next request builds again.
async function buildRecorded(calls: CallsInFlight, files: FileHashes, pkg: InstalledPackage, entry: string, previous: KeptBundle | undefined): Promise<KeptBundle> {
  const before = inputsBefore(files, previous ? [previous.recorded] : []);
  const startedAt = Date.now();
  const built = await calls.run(`the local CDN's build of ${entry}`, undefined, (signal) => bundleInstalled(entry, pkg.dir, installedExports(pkg), signal));
  return { ...built, recorded: hashInputs(files, built.inputs, before, startedAt) };
}

// An import of the entry of another export of the package is that export's bare specifier, by
// the name the page's import map knows the copy by (README "The local CDN"): each file then runs
// once on the page, whichever exports import it.
const installedExports = (pkg: InstalledPackage): InstalledExports => ({
  name: pkg.name,
  entryOf: (subpath) => entryOf(pkg, subpath),
  commonJsNames: (file) => commonJsExportNames(file, pkg.dir),
  exportOf(file) {
    const subpath = exportedAs(pkg, file);
    return subpath === null ? null : subpath === '' ? pkg.name : `${pkg.name}/${subpath}`;
  },
});

// One reader per installed package, rooted at its real directory: a path leading out of it
// (`../`, a link) is never read. It keeps the stats and hashes of the package's files, not their bytes.
function readerOf({ readers }: CdnParts, dir: string): FileHashes {
  let reader = readers.get(dir);
  if (!reader) readers.set(dir, (reader = createFileHashes(dir, Date.now, { keptContents: 0 })));
  return reader;
}

// The installed copy and subpath a local CDN address of the import map stands for.
function installedAt(copies: InstalledCopies, specifier: string, address: string, workspace: WorkspaceIndex): { pkg: InstalledPackage; subpath: string } | null {
  if (!address.startsWith(`${LOCAL_CDN_PREFIX}/`)) return null;
  address = plainAddress(address);
  const bare = parseBareSpecifier(specifier);
  // Only a package outside the workspace has an installed copy to serve; one a package.json not
  // read may own has none while it is unread (README "The local CDN").
  if (!bare || workspace.packageTable.ofName(bare.packageName).kind !== 'outside') return null;
  // Read by the one parse of a /cdn/ address; one of another package, or none, names no copy of it.
  let named: CdnAddress;
  try {
    named = parseCdnAddress(address.slice(LOCAL_CDN_PREFIX.length + 1));
  } catch {
    return null;
  }
  const copy = named.name === bare.packageName ? copies.find(bare.packageName, named.version) : null;
  return copy ? { pkg: copy, subpath: bare.subpath } : null;
}

async function stylesheetsOf(cdn: CdnParts, imports: Record<string, string>, scopes: ImportScopes = {}): Promise<{ specifier: string; href: string; at?: string }[]> {
  const found = new Map<string, { href: string | null; before: string[] }>();
  const workspace = indexWorkspace(cdn.host.getState().workspace);
  const scriptSheets = await leftOutProductionSheets(cdn.host, imports, workspace, LOCAL_CDN_PREFIX);
  for (const [specifier, address] of Object.entries(imports)) {
    // A workspace package left out of development: its stylesheet modules' production sheets,
    // and those its script modules import (left-out-sheets.ts).
    const own = address.startsWith(`${LOCAL_CDN_PREFIX}/`) ? workspace.modules.get(specifier) : undefined;
    if (own) {
      if (own.entry?.endsWith('.css') || scriptSheets.has(specifier)) found.set(specifier, { href: `${address}?styles`, before: [] });
      continue;
    }
    const copy = installedAt(cdn.copies, specifier, address, workspace);
    if (!copy) continue;
    let sheet = cdn.checked.get(imports)?.get(specifier);
    if (sheet === undefined) sheet = await bundle(cdn, copy.pkg, copy.subpath).then(sheetOf, () => ({ hash: null, before: [] }));
    found.set(specifier, { href: sheet.hash ? `${plainAddress(address)}?styles&v=${sheet.hash}` : null, before: sheet.before });
  }
  await addScopedSheets(cdn, imports, scopes, workspace, found);
  return inCssOrder(found);
}

/**
 * The sheets of the versions the import map's scopes load (npm nested them in their importer's
 * node_modules, README "The local CDN"): the page runs that version's code, so it links its sheet
 * too, before the sheet of the installed package whose scope loads it, as it is imported first.
 * The copy is the one the scope's completion found from its importer's real directory.
 */
async function addScopedSheets(cdn: CdnParts, imports: Record<string, string>, scopes: ImportScopes, workspace: WorkspaceIndex, found: Map<string, { href: string | null; before: string[] }>): Promise<void> {
  const linked = new Set([...found.values()].map((sheet) => sheet.href));
  for (const [scope, map] of Object.entries(scopes)) {
    for (const [specifier, address] of Object.entries(map)) {
      const copy = installedAt(cdn.copies, specifier, address, workspace);
      if (!copy) continue;
      const sheet = await bundle(cdn, copy.pkg, copy.subpath).then(sheetOf, () => ({ hash: null, before: [] }));
      const href = sheet.hash ? `${plainAddress(address)}?styles&v=${sheet.hash}` : null;
      if (href === null || linked.has(href)) continue;
      linked.add(href);
      // Keyed apart from the top level's version of the same name; linked under that name.
      const key = `${scope}\0${specifier}`;
      found.set(key, { href, before: sheet.before });
      for (const [importer, importerAddress] of Object.entries(imports)) {
        const importerSheet = found.get(importer);
        if (importerSheet && (importerAddress.startsWith(scope) || importerAddress === scope)) importerSheet.before = [...importerSheet.before, key];
      }
    }
  }
}

// The sheets in the import map's order, but each sheet of a package another one imports (its
// code, or its sheet's `@import`) linked before the first that does, as every bundler puts the
// imported sheet's rules before the importer's and CSS an imported sheet's (README "The local
// CDN"); a sheet linked once, and one so placed takes the place of the entry that led to it (`at`).
function inCssOrder(found: Map<string, { href: string | null; before: string[] }>): { specifier: string; href: string; at?: string }[] {
  const sheets: { specifier: string; href: string; at?: string }[] = [];
  const placed = new Set<string>();
  const place = (specifier: string, at: string): void => {
    const sheet = found.get(specifier);
    if (!sheet || placed.has(specifier)) return;
    placed.add(specifier);
    for (const imported of sheet.before) place(imported, at);
    if (sheet.href) sheets.push({ specifier: specifier.slice(specifier.indexOf('\0') + 1), href: sheet.href, ...(at === specifier ? {} : { at }) });
  };
  for (const specifier of found.keys()) place(specifier, specifier);
  return sheets;
}

// `new URL('./worker.js', import.meta.url)` as esbuild prints it, minified or not: a file of the
// package named relative to the module, which the local CDN's one joined module no longer is.
const OWN_FILE_URL = /\bnew URL\(\s*(["'`])(\.\.?\/[^"'`\\]*)\1\s*,\s*import\.meta\.url\s*\)/g;
const ownFileUrls = new WeakMap<KeptBundle, string[]>();

/** The relative URLs a bundle's code loads by `new URL(..., import.meta.url)`, read once per bundle kept. */
function ownFileUrlsOf(built: KeptBundle): string[] {
  let urls = ownFileUrls.get(built);
  if (!urls) {
    const code = Buffer.from(built.code.buffer, built.code.byteOffset, built.code.byteLength).toString('utf8');
    urls = code.includes('import.meta.url') ? [...new Set([...code.matchAll(OWN_FILE_URL)].map((match) => match[2]!))] : [];
    ownFileUrls.set(built, urls);
  }
  return urls;
}

/** The bundles a page's import map waits for, asked at once: esbuild builds on every core, and a kept one's check mostly waits for the disk. */
const BUNDLES_AT_ONCE = 8;

/** An entry of the import map to complete: at its top level (`scope` null) or in the scope of an installed copy's addresses. */
interface MapEntry {
  specifier: string;
  address: string;
  scope: string | null;
  /** A second copy of the address's package at that version, installed elsewhere: bundled only to compare what it loads, never mapped (the address serves the first). */
  unmapped?: InstalledPackage;
}

/** The scope of an installed copy's addresses in an import map: every subpath's address starts with it (the root's is added when known, `addRootScopes`). */
export const cdnScopeOf = (pkg: { name: string; version: string }): string => `${localCdnAddress(pkg.name, pkg.version, '')}/`;

async function completeImports(cdn: CdnParts, imports: Record<string, string>, given: ImportScopes): Promise<CompletedImports> {
  // The scopes given (a workspace package's own versions, README "The local CDN") are the
  // preview's, which may be kept with its state: completed in a copy.
  const scopes: ImportScopes = Object.fromEntries(Object.entries(given).map(([scope, map]) => [scope, { ...map }]));
  const found: CompletedImports = { unresolved: [], unserved: [], refused: [], twice: [], scopes, unscoped: [], ignored: [], importedByBundles: [] };
  const walk: CompletionWalk = { cdn, imports, found, joined: joinedTwice(found.twice), checked: new Map(), workspace: indexWorkspace(cdn.host.getState().workspace), queue: [], compared: new Set(), ignoredPlaces: new Set(), importedByBundles: new Set() };
  cdn.checked.set(imports, walk.checked);
  const onCdn = ([, address]: [string, string]) => address.startsWith(`${LOCAL_CDN_PREFIX}/`);
  walk.queue.push(...Object.entries(imports).filter(onCdn).map(([specifier, address]) => ({ specifier, address, scope: null })));
  for (const [scope, map] of Object.entries(scopes)) walk.queue.push(...Object.entries(map).filter(onCdn).map(([specifier, address]) => ({ specifier, address, scope })));
  while (walk.queue.length > 0) {
    // The imports found so far are asked together, then taken in their order: a package whose
    // exports import one another (rxjs: 226 modules) waited for each bundle in turn.
    const wave = walk.queue.splice(0).map((entry) => ({ entry, copy: entry.unmapped ? { pkg: entry.unmapped, subpath: parseBareSpecifier(entry.specifier)!.subpath } : installedAt(cdn.copies, entry.specifier, entry.address, walk.workspace) }));
    const bundles: (KeptBundle | { error: unknown } | null)[] = wave.map(() => null);
    await runLimited(wave.map((item, index) => ({ ...item, index })), BUNDLES_AT_ONCE, async ({ copy, index }) => {
      if (copy) bundles[index] = await bundle(cdn, copy.pkg, copy.subpath).catch((error: unknown) => ({ error }));
    });
    wave.forEach(({ entry, copy }, index) => {
      const built = bundles[index];
      if (!copy || !built) return;
      if ('error' in built) {
        // Said on the preview's entry too, not only by the page that meets it (README "The local
        // CDN"); a package still being written (503) or the service closing is no refusal.
        if (!entry.unmapped && built.error instanceof ServiceError && built.error.code !== 'CDN_PACKAGE_CHANGING') found.refused.push({ specifier: entry.specifier, message: built.error.message });
        return;
      }
      if (entry.unmapped) compareCopy(walk, entry.unmapped, built);
      else takeBundle(walk, entry, copy, built);
    });
  }
  addRootScopes(found.scopes, imports);
  found.importedByBundles = [...walk.importedByBundles];
  return found;
}

interface CompletionWalk {
  cdn: CdnParts;
  imports: Record<string, string>;
  found: CompletedImports;
  joined: ReturnType<typeof joinedTwice>;
  checked: Map<string, CheckedSheet>;
  workspace: WorkspaceIndex;
  queue: MapEntry[];
  /** The second copies queued to compare, by directory and specifier, and the names told unscoped, by scope. */
  compared: Set<string>;
  /** The places of the `@import`s told in `found.ignored`: each once. */
  ignoredPlaces: Set<string>;
  importedByBundles: Set<string>;
}

/** What a map entry names now: the scope's entry for it, else the top level's. */
const mappedFor = (walk: CompletionWalk, scope: string, specifier: string): string | undefined => walk.found.scopes[scope]?.[specifier] ?? walk.imports[specifier];

function takeBundle(walk: CompletionWalk, entry: MapEntry, copy: { pkg: InstalledPackage; subpath: string }, built: KeptBundle): void {
  const { specifier, address } = entry;
  // Named by the hash of the bytes just checked: a patch gives the package a new address, so no
  // browser keeps its old bytes, and a reload fetches nothing unchanged (README "The local CDN").
  const named = `${plainAddress(address)}?v=${outputHash(built.code)}`;
  if (entry.scope === null) {
    walk.imports[specifier] = named;
    walk.checked.set(specifier, sheetOf(built));
  } else walk.found.scopes[entry.scope]![specifier] = named;
  for (const url of ownFileUrlsOf(built)) walk.found.unserved.push({ specifier, url, address: plainAddress(address) });
  walk.joined.add(copy.pkg, specifier, built);
  for (const { file, line, text, why } of built.ignoredImports) {
    const place = `${copy.pkg.dir}\0${copy.pkg.manifestStamp}\0${file}\0${line}`;
    if (walk.ignoredPlaces.has(place)) continue;
    walk.ignoredPlaces.add(place);
    walk.found.ignored.push({ specifier, packageName: copy.pkg.name, file, line, text, why });
  }
  const scope = cdnScopeOf(copy.pkg);
  for (const imported of built.imports) {
    walk.importedByBundles.add(imported);
    const resolved = resolveBundleImport(walk.workspace, imported, copy.pkg.dir);
    if (resolved === undefined) continue;
    const current = mappedFor(walk, scope, imported);
    if (resolved === null) {
      if (current === undefined) walk.found.unresolved.push(imported);
      continue;
    }
    // A workspace package's name (or one a package.json not read may own) is one address for every importer.
    if (current !== undefined && !resolved.copy) continue;
    if (current !== undefined && plainAddress(current) === resolved.address) {
      compareSecondCopy(walk, imported, resolved.copy!, current);
      continue;
    }
    if (resolved.copy) walk.cdn.copies.remember(resolved.copy);
    // Where this copy loads another version than the page's top level maps (npm nests a
    // conflicting version in the importer's node_modules): a scope of its addresses maps it (README "The local CDN").
    const inScope = current === undefined ? null : scope;
    if (inScope === null) walk.imports[imported] = resolved.address;
    else (walk.found.scopes[inScope] ??= {})[imported] = resolved.address;
    walk.queue.push({ specifier: imported, address: resolved.address, scope: inScope });
  }
}

/**
 * A bare import of an installed copy's bundle (a package's own name, or a subpath of one),
 * resolved as Node resolves it from the copy's real directory: its address and the copy found;
 * null when no copy is installed there; undefined for what is no bare import of a package.
 */
function resolveBundleImport(workspace: WorkspaceIndex, imported: string, fromDir: string): { address: string; copy?: InstalledPackage } | null | undefined {
  const target = parseBareSpecifier(imported);
  if (!target) return undefined;
  const packageOwner = workspace.packageTable.ofName(target.packageName);
  // A name a package.json not read may own is the workspace's, as a workspace module's import
  // of it is: the service's own address, which answers that manifest's problem, never the
  // copy installed under the name (README "The local CDN").
  if (packageOwner.kind === 'unread') return { address: unreadPackageAddress(packageOwner, target) };
  if (packageOwner.kind === 'model') return { address: localCdnAddress(target.packageName, packageOwner.package.version, target.subpath) };
  const copy = findInstalled(target.packageName, fromDir);
  return copy ? { address: localCdnAddress(target.packageName, copy.version, target.subpath), copy } : null;
}

/**
 * An import resolved to an address already mapped, by a copy of its package installed elsewhere
 * than the one that address serves (one version installed twice): that copy's imports may load
 * other versions, which no scope can tell apart from the served one's, so it is bundled to
 * compare (README "The local CDN").
 */
function compareSecondCopy(walk: CompletionWalk, specifier: string, copy: InstalledPackage, current: string): void {
  const served = walk.cdn.copies.find(copy.name, copy.version);
  const key = `${copy.dir}\0${specifier}`;
  if (!served || served.dir === copy.dir || walk.compared.has(key)) return;
  walk.compared.add(key);
  walk.queue.push({ specifier, address: plainAddress(current), scope: null, unmapped: copy });
}

/** A second copy's imports that load another version than the served copy's map gives it: a warning each, naming both (`PREVIEW_CDN_SCOPE_AMBIGUOUS`). */
function compareCopy(walk: CompletionWalk, copy: InstalledPackage, built: KeptBundle): void {
  const scope = cdnScopeOf(copy);
  const served = walk.cdn.copies.find(copy.name, copy.version);
  for (const imported of built.imports) {
    const resolved = resolveBundleImport(walk.workspace, imported, copy.dir);
    const current = mappedFor(walk, scope, imported);
    const key = `${scope}\0${imported}`;
    if (!resolved || current === undefined || plainAddress(current) === resolved.address || walk.compared.has(key)) continue;
    walk.compared.add(key);
    walk.found.unscoped.push({ packageName: copy.name, version: copy.version, dirs: [served?.dir ?? '', copy.dir], specifier: imported, addresses: [plainAddress(current), resolved.address] });
  }
}

/**
 * The root export's address (`/cdn/<package>@<version>?v=<hash>`) does not start with its
 * scope's prefix (`/cdn/<package>@<version>/`), and a scope matches either by that prefix or as
 * the exact address: each address mapped for a scoped package's root gets the same scope.
 */
function addRootScopes(scopes: ImportScopes, imports: Record<string, string>): void {
  const addresses = [...Object.values(imports), ...Object.values(scopes).flatMap((scope) => Object.values(scope))];
  for (const prefix of Object.keys(scopes)) {
    const root = prefix.slice(0, -1);
    for (const address of new Set(addresses)) if (plainAddress(address) === root) scopes[address] = scopes[prefix]!;
  }
}

// Which bundle of the page joined each file of each installed copy first: a second bundle joining
// it is told once per file, with the first (README "The local CDN"). An export's entry is never
// joined by another export's bundle of the same copy (other-exports.ts), but a file no export
// names is joined by each that imports it.
function joinedTwice(twice: CompletedImports['twice']): { add(pkg: InstalledPackage, specifier: string, built: KeptBundle): void; twice: CompletedImports['twice'] } {
  // null once told: a third bundle joining it adds nothing to say.
  const firstJoiner = new Map<string, string | null>();
  return {
    twice,
    add(pkg, specifier, built) {
      for (const file of built.joined) {
        const key = `${pkg.dir}\0${pkg.manifestStamp}\0${file}`;
        const other = firstJoiner.get(key);
        if (other === undefined) firstJoiner.set(key, specifier);
        else if (other !== null && other !== specifier) {
          twice.push({ specifier, other, packageName: pkg.name, file });
          firstJoiner.set(key, null);
        }
      }
    },
  };
}
