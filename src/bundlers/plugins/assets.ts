// Declared assets become addresses (README "Addresses"): an import yields
// `new URL('../assets/<subpath>/<file>', import.meta.url)`, a `url()` in a stylesheet is
// rewritten to the same relative address, climbing one `../` per segment of the subpath,
// so it resolves to `/m/<package>@<version>/assets/<subpath>/<file>` from the code and
// styles addresses alike (and from the files `core dist` writes).
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { CODE_IMPORT_KINDS } from '../import-kinds.js';
import type { BundleTarget } from '../types.js';
import { bufferView } from '../../outputs/buffer-view.js';
import { assetOwner, SHARED_SEGMENT, type ModuleDeclaration } from '../../workspace/shared-files.js';
import { WORKSPACE_MANIFEST } from '../../workspace/read-workspace.js';
import { decodedSegmentNamesNothing, fileNameAddress } from '../../workspace/paths.js';

// Files that are assets by nature: importing one that is not declared is an error that says so.
const ASSET_EXTENSIONS = ['svg', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'ico', 'bmp', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp3', 'mp4', 'webm', 'ogg', 'wav', 'flac', 'pdf', 'wasm'];
// Files esbuild compiles as code, styles or data: declaring one as an asset serves it as an
// asset and never changes how imports of it (or of any file of its kind) resolve.
const COMPILED_EXTENSIONS = new Set(['js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts', 'css', 'json']);

const STYLESHEET_KINDS: ReadonlySet<esbuild.ImportKind> = new Set<esbuild.ImportKind>(['import-rule', 'url-token']);

/** A declared asset of this name is still compiled where it is imported (README "Bundling real code"): no address. */
export const isCompiledByEsbuild = (file: string): boolean => COMPILED_EXTENSIONS.has(path.extname(file).slice(1).toLowerCase());

/** The address of an asset relative to a module's code or styles address. */
export const assetAddress = (subpath: string, file: string): string => `${'../'.repeat(subpath.split('/').length)}assets/${subpath}/${fileNameAddress(file)}`;

// An asset's address climbs from the output that holds it, which is not always the declaring
// module's: a shared file is served at `modules/.shared/<path>`, and a stylesheet it imports is
// part of each importing module's sheet (README "Shared files"). A file module has one content
// in a build whatever entry bundles it, so the build writes this mark where the climb goes and
// each entry's outputs get their own (`placeAssetAddresses`).
const CLIMB_MARK = '__core_asset_climb__/';
const CLIMB_BYTES = Buffer.from(CLIMB_MARK);
/** The address of a declared asset as a build writes it, placed by `placeAssetAddresses`. */
export const markedAddress = (subpath: string, file: string): string => `${CLIMB_MARK}assets/${subpath}/${fileNameAddress(file)}`;

/**
 * `address` with the asset's version (`v=<content hash>`, development only: `assetVersions`) before
 * the query and fragment written after it: a browser keeps an image by its address for as long as
 * the page lives, whatever its answer's cache headers say, so an edited asset needs a new address
 * for a page to show it (README "Preview and stylesheet push"). An asset's address ignores its query.
 */
export function versionedAddress(address: string, version: string | undefined, rest = ''): string {
  if (version === undefined) return address + rest;
  return rest.startsWith('?') ? `${address}?v=${version}&${rest.slice(1)}` : `${address}?v=${version}${rest}`;
}

// Stands for the service's origin: an address written from the origin's root is looked up by its path.
const ORIGIN = 'http://module.invalid';

/**
 * An asset's address as the author wrote it (`new URL('../assets/<subpath>/logo.svg',
 * import.meta.url)`, `image-set("/m/<package>@<version>/assets/<subpath>/bg.svg" 1x)`), relative to
 * `from` (an output's address from the origin's root), when it names a declared asset of the
 * module: in development with that asset's version, as written otherwise: such an address names
 * the file as served, so an edit of that file alone must change the output too (README "Preview
 * and stylesheet push"). In production (no `assetVersions`) one written from the origin's root is
 * made the asset's address relative to the output (`../assets/<subpath>/<file>`), as an import's
 * is: `core dist` writes no `/m/`, and its files are served from any origin and folder (README
 * "Workspaces", "core dist"). `file`: that asset (workspace-relative), an input of the build. Null
 * for any other reference. A shared file built alone keeps it: the assets it reaches must be
 * declared by each module importing it (`declaredAssets`), and the one that found it would decide
 * that for an address no module had to declare (README "Shared files").
 */
export function writtenAssetAddress(byAddress: ReadonlyMap<string, string>, target: BundleTarget, reference: string, from: string): { file: string; address: string } | null {
  if (target.packageAddress === undefined || target.assetDeclarations !== undefined || byAddress.size === 0) return null;
  const written = reference.replace(/[?#].*$/, '');
  let url: URL;
  try {
    url = new URL(written, new URL(from, ORIGIN));
  } catch {
    return null;
  }
  const served = url.origin === ORIGIN ? servedPath(url.pathname) : null;
  const file = served === null ? undefined : byAddress.get(served);
  if (file === undefined) return null;
  const rest = reference.slice(written.length);
  if (target.assetVersions === undefined) {
    const asset = written.startsWith('/') ? urlAssets(target).get(file) : undefined;
    if (asset === undefined) return null;
    // The path after the package's address as the author encoded it (`a%20b.svg`, `bg%281%29.svg`), a
    // raw space made `%20` by the URL's parsing: the written address stays a URL, whatever the file's name.
    const packageSegments = new URL(target.packageAddress, ORIGIN).pathname.split('/').length - 1;
    const encoded = url.pathname.split('/').slice(packageSegments).join('/');
    return { file, address: `${'../'.repeat(asset.subpath.split('/').length)}${encoded}${rest}` };
  }
  const version = target.assetVersions[file];
  if (version === undefined) return null;
  return { file, address: versionedAddress(written, version, rest) };
}

// `/m/<package>@<version>/<rest>`, decoded (`servedPath`).
const PACKAGE_PATH = /^\/m\/((?:@[^/@]+\/)?[^/@]+)@([^/]+)\/(.*)$/;

/**
 * A URL's path as the service's router reads it: each segment decoded once (README "Addresses"),
 * so that `%40p`, `a%20b.svg`, `a b.svg` and `bg%281%29.svg` name what they name there. Null for a
 * segment with malformed percent-encoding or one that hides a separator once decoded (or again:
 * `decodedSegmentNamesNothing`); a `%` alone is a file name's (`a%2520b.svg` is `a%20b.svg`):
 * the router answers such an address with an error, never a file.
 */
export function servedPath(pathname: string): string | null {
  const segments: string[] = [];
  for (const raw of pathname.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment !== '' && decodedSegmentNamesNothing(segment)) return null;
    segments.push(segment);
  }
  return segments.join('/');
}

/**
 * Why an address from the origin's root that the module's code or sheet writes (`written`: as the
 * source shows it) is a 404 the service knows of at build time, or null. Under `/m/` only the
 * workspace's packages are served, each at its current version, and of a package's assets only
 * those its modules declare (README "Addresses", "Workspaces"): a typo of an asset's name, the
 * former version after a bump, a package that is not the workspace's, would load nothing while
 * the module said `valid`; so would another module's declared asset whose file is gone
 * (`assetServed`), and a path with an empty segment (a directory, a doubled `/`). An asset of a
 * subpath no module has, and an address outside `/m/`, are the origin's (kept as written). Judged with the package's address
 * (`packageAddress`), never for a shared file built alone (each importing module judges its sheet).
 * `use`: `base` for a `new URL` of the code, which may name a directory as the base of others.
 * `importsShared`: whether the module's code imports the shared file of that internal specifier
 * (`sharedAddressProblem`).
 */
export function rootAddressProblem(target: BundleTarget, reference: string, written: string, use: 'fetched' | 'base' = 'fetched', importsShared: (specifier: string) => boolean = () => false): string | null {
  if (target.packageAddress === undefined || target.assetDeclarations !== undefined) return null;
  if (!reference.startsWith('/') || reference.startsWith('//')) return null;
  let pathname: string;
  try {
    pathname = new URL(reference.replace(/[?#].*$/, ''), ORIGIN).pathname;
  } catch {
    return null;
  }
  if (!pathname.startsWith('/m/')) return null;
  const own = PACKAGE_PATH.exec(new URL(target.packageAddress, ORIGIN).pathname);
  if (own === null) return null;
  const decodedPath = servedPath(pathname);
  if (decodedPath === null) return `${written} names ${pathname}, a path with malformed percent-encoding or an encoded separator, which the service never serves: the browser gets a 404`;
  const named = PACKAGE_PATH.exec(decodedPath);
  const served = 'only /m/<package>@<version>/ of a workspace package is served there, at its current version';
  if (named === null) return `${written} names ${decodedPath}, where nothing is served (${served}): the browser gets a 404`;
  const [, ownName, ownVersion] = own;
  const [, name, version, rest] = named;
  if (name === ownName) {
    if (version !== ownVersion) return versionMessage(written, name!, version!, ownVersion!, rest!);
  } else {
    const workspace = target.workspace;
    if (workspace === undefined) return null;
    if (!workspace.packages.includes(name!)) return `${written} names ${decodedPath}, but no package of the workspace is named ${name!} (${served}): the browser gets a 404`;
    const current = workspace.versions?.[name!];
    if (current !== undefined && current !== version!) return versionMessage(written, name!, version!, current, rest!);
  }
  // The router decodes each segment and answers an empty one (a doubled `/`, a trailing `/` naming a
  // directory) with nothing (README "Addresses"): no directory is ever served under `/m/`. A `new
  // URL` of a directory is a base other addresses are resolved against, never fetched itself.
  const segments = rest!.split('/');
  if (segments.slice(0, use === 'base' ? -1 : undefined).includes('')) return `${written} names ${decodedPath}, a path with an empty segment (a doubled / or a directory's trailing /): the service serves files only, never a directory, so the browser gets a 404. Name the file, with one / between segments`;
  if (rest!.endsWith('/') || rest === '') return null;
  const [kind, ...after] = segments;
  if (!SERVED_KINDS.has(kind!) || after.length === 0) return `${written} names ${decodedPath}, where nothing is served: after ${name!}@${version!}/ come modules/, styles/ or assets/ and a subpath (README "Addresses"), so the browser gets a 404`;
  if (kind === 'modules' && after[0] === SHARED_SEGMENT) return sharedAddressProblem(target, written, decodedPath, name!, after.slice(1).join('/'), name === ownName && importsShared(`${name!}/${after.join('/')}`));
  if (kind !== 'assets') return null;
  const asset = addressedAsset(target, name!, rest!, name === ownName);
  // A subpath no module of the package has is left as written: no file's edit known to the build would make it one.
  if (asset === null) return null;
  const { declaration, file, mine } = asset;
  if (!declaration.assets.includes(file)) {
    const owner = mine ? target.specifier : `${name!}/${declaration.subpath}`;
    const remedy = mine ? `Declare "${file}" under "assets" in the module.json beside the module's entry, or name a declared asset` : `Name a declared asset of ${owner}${declaration.assets.length > 0 ? ` (${declaration.assets.join(', ')})` : ''}, or declare "${file}" in its module.json; the address of one is /m/<package>@<version>/assets/<subpath of the module declaring it>/<file>`;
    return `${written} names ${decodedPath}, which is not a declared asset of ${owner}: the browser gets a 404. ${remedy}`;
  }
  // The module's own declared asset missing makes the module itself MANIFEST_INVALID; another's is
  // asked of the router's reader, its file an input (`rootAddressInputs`), so the verdict follows the file.
  const workspacePath = path.posix.join(declaration.dir, file);
  if (!mine && target.assetServed?.(name!, workspacePath) === false) {
    return `${written} names ${decodedPath}, the declared asset "${file}" of ${name!}/${declaration.subpath}, but ${workspacePath} is missing, is no regular file or leaves its package (README "Files that are not files"): the browser gets a 404. Restore the file, or name another asset`;
  }
  return null;
}

// What the router serves after `/m/<package>@<version>/` (README "Addresses"); a shared file's path starts `modules/.shared/`.
const SERVED_KINDS = new Set(['modules', 'styles', 'assets']);

/**
 * Why the address of a shared file (`/m/<package>@<version>/modules/.shared/<path>`) is a 404, or
 * null: the router answers it only while a valid module of the package imports that file as a
 * shared one (README "Shared files"), a state other modules' edits change without building this
 * one again. So only the module whose own code imports it (`imported`) may name it: its answer
 * then holds while the module is valid, and a change of what the module imports builds it again.
 */
function sharedAddressProblem(target: BundleTarget, written: string, decodedPath: string, name: string, file: string, imported: boolean): string | null {
  if (imported) return null;
  const own = name === packageNameOf(target);
  const now = own && file !== '' && Object.values(target.shared ?? {}).includes(`${name}/${SHARED_SEGMENT}/${file}`);
  const answered = now
    ? 'it answers while modules of the package import that file, but this module does not import it, so whether it answers is for edits of other modules to decide'
    : own ? 'no module of the package imports that file as a shared one now, so it answers 404, and this module does not import it' : 'it answers only while modules of that package import the file, which no module of another package decides';
  return `${written} names ${decodedPath}, the address of ${name}'s shared file ${file || '(none)'} (README "Shared files"): ${answered}; core dist writes no such address either. Import the file where its code is needed, or declare the file an asset needs as an asset and name that`;
}

const packageNameOf = (target: BundleTarget): string => (target.specifier.endsWith(`/${target.subpath}`) ? target.specifier.slice(0, -target.subpath.length - 1) : target.specifier);

/**
 * The files whose edit can change what `rootAddressProblem` says of `reference`, beyond the
 * module's own (its declarations and its package's version build it again anyway): the `module.json`
 * of the module whose assets the address is among (and of the deeper modules that could take the
 * address instead: the router takes the longest declared subpath), that module's asset file itself
 * (deleted, the address 404s), another package's `package.json` for its version, and, for a name
 * that is no package of the workspace, `core.json` and every package's `package.json` (listing a
 * package or renaming one makes it the workspace's). Inputs of the module, so that such an edit
 * judges it again and its error never outlives its cause.
 */
export function rootAddressInputs(target: BundleTarget, reference: string): string[] {
  if (target.packageAddress === undefined || target.assetDeclarations !== undefined || !reference.startsWith('/') || reference.startsWith('//')) return [];
  let pathname: string;
  try {
    pathname = new URL(reference.replace(/[?#].*$/, ''), ORIGIN).pathname;
  } catch {
    return [];
  }
  const decodedPath = servedPath(pathname);
  const named = decodedPath === null ? null : PACKAGE_PATH.exec(decodedPath);
  const own = PACKAGE_PATH.exec(new URL(target.packageAddress, ORIGIN).pathname);
  if (named === null || own === null) return [];
  const [, name, version, rest] = named;
  const inputs: string[] = [];
  if (name !== own[1]) {
    const manifests = target.workspace?.manifests;
    if (manifests === undefined) return [];
    const manifest = Object.hasOwn(manifests, name!) ? manifests[name!] : undefined;
    if (manifest === undefined) return [WORKSPACE_MANIFEST, ...Object.values(manifests)].sort();
    inputs.push(manifest);
    if (target.workspace?.versions?.[name!] !== version) return inputs;
  } else if (version !== own[2]) return [];
  const asset = rest!.startsWith('assets/') && !rest!.split('/').includes('') ? addressedAsset(target, name!, rest!, name === own[1]) : null;
  if (asset === null) return inputs;
  const { declaration, file, mine } = asset;
  // The module's own declarations build it again anyway; another's are inputs, and so is its declared file.
  if (!mine) inputs.push(path.posix.join(declaration.dir, 'module.json'));
  if (!mine && declaration.assets.includes(file)) inputs.push(path.posix.join(declaration.dir, file));
  // A module made in a folder of the file's path would take the address (`assets/<subpath>/img/...`).
  const folders = path.posix.dirname(file).split('/').filter((segment) => segment !== '.');
  for (let depth = 1; depth <= folders.length; depth += 1) inputs.push(path.posix.join(declaration.dir, ...folders.slice(0, depth), 'module.json'));
  return [...new Set(inputs)].sort();
}

/**
 * The module whose assets `rest` (`assets/<subpath>/<file>`, decoded) of the package `name` is
 * among, as the router finds it: the longest subpath of a module of the package that starts it, the
 * rest its file (README "Addresses"). `mine`: the module built. Null when no module of the package
 * has such a subpath, or its declarations are not known (another package's, without the workspace's).
 * `own`: the package is the module's own.
 */
function addressedAsset(target: BundleTarget, name: string, rest: string, own: boolean): { declaration: ModuleDeclaration; file: string; mine: boolean } | null {
  const itself: ModuleDeclaration = { dir: target.dir, subpath: target.subpath, assets: target.assets };
  const others = target.workspace?.declarations;
  const declarations = own ? (target.declarations ?? [itself]) : others !== undefined && Object.hasOwn(others, name) ? others[name]! : [];
  const segments = rest.slice('assets/'.length).split('/');
  for (let split = segments.length - 1; split >= 1; split -= 1) {
    const subpath = segments.slice(0, split).join('/');
    const declaration = own && subpath === target.subpath ? itself : declarations.find((candidate) => candidate.subpath === subpath);
    if (declaration !== undefined) return { declaration, file: segments.slice(split).join('/'), mine: own && subpath === target.subpath };
  }
  return null;
}

function versionMessage(written: string, name: string, version: string, current: string, rest: string): string {
  return `${written} names ${name}@${version}, but ${name} is at version ${current}: an address under /m/ carries a package's current version, so the browser gets a 404. Write /m/${name}@${current}/${rest}, or, for an asset of this module, its path relative to the file, which follows a version bump`;
}

/**
 * The declared assets a target's outputs may name by address, keyed by that address's path from the
 * origin's root (`/m/<package>@<version>/assets/<subpath>/<file>`, decoded as the router reads it: `servedPath`),
 * for `writtenAssetAddress`; none without the package's address (`packageAddress`).
 */
export function assetsByAddress(target: BundleTarget): Map<string, string> {
  const byAddress = new Map<string, string>();
  if (target.packageAddress === undefined) return byAddress;
  for (const [file, { subpath, file: name }] of urlAssets(target)) {
    const served = servedPath(new URL(`${target.packageAddress}assets/${subpath}/${fileNameAddress(name)}`, ORIGIN).pathname);
    if (served !== null) byAddress.set(served, file);
  }
  return byAddress;
}

/** A path the plugin made for a declared asset, as the build's metafile names it. */
export const isMarkedAssetAddress = (reference: string): boolean => reference.startsWith(CLIMB_MARK);

/** The declared assets a stylesheet's `url()`s name, by a build's metafile: workspace-relative. */
export function sheetAssets(target: BundleTarget, metafile: esbuild.Metafile, stylesOutput: string): string[] {
  const byAddress = new Map([...resolvedAssets(target)].map(([workspacePath, { subpath, file }]) => [markedAddress(subpath, file), workspacePath]));
  const named = new Set<string>();
  for (const input of Object.keys(metafile.outputs[stylesOutput]?.inputs ?? {})) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      const file = record.external && isMarkedAssetAddress(record.path) ? byAddress.get(record.path.replace(/[?#].*$/, '')) : undefined;
      if (file !== undefined) named.add(file);
    }
  }
  return [...named].sort();
}

/**
 * The declared assets a target's imports resolve to, by workspace-relative path: its own, and a
 * shared file's each by the module owning it (`assetOwner`, README "Shared files"), whichever
 * module found the shared file. Files esbuild compiles are left out: they have no address.
 */
export function resolvedAssets(target: BundleTarget): Map<string, { subpath: string; file: string }> {
  const resolved = new Map<string, { subpath: string; file: string }>();
  for (const file of target.assets) if (!isCompiledByEsbuild(file)) resolved.set(path.posix.join(target.dir, file), { subpath: target.subpath, file });
  if (target.assetDeclarations) for (const [file, asset] of ownedAssets(target.assetDeclarations)) if (!resolved.has(file)) resolved.set(file, asset);
  return resolved;
}

/**
 * The declared assets a shared file's `new URL('<relative>', import.meta.url)` names, by
 * workspace-relative path, each by the module owning it (`assetOwner`, README "Shared files"):
 * those esbuild compiles too (a worker), which such a reference names as served, unlike an import.
 */
export function urlAssets(target: BundleTarget): Map<string, { subpath: string; file: string }> {
  const named = new Map<string, { subpath: string; file: string }>();
  for (const file of target.assets) named.set(path.posix.join(target.dir, file), { subpath: target.subpath, file });
  if (target.assetDeclarations) for (const [file, asset] of ownedAssets(target.assetDeclarations, true)) if (!named.has(file)) named.set(file, asset);
  return named;
}

// Each declared file of a package's modules by its owner (`assetOwner`): once per list of
// declarations, which the workspace model keeps one of per package.
// `compiled`: with the files esbuild compiles too (`urlAssets`), kept apart from those imports resolve to.
const ownedByDeclarations = [false, true].map(() => new WeakMap<readonly ModuleDeclaration[], Map<string, { subpath: string; file: string }>>());
function ownedAssets(declarations: readonly ModuleDeclaration[], compiled = false): Map<string, { subpath: string; file: string }> {
  const kept = ownedByDeclarations[compiled ? 1 : 0]!;
  let owned = kept.get(declarations);
  if (owned) return owned;
  owned = new Map();
  for (const declaration of declarations) {
    for (const file of declaration.assets) {
      const workspacePath = path.posix.join(declaration.dir, file);
      if ((!compiled && isCompiledByEsbuild(file)) || owned.has(workspacePath)) continue;
      const owner = assetOwner(declarations, workspacePath);
      if (owner) owned.set(workspacePath, { subpath: owner.declaration.subpath, file: owner.asset });
    }
  }
  kept.set(declarations, owned);
  return owned;
}

// The addresses a target's outputs may hold: those of the assets its imports resolve to.
function ownMarks(target: BundleTarget): string[] {
  return [...resolvedAssets(target).values()].map(({ subpath, file }) => `assets/${subpath}/${file}`);
}

// What may follow an address in an output: a string's or a `url()`'s end, a query, a hash.
const ADDRESS_END = /^(?:$|["'`)\s?#])/;

/**
 * Whether `output`, built with other modules in one esbuild build, holds an asset address that is
 * not `target`'s own: an asset another module of the build declared (the plugin resolves a file
 * once per build, for every entry that reaches it), or the same file under another module's
 * subpath. Built alone, the module sees its own declaration only (README "Shared files").
 */
export function holdsOthersAssets(output: Uint8Array, target: BundleTarget): boolean {
  const bytes = bufferView(output);
  if (bytes.indexOf(CLIMB_BYTES) === -1) return false;
  const own = ownMarks(target);
  const [, ...marked] = bytes.toString('utf8').split(CLIMB_MARK);
  return marked.some((after) => !own.some((mark) => after.startsWith(mark) && ADDRESS_END.test(after.slice(mark.length))));
}

/** `output` (code or stylesheet of the module or shared file at `subpath`) with each asset address climbing from where it is served. */
export function placeAssetAddresses(output: Uint8Array, subpath: string): Uint8Array {
  const bytes = bufferView(output);
  if (bytes.indexOf(CLIMB_BYTES) === -1) return output;
  return Buffer.from(bytes.toString('utf8').split(CLIMB_MARK).join('../'.repeat(subpath.split('/').length)));
}

export function assetsPlugin(root: string, targets: BundleTarget[]): esbuild.Plugin {
  const declared = new Map<string, { subpath: string; file: string; version?: string }>();
  const extensions = new Set(ASSET_EXTENSIONS);
  // A shared file built alone imports each asset as the module owning it does.
  for (const target of targets) {
    for (const [file, asset] of resolvedAssets(target)) {
      declared.set(path.join(root, file), { ...asset, version: target.assetVersions?.[file] });
      const extension = path.extname(file).slice(1).toLowerCase().replace(/[^a-z0-9]/g, '');
      if (extension) extensions.add(extension);
    }
  }
  const filter = new RegExp(`\\.(?:${[...extensions].filter(Boolean).join('|')})(?:[?#].*)?$`, 'i');
  return {
    name: 'core-assets',
    setup(build) {
      // A sheet's `url()` and `@import` from the origin's root name an address, not a file of the
      // disk (README "Workspaces"): kept as written, as `//host/...` is, and the browser loads it;
      // `root-urls.ts` versions the address of a declared asset. One naming a path inside the
      // workspace is a file's, judged below (a url()) or bundled (an @import).
      build.onResolve({ filter: /^\// }, (args) => {
        if ((args.kind !== 'url-token' && args.kind !== 'import-rule') || args.namespace !== 'file') return undefined;
        if (args.path.startsWith('//')) return { path: args.path, external: true };
        const relative = path.relative(root, args.path.replace(/[?#].*$/, ''));
        const insideWorkspace = relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
        return insideWorkspace ? undefined : { path: args.path, external: true };
      });
      build.onResolve({ filter }, (args) => {
        if (args.namespace !== 'file') return undefined;
        // In a stylesheet, `url(logo.svg)` is `./logo.svg`, by the rules of CSS.
        const relative = args.path.startsWith('.') || args.path.startsWith('/') || (STYLESHEET_KINDS.has(args.kind) && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(args.path));
        if (!relative) return undefined;
        const absolute = path.resolve(args.resolveDir, args.path.replace(/[?#].*$/, ''));
        // A name that is no file beside the sheet: esbuild keeps it as written, and build-results.ts
        // says it is served nowhere. A file there that is not declared is refused below, as `./` is.
        if (!args.path.startsWith('.') && !args.path.startsWith('/') && !declared.has(absolute) && !fs.existsSync(absolute)) return undefined;
        const asset = declared.get(absolute);
        if (!asset) {
          return {
            // Said alike however the builds are grouped: the module importing it is the one built alone.
            errors: [{ text: `"${args.path}" is not a declared asset of the module importing it: a module imports only the assets it declares itself; add "${path.basename(absolute)}" to "assets" in the module.json beside it if it is this module's, or import the code using it through the public module that declares it` }],
          };
        }
        const address = markedAddress(asset.subpath, asset.file);
        // A stylesheet keeps the query and fragment it wrote (`url(sprite.svg#icon)`, a sprite's
        // or a mask's element), as esbuild's `file` loader and Vite do: the fragment picks inside
        // the file, and an asset's address ignores its query (README "Workspaces").
        if (!CODE_IMPORT_KINDS.has(args.kind)) return { path: versionedAddress(address, asset.version, /[?#].*$/.exec(args.path)?.[0] ?? ''), external: true };
        // The file itself, so source maps and the metafile name it by its workspace path.
        return { path: absolute, pluginData: { assetAddress: address, version: asset.version } };
      });
      build.onLoad({ filter }, (args) => {
        const { assetAddress: address, version } = (args.pluginData as { assetAddress?: string; version?: string } | undefined) ?? {};
        if (address === undefined) return undefined;
        // The version is added to the value, after the address: the code holds the asset's address
        // as written in every variant (README "Addresses"), and esbuild would fold two strings into one.
        const versioned = version === undefined ? '' : ` + ${JSON.stringify(`?v=${version}`)}`;
        return { contents: `export default new URL(${JSON.stringify(address)}, import.meta.url).href${versioned};\n`, loader: 'js' };
      });
    },
  };
}
