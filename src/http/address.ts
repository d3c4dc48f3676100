// Parsing `/m/<package>@<version>/<kind>/<rest>` (README "Addresses"). Every segment is decoded
// once; one that could climb or hide a separator (`.`, `..`, an encoded `/` or `\`, a `%`
// left by double encoding) never names anything, so it answers OUTPUT_NOT_AVAILABLE.
// Routes then match the decoded segments against what the manifests declare, never
// against the file system.
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

function decodeSegment(raw: string, path: string): string {
  let segment: string;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    throw new ServiceError('REQUEST_INVALID', `the address ${path} holds malformed percent-encoding`);
  }
  if (segment === '' || segment === '.' || segment === '..' || /[/\\%\0]/.test(segment)) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${path} does not name an output: its path leaves the module or hides a separator`);
  }
  return segment;
}

export function parseAddress(path: string): Address {
  const shown = path.length > 300 ? `${path.slice(0, 300)}…` : path;
  const raw = path.split('/').slice(2); // '', 'm', ...
  const segments = raw.map((segment) => decodeSegment(segment, shown));
  const scoped = segments[0]?.startsWith('@') ?? false;
  const nameAtVersion = scoped ? `${segments[0]}/${segments[1] ?? ''}` : segments[0] ?? '';
  const at = nameAtVersion.lastIndexOf('@');
  if (at <= 0 || at === nameAtVersion.length - 1) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} does not name an output: addresses are /m/<package>@<version>/(modules|styles|assets)/<subpath>`);
  }
  const rest = segments.slice(scoped ? 2 : 1);
  const kind = rest[0] as OutputKind | undefined;
  if (!kind || !KINDS.includes(kind) || rest.length < 2) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown} does not name an output: after ${nameAtVersion} comes modules/, styles/ or assets/ and a subpath`);
  }
  return { kind, packageName: nameAtVersion.slice(0, at), version: nameAtVersion.slice(at + 1), segments: rest.slice(1) };
}
