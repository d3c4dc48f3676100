#!/usr/bin/env node
// A code edit in a large workspace (issue 33): `core run` of this build (a child process, with a
// build cache of its own kept in bench/.work between runs) on the generated page-load app of SIZE
// modules (1000 or 10000); one module's helper written with a marker, then the module's address
// asked until the answer has it; N edits, 150 ms apart, after 3 warm-up edits. Prints the wall
// median (write -> new answer) and the service's CPU per edit (from /proc: everything the edit
// costs it, the second look of the watcher and the cache's write included). Alternate it with
// a build of another commit (`node OTHER/bench/edit-at-scale.js`) for a comparison.
// `node bench/edit-at-scale.js [SIZE] [N]` after `npm run build`. Not part of `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { getText, keepAlive, timedGet } from './lib/http.js';
import { cpuMs, startCore, stopChild } from './lib/processes.js';
import { median, sleep } from './lib/stats.js';
import { DEVELOPMENT_QUERY, generatePageLoadWorkspace } from './lib/workspaces.js';

const [size = '1000', count = '30'] = process.argv.slice(2);
const app = generatePageLoadWorkspace(`edit-at-scale-${size}`, { packages: Number(size) / 10, modulesPerPackage: 10, keep: true });
const cacheDir = path.join(path.dirname(app.dir), `edit-at-scale-${size}-cache`);
const env = { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' };
const core = await startCore(app.dir, { ms: 900_000, env, cacheDir });
try {
  for (;;) {
    const report = JSON.parse((await timedGet(`${core.url}state`)).body.toString('utf8'));
    if (report.modules.length > 0 && report.modules.every((module) => module.status === 'valid')) break;
    await sleep(100);
  }
  // Settled: two seconds in a row under 5 % of a core (the watcher's walk done, the cache written).
  for (let quiet = 0, waited = 0; quiet < 2 && waited < 120; waited++) {
    const before = cpuMs(core.child.pid);
    await sleep(1000);
    quiet = cpuMs(core.child.pid) - before < 50 ? quiet + 1 : 0;
  }
  const file = path.join(app.dir, 'packages', app.packageName(5).split('/')[1], 'm3/h3.ts');
  const original = fs.readFileSync(file, 'utf8');
  const url = `${core.url}m/${app.packageName(5)}@1.0.0/modules/m3?${DEVELOPMENT_QUERY}`;
  const agent = keepAlive();
  await getText(url, { agent });
  const times = [];
  let cpu = 0;
  for (let index = 0; index < Number(count) + 3; index++) {
    const needle = `"edit-${index}-${Date.now()}"`;
    const before = cpuMs(core.child.pid);
    const started = performance.now();
    await fs.promises.writeFile(file, `${original}\nglobalThis.__benchEdit = ${needle};\n`);
    let { text } = await getText(url, { agent });
    while (!text.includes(needle)) ({ text } = await getText(url, { agent }));
    const ms = performance.now() - started;
    await sleep(150);
    if (index >= 3) {
      times.push(ms);
      cpu += cpuMs(core.child.pid) - before;
    }
  }
  fs.writeFileSync(file, original);
  console.log(JSON.stringify({ size, edits: times.length, wallMedianMs: +median(times).toFixed(2), serviceCpuPerEditMs: +(cpu / times.length).toFixed(2) }));
} finally {
  await stopChild(core.child);
}
process.exit(0);
