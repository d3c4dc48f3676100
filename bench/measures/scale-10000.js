// How the service grows from 1,000 to 10,000 modules (issue 33). Both workspaces are the
// page-load app (bench/lib/workspaces.js `generatePageLoadWorkspace`): 100 packages x 10 modules
// and 1,000 packages x 10 modules, each module a custom element with three chained helpers, a
// stylesheet and a bare import of the next package's module, plus the app importing them all.
// Per size and repetition, one `core run` (development extension, CORE_CDN_ORIGIN=local):
//   first    spawned with a new, EMPTY build cache -> the first `/state` with every module valid
//   idle     after `/state` settles, the start still works in the background (the watcher's
//            first walk, the build cache's write; at 10,000 modules seconds of CPU): the
//            steady-state rows below wait until the cache is written (it waits for 1 s without a
//            request, so a quiet second can come before it starts), then until the service used
//            under 5 % of a core for a second
//   state    `/state` p50 of the settled, idle service (sequential, kept-alive connection)
//   requests one module's development variant, req/s (autocannon, 10 connections), both sizes
//            measured in turns, 1 s each, while both run settled: the 1,000-module service
//            idles through the 10,000-module start (it uses no CPU then), so the two rates are
//            taken under the same load of the machine (a shared machine's load moved the old
//            one-size-then-the-other figure between 0.70 and 1.12, bench/RESULTS.md); with
//            the service's CPU per request in those series (utime + stime from /proc)
//   page     Chromium on `/preview/bundled/`: the first load (built on demand), then the warm
//            reload -> rendered (median of 3 reloads)
//   rss      peak RSS: VmHWM of the service + its esbuild process (sum of high-water marks,
//            an upper bound of their peak together), read after the page, before stopping
//   restart  spawned again with the cache the first start wrote -> `/state` all valid
// Rows: ours = 10,000 modules, baseline = 1,000 modules, ratio = growth (10x more modules).
// Information only: no target. Not part of the default run (slow): `npm run bench -- scale-10000`.
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { launchChromium } from '../lib/chromium.js';
import { keepAlive, timedGet } from '../lib/http.js';
import { progress } from '../lib/log.js';
import { commandOf, cpuMs, descendants, peakRssBytes, startCore, stopChild } from '../lib/processes.js';
import { median, now, sleep, summarize } from '../lib/stats.js';
import { DEVELOPMENT_QUERY, generatePageLoadWorkspace } from '../lib/workspaces.js';
import { renderedCheck } from '../lib/rendered.js';

export const name = 'scale-10000';

const MB = 1024 * 1024;
const LIMIT_MS = 900_000;
const OURS_ENV = { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' };

const SIZES = [
  { key: '1000', packages: 100, label: '1,000' },
  { key: '10000', packages: 1000, label: '10,000' },
];

/** Polls `/state` until every module is valid; the ms from `started`, the module count. */
async function untilAllValid(url, started) {
  for (;;) {
    const answer = await timedGet(`${url}state`);
    if (answer.status !== 200) throw new Error(`/state answered ${answer.status}`);
    const report = JSON.parse(answer.body.toString('utf8'));
    const valid = report.modules.filter((module) => module.status === 'valid').length;
    if (report.modules.length > 0 && valid === report.modules.length) return { ms: now() - started, modules: valid, bytes: answer.body.length };
    if (now() - started > LIMIT_MS) throw new Error(`/state: ${valid} of ${report.modules.length} valid after ${LIMIT_MS / 1000} s`);
    await sleep(50);
  }
}

/** Waits until the process used under 50 ms of CPU in a second (or 120 s passed); the ms it waited. */
async function untilIdle(pid) {
  const started = now();
  let before = cpuMs(pid);
  while (before !== null && now() - started < 120_000) {
    await sleep(1000);
    const after = cpuMs(pid);
    if (after === null || after - before < 50) break;
    before = after;
  }
  return now() - started;
}

/** Modules built and restored, from the service's event log. */
async function buildCounts(url) {
  const answer = await timedGet(`${url}log`);
  const events = answer.body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return {
    built: events.filter((event) => event.type === 'build.started').reduce((sum, event) => sum + event.modules.length, 0),
    restored: events.find((event) => event.type === 'cache.restored')?.builds.length ?? 0,
  };
}

function treePeakMB(pid) {
  const node = peakRssBytes(pid);
  if (node === null) return null;
  const children = descendants(pid).map((child) => ({ command: commandOf(child), bytes: peakRssBytes(child) ?? 0 }));
  return { nodeMB: node / MB, totalMB: (node + children.reduce((sum, child) => sum + child.bytes, 0)) / MB, children: children.map((child) => child.command) };
}

async function cacheWritten(cacheDir, expected) {
  const index = path.join(cacheDir, 'builds.json');
  const deadline = now() + 120_000;
  for (;;) {
    try {
      if (JSON.parse(fs.readFileSync(index, 'utf8')).entries.length >= expected) return true;
    } catch {
      // not written yet
    }
    if (now() > deadline) return false;
    await sleep(100);
  }
}

async function pageLoads(browser, app, url) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const [check, args] = renderedCheck(app);
    const started = now();
    await page.goto(`${url}preview/bundled/`, { waitUntil: 'commit', timeout: LIMIT_MS });
    await page.waitForFunction(check, args, { timeout: LIMIT_MS, polling: 'raf' });
    const firstMs = now() - started;
    const reloads = [];
    for (let index = 0; index < 3; index++) {
      const reloaded = now();
      await page.reload({ waitUntil: 'commit', timeout: LIMIT_MS });
      await page.waitForFunction(check, args, { timeout: LIMIT_MS, polling: 'raf' });
      reloads.push(now() - reloaded);
    }
    if (errors.length) throw new Error(`the bundled page threw: ${errors.slice(0, 3).join('; ')}`);
    return { pageFirstMs: firstMs, pageWarmMs: median(reloads) };
  } finally {
    await context.close();
  }
}

