// Compiled outputs by content hash. Events and state carry hashes only (README "The event log, replay and state subscription"); the
// bytes live here, shared by every variant and request that produced the same content.
import { contentHash, outputHash } from './content-hash.js';
import type { OutputRef } from '../store/events.js';

export interface OutputCache {
  /** Keeps a copy of `content`. */
  put(content: Uint8Array): OutputRef;
  /** Keeps `content` itself, a view included: the outputs the build cache restores share its one read. */
  adopt(content: Buffer): OutputRef;
  /**
   * `adopt`, for bytes the caller has just checked to have the content hash `hash` (a team cache's
   * blob, hashed once against its name, whose first bits are its content hash: README "A team's remote cache").
   */
  adoptChecked(content: Buffer, hash: string): OutputRef;
  get(hash: string): Buffer | undefined;
  /** Forgets every output whose hash is not in `keep`. */
  retain(keep: ReadonlySet<string>): number;
  readonly size: number;
}

export function createOutputCache(): OutputCache {
  const outputs = new Map<string, Buffer>();
  function hold(content: Uint8Array, kept: () => Buffer, hash = contentHash(content)): OutputRef {
    if (!outputs.has(hash)) outputs.set(hash, kept());
    return { hash, size: content.byteLength };
  }
  return {
    // A copy: a view would keep the bundler's whole response buffer alive.
    put: (content) => hold(content, () => Buffer.from(content), outputHash(content)),
    adopt: (content) => hold(content, () => content),
    adoptChecked: (content, hash) => hold(content, () => content, hash),
    get: (hash) => outputs.get(hash),
    retain(keep) {
      let dropped = 0;
      for (const hash of outputs.keys()) {
        if (!keep.has(hash)) {
          outputs.delete(hash);
          dropped += 1;
        }
      }
      return dropped;
    },
    get size() {
      return outputs.size;
    },
  };
}
