// Content hashes: the identity of outputs (ETags, the output cache) and of source files.
import { createHash } from 'node:crypto';

/** 128 bits of SHA-256, base64url: collision-free in practice, short in headers and logs. */
export const contentHash = (content: string | Uint8Array): string => createHash('sha256').update(content).digest('base64url').slice(0, 22);

/** Something shaped as a content hash: a `v` token of an address (the ETag value), a name in the build cache. */
export const isContentHash = (token: unknown): token is string => typeof token === 'string' && /^[A-Za-z0-9_-]{22}$/.test(token);
