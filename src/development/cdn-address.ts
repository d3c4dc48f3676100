// Parsing `/cdn/<package>@<version>[/<subpath>]` (README "The local CDN"). Each segment is
// decoded once by the rule of every address (`decodeSegment`, src/http/address.ts): one address
// has one spelling, up to percent-encoding, which decodes to the same name. The name must be a
// package name by npm's rules and the version an exact version before anything looks for them
// on disk.
import { decodeSegment, splitNameAtVersion } from '../http/address.js';
import { ServiceError } from '../http/errors.js';
import { isExactVersion, isPackageName } from '../workspace/package-name.js';

export interface CdnAddress {
  name: string;
  version: string;
  /** The decoded segments after `<package>@<version>`, joined by `/`; '' for the root. */
  subpath: string;
}

const USAGE = 'local CDN addresses are /cdn/<package>@<version>[/<subpath>], with a package name npm accepts, an exact version, and no empty, `.` or `..` segment';

/** `rest`: the path after `/cdn/`, as requested (not decoded). */
export function parseCdnAddress(rest: string): CdnAddress {
  const shown = rest.length > 300 ? `/cdn/${rest.slice(0, 300)}…` : `/cdn/${rest}`;
  const segments = rest.split('/').map((raw) => decodeSegment(raw, shown, `${shown} names nothing: ${USAGE}`));
  const split = splitNameAtVersion(segments);
  if (!split || !isPackageName(split.packageName) || !isExactVersion(split.version)) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} names no package: ${USAGE}`);
  const { packageName: name, version } = split;
  return { name, version, subpath: split.rest.join('/') };
}
