// `core.json`: the packages of the workspace and the module the preview opens by default.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { describeType, isObject, parseJson } from './json.js';
import { isInside, normalizeRelative } from './paths.js';

export interface WorkspaceManifest {
  packages: string[];
  preview: string | null;
  /** The team's remote build cache (README "A team's remote cache"); absent: none. */
  remoteCache?: RemoteCacheDeclaration;
}

export interface RemoteCacheDeclaration {
  /** http(s) address of a Bazel HTTP remote cache, without a credential. */
  url: string;
  /** A path prefix that selects one cache of the server: segments of letters, digits, `.`, `_`, `-`. */
  instance?: string;
  /** The Ed25519 public key entries must be signed with (PEM, or base64 of its SPKI DER). */
  publicKey?: string;
}

const INSTANCE = /^(?!\.{1,2}(?:\/|$))[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

export interface ManifestResult<T> {
  /** null when the manifest cannot be used at all. */
  value: T | null;
  diagnostics: Diagnostic[];
}

export function parseWorkspaceManifest(text: string, file = 'core.json'): ManifestResult<WorkspaceManifest> {
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value: null, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  if (!isObject(json)) return { value: null, diagnostics: [manifestInvalid(file, `${file} must hold an object; it holds ${describeType(json)}`)] };
  const diagnostics: Diagnostic[] = [];
  // `$schema` points editors at schemas/core.schema.json; the service only checks its type.
  if (json.$schema !== undefined && typeof json.$schema !== 'string') {
    diagnostics.push(manifestInvalid(file, `${file}: "$schema" must be the address of a JSON Schema; it is ${describeType(json.$schema)}`));
  }
  if (!Array.isArray(json.packages)) {
    return { value: null, diagnostics: [manifestInvalid(file, `${file}: "packages" must be an array of package directories; it is ${describeType(json.packages)}`)] };
  }
  const packages: string[] = [];
  json.packages.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.trim() === '') {
      diagnostics.push(manifestInvalid(file, `${file}: packages[${index}] must be a directory name; it is ${describeType(entry)}`));
      return;
    }
    const dir = normalizeRelative(entry);
    if (dir === null || !isInside(dir)) {
      diagnostics.push(manifestInvalid(file, `${file}: packages[${index}] "${entry}" must be a directory inside the workspace`));
      return;
    }
    if (packages.includes(dir)) {
      diagnostics.push(manifestInvalid(file, `${file}: packages[${index}] "${entry}" is listed twice`));
      return;
    }
    packages.push(dir);
  });
  let preview: string | null = null;
  if (json.preview !== undefined) {
    if (typeof json.preview === 'string' && json.preview !== '') preview = json.preview;
    else diagnostics.push(manifestInvalid(file, `${file}: "preview" must be a module specifier such as "@acme/app/main"; it is ${describeType(json.preview)}`));
  }
  const remoteCache = json.remoteCache === undefined ? undefined : parseRemoteCache(json.remoteCache, file, diagnostics);
  return { value: { packages, preview, ...(remoteCache ? { remoteCache } : {}) }, diagnostics };
}

// A declaration that cannot be used is told and leaves the workspace without a remote cache:
// the modules are then built here, never fetched from a place the manifest did not mean.
function parseRemoteCache(value: unknown, file: string, diagnostics: Diagnostic[]): RemoteCacheDeclaration | undefined {
  const invalid = (message: string) => void diagnostics.push(manifestInvalid(file, `${file}: "remoteCache" ${message}`));
  if (!isObject(value)) return invalid(`must be an object such as {"url": "https://cache.example.com"}; it is ${describeType(value)}`);
  const { url, instance, publicKey } = value;
  const address = typeof url === 'string' && URL.canParse(url) ? new URL(url) : null;
  if (!address || (address.protocol !== 'http:' && address.protocol !== 'https:')) return invalid(`.url must be an http or https address; it is ${typeof url === 'string' ? `"${url}"` : describeType(url)}`);
  if (address.username || address.password) return invalid('.url must not hold a credential: give it in CORE_REMOTE_CACHE_HEADER, which is never read from a file');
  if (instance !== undefined && (typeof instance !== 'string' || !INSTANCE.test(instance))) return invalid('.instance must be a path of letters, digits, ".", "_" and "-" segments, such as "main"');
  if (publicKey !== undefined && (typeof publicKey !== 'string' || publicKey.trim() === '')) return invalid('.publicKey must be an Ed25519 public key (PEM, or base64 of its DER)');
  return { url, ...(instance !== undefined ? { instance } : {}), ...(publicKey !== undefined ? { publicKey } : {}) } as RemoteCacheDeclaration;
}
