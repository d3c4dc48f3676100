#!/usr/bin/env node
// The CPU of the cold start of the 1,000-module bundled page (issue 33), steadier than its wall
// clock on a shared machine: `core run` spawned with a new, empty build cache, Chromium on
// `/preview/bundled/` right after the URL line, until the page is rendered; then the CPU of the
// service process and of its esbuild process (/proc). Builds alternate, run after run:
//   node bench/cold-cpu.js [runs] [label=<repository>[,<node flag>|run:<core run flag>|env:<NAME>=<value>...] ...]
// (default: this repository alone). Prints each run, then medians [min-max] per build.
// Not part of `npm run bench`.
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
  const rest = spec.slice(spec.indexOf('=') + 1);
  const [repo, ...flags] = rest.split(',');
  // `run:<flag>` goes to `core run` (`run:--no-cache`), `env:<NAME>=<value>` to its environment, any other flag to node.
  const runArgs = flags.filter((flag) => flag.startsWith('run:')).map((flag) => flag.slice(4));
  const env = Object.fromEntries(flags.filter((flag) => flag.startsWith('env:')).map((flag) => [flag.slice(4, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)]));
  return { label, bin: path.join(path.resolve(repo), 'bin', 'core.js'), nodeArgs: flags.filter((flag) => !flag.startsWith('run:') && !flag.startsWith('env:')), runArgs, env };
});

async function once(browser, app, build) {
  const started = now();
  const child = spawnNode([...build.nodeArgs, build.bin, 'run', '--port', '0', ...build.runArgs], {
    cwd: app.dir,
    env: { ...build.env, CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local', CORE_CACHE_DIR: freshCacheDir() },
  });
  const context = await browser.newContext();
  try {
    const [, url] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 300_000, 'the service URL');
    const listening = now() - started;
    const page = await context.newPage();
    const [check, args] = renderedCheck(app);
    await page.goto(`${url}preview/bundled/`, { waitUntil: 'commit', timeout: 300_000 });
    const answered = now() - started;
    await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
    const rendered = now() - started;
    const service = cpuMs(child.pid);
    const esbuild = descendants(child.pid).map(cpuMs).reduce((sum, ms) => sum + ms, 0);
    return { listening, answered, rendered, service, esbuild };
  } finally {
    await context.close();
    await stopChild(child, 30_000);
  }
}

const summary = (values) => `${median(values).toFixed(0)} [${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}]`;
const cpuMs = (pid) => cpuMsOrNull(pid) ?? 0; // 0 once the process is gone
// Outside every repository (`coldCpuWorkspace`): in bench/.work a build of another directory
// measured about 0.45 s more of its CPU, this one's extension loaded from source besides its own.
const app = coldCpuWorkspace();
const results = await alternatedRuns(builds, runs, (browser, build) => once(browser, app, build), (result) =>
  `listening ${result.listening.toFixed(0)}, answered ${result.answered.toFixed(0)}, rendered ${result.rendered.toFixed(0)} ms; CPU service ${result.service}, esbuild ${result.esbuild}, sum ${result.service + result.esbuild} ms`,
);
for (const [label, list] of results) {
  const of = (key) => summary(list.map((result) => result[key]));
  process.stdout.write(`${label}: rendered ${of('rendered')} ms, answered ${of('answered')}; CPU service ${of('service')}, esbuild ${of('esbuild')}, sum ${summary(list.map((r) => r.service + r.esbuild))} ms\n`);
}
process.exit(0);
