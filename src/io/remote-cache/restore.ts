// The start's second place to look (README "A team's remote cache"): the module variants the
// local cache had no valid entry for, asked of the team's remote cache before anything is built.
// The workspace's entry first (one question: it holds the modules' entries, and names a pack of
// their outputs), then each module's entry still missing, a few at a time. Nothing downloaded is
// trusted: an entry must open (signature), be of its shape, name this module variant and hold on
// this disk (the local cache's own checks), and every blob must hash to its name and to the
// output the record names. Anything else is a miss, counted by kind, and the module is built here.
import type { KeyObject } from 'node:crypto';
import type { OutputCache } from '../../outputs/output-cache.js';
import { findingsOf, type Fact, type OutputRef, type RestoredBuild } from '../../store/events.js';
import type { ModuleModel, WorkspaceModel } from '../../workspace/model.js';
import { isDependsOn, type CacheIdentity } from '../cache-index.js';
import type { Answer, RemoteClient } from './client.js';
import type { Hashed } from '../read-ahead.js';
import { isModuleEntry, isRecord, isWorkspaceEntry, moduleKey, openEntry, packedPart, sha256Hex, workspaceKey, type EntryProblem, type ModuleEntry } from './entries.js';
import { readPack } from './pack.js';
import { isSharedSpecifier } from '../../workspace/shared-files.js';
import { runLimited } from '../run-limited.js';
import { twoEnded } from './two-ended.js';
import { filesRead } from '../../workspace/files-read.js';
import { contentHashOfSha256 } from '../../outputs/content-hash.js';
import { bufferView } from '../../outputs/buffer-view.js';

export type RemoteRestored = Extract<Fact, { type: 'cache.remote.restored' }>;

/** Why a module variant was not taken from the remote. */
export type MissKind = 'absent' | 'stale' | EntryProblem | 'bad-blob' | 'missing-blob' | 'unanswered';

export interface WantedVariant {
  module: ModuleModel;
  variant: string;
}

export interface RemoteRestoreDeps {
  client: RemoteClient;
  /** Where the client asks, for the log. */
  url: string;
  identity: CacheIdentity;
  publicKey: KeyObject | null;
  /** The local cache's judgement of an entry against this workspace and disk (`entryChecker`). */
  check(entry: unknown): 'valid' | 'stale' | 'damaged';
  outputs: OutputCache;
  now?(): number;
  /** Requests at once (default 8). */
  concurrency?: number;
  /**
   * Reads and hashes files on the second core (`FileHashes.readAhead`): the inputs of the entries
   * opened ahead, a batch at a time from the front, while this thread judges others from the back.
   */
  readAhead?(relatives: readonly string[]): Promise<void>;
  /**
   * The SHA-256 (hex) of ranges of bytes on the second core (`FileHashes.sha256Ahead`): the pack
   * and its parts checked there while this thread judges the entries, their outputs kept after.
   */
  sha256Ahead?(bytes: Uint8Array, ranges: readonly (readonly [start: number, end: number])[]): Promise<Hashed | null>;
  /** The client's counts the restore's requests and bytes are counted from (default: as it begins). */
  countsSince?: Readonly<{ requests: number; bytes: number }>;
}

/**
 * The builds of `wanted` the remote holds and this disk vouches for; `all`: every module variant
 * a start builds, whose keys name the workspace's entry.
 */
