// `image-set("./a.svg" 1x)` names an image by a string, which CSS reads as a URL relative to the
// sheet, as `url()` is; esbuild resolves only `url()` tokens and prints the string as written, so
// the browser asked for it at the sheet's own address, where nothing is served, while the module
// was valid (README "Workspaces"). The sheet esbuild printed is looked at, never the source: a
// sheet's edit still reads it once (ARCHITECTURE.md "One stylesheet edit"). Only an output that
// holds `image-set(` is parsed, and each relative string directly inside one follows the rules of
// a `url()`: a declared asset's address, or an error at its place.
import fs from 'node:fs';
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import { isInside } from '../workspace/paths.js';
import { bufferView } from '../outputs/buffer-view.js';
import type { PlacedReads } from './placed-reads.js';
import { assetsByAddress, markedAddress, rootAddressInputs, resolvedAssets, rootAddressProblem, versionedAddress, writtenAssetAddress } from './plugins/assets.js';
import type { BundleTarget } from './types.js';

/** A sheet esbuild printed, with the image-set() strings of its module's sheets resolved. */
export interface ResolvedImageSets {
  styles: Uint8Array | null;
  errors: Diagnostic[];
  /**
   * Inputs: the files those strings name that are no declared asset, so that making or declaring
   * one builds again, and the declared assets they name, whose versions a development sheet writes
   * (README "Preview and stylesheet push").
   */
  named: string[];
}

// Kept as written, as a url() of them is: a URL with a scheme, one from the origin's root, a fragment.
const KEPT_AS_WRITTEN = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/|#|$)/;
// The comment esbuild prints above each file's rules in a sheet it does not minify.
const FILE_MARK = /^\/\* (.+) \*\/$/;

interface WrittenString {
  start: number;
  end: number;
  value: string;
  /** The file esbuild's comment names above it (unminified output only). */
  marked: string | null;
}

/**
 * `styles` (a build's or a transform's output, before its asset addresses are placed) with each
 * relative string of an `image-set()` or `-webkit-image-set()` written as the `url()` it means;
 * `sheets`: the workspace paths of the sheets it was made from, in esbuild's order. A declared
 * asset's address carries its version in development (`target.assetVersions`), whether the string
 * names the file or is the asset's address itself, from the origin's root (README "Preview and
 * stylesheet push").
 */
