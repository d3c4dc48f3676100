// Parsing `/cdn/<package>@<version>[/<subpath>]` (README "The local CDN"). Each segment is
// decoded once; one that is empty (a repeated `/`), `.` or `..`, or that still holds a
// separator or `%` after decoding never names anything: one address has one spelling, up to
// percent-encoding, which decodes to the same name. The name must be a package name by npm's
// rules and the version an exact version before anything looks for them on disk.
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
  const segments = rest.split('/').map((raw) => {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      throw new ServiceError('REQUEST_INVALID', `the address ${shown} holds malformed percent-encoding`);
    }
    if (segment === '' || segment === '.' || segment === '..' || /[/\\%\0]/.test(segment)) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} names nothing: ${USAGE}`);
    return segment;
  });
  const scoped = segments[0]!.startsWith('@');
  const nameAtVersion = scoped ? `${segments[0]}/${segments[1] ?? ''}` : segments[0]!;
  const at = nameAtVersion.lastIndexOf('@');
  const name = nameAtVersion.slice(0, Math.max(at, 0));
  const version = nameAtVersion.slice(at + 1);
  if (at <= 0 || !isPackageName(name) || !isExactVersion(version)) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} names no package: ${USAGE}`);
  return { name, version, subpath: segments.slice(scoped ? 2 : 1).join('/') };
}
