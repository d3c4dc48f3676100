// Writing the team's remote cache (README "A team's remote cache"), only ever where writing was
// asked for (`core cache push`, meant for CI on a protected branch): every output's bytes first
// (`cas/`, with the entries' bytes when the workspace's entry is too large to hold them), then
// each module variant's entry (`ac/`), the workspace's entry last, so that no entry a reader
// finds names what is not there yet; then the workspace model's entry (`uploadModel`). A refusal (401, 403: a read-only endpoint) ends the upload
// at once, told once, never retried.
import type { KeyObject } from 'node:crypto';
import type { OutputCache } from '../../outputs/output-cache.js';
import { findingsOf, UNVERIFIED, type OutputRef } from '../../store/events.js';
import { fingerprintOf } from '../../store/reducer.js';
import { selectSharedFileCopies } from '../../store/selectors.js';
import type { ServiceState } from '../../store/state.js';
import { workspaceBoundaries } from '../../workspace/boundaries.js';
import { bundlerKey } from '../../workspace/model.js';
import { arePlainPaths, type CacheIdentity } from '../cache-index.js';
import type { FailureKind, RemoteClient, Store } from './client.js';
import { MAX_HELD_ENTRIES_BYTES, moduleKey, REMOTE_FORMAT, sealEntry, sha256Hex, workspaceKey, type ModuleEntry } from './entries.js';
import { writePack } from './pack.js';
import { runLimited } from '../run-limited.js';
import type { WantedVariant } from './restore.js';
import { modelKey, type ModelEntry, type ModelIdentity } from './model-entry.js';
import type { ReadLinks } from '../read-links.js';
import type { WorkspaceModel } from '../../workspace/model.js';
import { WORKSPACE_MANIFEST } from '../../workspace/read-workspace.js';

export interface UploadResult {
  /** Module variants whose entry was stored. */
  entries: number;
  /** Blobs stored: outputs, the pack, and the entries the workspace's entry does not hold. */
  blobs: number;
  bytes: number;
  /** Module variants not uploaded: not built, failed, or read a file outside the workspace. */
  skipped: number;
  /** Why the upload stopped short, if it did. */
  stopped?: FailureKind;
  /** The workspace model's entry was stored (`uploadModel`). */
  model?: true;
}

export interface UploadDeps {
  client: RemoteClient;
  identity: CacheIdentity;
  outputs: OutputCache;
  signingKey: KeyObject | null;
  /** The most bytes of module entries the workspace's entry holds (default `MAX_HELD_ENTRIES_BYTES`). */
  maxHeldBytes?: number;
}