export async function restoreFromRemote(workspace: WorkspaceModel, wanted: readonly WantedVariant[], all: readonly WantedVariant[], deps: RemoteRestoreDeps): Promise<RemoteRestored> {
  const now = deps.now ?? Date.now;
  const started = now();
  const { client } = deps;
  const before = deps.countsSince ?? { ...client.counts };
  const { misses, failures, miss, answered } = createTally();
  // The parts of the workspace's pack, when it has one: each still checked against its digest,
  // here as it is used, or all at once on the worker (`checked`: those that hashed to their names).
  let packed = new Map<string, Buffer>();
  let checked: ReadonlySet<string> | null = null;
  // A blob is what its name says, or nothing.
  const blob = async (digest: string): Promise<Buffer | MissKind> => {
    const inPack = checked ? (checked.has(digest) ? packed.get(digest) : undefined) : packedPart(packed, digest);
    if (inPack) return inPack;
    const bytes = answered(await client.get('cas', digest));
    if (typeof bytes === 'string') return bytes === 'absent' ? 'missing-blob' : bytes;
    return sha256Hex(bytes) === digest ? bytes : 'bad-blob';
  };

  // Each key once: the workspace's key is made of all of them, and `wanted` is mostly `all`.
  const keys = new Map<WantedVariant, string>();
  const keyOf = (one: WantedVariant) => keys.get(one) ?? keys.set(one, moduleKey(one.module, one.variant, workspace, deps.identity)).get(one)!;
  const { modules: listed, entries: held = {}, pack } = wanted.length > 0 ? await workspaceListing(all.map(keyOf), client, answered, deps.publicKey) : { modules: {} };
  const fetched = await fetchPack(pack, Object.keys(listed).length === 0, deps, answered);
  packed = fetched.parts;
  // An entry the workspace's entry holds is opened with it: its signature covers them all.
  const heldEntry = (key: string): Opened | undefined => (Object.hasOwn(held, key) ? { payload: held[key] } : undefined);
  const opened = deps.readAhead ? openAhead(wanted, keyOf, heldEntry, listed, packed, deps.publicKey) : [];
  // Asked once every input is sent (the worker hashes it after reading them, while this thread
  // judges the last entries), so it is most likely answered once every entry is judged.
  let packChecked: Promise<CheckedParts> | null = null;
  const checkPack = () => void (fetched.check && (packChecked ??= fetched.check()));
  // Every entry judged first, then the outputs of those that hold fetched and kept.
  const judgedAll: Judged[] = [];
  const judged = (result: Judged | MissKind) => {
    if (typeof result === 'string') miss(result);
    else judgedAll.push(result);
  };
  // The entries opened ahead: their inputs read on the worker from the front, judged here from the back meanwhile.
  const { readAhead } = deps;
  if (readAhead) {
    await twoEnded(opened, (batch) => readAhead(batch.flatMap((one) => one.inputs)), checkPack).check((one) => {
      judged(judgeEntry(one.entry, keyOf(one.wanted), one.wanted, deps, one.moduleEntry));
      return true;
    });
  }
  checkPack();
  const openedAhead = new Set(opened.map((one) => one.wanted));
  await runLimited(
    wanted.filter((one) => !openedAhead.has(one)),
    deps.concurrency ?? 8,
    async (one) => {
      const key = keyOf(one);
      const digest = listed[key];
      const bytes = heldEntry(key) ?? (digest ? await blob(digest) : answered(await client.get('ac', key)));
      judged(typeof bytes === 'string' ? bytes : judgeEntry(bytes, key, one, deps));
    },
  );
  // An output whose part failed (all of them when the pack did) is then asked for alone. The parts
  // are the bytes the worker gave back (moved there and back, not copied).
  if (packChecked) ({ checked, parts: packed } = await packChecked);
  const builds: RestoredBuild[] = [];
  await runLimited(judgedAll, deps.concurrency ?? 8, async (one) => {
    const found = await keptOutputs(one, blob, deps.outputs).catch((): MissKind => 'wrong-shape');
    if (typeof found === 'string') miss(found);
    else builds.push(found);
  });
  const counts = client.counts;
  return {
    type: 'cache.remote.restored',
    url: deps.url,
    asked: wanted.length,
    builds,
    misses,
    failures,
    requests: counts.requests - before.requests,
    bytes: counts.bytes - before.bytes,
    ms: Math.max(0, Math.round(now() - started)),
  };
}

/** What a restore counts: its misses by kind, and the team cache's failures by kind. */
function createTally() {
  const misses: Partial<Record<MissKind, number>> = {};
  const failures: Partial<Record<string, number>> = {};
  return {
    misses,
    failures,
    miss: (kind: MissKind) => void (misses[kind] = (misses[kind] ?? 0) + 1),
    /** An answer's bytes, or the miss it is (its failure counted). */
    answered: (answer: Answer): Buffer | MissKind => {
      if ('found' in answer) return answer.found;
      if ('failed' in answer) failures[answer.failed] = (failures[answer.failed] ?? 0) + 1;
      return 'missing' in answer ? 'absent' : 'unanswered';
    },
  };
}

interface FetchedPack {
  /** Its parts: each checked by the worker later, or all when the whole pack hashed to its name here; else none. */
  parts: Map<string, Buffer>;
  /** The worker's check of each part, when it is the worker's to make: `parts` are of no use until it answers. */
  check: (() => Promise<CheckedParts>) | null;
}

