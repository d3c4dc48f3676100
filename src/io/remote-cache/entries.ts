// What the remote cache holds (README "A team's remote cache"): the keys, known before any build,
// and the entries, signed when the workspace says so.
//
// A module variant's key is the SHA-256 of what the local cache keys an entry by, less the inputs
// (known only once built): the module and its declaration, the variant, the workspace's
// boundaries, and the versions of the service, esbuild and the built-in bundlers. Its entry holds
// the build record, inputs and their hashes included, which the reader checks against its own
// disk as a local entry is checked. The workspace's key is the hash of all its modules' keys; its
// entry holds each module's entry itself (or, past a bound, names it by the SHA-256 of its bytes,
// kept in `cas/` too), so that a fresh machine asks one question first and parses one entry, not
// one per module.
//
// An entry on the server is `{"payload":<JSON>,"signature":"<base64>"}`, written as those very
// bytes: the signature (Ed25519) is over the payload's own bytes, so no canonical form of JSON is
// needed, and the payload is parsed once, where a payload kept as a JSON string in the envelope
// was parsed twice (ARCHITECTURE.md "The team's remote cache").
import crypto from 'node:crypto';
import { isContentHash } from '../../outputs/content-hash.js';
import { workspaceBoundaries } from '../../workspace/boundaries.js';
import { bundlerKey, type ModuleModel, type WorkspaceModel } from '../../workspace/model.js';
import { fingerprintOf } from '../../store/reducer.js';
import type { CacheEntry, CacheIdentity } from '../cache-index.js';

/** Bumped whenever what an entry means changes: keys of another format never meet. */
export const REMOTE_FORMAT = 7;

// Node's one-shot hash: no Hash object per call (a team start checks 1,000 entries and the pack).
export const sha256Hex = (bytes: string | Uint8Array): string => crypto.hash('sha256', bytes, 'hex');

export const isDigest = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

export function moduleKey(module: ModuleModel, variant: string, workspace: WorkspaceModel, identity: CacheIdentity): string {
  return sha256Hex(JSON.stringify(['module', REMOTE_FORMAT, identity.service, identity.esbuild, identity.bundlers, module.specifier, variant, fingerprintOf(module), bundlerKey(module.bundler), boundariesDigest(workspace)]));
}

// The boundaries are the whole workspace's: hashed once per model (models are immutable), not
// written out again into every module's key (1,000 modules made that 1,000 times 1,000 entries).
const boundaryDigests = new WeakMap<WorkspaceModel, string>();
function boundariesDigest(workspace: WorkspaceModel): string {
  let digest = boundaryDigests.get(workspace);
  if (digest === undefined) {
    const { entries, packages } = workspaceBoundaries(workspace);
    boundaryDigests.set(workspace, (digest = sha256Hex(JSON.stringify([entries, packages]))));
  }
  return digest;
}

export const workspaceKey = (moduleKeys: readonly string[]): string => sha256Hex(JSON.stringify(['workspace', REMOTE_FORMAT, [...moduleKeys].sort()]));

/** A module variant's entry: the local cache's entry (stats aside) and the SHA-256 of each output. */
export interface ModuleEntry {
  format: typeof REMOTE_FORMAT;
  key: string;
  entry: Omit<CacheEntry, 'signatures'>;
  /** By output content hash: the blob's name in `cas/`. */
  blobs: Record<string, string>;
}

/** The workspace's entry: each module key's entry, held here or named by the SHA-256 of its bytes in `cas/`. */
export interface WorkspaceEntry {
  format: typeof REMOTE_FORMAT;
  key: string;
  /** By module key, the entries held here: their payloads (`ModuleEntry`, judged as such when read), covered by this entry's signature. */
  entries?: Record<string, unknown>;
  /** By module key, the digest of each entry not held here. */
  modules: Record<string, string>;
  /** The SHA-256 of the pack holding the outputs of those entries, and the entries named by digest (`pack.ts`); absent when too large. */
  pack?: string;
}

/** Module entries are held in the workspace's entry below this many bytes of them (the client takes bodies of 64 MiB at most). */
export const MAX_HELD_ENTRIES_BYTES = 16 * 1024 * 1024;

