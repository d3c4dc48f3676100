// The local CDN's bundles of installed packages, kept in memory (README "The local CDN"): one
// per entry file, whatever address led to it, and at most `maxBytes` of code in all, the
// least recently served dropped first. A kept bundle answers only while `holds` says what it
// was built from is unchanged; else it is dropped and built again, from the files as they are
// now (an installed file patched in place). A build in progress is shared by every request
// for it; a failed one is not kept, so the next request tries again.
import { LRUCache } from 'lru-cache';
import type { InstalledBundle } from '../bundlers/installed-bundle.js';
import type { InputHashes } from '../store/events.js';

/** What the kept bundles may hold in all: a page's packages many times over, never the process's memory. */
export const KEPT_BUNDLE_BYTES = 64 * 1024 * 1024;

/** A bundle with what each of its inputs hashed as when it was built (`hashInputs`). */
export interface KeptBundle extends InstalledBundle {
  recorded: InputHashes;
}

export interface InstalledBundles {
  /**
   * The bundle kept under `key` while `holds` it, else the one `build` makes (and keeps), given
   * the bundle it replaces, if any (its inputs are hashed before the new build reads them).
   */
  get(key: string, build: (previous: KeptBundle | undefined) => Promise<KeptBundle>, holds: (kept: KeptBundle) => boolean): Promise<KeptBundle>;
  /** How many are kept, their bytes of code and stylesheets, and how many builds were made (each failed one too). */
  kept(): { count: number; bytes: number; builds: number };
}

export function createInstalledBundles(maxBytes = KEPT_BUNDLE_BYTES): InstalledBundles {
  const kept = new LRUCache<string, KeptBundle>({ maxSize: maxBytes, sizeCalculation: (bundle) => Math.max(1, bundle.code.byteLength + (bundle.styles?.byteLength ?? 0)) });
  const building = new Map<string, Promise<KeptBundle>>();
  let builds = 0;
  return {
    get(key, build, holds) {
      const done = kept.get(key);
      if (done && holds(done)) return Promise.resolve(done);
      // Stale: never answered again, even when its next build fails.
      if (done) kept.delete(key);
      let pending = building.get(key);
      if (!pending) {
        builds += 1;
        pending = build(done).then(
          (bundle) => {
            building.delete(key);
            kept.set(key, bundle);
            return bundle;
          },
          (error: unknown) => {
            building.delete(key);
            throw error;
          },
        );
        building.set(key, pending);
      }
      return pending;
    },
    kept: () => ({ count: kept.size, bytes: kept.calculatedSize, builds }),
  };
}
