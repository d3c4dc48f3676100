// Restarts of two builds side by side (speed work on issue 33 point 2, bench/RESULTS.md): the
// 1,000-module page-load workspace with the build cache a first start of the same build wrote,
// spawn -> `/preview/bundled/` answered -> its scripts and sheets answered, alternating this
// repository's `bin/core.js` and another's, with the service process's CPU (from /proc) at the
// moment the last of them answered and 1.5 s later, beside the wall time. No browser: the
// service's part only.
//   node bench/restart-cpu.js /path/to/other/repository [pairs]
// RESTART_GAP_MS=ms: the page asked for that long after the address is out, as a browser does.
// RESTART_PROFILE=dir: each restart under `--cpu-prof`, its profile written into dir.
// Both must be built (`npm run build`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timedGet } from './lib/http.js';
import { BIN, WORK } from './lib/paths.js';
import { cpuMs, spawnNode, stopChild, waitForLine } from './lib/processes.js';
import { median, now, sleep } from './lib/stats.js';
import { generatePageLoadWorkspace } from './lib/workspaces.js';

const [other, pairsText = '5'] = process.argv.slice(2);
if (!other) throw new Error('usage: node bench/restart-cpu.js /path/to/other/repository [pairs]');
const bins = { this: BIN, other: path.join(path.resolve(other), 'bin', 'core.js') };
/** RESTART_GAP_MS: how long after the address is out the page is asked for (default 0: at once). */
const GAP_MS = Number(process.env.RESTART_GAP_MS ?? 0);
/** The CPU is read again this long after the page's parts answered. */
const AFTER_MS = 1500;
const ENV = { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' };


/** One start to the page's parts answered; `settle` waits for `/state` all valid and a quiet second (the cache written). */
async function start(bin, root, cacheDir, { profile = false, settle = false } = {}) {
  const started = now();
  const profileArgs = profile && process.env.RESTART_PROFILE ? ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', path.resolve(process.env.RESTART_PROFILE)] : [];
  const child = spawnNode([...profileArgs, bin, 'run', '--port', '0'], { cwd: root, env: { ...process.env, ...ENV, CORE_CACHE_DIR: cacheDir } });
  try {
    const [, address] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 300_000, 'the service URL');
    const listening = now() - started;
    // A browser asks for the page some time after the address is out (its context and tab start).
    if (GAP_MS > 0 && !settle) await sleep(GAP_MS);
    const asked = now();
    const page = await timedGet(`${address}preview/bundled/`);
    if (page.status !== 200) throw new Error(`the page answered ${page.status}`);
    const answered = now() - started;
    const answer = now() - asked;
    const html = page.body.toString('utf8');
    const parts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1].replaceAll('&amp;', '&'), `${address}preview/bundled/`).href).filter((part) => part.startsWith(address));
    for (const part of parts) {
      const got = await timedGet(part);
      if (got.status !== 200) throw new Error(`${part} answered ${got.status}`);
    }
    const ms = now() - started;
    const cpu = cpuMs(child.pid);
    // What the restart still does once the page is out (the cache's write, the watcher's walk).
    await sleep(AFTER_MS);
    const cpuAfter = cpuMs(child.pid);
    if (settle) {
      for (;;) {
        const report = JSON.parse((await timedGet(`${address}state`)).body.toString('utf8'));
        if (report.modules.length > 0 && report.modules.every((module) => module.status === 'valid')) break;
        await sleep(50);
      }
      await sleep(1500);
    }
    return { listening, answered, answer, ms, cpu, cpuAfter, parts: parts.length };
  } finally {
    await stopChild(child);
  }
}

const app = generatePageLoadWorkspace('page-load-1000', { keep: true });
// Each build runs in a copy inside its own repository: the workspace loads the development
// extension as `@core-js/packages/development`, which resolves to the repository it lies in.
const roots = { this: app.dir, other: path.join(path.resolve(other), 'bench', '.work', 'page-load-1000') };
fs.rmSync(roots.other, { recursive: true, force: true });
fs.cpSync(app.dir, roots.other, { recursive: true });
const caches = { this: path.join(WORK, 'restart-cache-this'), other: path.join(WORK, 'restart-cache-other') };
const results = { this: [], other: [] };
for (const which of ['this', 'other']) {
  fs.rmSync(caches[which], { recursive: true, force: true });
  await start(bins[which], roots[which], caches[which], { settle: true });
}
const pairs = Number(pairsText);
for (let pair = 0; pair <= pairs; pair++) {
  // Alternating which goes first; the first pair warms the disk cache and is not counted.
  for (const which of pair % 2 ? ['other', 'this'] : ['this', 'other']) {
    const run = await start(bins[which], roots[which], caches[which], { profile: pair > 0 });
    if (pair > 0) results[which].push(run);
    console.log(`pair ${pair} ${which}: listening ${run.listening.toFixed(0)}, page ${run.answered.toFixed(0)} (asked -> answered ${run.answer.toFixed(0)}), parts (${run.parts}) ${run.ms.toFixed(0)} ms, CPU ${run.cpu.toFixed(0)} ms (${run.cpuAfter.toFixed(0)} ms ${AFTER_MS} ms later), load ${os.loadavg()[0].toFixed(2)}`);
  }
}
const describe = (runs, key) => `${median(runs.map((run) => run[key])).toFixed(0)} [${Math.min(...runs.map((run) => run[key])).toFixed(0)}-${Math.max(...runs.map((run) => run[key])).toFixed(0)}]`;
for (const which of ['this', 'other']) console.log(`${which}: listening ${describe(results[which], 'listening')}, page ${describe(results[which], 'answered')}, asked -> answered ${describe(results[which], 'answer')}, all ${describe(results[which], 'ms')} ms, CPU ${describe(results[which], 'cpu')} ms, ${AFTER_MS} ms later ${describe(results[which], 'cpuAfter')} ms`);
const ratios = results.this.map((run, index) => run.ms / results.other[index].ms);
console.log(`wall ratio this/other, per pair: median ${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}]`);