/** The workspace's pack, when its entry names one. */
async function fetchPack(pack: string | undefined, outputsOnly: boolean, deps: RemoteRestoreDeps, answered: (answer: Answer) => Buffer | MissKind): Promise<FetchedPack> {
  const bytes = pack ? answered(await deps.client.get('cas', pack)) : null;
  const parts = Buffer.isBuffer(bytes) ? readPack(bytes) : null;
  if (!parts || !Buffer.isBuffer(bytes)) return { parts: new Map(), check: null };
  // Checked on the worker when the pack holds outputs only (every entry held by the workspace's
  // entry): nothing of it is used before its outputs are kept, after every check.
  const { sha256Ahead } = deps;
  if (outputsOnly && sha256Ahead) return { parts, check: () => checkedParts(bytes, parts, pack!, sha256Ahead) };
  return { parts: sha256Hex(bytes) === pack ? parts : new Map(), check: null };
}

interface OpenedAhead {
  wanted: WantedVariant;
  /** The entry: its bytes, or opened already. */
  entry: Buffer | Opened;
  /** Its payload, when it opened as this module key's entry (`isModuleEntry`): not judged twice. */
  moduleEntry?: ModuleEntry;
  /** The inputs to read on the worker: those of an entry that opened as this module's. */
  inputs: string[];
}

type Opened = ReturnType<typeof openEntry>;

// The entries the workspace's entry holds (opened with it), and those the pack holds (each checked
// against its digest and opened, signature and all, as the checks would), with the inputs to read
// ahead. Only an entry that opened as this module's has its inputs read, and only plain paths
// inside the workspace are (README "A team's remote cache").
function openAhead(wanted: readonly WantedVariant[], keyOf: (one: WantedVariant) => string, heldEntry: (key: string) => Opened | undefined, listed: Record<string, string>, packed: ReadonlyMap<string, Buffer>, publicKey: KeyObject | null): OpenedAhead[] {
  const ahead: OpenedAhead[] = [];
  for (const one of wanted) {
    const key = keyOf(one);
    const digest = listed[key];
    const held = heldEntry(key);
    const bytes = held || !digest ? undefined : packedPart(packed, digest);
    if (!held && !bytes) continue;
    const entry = held ?? openEntry(bytes!, publicKey);
    const moduleEntry = 'payload' in entry && isModuleEntry(entry.payload, key) ? entry.payload : undefined;
    const record = moduleEntry && isRecord(moduleEntry.entry.record) ? moduleEntry.entry.record : undefined;
    const inputs = record && isRecord(record.inputs) && isResolutionOf(record.resolution, record.inputs) ? [...filesRead({ inputs: record.inputs, resolution: record.resolution })] : [];
    ahead.push({ wanted: one, entry, ...(moduleEntry ? { moduleEntry } : {}), inputs });
  }
  return ahead;
}

// Only the files the build read go to the worker: what it only depended on is judged at its check
// as the local cache judges it (`factsHold`), where a link leads by its real path here
// (`linkTargetStamp`), a path recorded absent from the workspace's listings or a stat; the entry
// itself is checked for its shape there too, by the same rule for its resolution as here (an entry
// whose resolution names a path not among its inputs is refused, so none of its inputs is read).
const isResolutionOf = (value: unknown, inputs: Record<string, unknown>): value is string[] | undefined => value === undefined || isDependsOn(value, inputs);

// The workspace's entry: the module entries it holds (each still to be judged), each other module
// key's entry digest, and the pack, or nothing when it is absent or not to be trusted.
async function workspaceListing(keys: string[], client: RemoteClient, answered: (answer: Answer) => Buffer | MissKind, publicKey: KeyObject | null): Promise<{ modules: Record<string, string>; entries?: Record<string, unknown>; pack?: string }> {
  const key = workspaceKey(keys);
  const bytes = answered(await client.get('ac', key));
  if (typeof bytes === 'string') return { modules: {} };
  const opened = openEntry(bytes, publicKey);
  if (!('payload' in opened) || !isWorkspaceEntry(opened.payload, key)) return { modules: {} };
  const { modules, entries, pack } = opened.payload;
  return { modules, ...(entries ? { entries } : {}), ...(pack ? { pack } : {}) };
}

/** The parts of a pack as the worker gave them back (`parts`), and those that hashed to their names (`checked`). */
interface CheckedParts {
  parts: Map<string, Buffer>;
  checked: ReadonlySet<string>;
}

