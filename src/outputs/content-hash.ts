// Content hashes: the identity of outputs (ETags, the output cache) and of source files.
import { hash } from 'node:crypto';

/**
 * 128 bits of SHA-256, base64url: collision-free in practice, short in headers and logs.
 * Node's one-shot hash: no Hash object per call (a restart hashes its 2,000 outputs in ~5 ms
 * instead of ~9).
 */
export const contentHash = (content: string | Uint8Array): string => hash('sha256', content, 'base64url').slice(0, 22);

/** Something shaped as a content hash: a `v` token of an address (the ETag value), a name in the build cache. */
export const isContentHash = (token: unknown): token is string => typeof token === 'string' && /^[A-Za-z0-9_-]{22}$/.test(token);