/** Uploads the builds of `variants` from `state`; `start`: the variants a start builds, whose keys name the workspace's entry. */
export async function uploadBuilds(state: ServiceState, variants: readonly WantedVariant[], start: readonly WantedVariant[], deps: UploadDeps): Promise<UploadResult> {
  const { client } = deps;
  const workspace = state.workspace;
  const boundaries = workspaceBoundaries(workspace).key;
  const blobs = new Map<string, Buffer>();
  const entries = new Map<string, Buffer>();
  const payloads = new Map<string, ModuleEntry>();
  /** By module key, the digests of the outputs its entry names: what the pack holds for it. */
  const outputsOf = new Map<string, string[]>();
  const result: UploadResult = { entries: 0, blobs: 0, bytes: 0, skipped: 0 };
  // A build holding a copy of a shared file is about to be replaced (README "Shared files"): not a build to share.
  const copies = new Set(selectSharedFileCopies(state).map((copy) => `${copy.variant} ${copy.module}`));
  for (const { module, variant } of variants) {
    const record = copies.has(`${variant} ${module.specifier}`) ? undefined : state.builds[module.specifier]?.variants[variant]?.last;
    const refs = record?.outputs ? [record.outputs.code, record.outputs.styles, ...Object.values(record.outputs.chunks ?? {})].filter((ref): ref is OutputRef => ref !== null) : [];
    if (!record?.outputs || record.errors.length > 0 || Object.values(record.inputs).includes(UNVERIFIED) || !arePlainPaths(record.inputs) || !refs.every((ref) => deps.outputs.get(ref.hash))) {
      result.skipped += 1;
      continue;
    }
    const named: Record<string, string> = {};
    for (const ref of refs) {
      const bytes = deps.outputs.get(ref.hash)!;
      named[ref.hash] = sha256Hex(bytes);
      blobs.set(named[ref.hash]!, bytes);
    }
    const key = moduleKey(module, variant, workspace, deps.identity);
    const payload: ModuleEntry = { format: REMOTE_FORMAT, key, entry: { module: module.specifier, variant, fingerprint: fingerprintOf(module), bundler: bundlerKey(module.bundler), boundaries, record: { ...findingsOf(record), outputs: record.outputs } }, blobs: named };
    entries.set(key, sealEntry(payload, deps.signingKey));
    payloads.set(key, payload);
    outputsOf.set(key, Object.values(named));
  }
  const startKeys = start.map((one) => moduleKey(one.module, one.variant, workspace, deps.identity));
  const listedKeys = startKeys.filter((key) => entries.has(key));
  // The workspace's entry holds the start's module entries (one parse for a fresh machine, not one
  // per module) unless they would make it too large: then it names each by its digest in `cas/`.
  const held = listedKeys.reduce((sum, key) => sum + entries.get(key)!.length, 0) <= (deps.maxHeldBytes ?? MAX_HELD_ENTRIES_BYTES);
  const listed: Record<string, string> = {};
  if (!held) {
    for (const key of listedKeys) {
      listed[key] = sha256Hex(entries.get(key)!);
      blobs.set(listed[key]!, entries.get(key)!);
    }
  }
  const put = async (store: Store, digest: string, bytes: Buffer): Promise<boolean> => {
    if (result.stopped) return false;
    const answer = await client.put(store, digest, bytes);
    if (answer === 'stored') {
      result.bytes += bytes.length;
      return true;
    }
    result.stopped ??= 'failed' in answer ? answer.failed : 'unreachable';
    return false;
  };
  // One write alone first: a read-only endpoint refuses it, and no other is sent.
  const [first, ...rest] = [...blobs];
  const putBlob = async ([digest, bytes]: [string, Buffer]) => void ((await put('cas', digest, bytes)) && (result.blobs += 1));
  if (first) await putBlob(first);
  await runLimited(rest, 8, putBlob);
  await runLimited([...entries], 8, async ([key, bytes]) => void ((await put('ac', key, bytes)) && (result.entries += 1)));
  const pack = writePack(startParts(Object.values(listed), listedKeys.flatMap((key) => outputsOf.get(key) ?? []), blobs));
  const packDigest = pack === null ? null : sha256Hex(pack);
  if (pack !== null && packDigest !== null && (await put('cas', packDigest, pack))) result.blobs += 1;
  const listing = workspaceKey(startKeys);
  const heldEntries = held ? { entries: Object.fromEntries(listedKeys.map((key) => [key, payloads.get(key)!])) } : {};
  if (!result.stopped) await put('ac', listing, sealEntry({ format: REMOTE_FORMAT, key: listing, ...heldEntries, modules: listed, ...(packDigest ? { pack: packDigest } : {}) }, deps.signingKey));
  return result;
}

// The blobs a start needs: the entries named by digest, and every output of the start's entries.
function startParts(entryDigests: readonly string[], outputDigests: readonly string[], blobs: ReadonlyMap<string, Buffer>): Map<string, Buffer> {
  const parts = new Map<string, Buffer>();
  for (const digest of [...entryDigests, ...outputDigests]) {
    const bytes = blobs.get(digest);
    if (bytes) parts.set(digest, bytes);
  }
  return parts;
}

/**
 * Stores `model`, read with no deep imports (as a start's first read is), and the `links` that
 * read asked of (`recordingLinks`), under the key a start asks by before reading: true when stored. A model of no `core.json`, or of a source outside
 * the workspace's plain paths, is not one a reader could check: not stored. Unsigned, none is
 * stored: readers take only a signed model (README "A team's remote cache").
 */
export async function uploadModel(model: WorkspaceModel, links: ReadLinks, deps: { client: RemoteClient; identity: ModelIdentity; signingKey: KeyObject | null }): Promise<boolean> {
  const coreJson = model.sources[WORKSPACE_MANIFEST];
  if (deps.signingKey === null || typeof coreJson !== 'string' || !arePlainPaths(model.sources)) return false;
  const key = modelKey(deps.identity, coreJson, []);
  const payload: ModelEntry = { format: REMOTE_FORMAT, kind: 'model', key, model, links };
  return (await deps.client.put('ac', key, sealEntry(payload, deps.signingKey))) === 'stored';
}
