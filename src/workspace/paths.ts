// Relative paths inside the workspace: always forward slashes, never absolute, never `..` out.
import path from 'node:path';

// A `..` segment (a name holding `..`, `a..b`, is not one). Told by searches for fixed strings:
// a pattern that may start at every slash costs more.
export const hasParentSegment = (relative: string): boolean => relative === '..' || relative.startsWith('../') || relative.endsWith('/..') || relative.includes('/../');
// A `.` or `..` segment: what normalizing may change or refuse (a drive letter, `c:`, too: `DRIVE`).
const hasDotSegment = (relative: string): boolean =>
  relative === '.' || relative.startsWith('./') || relative.endsWith('/.') || relative.includes('/./') || hasParentSegment(relative);
const DRIVE = /^[a-zA-Z]:/;

/**
 * Whether `relative` is already what normalizing gives: plain segments joined by single forward
 * slashes. Most paths a workspace read joins are (`packages/a`, `src/index.ts`), and a read of
 * 1,000 modules joins thousands of them: these skip path.posix.normalize.
 */
const isNormal = (relative: string): boolean =>
  relative !== '' && relative.charCodeAt(0) !== 47 && relative.charCodeAt(relative.length - 1) !== 47 && !relative.includes('//') && !relative.includes('\\') && !hasDotSegment(relative) && !(relative.charCodeAt(1) === 58 && DRIVE.test(relative));

/** A relative path with `.` segments resolved and forward slashes; null when it is absolute. */
export function normalizeRelative(input: string): string | null {
  if (isNormal(input)) return input;
  // `./dist/index.js`: how `exports` and manifests write a path.
  if (input.startsWith('./')) {
    const rest = input.slice(2);
    if (isNormal(rest)) return rest;
  }
  const slashed = input.replace(/\\/g, '/');
  if (slashed.startsWith('/') || DRIVE.test(slashed)) return null;
  const normal = path.posix.normalize(slashed).replace(/\/+$/, '');
  return normal === '' ? '.' : normal;
}

/**
 * The end of an input that names where a path leads rather than what it holds (`<path> ->`): its
 * hash is the path's real path in the workspace, so a link retargeted changes it, whatever the
 * new target holds (README "Links and large trees"). No file of the workspace ends so.
 */
export const LINK_TARGET = ' ->';

/** Does a normalized relative path stay inside its base? */
export const isInside = (relative: string): boolean => relative !== '..' && !relative.startsWith('../');

/** `base/relative`, normalized; `.` parts vanish. */
export function joinRelative(base: string, relative: string): string {
  if (isNormal(relative)) {
    if (base === '.') return relative;
    if (isNormal(base)) return `${base}/${relative}`;
  }
  const joined = path.posix.normalize(`${base}/${relative}`).replace(/\/+$/, '');
  return joined.startsWith('./') ? joined.slice(2) : joined === '' ? '.' : joined;
}

/** The directory of a relative file path (`.` for a top-level file). */
export function dirOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  if (slash === -1) return '.';
  // `a/b/c`: what precedes the last slash. A leading, trailing or doubled slash: path.posix's rules.
  if (slash > 0 && slash < relative.length - 1 && relative.charCodeAt(slash - 1) !== 47) return relative.slice(0, slash);
  return path.posix.dirname(relative);
}

/** `target` relative to `base` (both relative to the same root). */
export function relativeTo(base: string, target: string): string {
  const result = path.posix.relative(base === '.' ? '' : base, target === '.' ? '' : target);
  return result === '' ? '.' : result;
}

/** A workspace-relative path for a file under `root`, or null when it lies outside. */
export function toWorkspacePath(root: string, absolute: string): string | null {
  const relative = path.relative(root, absolute);
  if (relative === '') return '.';
  if (path.isAbsolute(relative) || relative === '..' || relative.startsWith(`..${path.sep}`)) return null;
  return relative.split(path.sep).join('/');
}

/** Directories that hold no modules of the workspace: node_modules and dot-directories (`.git`, `.core`). */
export const isSkippedDirectory = (name: string): boolean => name === 'node_modules' || name.startsWith('.');

/**
 * A file name as one segment of its address (README "Addresses"): `%`, `#` and `?` percent-encoded,
 * the three a URL would otherwise read as an escape, a fragment or a query, so the address decoded
 * once by the router names exactly that file (`a%20b.svg` is `a%2520b.svg`, not `a b.svg`). Every
 * other character stays: the browser's URL parsing encodes what it must, and the router decodes it.
 */
export const fileNameAddress = (name: string): string => name.replace(/[%#?]/g, (char) => encodeURIComponent(char));

/**
 * Whether a segment of an address, decoded once, names nothing: empty, `.` or `..`, a separator
 * or NUL, or one that a further decoding (a proxy decoding twice) would make so (`%2e%2e`, from
 * `%252e%252e`). A `%` alone is a file's (`a%20b.svg`, from `a%2520b.svg`): routes match the
 * decoded segments against what the manifests declare, never the disk.
 */
export function decodedSegmentNamesNothing(segment: string): boolean {
  let current = segment;
  for (let round = 0; round < 8; round += 1) {
    if (current === '' || current === '.' || current === '..' || /[/\\\0]/.test(current)) return true;
    if (!current.includes('%')) return false;
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return false; // no escape a second decoding would read: the `%` is the name's
    }
    if (next === current) return false;
    current = next;
  }
  return true; // encoded deeper than any file's name is
}
