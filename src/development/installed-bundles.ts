// The local CDN's bundles of installed packages, kept in memory (README "The local CDN"): one
// per entry file, whatever address led to it, and at most `maxBytes` of code in all, the
// least recently served dropped first. A build in progress is shared by every request for
// it; a failed one is not kept, so the next request tries again.
import { LRUCache } from 'lru-cache';
import type { InstalledBundle } from '../bundlers/installed-bundle.js';

/** What the kept bundles may hold in all: a page's packages many times over, never the process's memory. */
export const KEPT_BUNDLE_BYTES = 64 * 1024 * 1024;

export interface InstalledBundles {
  /** The bundle kept under `key`, else the one `build` makes (and keeps). */
  get(key: string, build: () => Promise<InstalledBundle>): Promise<InstalledBundle>;
  /** How many are kept, and their bytes of code and stylesheets. */
  kept(): { count: number; bytes: number };
}

export function createInstalledBundles(maxBytes = KEPT_BUNDLE_BYTES): InstalledBundles {
  const kept = new LRUCache<string, InstalledBundle>({ maxSize: maxBytes, sizeCalculation: (bundle) => Math.max(1, bundle.code.byteLength + (bundle.styles?.byteLength ?? 0)) });
  const building = new Map<string, Promise<InstalledBundle>>();
  return {
    get(key, build) {
      const done = kept.get(key);
      if (done) return Promise.resolve(done);
      let pending = building.get(key);
      if (!pending) {
        pending = build().then(
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
    kept: () => ({ count: kept.size, bytes: kept.calculatedSize }),
  };
}