export function resolveImageSetStrings(styles: Uint8Array | null, sheets: readonly string[], target: BundleTarget, reads: PlacedReads, root: string): ResolvedImageSets {
  const unchanged = { styles, errors: [], named: [] };
  const bytes = styles && bufferView(styles);
  // Most sheets: a look at each `(` of the bytes, no text made.
  if (bytes === null || sheets.length === 0 || !holdsSetFunction(bytes)) return unchanged;
  const text = bytes.toString('utf8');
  const strings = imageSetStrings(text, new Set(sheets));
  const written = strings.filter((string) => !KEPT_AS_WRITTEN.test(string.value));
  const byAddress = assetsByAddress(target);
  const addressed = strings.flatMap((string) => {
    const own = string.value.startsWith('/') ? writtenAssetAddress(byAddress, target, string.value, target.packageAddress ?? '/') : null;
    return own ? [{ ...own, string }] : [];
  });
  // An address under `/m/` the service knows answers 404 (`rootAddressProblem`): an error at its place.
  const manifests = strings.flatMap((string) => rootAddressInputs(target, string.value));
  const errors: Diagnostic[] = strings.flatMap((string) => {
    const problem = addressed.some((own) => own.string === string) ? null : rootAddressProblem(target, string.value, `"${string.value}" in image-set()`);
    if (problem === null) return [];
    const sheet = string.marked ?? sheets.find((candidate) => placeIn(reads.text(candidate), string.value) !== null) ?? sheets[sheets.length - 1]!;
    return [diagnostic('BUNDLE_ERROR', problem, { file: sheet, ...placeIn(reads.text(sheet), string.value) })];
  });
  if (written.length === 0 && addressed.length === 0) return errors.length === 0 && manifests.length === 0 ? unchanged : { ...unchanged, errors, named: [...new Set(manifests)].sort() };
  const { dirOf, sheetOf } = writingSheets(written, sheets, reads);
  const assets = resolvedAssets(target);
  const named = new Set<string>(manifests);
  // Each string replaced, by its place in the text.
  const replaced: { string: WrittenString; by: string }[] = addressed.map(({ file, address, string }) => {
    named.add(file);
    return { string, by: cssString(address) };
  });
  written.forEach((string, index) => {
    const suffix = /[?#].*$/.exec(string.value)?.[0] ?? '';
    const file = path.posix.normalize(path.posix.join(dirOf(index), string.value.slice(0, string.value.length - suffix.length)));
    const asset = isInside(file) ? assets.get(file) : undefined;
    if (asset) {
      const version = target.assetVersions?.[file];
      if (version !== undefined) named.add(file);
      replaced.push({ string, by: urlToken(versionedAddress(markedAddress(asset.subpath, asset.file), version, suffix)) });
      return;
    }
    const sheet = sheetOf(index);
    const where = placeIn(reads.text(sheet), string.value);
    errors.push(diagnostic('BUNDLE_ERROR', unresolvedMessage(root, sheet, file, string.value), { file: sheet, ...where }));
    if (isInside(file)) named.add(file);
  });
  if (replaced.length === 0) return { styles, errors, named: [...named].sort() };
  let out = '';
  let at = 0;
  for (const { string, by } of replaced.sort((a, b) => a.string.start - b.string.start)) {
    out += `${text.slice(at, string.start)}${by}`;
    at = string.end;
  }
  return { styles: Buffer.from(out + text.slice(at)), errors, named: [...named].sort() };
}

const OPEN = 0x28;
const SET = [0x2d, 0x73, 0x65, 0x74]; // `-set`, lower case

// Whether a `-set(` is written, in any case (CSS names of functions are not case-sensitive).
function holdsSetFunction(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(OPEN, SET.length); at !== -1; at = bytes.indexOf(OPEN, at + 1)) {
    // ASCII letters lower-cased by their 0x20 bit; `-` is not a letter and compared as is.
    if (bytes[at - 4] === SET[0] && (bytes[at - 3]! | 0x20) === SET[1] && (bytes[at - 2]! | 0x20) === SET[2] && (bytes[at - 1]! | 0x20) === SET[3]) return true;
  }
  return false;
}

function unresolvedMessage(root: string, sheet: string, file: string, value: string): string {
  const as = `"${value}" in image-set()`;
  if (!isInside(file)) return `${as} is outside the workspace, and is not read: a string of image-set() is a URL relative to the sheet, by the rules of CSS, as url() is; name a declared asset of the module`;
  // A stat, as the assets plugin's for a url(): never a read.
  if (fs.existsSync(path.join(root, file))) {
    return `${as} is not a declared asset of the module importing it: a module imports only the assets it declares itself; add "${path.posix.basename(file)}" to "assets" in the module.json beside it if it is this module's, or import the code using it through the public module that declares it`;
  }
  return `${as} names no file beside ${path.posix.basename(sheet)}: a string of image-set() is a URL relative to the sheet, by the rules of CSS, as url() is, and the browser would ask for it at the sheet's own address, where nothing is served. Write the path of a file of the package (declared under "assets" in the module.json beside the module's entry)`;
}

