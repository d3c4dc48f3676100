// `core.json`: the packages of the workspace and the module the preview opens by default.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { validate as validateCoreSchema } from './generated/core-schema.js';
import { describeType, isObject, parseJson } from './json.js';
import { normalizeRelative } from './paths.js';
import { isRefused, schemaProblems, wordProblems, type MemberMessage, type SchemaValidator, type WordedProblem } from './schema-problems.js';

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

export interface ManifestResult<T> {
  /** null when the manifest cannot be used at all. */
  value: T | null;
  diagnostics: Diagnostic[];
}

/**
 * `realPath`: where a listed directory really is (workspace-relative; null when absent or
 * outside), so a link to a listed directory is that directory listed twice (README "Links and
 * large trees": the walk goes by the real directory), not a second package of its name.
 */
export function parseWorkspaceManifest(text: string, file = 'core.json', realPath?: (dir: string) => string | null): ManifestResult<WorkspaceManifest> {
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value: null, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  const problems = wordProblems(json, schemaProblems(validateCoreSchema as SchemaValidator, json), CORE_MESSAGES);
  const told = ({ path, message }: WordedProblem) => manifestInvalid(file, path.length === 0 ? `${file} ${message}` : `${file}: ${message}`);
  // Without its packages the workspace has nothing to serve: that alone is told.
  const unusable = problems.find(({ path }) => path.length === 0 || (path.length === 1 && path[0] === 'packages'));
  if (unusable || !isObject(json)) return { value: null, diagnostics: unusable ? [told(unusable)] : [] };
  const packages: string[] = [];
  const listedAt = new Map<string, { index: number; entry: string }>();
  (json.packages as unknown[]).forEach((entry, index) => {
    if (isRefused(problems, 'packages', String(index))) return;
    // The schema takes relative paths without ".." segments; one directory written two ways it cannot see.
    const dir = normalizeRelative(entry as string) ?? (entry as string);
    const real = realPath?.(dir) ?? dir;
    const first = listedAt.get(dir) ?? listedAt.get(real);
    if (first === undefined) {
      packages.push(dir);
      listedAt.set(dir, { index, entry: entry as string }).set(real, { index, entry: entry as string });
    } else if (packages.includes(dir)) problems.push({ path: ['packages', String(index)], message: `packages[${index}] "${entry as string}" is listed twice` });
    else problems.push({ path: ['packages', String(index)], message: `packages[${index}] "${entry as string}" is listed twice: it and packages[${first.index}] "${first.entry}" are one directory (${real}), one of them reached through a symbolic link` });
  });
  const remoteProblem = isObject(json.remoteCache) && !isRefused(problems, 'remoteCache') ? remoteCacheProblem(json.remoteCache) : null;
  if (remoteProblem !== null) problems.push({ path: ['remoteCache'], message: `"remoteCache" ${remoteProblem}` });
  const preview = json.preview !== undefined && !isRefused(problems, 'preview') ? (json.preview as string) : null;
  const remoteCache = json.remoteCache !== undefined && !isRefused(problems, 'remoteCache') ? remoteCacheDeclaration(json.remoteCache as RemoteCacheDeclaration) : undefined;
  return { value: { packages, preview, ...(remoteCache ? { remoteCache } : {}) }, diagnostics: problems.map(told) };
}

const REMOTE_CACHE_URL = '.url must be an http or https address';
const REMOTE_CACHE_PUBLIC_KEY = '.publicKey must be an Ed25519 public key (PEM, or base64 of its DER)';
const describeString = (value: unknown) => (typeof value === 'string' ? `"${value}"` : describeType(value));

