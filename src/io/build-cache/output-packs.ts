// The build cache's pack files (README "The build cache"): outputs one after the other in a few
// files of `outputs/` that the index names, written before it. A restart reads each whole once
// instead of one file per output (2,000 opens, reads and closes for 1,000 modules). A write adds
// a pack of the outputs no pack holds yet; once the packs named are mostly outputs no entry
// needs, or too many, one pack of the rest replaces them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isContentHash } from '../../outputs/content-hash.js';
import { isOutputPack, PACK_NAME, type OutputPack } from '../cache-index.js';
import { readCacheFile, readCacheFileAsync } from './cache-files.js';
import { ABANDONED_MS, exists, TEMPORARY_SUFFIX, writeAtomically } from './write-atomically.js';

/** More packs than this, or packs more than half of no use, and one pack of what is used replaces them. */
const MAX_PACKS = 8;

/**
 * Where each output of the packs read at start lies, with the pack's bytes; `gone`: the outputs
 * of the packs named that were not there; `claimed`: those of `gone` whose pack was in another
 * service's tidy's hands when read (taken out of reach to its claim, and maybe back);
 * `unreadable`: why the first pack named that was there could not be used (no regular file, too
 * large, an I/O error), for the damage line.
 */
export interface ReadPacks {
  found: ReadonlyMap<string, { file: string; bytes: Buffer; start: number }>;
  gone: ReadonlySet<string>;
  claimed: ReadonlySet<string>;
  unreadable?: string;
}

/**
 * A pack taken out of reach by a tidy (see `removeUnreferenced`): `<pack>.<claimed at>.<pid>.<8
 * hex>.tmp`, the time in ms of its claimer's clock; group 1 is the pack's name, group 2 that time.
 */
const CLAIM_NAME = new RegExp(`^(${PACK_NAME.source.replace(/^\^|\$$/g, '')})\\.(\\d{1,16})\\.\\d+\\.[0-9a-f]{8}\\.tmp$`);
/**
 * A claim by a service of an earlier version, whose names carried no time: `<pack>.<pid>.<8
 * hex>.tmp`, aged by its file's later time, mtime or ctime, as that version did. A pack's own
 * temporary file while written has that name too, but no index names a pack before its rename,
 * so the index decides either the same way (README "The build cache", "Writing").
 */
const EARLIER_CLAIM_NAME = new RegExp(`^(${PACK_NAME.source.replace(/^\^|\$$/g, '')})\\.\\d+\\.[0-9a-f]{8}\\.tmp$`);
/** The pack a claim holds, of either format, or undefined. */
const claimedPack = (name: string): string | undefined => CLAIM_NAME.exec(name)?.[1] ?? EARLIER_CLAIM_NAME.exec(name)?.[1];
/**
 * A name of `outputs/` a service writes: a pack, a pack being written or a claim of one, an output
 * of the format before packs (named by its content hash) or one being written. Nothing else there
 * is the cache's, so nothing else is ever removed (README "The build cache", "Clearing").
 */