/**
 * The first start of one size, up to its settled `/state`: the service is left running (its
 * requests are measured side by side with the other size's, `requestsSideBySide`); `finishSize`
 * measures the rest and stops it.
 */
async function startSize(app) {
  const started = now();
  const first = await startCore(app.dir, { ms: LIMIT_MS, env: OURS_ENV, nodeArgs: [...(TRACE_GC ? ['--trace-gc'] : []), ...EXTRA_NODE_ARGS] });
  const result = { listeningMs: first.listeningMs };
  try {
    const settled = await untilAllValid(first.url, started);
    result.firstMs = settled.ms;
    result.modules = settled.modules;
    result.stateBytes = settled.bytes;
    result.firstBuilt = (await buildCounts(first.url)).built;
    result.cacheWritten = await cacheWritten(first.cacheDir, settled.modules);
    result.idleMs = await untilIdle(first.child.pid);
    const agent = keepAlive();
    const state = [];
    for (let index = 0; index < 23; index++) {
      const answer = await timedGet(`${first.url}state`, { agent });
      if (index >= 3) state.push(answer.ms);
    }
    agent.destroy();
    result.stateMs = median(state);
    const moduleUrl = `${first.url}m/${app.packageName(0)}@1.0.0/modules/m0?${DEVELOPMENT_QUERY}`;
    const probe = await timedGet(moduleUrl);
    if (probe.status !== 200) throw new Error(`${moduleUrl} answered ${probe.status}`);
    return { app, first, moduleUrl, result };
  } catch (error) {
    await stopChild(first.child);
    throw error;
  }
}

/**
 * One module's requests of every started size, in turns: a warm-up of 1 s each, then `rounds`
 * series of 1 s each per size, the order turning each round. A machine shared with other work
 * slows the sizes alike, where series taken minutes apart (one size, then the other) compared
 * whatever else ran at each time. Each size's req/s is its requests over its seconds.
 */
async function requestsSideBySide(sizes, rounds) {
  const load = async (size, seconds) => {
    const cpuBefore = cpuMs(size.first.child.pid);
    const answered = await autocannon({ url: size.moduleUrl, connections: 10, duration: seconds });
    if (answered.errors + answered.timeouts + answered.non2xx > 0) throw new Error(`${answered.errors + answered.timeouts + answered.non2xx} errors/non-2xx under load`);
    return { requests: answered.requests.total, cpuMs: cpuMs(size.first.child.pid) - cpuBefore };
  };
  const linesBefore = sizes.map((size) => size.first.child.lines.length);
  const windowStart = monotonicUs();
  for (const size of sizes) await load(size, 1);
  const totals = sizes.map(() => ({ requests: 0, cpuMs: 0 }));
  const perRound = [];
  for (let round = 0; round < rounds; round++) {
    const rates = sizes.map(() => 0);
    for (let turn = 0; turn < sizes.length; turn++) {
      const index = (turn + round) % sizes.length;
      const answered = await load(sizes[index], 1);
      totals[index].requests += answered.requests;
      totals[index].cpuMs += answered.cpuMs;
      rates[index] = answered.requests;
    }
    perRound.push(rates);
  }
  sizes.forEach((size, index) => {
    size.result.rps = totals[index].requests / rounds;
    size.result.rpsRounds = perRound.map((rates) => rates[index]);
    // The service's own CPU per request: what the machine's other work moves least (it still
    // moves it, through the caches and cores it shares).
    size.result.cpuPerRequestUs = (totals[index].cpuMs * 1000) / totals[index].requests;
    size.result.requestsWindow = [windowStart, monotonicUs(), size.first.child.pid];
    if (TRACE_GC) size.result.collections = collectionsOf(size.first.child.lines.slice(linesBefore[index]));
  });
}