// The messages users see, by member; schemas/core.schema.json says what is refused. A
// declaration of the remote cache that cannot be used is told and leaves the workspace without
// one: the modules are then built here, never fetched from a place the manifest did not mean.
const CORE_MESSAGES: MemberMessage[] = [
  { at: '', message: (value) => `must hold an object; it holds ${describeType(value)}` },
  { at: '$schema', message: (value) => `"$schema" must be the address of a JSON Schema; it is ${describeType(value)}` },
  { at: 'packages', message: (value) => `"packages" must be an array of package directories; it is ${describeType(value)}` },
  // Told with the directories written two ways, which the schema cannot see.
  { at: 'packages', keyword: 'uniqueItems', message: () => null },
  {
    at: 'packages/*',
    message: (entry, [index]) =>
      typeof entry !== 'string' || entry.trim() === '' ? `packages[${index}] must be a directory name; it is ${describeType(entry)}` : `packages[${index}] "${entry}" must be a directory inside the workspace`,
  },
  { at: 'preview', message: (value) => `"preview" must be a module specifier such as "@acme/app/main"; it is ${describeType(value)}` },
  { at: 'remoteCache', message: (value) => `"remoteCache" must be an object such as {"url": "https://cache.example.com"}; it is ${describeType(value)}` },
  { at: 'remoteCache/url', message: (url) => `"remoteCache" ${remoteCacheUrlText(url, remoteCacheAddressProblem(url))}` },
  { at: 'remoteCache/instance', message: () => `"remoteCache" .instance must be a path of letters, digits, ".", "_" and "-" segments, such as "main"` },
  { at: 'remoteCache/publicKey', message: () => `"remoteCache" ${REMOTE_CACHE_PUBLIC_KEY}` },
];

const CREDENTIAL = '.url must not hold a credential: give it in CORE_REMOTE_CACHE_HEADER, which is never read from a file';

/**
 * The one rule of a team cache's address (core.json's, and CORE_REMOTE_CACHE's in
 * src/io/remote-cache/settings.ts): a credential is refused first, whatever the scheme (it must
 * never sit in a file), then anything but an http or https address, then a query string or a
 * fragment: the cache's addresses are the address's path and `ac/...`, `cas/...` under it, so
 * either would be dropped without a word (a `?token=` that never reaches the server).
 */
export function remoteCacheAddressProblem(url: unknown): 'credential' | 'not-http' | 'query' | null {
  const address = typeof url === 'string' && URL.canParse(url) ? new URL(url) : null;
  if (address && (address.username || address.password)) return 'credential';
  if (!address || (address.protocol !== 'http:' && address.protocol !== 'https:')) return 'not-http';
  return /[?#]/.test(url as string) ? 'query' : null;
}

/** A team cache's address as messages show it: a credential or a token it holds (user and password, query, fragment) replaced by "…", never echoed to a terminal or log. */
export const shownRemoteCacheAddress = (url: string): string => url.replace(/([?#]).*$/s, '$1…').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1…@');

const QUERY = ".url must hold no query string or fragment: the team cache's addresses are its path and what follows it, so they would be dropped; give a token in CORE_REMOTE_CACHE_HEADER";

/** Why core.json's `remoteCache.url` cannot be used. */
function remoteCacheUrlText(url: unknown, problem: 'credential' | 'not-http' | 'query' | null): string {
  if (problem === 'credential') return CREDENTIAL;
  if (problem === 'query') return `${QUERY}; it is "${shownRemoteCacheAddress(url as string)}"`;
  return `${REMOTE_CACHE_URL}; it is ${describeString(url)}`;
}

/** What the schema cannot state of a remote cache it took: an address that parses, a key that is not blank. */
function remoteCacheProblem({ url, publicKey }: Record<string, unknown>): string | null {
  const problem = remoteCacheAddressProblem(url);
  if (problem) return remoteCacheUrlText(url, problem);
  if (typeof publicKey === 'string' && publicKey.trim() === '') return REMOTE_CACHE_PUBLIC_KEY;
  return null;
}

const remoteCacheDeclaration = ({ url, instance, publicKey }: RemoteCacheDeclaration): RemoteCacheDeclaration => ({
  url,
  ...(instance !== undefined ? { instance } : {}),
  ...(publicKey !== undefined ? { publicKey } : {}),
});
