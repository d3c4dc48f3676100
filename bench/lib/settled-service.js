// One `core run` on a page-load workspace of 1,000 or 10,000 modules (or of 2: two packages of
// one module each, the bench's `requests` baseline), started and left to settle,
// for the scripts that load one module's address (bench/one-module-pairs.js,
// bench/one-module-rate.js; issue 33). The workspace is kept in bench/.work/rate-SIZE between
// runs (generated once); each build (`repo`) keeps its own build cache,
// bench/.work/rate-cache-SIZE-<hash of repo>, so only its first start builds, unless `fresh`
// empties it (a first start, as the bench's scale-10000 measure takes).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { timedGet } from './http.js';
import { WORK } from './paths.js';
import { cpuMs, spawnNode, waitForLine } from './processes.js';
import { now, sleep } from './stats.js';
import { DEVELOPMENT_QUERY, generatePageLoadWorkspace } from './workspaces.js';

/**
 * Spawns `repo`'s bin/core.js on the workspace of `size` modules and resolves once it is
 * settled: `/state` all valid, the build cache written (it waits for a second without a
 * request), then under 5 % of a core for a second. The caller stops `child`.
 */
export async function startSettled({ size, repo, fresh = false, nodeArgs = [] }) {
  const shape = size < 10 ? { packages: size, modulesPerPackage: 1 } : { packages: size / 10, modulesPerPackage: 10 };
  const app = generatePageLoadWorkspace(`rate-${size}`, { ...shape, keep: true });
  const cacheDir = path.join(WORK, `rate-cache-${size}-${crypto.createHash('sha1').update(repo).digest('hex').slice(0, 8)}`);
  if (fresh) fs.rmSync(cacheDir, { recursive: true, force: true });
  fs.mkdirSync(cacheDir, { recursive: true });
  const started = now();
  const child = spawnNode([...nodeArgs, path.join(repo, 'bin', 'core.js'), 'run', '--port', '0'], {
    cwd: app.dir,
    env: { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local', CORE_CACHE_DIR: cacheDir },
  });
  const [, url] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 600_000, 'the service URL');
  let modules = 0;
  for (;;) {
    const report = JSON.parse((await timedGet(`${url}state`)).body.toString('utf8'));
    modules = report.modules.length;
    if (modules > 0 && report.modules.every((module) => module.status === 'valid')) break;
    await sleep(100);
  }
  const validMs = now() - started;
  await untilSettled(child, cacheDir, modules);
  const moduleUrl = `${url}m/${app.packageName(0)}@1.0.0/modules/m0?${DEVELOPMENT_QUERY}`;
  const probe = await timedGet(moduleUrl);
  if (probe.status !== 200) throw new Error(`${moduleUrl} answered ${probe.status}`);
  return { app, child, url, moduleUrl, modules, validMs, settledMs: now() - started };
}

/**
 * Resolves once the service of `child`, whose `/state` has `modules` all valid, has written its
 * build cache in `cacheDir` (once its requests have gone quiet, at most 3 s after its builds:
 * src/effects/requests-quiet.ts) and has then used under 5 % of a core for a second: its
 * watcher's first walk and the cache's write are done (about 1 s of CPU after a first start of
 * 1,000 modules), and a series of requests measures the requests alone.
 */
export async function untilSettled(child, cacheDir, modules) {
  for (const deadline = now() + 120_000; now() < deadline; await sleep(200)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(cacheDir, 'builds.json'), 'utf8')).entries.length >= modules) break;
    } catch {
      // not written yet
    }
  }
  let before = cpuMs(child.pid);
  for (const deadline = now() + 120_000; now() < deadline; ) {
    await sleep(1000);
    const after = cpuMs(child.pid);
    if (after - before < 50) break;
    before = after;
  }
}

/** The resident set of `pid` now, MB (Linux /proc), or '?'. */
export function rssMB(pid) {
  try {
    return (Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(0);
  } catch {
    return '?';
  }
}
