// `new URL('<relative>', import.meta.url)` in a module's code (README "Workspaces"): esbuild keeps
// it as written, and the browser resolves it against the module's code address,
// `/m/<package>@<version>/modules/<subpath>` (`core dist`: `.../modules/<subpath>.js`), where
// only module code is served. A worker, an image or a data file named so beside its source was a
// 404 on the page while `/state` said valid. One that names a declared asset from its source is
// made that asset's address (`placeAssetUrls`); any other that stays among the package's
// addresses and reaches no declared asset of the module is an error at its place, naming what to
// declare; one with a scheme, one from the origin's root, one leaving the package's addresses
// (another package's asset) and a directory (`./`) are the author's to answer for, but an address
// under `/m/` the service knows answers 404 (`rootAddressProblem`, README "Workspaces").
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { assetAddress, assetsByAddress, rootAddressInputs, rootAddressProblem, servedPath, urlAssets, versionedAddress, writtenAssetAddress } from './plugins/assets.js';
import { firstWrittenPlace, type PlacedReads } from './placed-reads.js';
import { lineAndColumn } from '../workspace/json.js';
import { fileNameAddress } from '../workspace/paths.js';
import type { BundleTarget } from './types.js';
import { bufferView } from '../outputs/buffer-view.js';
import { heldMetaUrlBases, type HeldBase } from './held-meta-url.js';

