// A team start against a restart of the same workspace (speed work on issue 34 point 7,
// bench/RESULTS.md): the 1,000-module workspace, a signing team, the team cache filled by `core
// cache push`; each pair is a team start (empty build cache, the team cache asked) then a restart
// from the build cache it wrote (the team cache off), each spawn -> `/state` all valid, with the
// main thread's CPU at that moment (its `schedstat`, in ns, so load does not blur it as wall does)
// beside the process's. Lines the service writes to stderr as `MARK name wall-ms cpu-ms queued-ms`
// (a temporary probe of a phase, never committed: the main thread's `performance.now()`, its CPU
// and its time runnable but waiting for a core, from its schedstat; a phase's wall less both is
// the time it was blocked) are printed with the run.
//   node bench/team-restart.js [pairs]
// Built (`npm run build`); nginx must be installed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { untilAllValid } from './lib/http.js';
import { BIN, REPO, WORK } from './lib/paths.js';
import { spawnNode, stopChild, waitForLine } from './lib/processes.js';
import { median, now } from './lib/stats.js';
import { generateScaleWorkspace } from './lib/workspaces.js';
import { signedTeam, startNginx } from './measures/remote-cache.js';

const pairs = Number(process.argv[2] ?? '3');
const TICK_MS = 1000 / 100; // USER_HZ

const processCpuMs = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};
const mainThreadCpuMs = (pid) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

async function start(root, expected, cacheDir, remote) {
  const started = now();
  const child = spawnNode([BIN, 'run', '--port', '0'], { cwd: root, env: { ...process.env, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: remote ?? 'off' } });
  const marks = [];
  child.stderr.on('data', (text) => {
    for (const [, name, wall, cpu, queued] of String(text).matchAll(/^MARK (\S+) (\d+) (\d+) (\d+)$/gm)) marks.push(`${name} ${wall}w/${cpu}c/${queued}q`);
  });
  try {
    const [, address] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, 300_000, 'the service URL');
    await untilAllValid(address, expected, 20);
    return { ms: now() - started, main: mainThreadCpuMs(child.pid), cpu: processCpuMs(child.pid), marks };
  } finally {
    await stopChild(child);
  }
}

const { dir: root, modules: expected } = generateScaleWorkspace('remote-cache-1000', { under: path.join(os.tmpdir(), `core-bench-${path.basename(REPO)}`) });
const signing = signedTeam(root);
const nginx = await startNginx(path.join(WORK, 'team-restart-nginx'));
const cacheDir = path.join(WORK, 'team-restart-cache');
const results = { team: [], restart: [] };
try {
  const pushed = spawnSync(process.execPath, [BIN, 'cache', 'push'], { cwd: root, env: { ...process.env, ...signing, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: nginx.url }, encoding: 'utf8' });
  if (pushed.status !== 0) throw new Error(`core cache push failed: ${pushed.stderr}`);
  for (let pair = 0; pair < pairs; pair++) {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    for (const [which, remote] of [['team', nginx.url], ['restart', null]]) {
      const run = await start(root, expected, cacheDir, remote);
      results[which].push(run);
      console.log(`pair ${pair} ${which}: ${run.ms.toFixed(0)} ms, main thread ${run.main.toFixed(0)} ms CPU, process ${run.cpu.toFixed(0)}, load ${os.loadavg()[0].toFixed(2)}`);
      if (run.marks.length > 0) console.log(`  ${run.marks.join(' | ')}`);
    }
  }
} finally {
  nginx.child.kill('SIGTERM');
  fs.rmSync(cacheDir, { recursive: true, force: true });
}
const describe = (runs, key) => `${median(runs.map((run) => run[key])).toFixed(0)} [${Math.min(...runs.map((run) => run[key])).toFixed(0)}-${Math.max(...runs.map((run) => run[key])).toFixed(0)}]`;
for (const which of ['team', 'restart']) console.log(`${which}: wall ${describe(results[which], 'ms')} ms, main thread ${describe(results[which], 'main')} ms, process CPU ${describe(results[which], 'cpu')} ms`);