// The parts of a pack whose bytes hash to their names, hashed on the worker (here when it is
// gone before it took them): none when the pack itself does not hash to its own name, nor when the
// worker took the bytes and went.
async function checkedParts(bytes: Buffer, parts: ReadonlyMap<string, Buffer>, digest: string, sha256Ahead: NonNullable<RemoteRestoreDeps['sha256Ahead']>): Promise<CheckedParts> {
  const names = [...parts.keys()];
  const ranges: [number, number][] = [[0, bytes.length]];
  for (const part of parts.values()) ranges.push([part.byteOffset - bytes.byteOffset, part.byteOffset - bytes.byteOffset + part.length]);
  const hashed = await sha256Ahead(bytes, ranges).catch(() => null);
  if (!hashed && bytes.length === 0) return { parts: new Map(), checked: new Set() };
  const back = hashed ? bufferView(hashed.bytes) : bytes;
  const digests = hashed?.digests ?? ranges.map(([start, end]) => sha256Hex(bytes.subarray(start, end)));
  if (digests[0] !== digest || back.length !== ranges[0]![1]) return { parts: new Map(), checked: new Set() };
  const partsBack = new Map(names.map((name, index) => [name, back.subarray(ranges[index + 1]![0], ranges[index + 1]![1])]));
  return { parts: partsBack, checked: new Set(names.filter((name, index) => digests[index + 1] === name)) };
}

/** A module variant's entry that holds here: its build, once the outputs it names are kept. */
interface Judged {
  build: RestoredBuild;
  /** The outputs the output cache lacks, each with the SHA-256 its blob is named by. */
  outputs: { ref: OutputRef; digest: string }[];
}

// One module variant's entry judged: what it builds and the outputs to fetch, or why not.
// `judged`: the entry's payload, opened ahead and judged a module entry of `key` then. A throw
// (a fault of this code or of the disk) is a miss like any other.
function judgeEntry(bytes: Buffer | Opened, key: string, wanted: WantedVariant, deps: RemoteRestoreDeps, judged?: ModuleEntry): Judged | MissKind {
  try {
    const opened = judged ? { payload: judged } : Buffer.isBuffer(bytes) ? openEntry(bytes, deps.publicKey) : bytes;
    if ('problem' in opened) return opened.problem;
    const payload = judged ?? (isModuleEntry(opened.payload, key) ? opened.payload : null);
    if (!payload || payload.entry.module !== wanted.module.specifier || payload.entry.variant !== wanted.variant) return 'wrong-shape';
    const verdict = deps.check(payload.entry);
    if (verdict !== 'valid') return verdict === 'stale' ? 'stale' : 'wrong-shape';
    const { outputs } = payload.entry.record;
    // A chunk's specifier becomes a file name in `core dist`'s output: only a shared file of this
    // module's own package, by the names an address carries, is one.
    if (!Object.keys(outputs.chunks ?? {}).every((specifier) => isSharedSpecifier(wanted.module.package, specifier))) return 'wrong-shape';
    const refs = [outputs.code, outputs.styles, ...Object.values(outputs.chunks ?? {})].filter((one): one is OutputRef => one !== null && !deps.outputs.get(one.hash));
    if (refs.some((ref) => !payload.blobs[ref.hash])) return 'wrong-shape';
    const build = { module: wanted.module.specifier, variant: wanted.variant, outputs, ...findingsOf(payload.entry.record) };
    return { build, outputs: refs.map((ref) => ({ ref, digest: payload.blobs[ref.hash]! })) };
  } catch {
    return 'wrong-shape';
  }
}

// A judged entry's outputs fetched and checked, then kept: the build, or why not.
async function keptOutputs({ build, outputs }: Judged, blob: (digest: string) => Promise<Buffer | MissKind>, cache: OutputCache): Promise<RestoredBuild | MissKind> {
  // A module's outputs are asked for together: one round trip, not one per output.
  const found = await Promise.all(outputs.map(({ digest }) => blob(digest)));
  for (const [index, { ref, digest }] of outputs.entries()) {
    const bytes = found[index]!;
    if (typeof bytes === 'string') return bytes;
    // Checked before the output cache takes it: a blob that is not the output named is never
    // kept. `blob` gave bytes whose SHA-256 is the digest: their content hash is that digest's.
    if (bytes.length !== ref.size || contentHashOfSha256(digest) !== ref.hash) return 'bad-blob';
  }
  for (const [index, { ref }] of outputs.entries()) cache.adoptChecked(found[index] as Buffer, ref.hash);
  return build;
}