async function finishSize(browser, { app, first, result }) {
  try {
    Object.assign(result, await pageLoads(browser, app, first.url));
    result.peak = treePeakMB(first.child.pid);
  } finally {
    await stopChild(first.child);
  }
  const restarted = now();
  const again = await startCore(app.dir, { ms: LIMIT_MS, env: OURS_ENV, cacheDir: first.cacheDir });
  try {
    result.restartMs = (await untilAllValid(again.url, restarted)).ms;
    Object.assign(result, { restart: await buildCounts(again.url) });
  } finally {
    await stopChild(again.child);
    fs.rmSync(first.cacheDir, { recursive: true, force: true });
  }
  return result;
}

// BENCH_SCALE_TRACE_GC=1: each service runs with --trace-gc, and the collections during the
// requests (warm-up included) are summed per size and repetition in the notes.
const TRACE_GC = process.env.BENCH_SCALE_TRACE_GC === '1';
// BENCH_SCALE_NODE_ARGS: more node options for the services (`--cpu-prof --cpu-prof-dir=DIR`);
// the notes then give each size's window of requests in the clock of a --cpu-prof profile.
const EXTRA_NODE_ARGS = (process.env.BENCH_SCALE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

function collectionsOf(lines) {
  const found = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0, heapMB: null };
  for (const line of lines) {
    const match = /: (Scavenge|Mark-Compact)\S* ([\d.]+) \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms)?/.exec(line);
    if (!match) continue;
    const ms = Number(match[3]) + Number(match[4] ?? 0);
    if (match[1] === 'Scavenge') {
      found.scavenges += 1;
      found.scavengeMs += ms;
    } else {
      found.markCompacts += 1;
      found.markCompactMs += ms;
    }
    found.heapMB = Number(match[2]);
  }
  return found;
}

/** Per repetition, each round's 10,000-module req/s over the 1,000-module req/s of the same round. */
function ratiosPerRound(small, large) {
  return large.map((result, repetition) => result.rpsRounds.map((requests, round) => (requests / small[repetition].rpsRounds[round]).toFixed(2)).join(' ')).join('; ');
}