const MARK = Buffer.from('import.meta.url');
const META_MARK = Buffer.from('import.meta');
// As esbuild prints it: one string, double-quoted, or a template without substitutions (kept unminified).
const IN_OUTPUT = /new URL\(\s*(["`])([^"`\\$]*)\1\s*,\s*import\.meta\.url\s*\)/g;
// `import.meta.resolve('./x')`: the same address as `new URL('./x', import.meta.url).href`.
const RESOLVE_IN_OUTPUT = /import\.meta\.resolve\(\s*(["`])([^"`\\$]*)\1\s*\)/g;
const KEPT_ON_PURPOSE = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/|#|\?|$)/;
// Stands for `/m/<package>@<version>/`: as many segments, so a reference climbs out of it alike.
const ORIGIN = 'http://module.invalid';

/**
 * The code of a module or of a shared file with each `new URL('<relative>', import.meta.url)` that
 * names, from the source writing it, a declared asset made that asset's address, as an import of
 * it is (README "Workspaces", "Shared files"): a module's own declaration for a module's code (a
 * copy of a file not yet known to be shared included), and for a shared file the module declaring
 * it whose directory is the nearest holding it (`urlAssets`). The address climbs from where the
 * code is served (`modules/<subpath>`, `modules/.shared/<path>`, and `core dist`'s `.js` files,
 * one segment alike). Kept as written it would resolve against that address, where no asset is
 * served, and no one literal serves both a shared file and the copy a module bundles before the
 * file is known to be shared. `assets`: the files so named (workspace-relative), which each
 * module importing a shared file must declare too (`declaredAssets`, `attachChunks`).
 */
export function placeAssetUrls(reads: PlacedReads, target: BundleTarget, code: Uint8Array, sources: readonly string[]): { code: Uint8Array; assets: string[] } {
  const bytes = bufferView(code);
  if (!target.platforms.includes('web') || bytes.indexOf(META_MARK) === -1) return { code, assets: [] };
  const resolved = urlAssets(target);
  if (resolved.size === 0) return { code, assets: [] };
  const climb = '../'.repeat(target.subpath.split('/').length);
  // An asset's address already (an import's, or written so): no source is read for it.
  const assetsAddress = new URL(`${climb}assets/`, new URL(`/m/package/modules/${target.subpath}`, ORIGIN)).pathname;
  const assets = new Set<string>();
  // The address of the declared asset `reference` names from its source, or null. A reference
  // with no scheme, `/`, `?` or `#` before it is relative, `./` written or not (`data.json` is
  // `./data.json` by the rules of URLs).
  const addressOf = (reference: string): string | null => {
    if (KEPT_ON_PURPOSE.test(reference) || new URL(reference, new URL(`/m/package/modules/${target.subpath}`, ORIGIN)).pathname.startsWith(assetsAddress)) return null;
    const source = placeOf(reads, sources, reference)?.file ?? target.entry;
    const file = path.posix.normalize(path.posix.join(path.posix.dirname(source), reference.replace(/[?#].*$/, '')));
    const asset = resolved.get(file);
    if (asset === undefined) return null;
    assets.add(file);
    const rest = reference.slice(reference.replace(/[?#].*$/, '').length);
    return versionedAddress(`${climb}assets/${asset.subpath}/${fileNameAddress(asset.file)}`, target.assetVersions?.[file], rest);
  };
  const text = withHeldBasesPlaced(bytes.toString('utf8'), addressOf)
    .replace(IN_OUTPUT, (written, quote: string, reference: string) => {
      const address = addressOf(reference);
      return address === null ? written : written.replace(`${quote}${reference}${quote}`, `${quote}${address}${quote}`);
    })
    // `import.meta.resolve` of a declared asset: that asset's address, resolved as `new URL` resolves it.
    .replace(RESOLVE_IN_OUTPUT, (written, _quote: string, reference: string) => {
      const address = addressOf(reference);
      return address === null ? written : `new URL(${JSON.stringify(address)}, import.meta.url).href`;
    });
  return assets.size === 0 ? { code, assets: [] } : { code: Buffer.from(text), assets: [...assets].sort() };
}

// A source's declaration of a name holding `import.meta.url` (`const here: string = import.meta.url`,
// `const { url } = import.meta`, `const { url: here } = import.meta`): the name, or `url`.
const HELD_IN_SOURCE = /\bconst\s+(?:([\w$]+)\s*(?::[^=;]+)?=\s*import\.meta\.url\b|\{\s*url\s*(?::\s*([\w$]+)\s*)?\}\s*(?::[^=;]+)?=\s*import\.meta\b(?!\s*\.))/g;

/** The names holding `import.meta.url` in a build's code whose every read is the base of a `new URL` the service made a declared asset's address (`placeAssetUrls`). */
function toldHeldBases(code: string, target: BundleTarget): HeldBase[] {
  const assetsAddress = `${'../'.repeat(target.subpath.split('/').length)}assets/`;
  return heldMetaUrlBases(code).filter((base) => !base.otherUses && base.uses.every((use) => use.reference.startsWith(assetsAddress)));
}

const blanked = (text: string, ranges: ReadonlyArray<{ start: number; end: number }>): string =>
  ranges.reduce((blank, { start, end }) => `${blank.slice(0, start)}${' '.repeat(end - start)}${blank.slice(end)}`, text);

/** `code` with the literal of each `new URL('<literal>', here)` whose `here` holds `import.meta.url` (held-meta-url.ts) made the address `addressOf` gives it. */
function withHeldBasesPlaced(code: string, addressOf: (reference: string) => string | null): string {
  const placed = heldMetaUrlBases(code)
    .flatMap((base) => base.uses)
    .map((use) => ({ ...use, address: addressOf(use.reference) }))
    .filter((use) => use.address !== null)
    .sort((a, b) => b.start - a.start);
  let text = code;
  for (const use of placed) text = `${text.slice(0, use.start)}${JSON.stringify(use.address)}${text.slice(use.end)}`;
  return text;
}

// `import.meta.url` anywhere but as the base of a literal `new URL`, or `import.meta` taken whole
// (`const { url } = import.meta`): no reference the service can follow to a declared asset.
const HELD_META_URL = /\bimport\.meta(?:\s*\.\s*url\b|(?!\s*\.))/g;
const LITERAL_IN_SOURCE = /new\s+URL\(\s*(['"`])[^'"`\\$]*\1\s*,\s*import\.meta\.url\s*\)/g;

/**
 * A warning at the first place a source of a module declaring assets holds `import.meta.url` (in
 * a variable, a function's argument) or takes `import.meta` whole, but for a name whose every read
 * `placeAssetUrls` made a declared asset's address (`toldHeldBases`): an address built from it names
 * no declared asset the service can see, and resolves against the module's code address, where
 * only code is served (README "Workspaces"). None where the code has no such use.
 */
export function heldImportMetaUrl(reads: PlacedReads, target: BundleTarget, code: Uint8Array | null, sources: readonly string[]): Diagnostic[] {
  if (code === null || !target.platforms.includes('web')) return [];
  const resolved = urlAssets(target);
  if (resolved.size === 0) return [];
  const output = bufferView(code).toString('utf8');
  const told = toldHeldBases(output, target);
  const codeText = blanked(output, told.map((base) => base.init)).replace(IN_OUTPUT, '');
  if (codeText.search(HELD_META_URL) === -1) return [];
  const toldNames = new Set(told.map((base) => base.name));
  for (const file of sources) {
    const text = reads.text(file);
    if (text === null) continue;
    const at = text.replace(LITERAL_IN_SOURCE, (literal) => ' '.repeat(literal.length)).replace(HELD_IN_SOURCE, (held, name: string | undefined, renamed: string | undefined) => (toldNames.has(name ?? renamed ?? 'url') ? ' '.repeat(held.length) : held)).search(HELD_META_URL);
    if (at === -1) continue;
    const [first] = [...resolved.values()];
    const address = `${'../'.repeat(target.subpath.split('/').length)}assets/${first!.subpath}/${fileNameAddress(first!.file)}`;
    const message = `import.meta.url is used other than as the base of a literal new URL('./<file>', import.meta.url), or of such a new URL through a name bound once to it: an address built from it held otherwise (a name also read another way or given a computed address, an argument, or import.meta taken whole) resolves against the module's code address, where only code is served, and the service cannot make it a declared asset's. The asset's address is \`${address}\` (for "${first!.file}"); write new URL('./${first!.file}', import.meta.url), which the service makes that address (README "Workspaces")`;
    return [diagnostic('BUNDLE_WARNING', message, { file, ...lineAndColumn(text, at) })];
  }
  return [];
}

/**
 * The code of a build with each `new URL('<address>', import.meta.url)` written as a declared
 * asset's address itself (`'../assets/<subpath>/logo.svg'` from the code's address, or
 * `/m/<package>@<version>/assets/...` from the origin's root) given the asset's version in
 * development, as the addresses the build makes carry it (README "Preview and stylesheet push"),
 * and the one from the origin's root made relative in production, which `core dist` serves
 * without `/m/` (`writtenAssetAddress`); `addressed`: those assets, inputs of the build. Taken from the code as esbuild printed it, before
 * `placeAssetAddresses`: an import's address is still the plugin's mark there, and its version is
 * added to its value, after the address (README "Addresses"), never to the address.
 */
export function versionWrittenAddresses(target: BundleTarget, code: Uint8Array): { code: Uint8Array; addressed: string[] } {
  const bytes = bufferView(code);
  if (target.packageAddress === undefined || !target.platforms.includes('web') || bytes.indexOf(MARK) === -1) return { code, addressed: [] };
  const byAddress = assetsByAddress(target);
  const addressed = new Set<string>();
  const text = bytes.toString('utf8').replace(IN_OUTPUT, (written, quote: string, reference: string) => {
    const own = writtenAssetAddress(byAddress, target, reference, `${target.packageAddress}modules/${target.subpath}`);
    if (own === null) return written;
    addressed.add(own.file);
    return written.replace(`${quote}${reference}${quote}`, `${quote}${own.address}${quote}`);
  });
  return addressed.size === 0 ? { code, addressed: [] } : { code: Buffer.from(text), addressed: [...addressed].sort() };
}

/** The files whose edit can change the judgement of the code's `new URL`s under `/m/` (`rootAddressInputs`). */
export function namedManifests(target: BundleTarget, code: Uint8Array | null): string[] {
  const bytes = code && bufferView(code);
  if (bytes === null || !target.platforms.includes('web') || bytes.indexOf(MARK) === -1) return [];
  const named = new Set<string>();
  for (const [, , reference] of bytes.toString('utf8').matchAll(IN_OUTPUT)) {
    for (const input of rootAddressInputs(target, reference!)) named.add(input);
  }
  return [...named].sort();
}

/** The errors of the module's code `code`, whose sources (workspace-relative) are `sources`. */
export function unservedModuleUrls(reads: PlacedReads, target: BundleTarget, code: Uint8Array, sources: readonly string[]): Diagnostic[] {
  const bytes = bufferView(code);
  if (!target.platforms.includes('web') || bytes.indexOf(MARK) === -1) return [];
  const packageName = target.specifier.endsWith(`/${target.subpath}`) ? target.specifier.slice(0, -target.subpath.length - 1) : target.specifier;
  // Any version: one segment, as the real one is (shown as written in messages).
  const base = `/m/${packageName}@0.0.0/`;
  const codeAddress = new URL(`${base}modules/${target.subpath}`, ORIGIN);
  // Compared decoded (`servedPath`), as the router reads them: `bg%281%29.svg` names the declared `bg(1).svg`.
  const declared = new Set(target.assets.flatMap((file) => servedPath(new URL(assetAddress(target.subpath, file), codeAddress).pathname) ?? []));
  const errors: Diagnostic[] = [];
  const seen = new Set<string>();
  const codeText = bytes.toString('utf8');
  for (const [, , reference] of codeText.matchAll(IN_OUTPUT)) {
    if (seen.has(reference!)) continue;
    seen.add(reference!);
    // An address under `/m/` is the service's own: one it knows answers 404 is an error here too.
    const problem = rootAddressProblem(target, reference!, `new URL('${reference}', import.meta.url)`, 'base', (specifier) => importsSharedFile(target, codeText, specifier));
    if (problem !== null) {
      const place = placeOf(reads, sources, reference!);
      errors.push(diagnostic('BUNDLE_ERROR', problem, place ?? { file: target.entry }));
      continue;
    }
    if (KEPT_ON_PURPOSE.test(reference!)) continue;
    const { pathname } = new URL(reference!, codeAddress);
    if (!pathname.startsWith(base) && namesNoPackage(pathname)) {
      const place = placeOf(reads, sources, reference!);
      errors.push(diagnostic('BUNDLE_ERROR', climbsOut(target, reference!, pathname, place?.file ?? target.entry), place ?? { file: target.entry }));
      continue;
    }
    if (!pathname.startsWith(base) || pathname.endsWith('/') || declared.has(servedPath(pathname) ?? pathname)) continue;
    // Another module's assets are that module's to declare (the import of one is checked where it resolves).
    if (pathname.startsWith(`${base}assets/`) && !pathname.startsWith(`${base}assets/${target.subpath}/`)) continue;
    const place = placeOf(reads, sources, reference!);
    const shown = `/m/${packageName}@<version>/${pathname.slice(base.length)}`;
    const source = place?.file ?? target.entry;
    const text = target.subpath.startsWith('.shared/') ? notServedShared(target, reference!, shown, source) : pathname.startsWith(`${base}assets/`) ? notDeclared(target, reference!, shown) : notServed(target, reference!, shown, source);
    errors.push(diagnostic('BUNDLE_ERROR', text, place ?? { file: target.entry }));
  }
  // In the order of the sources, whatever order the output holds them in.
  return errors.sort((a, b) => a.file!.localeCompare(b.file!) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

// Whether the code imports the shared file `specifier` (`<package>/.shared/<path>`) as esbuild
// prints an external import (`from "..."`, `import "..."`, `import("...")`): a file its package shares.
function importsSharedFile(target: BundleTarget, code: string, specifier: string): boolean {
  if (!Object.values(target.shared ?? {}).includes(specifier)) return false;
  const quoted = JSON.stringify(specifier).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`(?:\\bfrom|\\bimport)\\s*\\(?\\s*${quoted}`).test(code);
}

// Under `/m/`, only `/m/<package>@<version>/...` is ever served (README "Addresses"): a reference
// climbing out of its package's addresses to anything else there is a 404 whatever the workspace,
// unlike one reaching another package's (which that package answers for).
const PACKAGE_ADDRESS = /^\/m\/(?:@[^/@]+\/)?[^/@]+@[^/]+\//;
const namesNoPackage = (pathname: string): boolean => pathname.startsWith('/m/') && !PACKAGE_ADDRESS.test(pathname);

// The same text names another address where the code is served at another depth: a file a module
// bundles is served at the module's address, a shared file at `modules/.shared/<path>` (README
// "Shared files"), so one written for one place may climb out of the package at the other.
function climbsOut(target: BundleTarget, reference: string, pathname: string, source: string): string {
  const why = `new URL('${reference}', import.meta.url) resolves against ${target.specifier}'s code address, /m/${packageOf(target)}@<version>/modules/${target.subpath}, to ${pathname}, where nothing is served: the browser gets a 404 (esbuild keeps it as written; the same text resolves elsewhere from a shared file's address, modules/.shared/<path>).`;
  const asset = target.assets.find((file) => pathname.endsWith(`/assets/${target.subpath}/${file}`));
  if (asset === undefined) return `${why} Write an address among the package's own, or import a declared asset (\`import url from './<file>'\`), whose address is written from wherever the code is served`;
  const relative = path.posix.relative(path.posix.dirname(source), path.posix.join(target.dir, asset));
  return `${why} Import the declared asset "${asset}" instead, import url from '${relative.startsWith('.') ? relative : `./${relative}`}': its address is written from wherever the code is served`;
}

const packageOf = (target: BundleTarget): string => (target.specifier.endsWith(`/${target.subpath}`) ? target.specifier.slice(0, -target.subpath.length - 1) : target.specifier);

function notDeclared(target: BundleTarget, reference: string, address: string): string {
  return `new URL('${reference}', import.meta.url) names ${address}, which is not a declared asset of ${target.specifier}: the browser gets a 404. Declare the file under "assets" in the module.json beside the module's entry`;
}

function notServed(target: BundleTarget, reference: string, address: string, source: string): string {
  const why = `new URL('${reference}', import.meta.url) resolves against the module's own address, to ${address}, where only module code is served: the browser gets a 404 (esbuild keeps it as written).`;
  const named = path.posix.normalize(path.posix.join(path.posix.dirname(source), reference.replace(/[?#].*$/, '')));
  const asset = target.assets.find((file) => path.posix.join(target.dir, file) === named);
  if (asset !== undefined) return `${why} The declared asset "${asset}" is new URL('${assetAddress(target.subpath, asset)}', import.meta.url), in development and from core dist alike`;
  // Another module's asset, named so from a file this module bundles (a copy of a file that may be
  // shared): said as an import of it is, whether the file is known to be shared yet or not.
  if (target.declarations?.some((declaration) => declaration.assets.some((file) => path.posix.join(declaration.dir, file) === named))) {
    return `"${reference}" is not a declared asset of the module importing it: a module imports only the assets it declares itself, through a shared file too; add "${path.posix.basename(named)}" to "assets" in the module.json beside it if it is this module's, or import the code using it through the public module that declares it`;
  }
  // Assets are named relative to the module's directory.
  const file = named.startsWith(`${target.dir}/`) ? named.slice(target.dir.length + 1) : path.posix.basename(named);
  return `${why} Declare "${file}" under "assets" in the module.json beside the module's entry: written so, it then names the asset's address, new URL('${assetAddress(target.subpath, file)}', import.meta.url)`;
}

// A shared file is served at an address of its own and named by no module's declaration: a
// reference left as written there names no declared asset of its package (one that does was made
// its address, `placeAssetUrls`), so the remedy is a declaration, never an address to write.
function notServedShared(target: BundleTarget, reference: string, address: string, source: string): string {
  const named = path.posix.normalize(path.posix.join(path.posix.dirname(source), reference.replace(/[?#].*$/, '')));
  const packageName = target.specifier.slice(0, -target.subpath.length - 1);
  return `new URL('${reference}', import.meta.url) in a file shared by modules of ${packageName} names ${named}, which no module of the package declares as an asset: kept as written it resolves against the shared file's own address, to ${address}, where only module code is served (the browser gets a 404). Declare it under "assets" in the module.json of each module importing this file: written so, it then names the asset's address, as an import of it does (README "Shared files")`;
}

/** Where a source writes `new URL(<reference>, import.meta.url)`: the first found, at its `new`. */
function placeOf(reads: PlacedReads, sources: readonly string[], reference: string): { file: string; line: number; column: number } | null {
  const quoted = reference.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return firstWrittenPlace(reads, sources, new RegExp(`new\\s+URL\\(\\s*(['"\`])${quoted}\\1\\s*,\\s*import\\.meta\\.url|import\\.meta\\.resolve\\(\\s*(['"\`])${quoted}\\2`));
}
