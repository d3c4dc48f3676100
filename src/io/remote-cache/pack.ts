// The workspace's pack (README "A team's remote cache"): every blob a start of the workspace
// needs (each module variant's entry and its outputs) in one blob of `cas/`, named by its
// SHA-256 like any other, which the workspace's entry names. A fresh machine then asks two
// questions, not three per module. What a pack holds is trusted no more than a blob asked for
// alone: the reader checks every part against its own digest (`restore.ts`).
//
// Layout: a 4-byte big-endian length, that many bytes of JSON `[[digest, size], ...]`, then the
// parts in that order.

/** A pack is written only below this size: the client takes bodies of 64 MiB at most. */
export const MAX_PACK_BYTES = 48 * 1024 * 1024;

export function writePack(parts: ReadonlyMap<string, Buffer>): Buffer | null {
  const index = [...parts].map(([digest, bytes]) => [digest, bytes.length] as const);
  const head = Buffer.from(JSON.stringify(index));
  const size = 4 + head.length + index.reduce((sum, [, length]) => sum + length, 0);
  if (size > MAX_PACK_BYTES) return null;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, ...parts.values()], size);
}

/** The parts of a pack by digest (each still to be checked against it), or null when it is not one. */
export function readPack(pack: Buffer): Map<string, Buffer> | null {
  if (pack.length < 4) return null;
  const headLength = pack.readUInt32BE(0);
  if (4 + headLength > pack.length) return null;
  let index: unknown;
  try {
    index = JSON.parse(pack.subarray(4, 4 + headLength).toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(index)) return null;
  const parts = new Map<string, Buffer>();
  let at = 4 + headLength;
  for (const item of index) {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || !Number.isSafeInteger(item[1]) || item[1] < 0 || at + item[1] > pack.length) return null;
    parts.set(item[0], pack.subarray(at, at + item[1]));
    at += item[1];
  }
  return at === pack.length ? parts : null;
}