export async function run({ quick }) {
  const repetitions = quick ? 1 : 2;
  const rounds = quick ? 2 : 4;
  const apps = {};
  for (const size of SIZES) {
    progress(`scale-10000: generating ${size.packages} packages x 10 modules and the app`);
    apps[size.key] = generatePageLoadWorkspace(`scale-${size.key}-page`, { packages: size.packages, modulesPerPackage: 10 });
  }
  const browser = await launchChromium();
  const results = Object.fromEntries(SIZES.map((size) => [size.key, []]));
  try {
    for (let index = 0; index < repetitions; index++) {
      // Each size starts alone (a start of 10,000 modules takes both cores); the smaller one
      // idles meanwhile, so both are running, settled, when their requests are measured in turns.
      const started = [];
      try {
        for (const size of SIZES) started.push({ ...(await startSize(apps[size.key])), size });
        await requestsSideBySide(started, rounds);
      } catch (error) {
        for (const { first } of started) await stopChild(first.child);
        throw error;
      }
      for (const { size, ...one } of started) {
        const result = await finishSize(browser, one);
        results[size.key].push(result);
        progress(
          `scale-10000: ${size.label} modules, repetition ${index + 1}/${repetitions}: first start ${result.firstMs.toFixed(0)} ms (${result.firstBuilt} built), restart ${result.restartMs.toFixed(0)} ms (${result.restart.restored} restored, ${result.restart.built} built), /state ${result.stateMs.toFixed(1)} ms, ${result.rps.toFixed(0)} req/s (per round ${result.rpsRounds.join(', ')}; ${result.cpuPerRequestUs.toFixed(1)} us of CPU per request), page first ${result.pageFirstMs.toFixed(0)} / warm ${result.pageWarmMs.toFixed(0)} ms, peak ${result.peak?.totalMB.toFixed(0)} MB`,
        );
      }
    }
  } finally {
    await browser.close();
  }
  const [small, large] = SIZES.map((size) => results[size.key]);
  const row = (id, measure, unit, pick) => ({
    id: `scale-10000-${id}`,
    measure: `10,000 vs 1,000 modules: ${measure}`,
    baselineName: 'the same, 1,000 modules',
    unit,
    ours: summarize(large.map(pick).filter((value) => value !== null && value !== undefined)),
    baseline: summarize(small.map(pick).filter((value) => value !== null && value !== undefined)),
    checks: [],
  });
  const problems = SIZES.flatMap((size) =>
    results[size.key].flatMap((result) => [
      ...(result.cacheWritten ? [] : [`${size.label}: the first start's cache did not list every module within 120 s`]),
      ...(result.restart.built === 0 ? [] : [`${size.label}: the restart built ${result.restart.built} modules (restored ${result.restart.restored})`]),
    ]),
  );
  return {
    rows: [
      row('first', 'first start, empty cache: spawn -> /state all valid', 'ms', (result) => result.firstMs),
      row('restart', 'restart with the build cache -> /state all valid', 'ms', (result) => result.restartMs),
      row('state', '/state p50 (settled)', 'ms', (result) => result.stateMs),
      row('requests', "one module's development variant (10 connections)", 'req/s', (result) => result.rps),
      row('requests-cpu', "one module's development variant: the service's CPU per request (the same series)", 'us', (result) => result.cpuPerRequestUs),
      row('page-first', '/preview/bundled/ first load after /state (join built on demand)', 'ms', (result) => result.pageFirstMs),
      row('page-warm', '/preview/bundled/ warm reload -> rendered', 'ms', (result) => result.pageWarmMs),
      row('rss', 'peak RSS, service + its esbuild process (sum of VmHWM)', 'MB', (result) => result.peak?.totalMB),
      row('rss-node', 'peak RSS, service process alone (VmHWM)', 'MB', (result) => result.peak?.nodeMB),
    ],
    raw: results,
    notes: [
      'workspaces: the page-load app at 100 x 10 and 1,000 x 10 modules (+ the app module); ratio = 10,000 / 1,000, information only',
      'first start: a new empty CORE_CACHE_DIR, spawn -> /state all valid; restart: the cache the first start wrote, same measure; each size and repetition runs both',
      `/state answer: ${SIZES.map((size) => `${size.label} modules ${results[size.key][0].stateBytes} bytes`).join(', ')}; spawn -> listening median ${SIZES.map((size) => `${size.label} ${median(results[size.key].map((result) => result.listeningMs)).toFixed(0)} ms`).join(', ')}`,
      `after /state settled and the build cache was written, the service was idle (under 5 % of a core for 1 s) after, median: ${SIZES.map((size) => `${size.label} ${median(results[size.key].map((result) => result.idleMs)).toFixed(0)} ms`).join(', ')}; /state and the requests are measured then`,
      `processes in the peak RSS: ${large[0].peak ? ['node', ...large[0].peak.children].join(', ') : 'not available (no /proc)'}`,
      ...(problems.length ? [`problems: ${problems.join('; ')}`] : []),
      ...(EXTRA_NODE_ARGS.length ? [`requests' window (monotonic us from, to, pid): ${SIZES.map((size) => `${size.label}: ${results[size.key].map((result) => result.requestsWindow.join(' ')).join('; ')}`).join(' | ')}`] : []),
      ...(TRACE_GC
        ? [`collections during the requests (per repetition): ${SIZES.map((size) => `${size.label}: ${results[size.key].map(({ collections: found }) => `${found.scavenges} scavenges ${found.scavengeMs.toFixed(1)} ms, ${found.markCompacts} mark-compacts ${found.markCompactMs.toFixed(1)} ms (pause + incremental steps), heap ${found.heapMB} MB`).join('; ')}`).join(' | ')}`]
        : []),
      `${repetitions} repetitions per size, alternating; requests: both sizes running and settled, autocannon 1 s of warm-up each, then ${rounds} rounds of 1 s per size in turns (the order turning each round); ratio of req/s per round (10,000 / 1,000): ${ratiosPerRound(small, large)}`,
    ],
  };
}
