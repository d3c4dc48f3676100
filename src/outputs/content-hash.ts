// Content hashes: the identity of outputs (ETags, the output cache) and of source files.
import { createHash } from 'node:crypto';

/** 128 bits of SHA-256, base64url: collision-free in practice, short in headers and logs. */
export const contentHash = (content: string | Uint8Array): string => createHash('sha256').update(content).digest('base64url').slice(0, 22);