export const isOwnOutputsName = (name: string): boolean => PACK_NAME.test(name) || claimedPack(name) !== undefined || isContentHash(name.replace(TEMPORARY_SUFFIX, ''));
const claimName = (pack: string, claimedAt: number) => `${pack}.${Math.floor(claimedAt)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;

export interface OutputPacks {
  readonly dir: string;
  /** The packs an index names, each read whole once. */
  read(packs: readonly unknown[]): ReadPacks;
  /** An output whose pack's copy was found wrong: never named again, a build of it goes to a new pack. */
  disown(hash: string): void;
  /** The packs that hold `needed`, writing a new one of what none holds. */
  pack(needed: ReadonlyMap<string, Buffer>): Promise<OutputPack[]>;
  /** The packs only a failed write named go: its index was not written. */
  discard(packs: readonly OutputPack[], keep: ReadonlySet<string>): Promise<void>;
  /** Which of `named` are not on disk now (another service removed them). */
  gone(named: readonly OutputPack[]): Promise<string[]>;
  /** Once the index naming `named` is written, the packs no index names go: neither it nor the one at `indexFile` now. */
  tidy(named: readonly OutputPack[], indexFile: string): Promise<void>;
  /** The packs this service wrote or read. */
  known(): Set<string>;
}

/** `now`: the clock a temporary file's or a claim's age is judged by. */
export function createOutputPacks(dir: string, now: () => number = Date.now): OutputPacks {
  /** The size of each pack this service wrote or read: none is about to be named by another's index. */
  const sizes = new Map<string, number>();
  /** Where the outputs of the packs this service read, or wrote, lie. */
  const packed = new Map<string, { file: string; start: number }>();

  const forget = (file: string) => {
    sizes.delete(file);
    for (const [hash, place] of packed) if (place.file === file) packed.delete(hash);
  };

  return {
    dir,
    read: (packs) => readPacks(dir, packs, sizes, packed),
    disown: (hash) => void packed.delete(hash),
    pack: (needed) => packOutputs(dir, needed, sizes, packed),
    async discard(packs, keep) {
      for (const { file } of packs) {
        if (keep.has(file)) continue;
        await fs.promises.rm(path.join(dir, file), { force: true }).catch(() => {});
        forget(file);
      }
    },
    async gone(named) {
      const gone: string[] = [];
      for (const { file } of named) if (!(await exists(path.join(dir, file)))) gone.push(file);
      for (const file of gone) forget(file);
      return gone;
    },
    async tidy(named, indexFile) {
      await removeUnreferenced(dir, new Set(named.map((pack) => pack.file)), sizes, indexFile, now).catch(() => {});
      for (const [hash, place] of packed) if (!sizes.has(place.file)) packed.delete(hash);
    },
    known: () => new Set(sizes.keys()),
  };
}

// A pack cut short or missing leaves the outputs past its end, or all of its own, to be built again.
function readPacks(dir: string, packs: readonly unknown[], sizes: Map<string, number>, packed: Map<string, { file: string; start: number }>): ReadPacks {
  const found = new Map<string, { file: string; bytes: Buffer; start: number }>();
  const gone = new Set<string>();
  const claimed = new Set<string>();
  let unreadable: string | undefined;
  // Listed once, and only when a pack named is missing: a tidy may be between taking it out of
  // reach and putting it back (README "The build cache", "Damage").
  let listed: ReadonlySet<string> | undefined;
  const listing = () => (listed ??= new Set(listNames(dir)));
  for (const pack of packs) {
    if (!isOutputPack(pack)) continue;
    let bytes = readPack(dir, pack.file);
    if (bytes === 'missing') {
      // Renamed to its claim and back by another service's tidy, it is missing from its place
      // only for a moment, and never both it and its claim are: read once more after a listing,
      // it is found if put back meanwhile; missing still, it is in another's hands if that
      // listing held it or its claim (claimed again since), and gone only if it held neither.
      const names = listing();
      bytes = readPack(dir, pack.file);
      if (bytes === 'missing') {
        const taken = names.has(pack.file) || [...names].some((name) => claimedPack(name) === pack.file);
        for (const hash of Object.keys(pack.at)) {
          gone.add(hash);
          if (taken) claimed.add(hash);
        }
        continue;
      }
    }
    if (!Buffer.isBuffer(bytes)) {
      unreadable ??= bytes.damage;
      continue;
    }
    sizes.set(pack.file, bytes.length);
    for (const [hash, start] of Object.entries(pack.at)) {
      found.set(hash, { file: pack.file, bytes, start });
      // Named again by a later write without being read: its bytes are checked when restored.
      if (isContentHash(hash) && start < bytes.length) packed.set(hash, { file: pack.file, start });
    }
  }
  return { found, gone, claimed, ...(unreadable !== undefined ? { unreadable } : {}) };
}

/**
 * A pack's bytes; `missing` when not there; why it cannot be used when it is there but cannot be
 * read, or is no regular file (its outputs then fail their check): never waited on.
 */
function readPack(dir: string, file: string): Buffer | 'missing' | { damage: string } {
  const read = readCacheFile(path.join(dir, file));
  return read === 'missing' || 'damage' in read ? read : read.bytes;
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

// The packs that hold `needed`: those already on disk that hold some, and a new one of the
// rest; or one new pack of them all when the packs named would be mostly of no use, or too many.
async function packOutputs(dir: string, needed: ReadonlyMap<string, Buffer>, sizes: Map<string, number>, packed: Map<string, { file: string; start: number }>): Promise<OutputPack[]> {
  const { inPacks, used, missing } = await placesOf(dir, needed, sizes, packed);
  const size = [...inPacks.keys()].reduce((sum, file) => sum + sizes.get(file)!, 0);
  const repack = inPacks.size + (missing.size > 0 ? 1 : 0) > MAX_PACKS || size - used > used;
  const fresh = repack ? needed : missing;
  const packs = repack ? [] : [...inPacks].map(([file, at]) => ({ file, at }));
  if (fresh.size > 0) {
    const file = `${crypto.randomBytes(8).toString('hex')}.pack`;
    const at: Record<string, number> = {};
    let offset = 0;
    for (const [hash, bytes] of fresh) {
      at[hash] = offset;
      offset += bytes.length;
    }
    await writeAtomically(path.join(dir, file), Buffer.concat([...fresh.values()], offset));
    sizes.set(file, offset);
    for (const [hash, start] of Object.entries(at)) packed.set(hash, { file, start });
    packs.push({ file, at });
  }
  return packs;
}

// Which of `needed` a pack on disk holds (and how many bytes of those packs are of use), and which none does.
async function placesOf(dir: string, needed: ReadonlyMap<string, Buffer>, sizes: Map<string, number>, packed: Map<string, { file: string; start: number }>) {
  const inPacks = new Map<string, Record<string, number>>();
  let used = 0;
  const missing = new Map<string, Buffer>();
  for (const [hash, bytes] of needed) {
    const place = packed.get(hash);
    if (place && sizes.has(place.file)) {
      let at = inPacks.get(place.file);
      if (!at) inPacks.set(place.file, (at = {}));
      at[hash] = place.start;
      used += bytes.length;
    } else missing.set(hash, bytes);
  }
  // A pack another service removed since (it was no longer named) holds nothing any more.
  for (const file of inPacks.keys()) {
    if (await exists(path.join(dir, file))) continue;
    sizes.delete(file);
    for (const hash of Object.keys(inPacks.get(file)!)) missing.set(hash, needed.get(hash)!);
    inPacks.delete(file);
  }
  return { inPacks, used, missing };
}

// The packs the index no longer names go, so the cache holds about one build of the workspace
// (and at most as much again that no entry needs). A `.tmp` file is another's write or removal
// in progress, unless it is old: then a killed one's. An older format's outputs go. A name no
// service writes is not the cache's (`CORE_CACHE_DIR` may name a folder of the user's): left alone.
//
// Services sharing the cache write with no lock, so a pack this service's index no longer names
// may be named by another's index, renamed into place since or about to be. Two rules together
// keep any index left on disk naming only packs that are there (README "The build cache"):
// - A pack is removed in three steps: skipped if the index on disk names it; else taken out of
//   reach by renaming it to a temporary name; then the index on disk is read again and the pack
//   put back if it names it now, removed if not. An index renamed into place before that second
//   read is seen by it; one renamed after it finds the pack already out of reach.
// - A writer, after renaming its index into place, checks that every pack it names is there
//   (`gone`), and writes the missing outputs to a new pack and the index again if one is not
//   (src/io/build-cache/write.ts). So an index renamed after another's second read is always
//   written again, whether its check before writing saw the pack or not.
// A pack another service wrote and this one never read is, besides, left alone until 10 s old (its
// index names it right after writing it): not needed for the above, it spares that service writing
// its outputs twice. A pack taken out of reach keeps its old mtime, and a rename need not change a
// file's ctime (README "The build cache", "Writing"), so its claim's name carries the time it was
// claimed, by its claimer's clock: the `.tmp` rule counts a claim's age from that time (any other
// temporary file's from its mtime: it is written, never renamed, until done), so another's tidy
// never takes for abandoned one about to be put back. A claim left that old was a killed tidy's,
// between taking the pack out of reach and putting it back: it is decided as that tidy would have,
// by the index on disk (put back if it, or this service's own, names the pack; removed if not),
// never removed blindly, which would lose a pack an index names. So is a claim of an earlier
// version (`EARLIER_CLAIM_NAME`), aged as that version aged it.
// Cost on one service alone: the writer's check, one stat per pack named (at most 9); a tidy
// that removes packs (after a repack) reads the index twice and renames each before removing it.
const PACK_NAMED_MS = 10_000;

// A claim's age by its name's time, bounded on both sides: one more than ABANDONED_MS ahead of
// this clock (a clock stepped back since, or another machine's ahead) would otherwise never age,
// and its pack, never put back, would miss for ever (README "The build cache", "Writing").
const isAbandonedClaim = (age: number): boolean => age >= ABANDONED_MS || age < -ABANDONED_MS;

async function removeUnreferenced(dir: string, kept: ReadonlySet<string>, known: Map<string, number>, indexFile: string, now: () => number) {
  const found = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
  const unnamed: string[] = [];
  const abandonedClaims: { name: string; temporary: string }[] = [];
  for (const entry of found) {
    const { name } = entry;
    // A directory was never written by a service: someone else's, left alone. A pack's name that
    // is a FIFO, a socket, a device or a link is damage no index names any more: it goes as an
    // unnamed pack does, never opened (README "The build cache", "Damage").
    if (kept.has(name) || !isOwnOutputsName(name) || entry.isDirectory() || (!entry.isFile() && !PACK_NAME.test(name))) continue;
    const file = path.join(dir, name);
    const isPack = PACK_NAME.test(name);
    const claim = CLAIM_NAME.exec(name);
    if (claim) {
      if (isAbandonedClaim(now() - Number(claim[2]))) abandonedClaims.push({ name: claim[1]!, temporary: name });
      continue;
    }
    const temporary = name.endsWith('.tmp');
    const earlierClaim = EARLIER_CLAIM_NAME.exec(name)?.[1];
    const spared = temporary ? ABANDONED_MS : isPack && !known.has(name) ? PACK_NAMED_MS : 0;
    if (spared > 0) {
      const stats = await fs.promises.lstat(file).catch(() => null); // a link is judged by its own times: it is what goes
      if (!stats || now() - (earlierClaim === undefined ? stats.mtimeMs : Math.max(stats.mtimeMs, stats.ctimeMs)) < spared) continue;
    }
    if (isPack) unnamed.push(name);
    else if (earlierClaim !== undefined) abandonedClaims.push({ name: earlierClaim, temporary: name });
    // One that cannot be removed stays: it is named by no index, so it is never read.
    else await fs.promises.rm(file, { force: true }).catch(() => {});
  }
  if (unnamed.length === 0 && abandonedClaims.length === 0) return;
  const namedBefore = await namedByIndex(indexFile);
  for (const { name, temporary } of abandonedClaims) {
    const back = (kept.has(name) || namedBefore(name)) && !(await exists(path.join(dir, name)));
    if (back) await fs.promises.rename(path.join(dir, temporary), path.join(dir, name)).catch(() => {});
    else await fs.promises.rm(path.join(dir, temporary), { force: true }).catch(() => {});
  }
  const taken: { name: string; temporary: string }[] = [];
  for (const name of unnamed) {
    if (namedBefore(name)) continue;
    const temporary = claimName(name, now());
    if (await fs.promises.rename(path.join(dir, name), path.join(dir, temporary)).then(() => true, () => false)) taken.push({ name, temporary });
  }
  if (taken.length === 0) return;
  const namedNow = await namedByIndex(indexFile);
  for (const { name, temporary } of taken) {
    if (namedNow(name)) await fs.promises.rename(path.join(dir, temporary), path.join(dir, name)).catch(() => {});
    else if (await fs.promises.rm(path.join(dir, temporary), { force: true }).then(() => true, () => false)) known.delete(name);
  }
}

// Whether the index on disk names a pack: any mention of its name counts (a damaged index too),
// and an index that cannot be read names every pack. No index names none.
// Read as every file of the cache is: an index that is no regular file is never waited on, and names every pack.
async function namedByIndex(indexFile: string): Promise<(pack: string) => boolean> {
  const read = await readCacheFileAsync(indexFile);
  const text = read === 'missing' ? '' : 'damage' in read ? null : read.bytes.toString('utf8');
  return (pack) => text === null || text.includes(`"${pack}"`);
}
