// A restart from the build cache (README "The build cache"): the workspace served with a cache
// until the cache holds every build, then served again from it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CoreEvent } from '../../src/store/events.js';
import type { Report } from '../../src/store/selectors.js';
import { serve } from './service.js';
import { waitFor } from './wait-for.js';

/**
 * Serves `root` with a build cache in a new folder (pushed on `made`, for the caller's `after` to
 * remove) until the cache holds `builds` builds, then serves it again from that cache: the first
 * report, and the second service's report and the builds it started. Both services are closed.
 */
export async function restartFromCache(root: string, builds: number, made: string[]): Promise<{ before: Report; after: Report; started: CoreEvent[] }> {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
  made.push(cacheDir);
  const first = await serve(root, { cache: cacheDir, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
  let before: Report;
  try {
    before = await first.report();
    const saved = () => (JSON.parse(fs.readFileSync(path.join(cacheDir, 'builds.json'), 'utf8')) as { entries: unknown[] }).entries.length === builds;
    await waitFor(() => fs.existsSync(path.join(cacheDir, 'builds.json')) && saved(), { what: 'the build cache written', timeout: 60_000 });
  } finally {
    await first.close();
  }
  const second = await serve(root, { cache: cacheDir });
  try {
    const after = await second.report();
    return { before, after, started: [...second.internals.log.events()].filter((event) => event.type === 'build.started') };
  } finally {
    await second.close();
  }
}
