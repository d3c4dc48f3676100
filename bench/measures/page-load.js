// Loading a 1,000-module page in real Chromium (headless, playwright-core), the same sources
// for every server (bench/lib/workspaces.js `generatePageLoadWorkspace`: 100 packages x 10
// modules, each a custom element with three chained helpers, a stylesheet and a bare import of
// the next package's module; the app imports all 1,000 and renders one element of each):
//   ours     `core run` (development extension, CORE_CDN_ORIGIN=local, a new, empty build cache) and
//            its `/preview/` of the app
//   joined   the same with `/preview/bundled/` (the modules joined in one script, the sheets in one)
//   cached   the bundled preview with the build cache an earlier run left (a restart)
//   vite     a Vite 8 dev server, `index.html` loading the app's entry
//   bundled  the same with Vite's full-bundle dev mode (`experimental.bundledDev`)
//   floor    esbuild's own `serve()`, the app bundled from the sources in one build: what the
//            compiler alone costs, under any design of ours (bench/children/esbuild-serve.js)
// cold  = server process spawned -> the page rendered, in a new browser context;
// warm  = `reload()` in that context -> rendered (median of 3 reloads per repetition).
// Rendered: all 1,000 elements connected (`data-rendered`) and the last one coloured by its
// stylesheet. Requests are counted per load. Repetitions alternate ours, vite, bundled.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../lib/chromium.js';
import { progress } from '../lib/log.js';
import { CHILDREN, WORK } from '../lib/paths.js';
import { cpuMs, descendants, startCore, startScript, stopChild } from '../lib/processes.js';
import { median, now, sleep, summarize } from '../lib/stats.js';
import { generatePageLoadWorkspace } from '../lib/workspaces.js';
import { renderedCheck } from '../lib/rendered.js';

export const name = 'page-load';

const RELOADS = 3;

// A new tab costs headless Chromium 0.6-0.9 s of CPU in the second after it opens (its renderer
// starting), measured with no server running: opened after the URL line, as this bench did
// until stop 32, it took one of the two cores from the server's first builds, Vite's and ours
// alike. A developer's browser is open before the server starts, so the tab is opened first,
// and the clock starts once Chromium is quiet. `BENCH_PAGE_LOAD_TAB=after` measures the old way.
const TAB_AFTER_URL = process.env.BENCH_PAGE_LOAD_TAB === 'after';

