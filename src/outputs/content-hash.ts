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

/**
 * The content hash of bytes whose SHA-256 is `digestHex` (64 hex digits), as a blob of the team
 * cache is named: bytes checked against that name need no second hash (README "A team's remote cache").
 */
export function contentHashOfSha256(digestHex: string): string {
  // Three hex digits are two base64url characters: the 22 of a content hash are the first 33
  // digits, mapped here without a Buffer per call (a team start names 2,000 outputs, twice each).
  let hash = '';
  for (let at = 0; at < CONTENT_HASH_LENGTH * 1.5; at += 3) {
    const bits = (hexValue(digestHex.charCodeAt(at)) << 8) | (hexValue(digestHex.charCodeAt(at + 1)) << 4) | hexValue(digestHex.charCodeAt(at + 2));
    hash += BASE64URL[bits >> 6]! + BASE64URL[bits & 63]!;
  }
  return hash;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
// A digit's value: '0'-'9' are 48-57, 'a'-'f' 97-102 ('A'-'F' folded to them).
const hexValue = (code: number): number => (code <= 57 ? code - 48 : (code | 32) - 87);

const CONTENT_HASH = new RegExp(`^[A-Za-z0-9_-]{${CONTENT_HASH_LENGTH}}$`);

/** Something shaped as a content hash: a `v` token of an address (the ETag value), a name in the build cache. */
export const isContentHash = (token: unknown): token is string => typeof token === 'string' && CONTENT_HASH.test(token);
