#!/usr/bin/env node
// Where the cold start of the 1,000-module bundled page spends each process's CPU (issue 33): the
// same start as bench/cold-cpu.js (a new, empty build cache; the tab opened before the spawn), cut
// into phases at the URL line, the last `build.succeeded` (from /log), the page's answer and the
// rendered page; the CPU of the service, of its esbuild process and of every Chromium process is
// sampled from /proc every 20 ms. A phase's CPU against its length tells which process it waits
// for: work moved out of a phase shows there even when the machine's load hides it in the wall clock.
//   node bench/cold-phases.js [runs] [label=<repository>[,env:<NAME>=<value>...] ...]
// (default: this repository alone); builds alternate run after run. Prints each run, then medians
// per build and phase. Chromium's figure counts every Chromium process of the machine. Not part of
// `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { alternatedRuns } from './lib/chromium.js';
import { REPO } from './lib/paths.js';
import { cpuMs as cpuMsOrNull, descendants, freshCacheDir, spawnNode, stopChild, waitForLine } from './lib/processes.js';
import { median, now } from './lib/stats.js';
import { coldCpuWorkspace } from './lib/workspaces.js';
import { renderedCheck } from './lib/rendered.js';

const runs = Number(process.argv[2]) || 3;
const builds = (process.argv.slice(3).length > 0 ? process.argv.slice(3) : [`this=${REPO}`]).map((spec) => {
  const label = spec.slice(0, spec.indexOf('='));
  const [repo, ...flags] = spec.slice(spec.indexOf('=') + 1).split(',');
  const env = Object.fromEntries(flags.filter((flag) => flag.startsWith('env:')).map((flag) => [flag.slice(4, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)]));
  return { label, bin: path.join(path.resolve(repo), 'bin', 'core.js'), env };
});
const PHASES = ['spawn', 'listening', 'last build', 'answered', 'rendered'];

const cpuMs = (pid) => cpuMsOrNull(pid) ?? 0;
const processName = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};
const chromiumCpu = () => fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && /chrom/.test(processName(entry))).reduce((sum, pid) => sum + cpuMs(Number(pid)), 0);

// As the page-load bench does: the new tab's own start is not counted (at most 5 s waited).
async function untilChromiumQuiet() {
  for (let tries = 0, before = chromiumCpu(); tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = chromiumCpu();
    if (after - before <= 10) return;
    before = after;
  }
}

async function once(browser, app, build) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await untilChromiumQuiet();
  const started = now();
  const wallStarted = Date.now();
  const child = spawnNode([build.bin, 'run', '--port', '0'], {
    cwd: app.dir,
    env: { ...build.env, CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local', CORE_CACHE_DIR: freshCacheDir() },
  });
  const samples = [];
  const sample = () => samples.push({ at: now() - started, service: cpuMs(child.pid), esbuild: descendants(child.pid).map(cpuMs).reduce((sum, ms) => sum + ms, 0), chromium: chromiumCpu() });
  sample();
  const timer = setInterval(sample, 20);
  try {
    const [, url] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 300_000, 'the service URL');
    const listening = now() - started;
    const [check, args] = renderedCheck(app);
    await page.goto(`${url}preview/bundled/`, { waitUntil: 'commit', timeout: 300_000 });
    const answered = now() - started;
    await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
    const rendered = now() - started;
    sample();
    clearInterval(timer);
    const events = (await (await fetch(`${url}log`)).text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const lastBuild = Math.max(...events.filter((event) => event.type === 'build.succeeded').map((event) => Date.parse(event.time) - wallStarted));
    const marks = [0, listening, lastBuild, answered, rendered];
    const nearest = (at) => samples.reduce((best, one) => (Math.abs(one.at - at) < Math.abs(best.at - at) ? one : best));
    return marks.slice(1).map((end, index) => {
      const [from, to] = [nearest(marks[index]), nearest(end)];
      return { ms: end - marks[index], service: to.service - from.service, esbuild: to.esbuild - from.esbuild, chromium: to.chromium - from.chromium };
    });
  } finally {
    clearInterval(timer);
    await context.close();
    await stopChild(child, 30_000);
  }
}

const phaseName = (index) => `${PHASES[index]} -> ${PHASES[index + 1]}`;
const app = coldCpuWorkspace();
const results = await alternatedRuns(builds, runs, (browser, build) => once(browser, app, build), (phases) =>
  phases.map((phase, index) => `${phaseName(index)} ${phase.ms.toFixed(0)} ms (service ${phase.service}, esbuild ${phase.esbuild}, Chromium ${phase.chromium})`).join('; '),
);
for (const [label, list] of results) {
  process.stdout.write(`${label}, medians (ms of phase / CPU ms of service, esbuild, Chromium):\n`);
  PHASES.slice(1).forEach((_, index) => {
    const of = (key) => median(list.map((phases) => phases[index][key])).toFixed(0);
    process.stdout.write(`  ${phaseName(index).padEnd(24)} ${of('ms').padStart(6)} / ${of('service')}, ${of('esbuild')}, ${of('chromium')}\n`);
  });
}
process.exit(0);
