// Team starts of two builds side by side (speed work on issue 34, bench/RESULTS.md): a fresh
// machine with an empty build cache and the team cache filled by `core cache push`, spawn ->
// `/state` all valid, alternating this repository's `bin/core.js` and another's, with each run's
// CPU (the service process's, from /proc) beside its wall time.
//   node bench/team-start.js /path/to/other/repository [pairs]
// TEAM_START_PROFILE=dir: each service run under `--cpu-prof`, its profile written into dir
// (sampling every TEAM_START_PROFILE_US microseconds, 100 unless given: 500 distorts a start less).
// TEAM_START_FRESH=1: fresh starts instead (empty build cache, no team cache: everything built).
// TEAM_START_SNAPSHOT=blob: this side started as `node --snapshot-blob blob run ...` (a startup
// snapshot of its bundle, bench/start-snapshot.js), as if `core` could be launched so; the other
// repository may then be this one.
// Both must be built (`npm run build`); nginx must be installed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timedGet, untilAllValid } from './lib/http.js';
import { BIN, REPO, WORK } from './lib/paths.js';
import { spawnNode, stopChild, waitForLine } from './lib/processes.js';
import { median, now } from './lib/stats.js';
import { generateScaleWorkspace } from './lib/workspaces.js';
import { signedTeam, startNginx } from './measures/remote-cache.js';

const [other, pairsText = '5'] = process.argv.slice(2);
if (!other) throw new Error('usage: node bench/team-start.js /path/to/other/repository [pairs]');
const bins = { this: BIN, other: path.join(path.resolve(other), 'bin', 'core.js') };
const TICK_MS = 1000 / 100; // USER_HZ
const FRESH = process.env.TEAM_START_FRESH === '1';

// The process's CPU (every thread), or its main thread's alone (`thread`: the task of its pid):
// the main thread's is the start's path, what another thread does beside it is not.
function cpuMs(pid, thread = false) {
  const fields = fs.readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function teamStart(which, root, expected, cacheDir, url) {
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const started = now();
  const profile = process.env.TEAM_START_PROFILE ? ['--cpu-prof', '--cpu-prof-interval', process.env.TEAM_START_PROFILE_US ?? '100', '--cpu-prof-dir', path.resolve(process.env.TEAM_START_PROFILE)] : [];
  const command = which === 'this' && process.env.TEAM_START_SNAPSHOT ? ['--snapshot-blob', path.resolve(process.env.TEAM_START_SNAPSHOT)] : [bins[which]];
  const child = spawnNode([...profile, ...command, 'run', '--port', '0'], { cwd: root, env: { ...process.env, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: FRESH ? 'off' : url } });
  try {
    const [, address] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 300_000, 'the service URL');
    await untilAllValid(address, expected, 20);
    const ms = now() - started;
    const cpu = cpuMs(child.pid);
    const mainCpu = cpuMs(child.pid, true);
    const events = (await timedGet(`${address}log`)).body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const team = events.find((event) => event.type === 'cache.remote.restored')?.builds.length ?? 0;
    // The workspace model from the team cache (absent from builds before it): taken, or why not.
    const modelEvent = events.find((event) => event.type === 'cache.remote.model');
    const model = modelEvent ? (modelEvent.adopted ? 'model taken' : `model refused: ${modelEvent.miss}`) : 'no model asked';
    return { ms, cpu, mainCpu, team, model };
  } finally {
    await stopChild(child);
  }
}

// Outside every repository: in bench/.work, `@core-js/packages/development` resolves from the
// workspace to this repository (its package name), and a build of another directory then loads
// this one's extension from source besides its own bundle (bench/cold-cpu.js).
const { dir: root, modules: expected } = generateScaleWorkspace('remote-cache-1000', { under: path.join(os.tmpdir(), `core-bench-${path.basename(REPO)}`) });
// A team that signs: the workspace model is shared only then (README "A team's remote cache").
const signing = signedTeam(root);
const nginx = await startNginx(path.join(WORK, 'team-start-nginx'));
const cacheDir = path.join(WORK, 'team-start-cache');
const results = { this: [], other: [] };
try {
  // Each build pushes its own entries: two builds of other entry formats have other keys.
  for (const bin of new Set(Object.values(bins))) {
    const pushed = spawnSync(process.execPath, [bin, 'cache', 'push'], { cwd: root, env: { ...process.env, ...signing, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: nginx.url }, encoding: 'utf8' });
    if (pushed.status !== 0) throw new Error(`core cache push failed: ${pushed.stderr}`);
  }
  const pairs = Number(pairsText);
  for (let pair = 0; pair <= pairs; pair++) {
    // Alternating which goes first; the first pair warms the disk cache and is not counted.
    for (const which of pair % 2 ? ['other', 'this'] : ['this', 'other']) {
      const run = await teamStart(which, root, expected, cacheDir, nginx.url);
      if (!FRESH && run.team !== expected) throw new Error(`${which}: ${run.team} of ${expected} modules from the team cache`);
      if (pair > 0) results[which].push(run);
      console.log(`pair ${pair} ${which}: ${run.ms.toFixed(0)} ms, CPU ${run.cpu.toFixed(0)} ms (main thread ${run.mainCpu.toFixed(0)}), ${run.model}, load ${os.loadavg()[0].toFixed(2)}`);
    }
  }
} finally {
  nginx.child.kill('SIGTERM');
  fs.rmSync(cacheDir, { recursive: true, force: true });
}
const describe = (runs, key) => `${median(runs.map((run) => run[key])).toFixed(0)} [${Math.min(...runs.map((run) => run[key])).toFixed(0)}-${Math.max(...runs.map((run) => run[key])).toFixed(0)}]`;
for (const which of ['this', 'other']) console.log(`${which}: wall ${describe(results[which], 'ms')} ms, CPU ${describe(results[which], 'cpu')} ms, main thread ${describe(results[which], 'mainCpu')} ms`);
const ratios = results.this.map((run, index) => run.ms / results.other[index].ms);
console.log(`wall ratio this/other, per pair: median ${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}]`);