const OURS_ENV = { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' };

/**
 * Vite's caches, removed before each of its starts: the cache directory the child sets
 * (`<root>/.vite-cache`) and Vite's default one (`node_modules/.vite`), in case a version
 * writes there too. Both modes keep their prebundled dependencies and metadata there; with
 * these sources (nothing to prebundle) Vite 8.3.8 writes neither, so its cold start is every
 * start (bench/README.md).
 */
function clearViteCaches(root) {
  for (const dir of ['.vite-cache', 'node_modules/.vite']) fs.rmSync(path.join(root, dir), { recursive: true, force: true });
}

/** What each side clears, starts and waits for: printed with the results (bench/README.md). */
export const PROTOCOL = [
  'cold, ours: a new empty build cache directory (CORE_CACHE_DIR, read from and written to, as on a first start), then `core run --port 0` spawned (development extension, CORE_CDN_ORIGIN=local); the clock starts at spawn',
  'cold, ours restarted: the same with the build cache an earlier start of the same workspace wrote (bench/.work/page-load-cache)',
  'cold, Vite: `<root>/.vite-cache` (its cacheDir) and `node_modules/.vite` removed, then bench/children/vite-server.js spawned (createServer + listen, optimizeDeps.noDiscovery, experimental.bundledDev for the bundled mode); the clock starts at spawn',
  TAB_AFTER_URL
    ? 'both: waited for the URL line (the server listens), then a new browser context and tab (BENCH_PAGE_LOAD_TAB=after), goto(url, commit) and polled each frame until all elements carry data-rendered and the last one has its stylesheet colour; what the page fetches meanwhile (Vite bundledDev: its initial bundle) is inside the figure'
    : 'both: a new browser context and tab opened before the spawn, the clock started once Chromium is quiet (<= 10 ms of CPU in 250 ms); waited for the URL line (the server listens), then goto(url, commit) and polled each frame until all elements carry data-rendered and the last one has its stylesheet colour; what the page fetches meanwhile (Vite bundledDev: its initial bundle) is inside the figure',
  'warm: reload() in the same context -> the same check, median of 3 reloads',
];

const SERVERS = {
  ours: {
    label: 'ours (/preview/)',
    async start(app) {
      const { child, url, listeningMs } = await startCore(app.dir, { ms: 300_000, env: OURS_ENV });
      return { child, page: `${url}preview/`, listeningMs };
    },
  },
  joined: {
    label: 'ours (/preview/bundled/)',
    async start(app) {
      const { child, url, listeningMs } = await startCore(app.dir, { ms: 300_000, env: OURS_ENV });
      return { child, page: `${url}preview/bundled/`, listeningMs };
    },
  },
  cached: {
    label: 'ours (/preview/bundled/), restarted with its build cache',
    async start(app) {
      const { child, url, listeningMs } = await startCore(app.dir, { ms: 300_000, cacheDir: path.join(WORK, 'page-load-cache'), env: OURS_ENV });
      return { child, page: `${url}preview/bundled/`, listeningMs };
    },
  },
  vite: {
    label: 'Vite 8 dev server',
    async start(app) {
      clearViteCaches(app.dir);
      const { child, url, listeningMs } = await startScript(path.join(CHILDREN, 'vite-server.js'), [app.dir, app.entriesFile], { cwd: app.dir, ms: 300_000 });
      return { child, page: url, listeningMs };
    },
  },
  floor: {
    label: 'esbuild serve(): the app bundled from the sources in one build (the compiler alone)',
    async start(app) {
      const { child, url, listeningMs } = await startScript(path.join(CHILDREN, 'esbuild-serve.js'), [app.dir, app.entriesFile], { cwd: app.dir, ms: 300_000 });
      return { child, page: url, listeningMs };
    },
  },
  bundled: {
    label: 'Vite 8 experimental.bundledDev',
    async start(app) {
      clearViteCaches(app.dir);
      const { child, url, listeningMs } = await startScript(path.join(CHILDREN, 'vite-server.js'), [app.dir, app.entriesFile, 'bundled'], { cwd: app.dir, ms: 300_000 });
      return { child, page: url, listeningMs };
    },
  },
};

async function loadOnce(browser, app, server) {
  const context = await browser.newContext();
  const early = TAB_AFTER_URL ? null : await context.newPage();
  if (early) await chromiumQuiet();
  const started = now();
  const { child, page: address, listeningMs } = await server.start(app);
  try {
    const page = early ?? (await context.newPage());
    let requests = 0;
    page.on('request', () => (requests += 1));
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const [check, args] = renderedCheck(app);
    await page.goto(address, { waitUntil: 'commit', timeout: 300_000 });
    const committed = now();
    await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
    const cold = { ms: now() - started, requests, listeningMs, toCommitMs: committed - started };
    const warm = [];
    for (let index = 0; index < RELOADS; index++) {
      requests = 0;
      const reloaded = now();
      await page.reload({ waitUntil: 'commit', timeout: 300_000 });
      await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
      warm.push({ ms: now() - reloaded, requests });
    }
    if (errors.length) throw new Error(`${server.label}: the page threw: ${errors.slice(0, 3).join('; ')}`);
    return { cold, warm: { ms: median(warm.map((load) => load.ms)), requests: warm.at(-1).requests } };
  } finally {
    await context.close();
    await stopChild(child);
  }
}

/** Waits until this process's Chromium used at most 10 ms of CPU in 250 ms (at most 10 s). */
async function chromiumQuiet() {
  const chromiumCpu = () => descendants(process.pid).map((pid) => cpuMs(pid) ?? 0).reduce((sum, ms) => sum + ms, 0);
  const until = now() + 10_000;
  let before = chromiumCpu();
  while (now() < until) {
    await sleep(250);
    const after = chromiumCpu();
    if (after - before <= 10) return;
    before = after;
  }
}

/**
 * The servers of a run: all, or those `BENCH_PAGE_LOAD_SERVERS` names (e.g. `joined,cached,bundled`,
 * the judged rows without the two one-address-per-module pages, which take most of the time).
 */
function selectedServers() {
  const names = (process.env.BENCH_PAGE_LOAD_SERVERS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (names.length === 0) return Object.keys(SERVERS);
  const unknown = names.filter((name) => !(name in SERVERS));
  if (unknown.length) throw new Error(`BENCH_PAGE_LOAD_SERVERS: unknown ${unknown.join(', ')} (known: ${Object.keys(SERVERS).join(', ')})`);
  return Object.keys(SERVERS).filter((name) => names.includes(name));
}

export async function run({ quick }) {
  const repetitions = Number(process.env.BENCH_PAGE_LOAD_REPETITIONS) || (quick ? 1 : 5);
  const servers = selectedServers();
  progress('page-load: generating 100 packages x 10 modules and the app');
  const app = generatePageLoadWorkspace('page-load-1000');
  const browser = await launchChromium();
  const results = Object.fromEntries(servers.map((key) => [key, []]));
  fs.rmSync(path.join(WORK, 'page-load-cache'), { recursive: true, force: true });
  try {
    progress(`page-load: a warm-up of each, then ${repetitions} repetitions, alternating`);
    for (const key of servers) await loadOnce(browser, app, SERVERS[key]);
    for (let index = 0; index < repetitions; index++) {
      for (const key of servers) results[key].push(await loadOnce(browser, app, SERVERS[key]));
      progress(
        `page-load: repetition ${index + 1}/${repetitions}: ${servers
          .map((key) => `${key} cold ${results[key].at(-1).cold.ms.toFixed(0)} ms (${results[key].at(-1).cold.requests} req), warm ${results[key].at(-1).warm.ms.toFixed(0)} ms (${results[key].at(-1).warm.requests} req)`)
          .join('; ')}`,
      );
    }
  } finally {
    await browser.close();
  }
  const series = (key, phase) => summarize(results[key].map((result) => result[phase].ms));
  const requests = (key, phase) => median(results[key].map((result) => result[phase].requests));
  // Targets of the bundled page against Vite bundledDev's (bench/README.md): warm <= 1.0, cold <= 0.8, restarted <= 0.5.
  const row = (phase, baseline, target, ours = 'ours') => ({
    id: `page-load-${phase}-${baseline}${ours === 'ours' ? '' : `-${ours}`}`,
    measure: `1,000-module page, ${phase === 'cold' ? 'cold: spawn -> rendered' : 'warm: reload -> rendered'}${ours === 'ours' ? '' : ` (${SERVERS[ours].label})`}`,
    baselineName: `${SERVERS[baseline].label}, same sources`,
    unit: 'ms',
    ours: series(ours, phase),
    baseline: series(baseline, phase),
    checks: target === null ? [] : [{ on: 'ratio', op: '<=', value: target }],
  });
  return {
    rows: [
      ['warm', 'bundled', 1.0, 'joined'],
      ['cold', 'bundled', 0.8, 'joined'],
      ['cold', 'bundled', 0.5, 'cached'],
      ['warm', 'bundled', null, 'ours'],
      ['cold', 'bundled', null, 'ours'],
      ['warm', 'vite', null, 'ours'],
      ['cold', 'vite', null, 'ours'],
      // What the compiler alone reaches (no module builds, checks or join): the floor under row 2.
      ['cold', 'bundled', null, 'floor'],
      ['cold', 'floor', null, 'joined'],
    ]
      .filter(([, baseline, , ours]) => servers.includes(baseline) && servers.includes(ours))
      .map((args) => row(...args)),
    raw: results,
    notes: [
      ...PROTOCOL,
      `cold, where the time goes (medians, ms from spawn): ${servers
        .map((key) => `${key} listening ${median(results[key].map((result) => result.cold.listeningMs)).toFixed(0)}, first answer of the page ${median(results[key].map((result) => result.cold.toCommitMs)).toFixed(0)}, rendered ${median(results[key].map((result) => result.cold.ms)).toFixed(0)}`)
        .join('; ')}`,
      `requests per load (median): ${servers.map((key) => `${key} cold ${requests(key, 'cold')}, warm ${requests(key, 'warm')}`).join('; ')}`,
      `servers: ${servers.join(', ')}; ${repetitions} repetitions after a warm-up of each; warm = median of ${RELOADS} reloads per repetition; Chromium ${browserVersionNote()}`,
    ],
  };
}

function browserVersionNote() {
  return '(/usr/bin/chromium, headless)';
}
