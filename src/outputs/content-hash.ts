// Content hashes: the identity of outputs (ETags, the output cache) and of source files.
import { hash } from 'node:crypto';

/** The first 22 base64url characters of the SHA-256. */
const CONTENT_HASH_LENGTH = 22;

/**
 * 128 bits of SHA-256, base64url: collision-free in practice, short in headers and logs.
 * Node's one-shot hash: no Hash object per call (a restart hashes its 2,000 outputs in ~5 ms
 * instead of ~9).
 */
export const contentHash = (content: string | Uint8Array): string => hash('sha256', content, 'base64url').slice(0, CONTENT_HASH_LENGTH);

// A build's code is hashed by the engine (the code its last build gave) and again when the
// output cache keeps it: the second takes the first's hash. By the object, so only for bytes
// nobody writes after they are made (a bundler's outputs); forgotten with them.
const outputHashes = new WeakMap<Uint8Array, string>();

/** `contentHash` of a bundler's output, hashed once however many times it is asked. */
export function outputHash(content: Uint8Array): string {
  let hash = outputHashes.get(content);
  if (hash === undefined) outputHashes.set(content, (hash = contentHash(content)));
  return hash;
}

/**
 * The content hash of bytes whose SHA-256 is `digestHex` (64 hex digits), as a blob of the team
 * cache is named: bytes checked against that name need no second hash (README "A team's remote cache").
 */
export const contentHashOfSha256 = (digestHex: string): string =>
  // 22 base64url characters are 132 bits: the first 33 hex digits (34 taken: whole bytes).
  Buffer.from(digestHex.slice(0, 34), 'hex').toString('base64url').slice(0, CONTENT_HASH_LENGTH);

const CONTENT_HASH = new RegExp(`^[A-Za-z0-9_-]{${CONTENT_HASH_LENGTH}}$`);

/** Something shaped as a content hash: a `v` token of an address (the ETag value), a name in the build cache. */
export const isContentHash = (token: unknown): token is string => typeof token === 'string' && CONTENT_HASH.test(token);
