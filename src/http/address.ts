// Parsing `/m/<package>@<version>/<kind>/<rest>` (README "Addresses"). Every segment is decoded
// once; one that could climb or hide a separator (`.`, `..`, an encoded `/` or `\`, or one
// of these left by double encoding) never names anything, so it answers OUTPUT_NOT_AVAILABLE.
// Routes then match the decoded segments against what the manifests declare, never
// against the file system.
import { decodedSegmentNamesNothing } from '../workspace/paths.js';
import { ServiceError } from './errors.js';

export type OutputKind = 'modules' | 'styles' | 'assets';

export interface Address {
  kind: OutputKind;
  packageName: string;
  version: string;
  /** The decoded segments after the kind: the subpath (and, for assets, the file). */
  segments: string[];
}

const KINDS: readonly OutputKind[] = ['modules', 'styles', 'assets'];

/**
 * One segment of an address, decoded once (the local CDN's too, README "The local CDN"): one
 * that is empty, `.` or `..`, or holds a separator after decoding, or would once decoded again
 * (`decodedSegmentNamesNothing`), names nothing; a `%` alone is a file name's (`a%2520b.svg`),
 * and is refused with `namesNothing`, the message of the address family.
 */
export function decodeSegment(raw: string, shown: string, namesNothing: string): string {
  let segment: string;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    throw new ServiceError('REQUEST_INVALID', `the address ${shown} holds malformed percent-encoding`);
  }
  if (decodedSegmentNamesNothing(segment)) throw new ServiceError('OUTPUT_NOT_AVAILABLE', namesNothing);
  return segment;
}

/** `<package>@<version>` at the start of decoded segments (a scoped name takes two), and the segments after; null when there is no such start. */
export function splitNameAtVersion(segments: readonly string[]): { nameAtVersion: string; packageName: string; version: string; rest: string[] } | null {
  const scoped = segments[0]?.startsWith('@') ?? false;
  const nameAtVersion = scoped ? `${segments[0]}/${segments[1] ?? ''}` : (segments[0] ?? '');
  const at = nameAtVersion.lastIndexOf('@');
  if (at <= 0 || at === nameAtVersion.length - 1) return null;
  return { nameAtVersion, packageName: nameAtVersion.slice(0, at), version: nameAtVersion.slice(at + 1), rest: segments.slice(scoped ? 2 : 1) };
}

export function parseAddress(path: string): Address {
  const shown = path.length > 300 ? `${path.slice(0, 300)}…` : path;
  const raw = path.split('/').slice(2); // '', 'm', ...
  const segments = raw.map((segment) => decodeSegment(segment, shown, `${shown} does not name an output: its path leaves the module or hides a separator`));
  const split = splitNameAtVersion(segments);
  if (!split) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} does not name an output: addresses are /m/<package>@<version>/(modules|styles|assets)/<subpath>`);
  }
  const { nameAtVersion, packageName, version, rest } = split;
  const kind = rest[0] as OutputKind | undefined;
  if (!kind || !KINDS.includes(kind) || rest.length < 2) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} does not name an output: after ${nameAtVersion} comes modules/, styles/ or assets/ and a subpath`);
  }
  return { kind, packageName, version, segments: rest.slice(1) };
}
