// The local CDN's bundles of installed packages, kept in memory (README "The local CDN"): one
// per entry file, whatever address led to it, and at most `maxBytes` in all (their code,
// stylesheets and what their builds recorded), the least recently served dropped first. A
// bundle answers only while `holds` says what it was built from is unchanged, a kept one and a
// build just finished alike; else it is dropped and built again, from the files as they are now
// (an installed file patched in place). A build in progress is shared by every request for it,
// each judging its result on its own; a failed one is not kept, so the next request tries again.
import { LRUCache } from 'lru-cache';
import type { InstalledBundle } from '../bundlers/installed-bundle.js';
import type { InputHashes } from '../store/events.js';

/** What the kept bundles may hold in all: a page's packages many times over, never the process's memory. */
export const KEPT_BUNDLE_BYTES = 64 * 1024 * 1024;

/**
 * Builds one request waits for before it gives up: a file written during a build marks it
 * unverified, and the next build, given it, settles unless the files keep changing (an install
 * or a patch still running).
 */
export const BUILDS_PER_ANSWER = 3;

/** A bundle with what each of its inputs hashed as when it was built (`hashInputs`). */
export interface KeptBundle extends InstalledBundle {
  recorded: InputHashes;
}

/** Every build a request waited for changed while it ran: no answer is safe to give yet. */
export class UnsettledBundleError extends Error {
  constructor(readonly builds: number) {
    super(`its files changed during each of ${builds} builds in a row`);
    this.name = 'UnsettledBundleError';
  }
}

export interface InstalledBundles {
  /**
   * The bundle kept under `key` while `holds` it, else the one `build` makes (and keeps), given
   * the bundle it replaces, if any (its inputs are hashed before the new build reads them); one
   * that does not hold when its build ends is built again, `BUILDS_PER_ANSWER` builds at most,
   * then `UnsettledBundleError`.
   */
  get(key: string, build: (previous: KeptBundle | undefined) => Promise<KeptBundle>, holds: (kept: KeptBundle) => boolean): Promise<KeptBundle>;
  /** The bundle kept under `key`, not judged: for an address that names its bytes by hash. */
  peek(key: string): KeptBundle | undefined;
  /** Whether a bundle whose key `matches` is kept or being built. */
  has(matches: (key: string) => boolean): boolean;
  /** How many are kept, the bytes they are counted as, and how many builds were made (each failed one too). */
  kept(): { count: number; bytes: number; builds: number };
}

/**
 * `released(key)`: called when `key` is neither kept nor being built any more (dropped from the
 * bound, stale, too large to keep, or its build failed), so what the caller keeps for it can go.
 */
export function createInstalledBundles(maxBytes = KEPT_BUNDLE_BYTES, released: (key: string) => void = () => {}): InstalledBundles {
  const building = new Map<string, Promise<KeptBundle>>();
  const kept = new LRUCache<string, KeptBundle>({
    maxSize: maxBytes,
    sizeCalculation: keptBytes,
    // After the entry is gone, so `has` no longer sees it; a bundle replaced by its rebuild is not released.
    disposeAfter: (_bundle, key, reason) => {
      if (reason !== 'set' && !building.has(key)) released(key);
    },
  });
  let builds = 0;
  const start = (key: string, build: (previous: KeptBundle | undefined) => Promise<KeptBundle>, previous: KeptBundle | undefined): Promise<KeptBundle> => {
    builds += 1;
    const pending = build(previous).then(
      (bundle) => {
        building.delete(key);
        kept.set(key, bundle);
        if (!kept.has(key)) released(key); // larger than the bound: served once, never kept
        return bundle;
      },
      (error: unknown) => {
        building.delete(key);
        if (!kept.has(key)) released(key);
        throw error;
      },
    );
    building.set(key, pending);
    return pending;
  };
  return {
    async get(key, build, holds) {
      for (let waited = 0; waited < BUILDS_PER_ANSWER; waited += 1) {
        const done = kept.get(key);
        if (done && holds(done)) return done;
        // A build already running may have read the files before a change this request follows:
        // its result is judged as a kept one is, not taken on trust.
        const pending = building.get(key) ?? start(key, build, done);
        // Stale: never answered again, even when its next build fails (dropped once its rebuild
        // is under way, so the key is not released in between).
        if (done) kept.delete(key);
        const finished = await pending;
        if (holds(finished)) return finished;
      }
      throw new UnsettledBundleError(BUILDS_PER_ANSWER);
    },
    peek: (key) => kept.get(key),
    has(matches) {
      for (const key of kept.keys()) if (matches(key)) return true;
      for (const key of building.keys()) if (matches(key)) return true;
      return false;
    },
    kept: () => ({ count: kept.size, bytes: kept.calculatedSize, builds }),
  };
}

// What a kept bundle holds, counted as the bound counts it: its bytes of code, stylesheets and JSON,
// and what its build recorded (paths and hashes, as strings of two bytes a character, each with
// an entry's overhead), which for a package of many small files outweighs its code.
const ENTRY_OVERHEAD = 48;
const stringBytes = (text: string): number => ENTRY_OVERHEAD + 2 * text.length;

export function keptBytes(bundle: KeptBundle): number {
  let bytes = bundle.code.byteLength + (bundle.styles?.byteLength ?? 0) + (bundle.json?.byteLength ?? 0);
  for (const text of bundle.imports) bytes += stringBytes(text);
  for (const text of bundle.sheetImports) bytes += stringBytes(text);
  for (const text of bundle.inputs) bytes += stringBytes(text);
  for (const text of bundle.joined) bytes += stringBytes(text);
  for (const ignored of bundle.ignoredImports) bytes += stringBytes(ignored.file) + stringBytes(ignored.text);
  for (const path in bundle.recorded) bytes += stringBytes(path) + stringBytes(bundle.recorded[path] ?? '');
  return Math.max(1, bytes);
}
