// The inputs of a build and their hashes, as the runner records them (README "Addresses"):
// those known from the last build hashed before it reads them, those first seen hashed after.
import type { RebuildHint } from '../bundlers/types.js';
import { UNVERIFIED, type InputHashes } from '../store/events.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { isInside, normalizeRelative } from '../workspace/paths.js';
import { absentFromListingOf, isPlainRelative, MTIME_LAG_MS, type FileHashes, type Recalled, type Stamp } from './file-hashes.js';
import { pathRecord } from '../workspace/path-records.js';

/** What the runner took of each input before the build: its hash, its mtime, its bytes when kept. */
export type InputsBefore = ReadonlyMap<string, Recalled>;

// Inputs known from the last build are hashed before this one reads them: a change during the
// build then shows as a difference afterwards, never as a false match. The file just saved is
// taken as the watcher read it (`recall`), bytes and all: it is not read again.
export function inputsBefore(hashes: FileHashes, previous: readonly (InputHashes | null)[]): Map<string, Recalled> {
  const before = new Map<string, Recalled>();
  for (const inputs of previous) {
    for (const path of Object.keys(inputs ?? {})) if (!before.has(path)) before.set(path, hashes.recall(path));
  }
  return before;
}

/** What changed since the module's last build, for a bundler that can then do less; with the bytes of those changed that are at hand. */
export function rebuildHint(previousInputs: InputHashes | null, previousCode: string | null | undefined, before: InputsBefore): RebuildHint | undefined {
  if (!previousInputs) return undefined;
  const inputs = Object.keys(previousInputs);
  const changed = inputs.filter((path) => before.get(path)?.hash !== previousInputs[path] || previousInputs[path] === UNVERIFIED);
  const contents: Record<string, Uint8Array> = {};
  for (const path of changed) {
    const bytes = before.get(path)?.bytes;
    if (bytes) contents[path] = bytes;
  }
  return { inputs, changed, code: previousCode ?? null, ...(Object.keys(contents).length > 0 ? { contents } : {}) };
}

// Inputs first seen by this build are hashed after it; one written since it started may
// have been read in either version, so it is marked unverified and the module builds again.
// So is a known input written during the build (a stat tells, no read), even with the content
// it had before: an editor's save truncates the file first, and the build may have read it
// empty. A write is told by the ctime as well as the mtime: `cp -p`, `rsync -a` or `touch -r`
// put the mtime back, never the ctime (README "Addresses"). `unwritten` spares that stat where
// the watcher proves no write since the inputs were taken (a write the build read was noticed
// before its result: README "Addresses").
export function hashInputs(hashes: FileHashes, paths: readonly string[], before: InputsBefore, startedAt: number, unwritten?: (path: string) => boolean): InputHashes {
  const inputs: InputHashes = pathRecord();
  for (const path of paths) {
    const known = before.get(path);
    if (known) {
      inputs[path] = known.hash !== null && !unwritten?.(path) && !sameTimes(hashes.timesOf(path), known) ? UNVERIFIED : known.hash;
      continue;
    }
    const stamp = hashes.stamp(path);
    // On a file system of whole seconds, a write during the build is stamped up to a second earlier.
    const writtenSince = startedAt - MTIME_LAG_MS - hashes.granularityMs();
    inputs[path] = stamp.hash !== null && startedAt > 0 && Math.max(stamp.mtimeMs, stamp.ctimeMs) >= writtenSince ? UNVERIFIED : stamp.hash;
  }
  return inputs;
}

const sameTimes = (now: Pick<Stamp, 'mtimeMs' | 'ctimeMs'>, then: Pick<Stamp, 'mtimeMs' | 'ctimeMs'>): boolean => now.mtimeMs === then.mtimeMs && now.ctimeMs === then.ctimeMs;

/**
 * Whether every input still hashes as `hashInputs` recorded it, by the stamp's one rule (README
 * "Addresses"): a file whose stat is the one its hash was read under, long enough after its last
 * change, is not read again; any other is read and hashed; a path recorded absent must still be
 * absent, which its directory's listing proves without a stat of its own when that listing, as
 * stamped now, is one read without its name (`absentFromListingOf`): one stat per directory, not
 * one per path an import tried. Stops at the first that differs (`everyInputHolds`).
 */
export function inputsHold(hashes: FileHashes, inputs: InputHashes): boolean {
  const listings = new Map<string, string | null>();
  const listingNow = (dir: string): string | null => {
    let hash = listings.get(dir);
    if (hash === undefined) listings.set(dir, (hash = hashes.stamp(dir).hash));
    return hash;
  };
  return everyInputHolds(inputs, (path, hash) => (hash === null && absentFromListingOf(path, listingNow, hashes)) || hashes.stamp(path).hash === hash);
}

/**
 * Whether `holds` says so of every input of a record, each name checked first (nothing outside
 * the workspace is ever stat'ed) and an input marked unverified never holding: the one loop of
 * the local CDN's kept bundles (`inputsHold`) and the build cache's entries (`factsHold`).
 * Stops at the first that does not.
 */
export function everyInputHolds(inputs: InputHashes, holds: (path: string, hash: string | null) => boolean): boolean {
  for (const path in inputs) {
    const hash = inputs[path]!;
    if (hash === UNVERIFIED || !isPlainRelative(path) || !holds(path, hash)) return false;
  }
  return true;
}

// esbuild reports `No matching export in "lib/x.ts"` at the import, and the fix is in lib/x.ts,
// which a failed build lists nowhere else: the files a diagnostic names that exist, readable or
// not ("Cannot read file ...: permission denied").
export function namedFiles(hashes: FileHashes, errors: readonly Diagnostic[]): string[] {
  const named: string[] = [];
  for (const error of errors) {
    for (const [, name] of error.message.matchAll(/"([^"\n]+)"/g)) {
      const relative = normalizeRelative(name!);
      if (relative === null || relative === '.' || !isInside(relative)) continue;
      const stamp = hashes.stamp(relative);
      if (stamp.hash !== null || stamp.mtimeMs > 0) named.push(relative);
    }
  }
  return named;
}