// A string as written, quoted as esbuild prints one, else as the url() it means.
const cssString = (address: string): string => (/^[^"\\\n]*$/.test(address) ? `"${address}"` : urlToken(address));

// An unquoted url() where nothing in the address needs quotes, as esbuild prints one.
const urlToken = (address: string): string => (/^[^\s"'()\\]*$/.test(address) ? `url(${address})` : `url(${JSON.stringify(address)})`);

/**
 * Which sheet wrote each string, and its directory: the sheet esbuild's comment names
 * (unminified), else the one directory of all the sheets, the sheet itself looked for only to
 * place an error. A minified sheet made of sheets in several directories is told apart by reading
 * them (`reads`, once per result): each string is given, in order, to the next sheet (in
 * esbuild's order) writing it inside an image-set().
 */
function writingSheets(written: readonly WrittenString[], sheets: readonly string[], reads: PlacedReads): { dirOf: (index: number) => string; sheetOf: (index: number) => string } {
  const last = sheets[sheets.length - 1]!;
  const dirs = new Set(sheets.map((sheet) => path.posix.dirname(sheet)));
  if (written.every((string) => string.marked !== null) || dirs.size === 1) {
    const sheetOf = (index: number) => written[index]!.marked ?? (sheets.length === 1 ? last : (sheets.find((sheet) => placeIn(reads.text(sheet), written[index]!.value) !== null) ?? last));
    return { dirOf: (index) => path.posix.dirname(written[index]!.marked ?? last), sheetOf };
  }
  const remaining = new Map<string, string[]>();
  for (const sheet of sheets) {
    const source = reads.text(sheet);
    if (source === null) continue;
    for (const string of imageSetStrings(source, new Set())) remaining.set(string.value, [...(remaining.get(string.value) ?? []), sheet]);
  }
  const found = written.map((string) => string.marked ?? remaining.get(string.value)?.shift() ?? last);
  return { dirOf: (index) => path.posix.dirname(found[index]!), sheetOf: (index) => found[index]! };
}

// Where `value` is written as a string of an image-set() in `text`: at its quote.
function placeIn(text: string | null, value: string): { line: number; column: number } | null {
  if (text === null) return null;
  const string = imageSetStrings(text, new Set()).find((found) => found.value === value);
  return string ? lineAndColumn(text, string.start) : null;
}

/** The strings directly inside each `image-set()` of `css`, outside comments, other strings and nested functions (`type("image/avif")`). */
export function imageSetStrings(css: string, files: ReadonlySet<string>): WrittenString[] {
  const found: WrittenString[] = [];
  let marked: string | null = null;
  // The depth of each open image-set(), innermost last.
  const open: number[] = [];
  let depth = 0;
  let i = 0;
  while (i < css.length) {
    const char = css[i]!;
    if (char === '/' && css[i + 1] === '*') {
      const close = css.indexOf('*/', i + 2);
      const end = close === -1 ? css.length : close + 2;
      const file = FILE_MARK.exec(css.slice(i, end))?.[1];
      if (file !== undefined && files.has(file)) marked = file;
      i = end;
      continue;
    }
    if (char === '"' || char === "'") {
      const end = stringEnd(css, i);
      if (open.length > 0 && open[open.length - 1] === depth) found.push({ start: i, end, value: unescaped(css.slice(i + 1, css[end - 1] === char && end - 1 > i ? end - 1 : end)), marked });
      i = end;
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '(' && /url$/i.test(css.slice(Math.max(0, i - 3), i)) && !/^\s*["']/.test(css.slice(i + 1, i + 64))) {
      // An unquoted url(...) is one token, whatever it holds (`data:image/png;base64,...`).
      const end = css.indexOf(')', i);
      i = end === -1 ? css.length : end + 1;
      continue;
    }
    if (char === '(') {
      depth += 1;
      if (/(?:^|[^\w-])(?:-webkit-)?image-set$/i.test(css.slice(Math.max(0, i - 18), i))) open.push(depth);
    } else if (char === ')') {
      if (open.length > 0 && open[open.length - 1] === depth) open.pop();
      depth = Math.max(0, depth - 1);
    } else if (char === '{' || char === '}' || char === ';') {
      // A declaration never spans these: an unclosed function ends here, as a parser recovers.
      open.length = 0;
      depth = 0;
    }
    i += 1;
  }
  return found;
}

/** The index just past the CSS string opening at `start` (its quote), or where a newline ends it unclosed (a parser ends a bad string there). */
export function stringEnd(css: string, start: number): number {
  const quote = css[start];
  let i = start + 1;
  while (i < css.length) {
    const char = css[i];
    if (char === '\\') i += 2;
    else if (char === quote) return i + 1;
    else if (char === '\n') return i;
    else i += 1;
  }
  return css.length;
}

// A CSS string's value: a hex escape is its code point, any other escaped character itself, an escaped newline nothing.
const codePoint = (value: number): string => String.fromCodePoint(value > 0 && value <= 0x10ffff ? value : 0xfffd);
function unescaped(body: string): string {
  return body.replace(/\\(?:([0-9a-fA-F]{1,6})\s?|\n|(.))/g, (_, hex: string | undefined, char: string | undefined) => (hex !== undefined ? codePoint(Number.parseInt(hex, 16)) : (char ?? '')));
}