const PAYLOAD_PREFIX = '{"payload":';
const SIGNATURE_MEMBER = ',"signature":"';

/** The bytes kept on the server for `payload`, signed with `signingKey` when given. */
export function sealEntry(payload: ModuleEntry | WorkspaceEntry | { format: typeof REMOTE_FORMAT; kind: 'model' }, signingKey: crypto.KeyObject | null): Buffer {
  const text = JSON.stringify(payload);
  const signature = signingKey ? crypto.sign(null, Buffer.from(text), signingKey).toString('base64') : null;
  return Buffer.from(`${PAYLOAD_PREFIX}${text}${signature ? `${SIGNATURE_MEMBER}${signature}"` : ''}}`);
}

export type EntryProblem = 'not-json' | 'unsigned' | 'bad-signature' | 'wrong-shape';

/** The payload of entry bytes, signature checked against `publicKey` when one is configured. */
export function openEntry(bytes: Buffer, publicKey: crypto.KeyObject | null): { payload: unknown } | { problem: EntryProblem } {
  const sealed = splitEntry(bytes);
  if (!sealed) return { problem: 'not-json' };
  let payload: unknown;
  try {
    payload = JSON.parse(sealed.payload.toString('utf8'));
  } catch {
    return { problem: 'not-json' };
  }
  if (!isRecord(payload)) return { problem: 'wrong-shape' };
  if (publicKey) {
    if (sealed.signature === null) return { problem: 'unsigned' };
    if (!crypto.verify(null, sealed.payload, publicKey, Buffer.from(sealed.signature, 'base64'))) return { problem: 'bad-signature' };
  }
  return { payload };
}

// The payload is an object, so it ends in `}`: an entry ending in `"}` is signed, its signature
// (base64, never a quote) the last member; one ending in `}}` is not.
function splitEntry(bytes: Buffer): { payload: Buffer; signature: string | null } | null {
  if (bytes.length < PAYLOAD_PREFIX.length + 1 || bytes.toString('latin1', 0, PAYLOAD_PREFIX.length) !== PAYLOAD_PREFIX || bytes.at(-1) !== CLOSING_BRACE) return null;
  const member = bytes.lastIndexOf(SIGNATURE_MEMBER);
  if (bytes.at(-2) === QUOTE && member > PAYLOAD_PREFIX.length) {
    const signature = bytes.toString('latin1', member + SIGNATURE_MEMBER.length, bytes.length - 2);
    if (/^[A-Za-z0-9+/]*={0,2}$/.test(signature)) return { payload: bytes.subarray(PAYLOAD_PREFIX.length, member), signature };
  }
  return { payload: bytes.subarray(PAYLOAD_PREFIX.length, -1), signature: null };
}

const CLOSING_BRACE = 0x7d;
const QUOTE = 0x22;

/** A part of the workspace's pack, only when its bytes are what its digest says (README "A team's remote cache"). */
export function packedPart(packed: ReadonlyMap<string, Buffer>, digest: string): Buffer | undefined {
  const bytes = packed.get(digest);
  return bytes && sha256Hex(bytes) === digest ? bytes : undefined;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The module entry's own members; its `entry` is judged by the local cache's checker. */
export const isModuleEntry = (value: unknown, key: string): value is ModuleEntry =>
  isRecord(value) && value.format === REMOTE_FORMAT && value.key === key && isRecord(value.entry) && isRecord(value.blobs) && Object.entries(value.blobs).every(([hash, digest]) => isContentHash(hash) && isDigest(digest));

export const isWorkspaceEntry = (value: unknown, key: string): value is WorkspaceEntry =>
  isRecord(value) &&
  value.format === REMOTE_FORMAT &&
  value.key === key &&
  isRecord(value.modules) &&
  Object.entries(value.modules).every(([module, digest]) => isDigest(module) && isDigest(digest)) &&
  // Each entry held is judged as the module's own entry would be (`isModuleEntry`), when its module is asked for.
  (value.entries === undefined || isRecord(value.entries)) &&
  (value.pack === undefined || isDigest(value.pack));
