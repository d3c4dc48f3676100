// The first report and the first whole check of a start, of two builds side by side (speed work
// on issue 34, bench/RESULTS.md): the 1,000-module workspace of bench/team-start.js restarted with
// this build (its events kept), then each build, in fresh processes alternating, folding those
// events and making the ready line's report and the first `/state`'s check against the disk
// (bench/children/first-answer.js). A team start makes the same state (its builds restored from
// the team cache instead of the local one).
//   node bench/first-answer.js /path/to/other/repository [pairs]
// Both must be built (`npm run build`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timedGet, untilAllValid } from './lib/http.js';
import { BIN, CHILDREN, REPO, WORK } from './lib/paths.js';
import { spawnNode, stopChild, waitForLine } from './lib/processes.js';
import { median } from './lib/stats.js';
import { generateScaleWorkspace } from './lib/workspaces.js';

const [other, pairsText = '8'] = process.argv.slice(2);
if (!other) throw new Error('usage: node bench/first-answer.js /path/to/other/repository [pairs]');
const repos = { this: REPO, other: path.resolve(other) };

const { dir: root, modules: expected } = generateScaleWorkspace('remote-cache-1000', { under: path.join(os.tmpdir(), `core-bench-${path.basename(REPO)}`) });
const cacheDir = path.join(WORK, 'first-answer-cache');
const eventsFile = path.join(WORK, 'first-answer-events.json');

// A start of this build to `/state` all valid; its events.
async function start() {
  const child = spawnNode([BIN, 'run', '--port', '0'], { cwd: root, env: { ...process.env, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: 'off' } });
  try {
    const [, address] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 300_000, 'the service URL');
    await untilAllValid(address, expected, 50);
    return (await timedGet(`${address}log`)).body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  } finally {
    await stopChild(child);
  }
}

fs.rmSync(cacheDir, { recursive: true, force: true });
await start(); // builds, and fills the build cache
const events = await start(); // restores every module
if (!events.some((event) => event.type === 'cache.restored' && event.builds.length >= expected)) throw new Error('the restart restored fewer modules than the workspace has');
fs.writeFileSync(eventsFile, JSON.stringify(events));
fs.rmSync(cacheDir, { recursive: true, force: true });

const results = { this: [], other: [] };
const pairs = Number(pairsText);
for (let pair = 0; pair < pairs; pair++) {
  for (const which of pair % 2 ? ['other', 'this'] : ['this', 'other']) {
    const run = spawnSync(process.execPath, [path.join(CHILDREN, 'first-answer.js'), repos[which], eventsFile, root], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${which}: ${run.stderr}`);
    const measured = JSON.parse(run.stdout);
    if (measured.changed !== 0) throw new Error(`${which}: the check found changes in an unchanged workspace`);
    results[which].push(measured);
    console.log(`pair ${pair} ${which}: report ${measured.report.ms.toFixed(1)} ms (CPU ${measured.report.cpu.toFixed(1)}), check ${measured.check.ms.toFixed(1)} ms (CPU ${measured.check.cpu.toFixed(1)}), ${measured.paths} paths, load ${os.loadavg()[0].toFixed(2)}`);
  }
}
const describe = (runs, pick) => `${median(runs.map(pick)).toFixed(1)} [${Math.min(...runs.map(pick)).toFixed(1)}-${Math.max(...runs.map(pick)).toFixed(1)}]`;
for (const which of ['this', 'other']) {
  const runs = results[which];
  console.log(`${which}: report ${describe(runs, (run) => run.report.ms)} ms, CPU ${describe(runs, (run) => run.report.cpu)} ms; check ${describe(runs, (run) => run.check.ms)} ms, CPU ${describe(runs, (run) => run.check.cpu)} ms`);
}
