// Loading a 1,000-module page in real Chromium (headless, playwright-core), the same sources
// for every server (bench/lib/workspaces.js `generatePageLoadWorkspace`: 100 packages x 10
// modules, each a custom element with three chained helpers, a stylesheet and a bare import of
// the next package's module; the app imports all 1,000 and renders one element of each):
//   ours     `core run` (development extension, CORE_CDN_ORIGIN=local, no build cache) and
//            its `/preview/` of the app
//   joined   the same with `/preview/bundled/` (the modules joined in one script, the sheets in one)
//   cached   the bundled preview with the build cache an earlier run left (a restart), for information
//   vite     a Vite 8 dev server, `index.html` loading the app's entry
//   bundled  the same with Vite's full-bundle dev mode (`experimental.bundledDev`)
// cold  = server process spawned -> the page rendered, in a new browser context;
// warm  = `reload()` in that context -> rendered (median of 3 reloads per repetition).
// Rendered: all 1,000 elements connected (`data-rendered`) and the last one coloured by its
// stylesheet. Requests are counted per load. Repetitions alternate ours, vite, bundled.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { progress } from '../lib/log.js';
import { CHILDREN, WORK } from '../lib/paths.js';
import { startCore, startScript, stopChild } from '../lib/processes.js';
import { median, now, summarize } from '../lib/stats.js';
import { generatePageLoadWorkspace } from '../lib/workspaces.js';

export const name = 'page-load';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
const RELOADS = 3;

function renderedCheck(app) {
  return [
    ({ elements, lastTag, lastColor }) => {
      if (document.querySelectorAll('[data-rendered]').length !== elements) return false;
      const last = document.querySelector(lastTag);
      return last !== null && getComputedStyle(last).color === lastColor;
    },
    { elements: app.elements, lastTag: app.lastTag, lastColor: app.lastColor },
  ];
}

const SERVERS = {
  ours: {
    label: 'ours (/preview/)',
    async start(app) {
      const { child, url } = await startCore(app.dir, { ms: 300_000, env: { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' } });
      return { child, page: `${url}preview/` };
    },
  },
  joined: {
    label: 'ours (/preview/bundled/)',
    async start(app) {
      const { child, url } = await startCore(app.dir, { ms: 300_000, env: { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' } });
      return { child, page: `${url}preview/bundled/` };
    },
  },
  cached: {
    label: 'ours (/preview/bundled/), restarted with its build cache',
    async start(app) {
      const { child, url } = await startCore(app.dir, { ms: 300_000, cacheDir: path.join(WORK, 'page-load-cache'), env: { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' } });
      return { child, page: `${url}preview/bundled/` };
    },
  },
  vite: {
    label: 'Vite 8 dev server',
    async start(app) {
      fs.rmSync(path.join(app.dir, '.vite-cache'), { recursive: true, force: true });
      const { child, url } = await startScript(path.join(CHILDREN, 'vite-server.js'), [app.dir, app.entriesFile], { cwd: app.dir, ms: 300_000 });
      return { child, page: url };
    },
  },
  bundled: {
    label: 'Vite 8 experimental.bundledDev',
    async start(app) {
      fs.rmSync(path.join(app.dir, '.vite-cache'), { recursive: true, force: true });
      const { child, url } = await startScript(path.join(CHILDREN, 'vite-server.js'), [app.dir, app.entriesFile, 'bundled'], { cwd: app.dir, ms: 300_000 });
      return { child, page: url };
    },
  },
};

async function loadOnce(browser, app, server) {
  const started = now();
  const { child, page: address } = await server.start(app);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let requests = 0;
    page.on('request', () => (requests += 1));
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const [check, args] = renderedCheck(app);
    await page.goto(address, { waitUntil: 'commit', timeout: 300_000 });
    await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
    const cold = { ms: now() - started, requests };
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

export async function run({ quick }) {
  const repetitions = quick ? 1 : 5;
  progress('page-load: generating 100 packages x 10 modules and the app');
  const app = generatePageLoadWorkspace('page-load-1000');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results = Object.fromEntries(Object.keys(SERVERS).map((key) => [key, []]));
  fs.rmSync(path.join(WORK, 'page-load-cache'), { recursive: true, force: true });
  try {
    progress(`page-load: a warm-up of each, then ${repetitions} repetitions, alternating`);
    for (const key of Object.keys(SERVERS)) await loadOnce(browser, app, SERVERS[key]);
    for (let index = 0; index < repetitions; index++) {
      for (const key of Object.keys(SERVERS)) results[key].push(await loadOnce(browser, app, SERVERS[key]));
      progress(
        `page-load: repetition ${index + 1}/${repetitions}: ${Object.keys(SERVERS)
          .map((key) => `${key} cold ${results[key].at(-1).cold.ms.toFixed(0)} ms (${results[key].at(-1).cold.requests} req), warm ${results[key].at(-1).warm.ms.toFixed(0)} ms (${results[key].at(-1).warm.requests} req)`)
          .join('; ')}`,
      );
    }
  } finally {
    await browser.close();
  }
  const series = (key, phase) => summarize(results[key].map((result) => result[phase].ms));
  const requests = (key, phase) => median(results[key].map((result) => result[phase].requests));
  const row = (phase, baseline, label, ours = 'ours') => ({
    id: `page-load-${phase}-${baseline}${ours === 'ours' ? '' : `-${ours}`}`,
    measure: `1,000-module page, ${phase === 'cold' ? 'cold: spawn -> rendered' : 'warm: reload -> rendered'}${ours === 'ours' ? '' : ` (${SERVERS[ours].label})`}`,
    baselineName: `${SERVERS[baseline].label}, same sources`,
    unit: 'ms',
    ours: series(ours, phase),
    baseline: series(baseline, phase),
    checks: label ? [{ on: 'ratio', op: '<=', value: 1.0 }] : [],
  });
  return {
    rows: [
      row('warm', 'bundled', true, 'joined'),
      row('cold', 'bundled', true, 'joined'),
      row('cold', 'bundled', false, 'cached'),
      row('warm', 'bundled', false),
      row('cold', 'bundled', false),
      row('warm', 'vite', false),
      row('cold', 'vite', false),
    ],
    raw: results,
    notes: [
      `requests per load (median): ${Object.keys(SERVERS).map((key) => `${key} cold ${requests(key, 'cold')}, warm ${requests(key, 'warm')}`).join('; ')}`,
      `${repetitions} repetitions after a warm-up of each; warm = median of ${RELOADS} reloads per repetition; Chromium ${browserVersionNote()}`,
    ],
  };
}

function browserVersionNote() {
  return '(/usr/bin/chromium, headless)';
}
