// A fresh machine starting a 1,000-module workspace from the team's remote cache (README "A
// team's remote cache"), against a real nginx on this machine:
//   fresh     `core run --port 0` spawned with an empty build cache and no remote -> `/state`
//             all valid (every module built)
//   team      the same with CORE_REMOTE_CACHE naming the nginx `core cache push` filled ->
//             `/state` all valid (every module from the team cache, none built: its event log)
// The workspace is the scale measure's (200 packages x 5 modules); ratio = team / fresh.
// Skipped (an error row) when nginx is not installed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { timedGet } from '../lib/http.js';
import { progress } from '../lib/log.js';
import { BIN, WORK } from '../lib/paths.js';
import { startCore, stopChild } from '../lib/processes.js';
import { now, sleep, summarize } from '../lib/stats.js';
import { generateScaleWorkspace } from '../lib/workspaces.js';

export const name = 'remote-cache';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => fs.existsSync(file));

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

// One nginx, in the foreground, serving and storing `ac/` and `cas/` by WebDAV PUT.
async function startNginx(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  const port = await freePort();
  const temporary = ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind === 'body' ? 'client_body' : kind}_temp_path ${path.join(dir, kind)};`).join('\n  ');
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;\nmaster_process off;\nworker_processes 1;\nerror_log ${path.join(dir, 'error.log')};\npid ${path.join(dir, 'nginx.pid')};\nevents { worker_connections 256; }\nhttp {\n  access_log off;\n  ${temporary}\n  server {\n    listen 127.0.0.1:${port};\n    root ${path.join(dir, 'data')};\n    client_max_body_size 64m;\n    location / { dav_methods PUT; create_full_put_path on; }\n  }\n}\n`,
  );
  const child = spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
  for (;;) {
    const open = await new Promise((resolve) => net.connect(port, '127.0.0.1', function () { this.destroy(); resolve(true); }).once('error', () => resolve(false)));
    if (open) return { child, url: `http://127.0.0.1:${port}/` };
    if (child.exitCode !== null) throw new Error(`nginx exited: ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
    await sleep(20);
  }
}

async function untilAllValid(url, expected, started) {
  for (;;) {
    const answer = await timedGet(`${url}state`);
    const report = JSON.parse(answer.body.toString('utf8'));
    if (answer.status === 200 && report.modules.length === expected && report.modules.every((module) => module.status === 'valid')) return now() - started;
    if (now() - started > 300_000) throw new Error('/state not all valid after 300 s');
    await sleep(20);
  }
}

async function startOnce(root, expected, cacheDir, env) {
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const started = now();
  const { child, url } = await startCore(root, { ms: 300_000, cacheDir, env });
  try {
    const ms = await untilAllValid(url, expected, started);
    const events = (await timedGet(`${url}log`)).body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const built = events.filter((event) => event.type === 'build.started').reduce((sum, event) => sum + event.modules.length, 0);
    const team = events.find((event) => event.type === 'cache.remote.restored')?.builds.length ?? 0;
    return { ms, built, team };
  } finally {
    await stopChild(child);
  }
}

export async function run({ quick }) {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install -y nginx)');
  const repetitions = quick ? 1 : 5;
  progress('remote-cache: generating 200 packages x 5 modules');
  const { dir: root, modules: expected } = generateScaleWorkspace('remote-cache-1000');
  const nginx = await startNginx(path.join(WORK, 'remote-cache-nginx'));
  const cacheDir = path.join(WORK, 'remote-cache-local');
  const fresh = [];
  const team = [];
  const notes = [];
  try {
    progress('remote-cache: core cache push');
    const pushed = spawnSync(process.execPath, [BIN, 'cache', 'push'], { cwd: root, env: { ...process.env, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: nginx.url }, encoding: 'utf8' });
    if (pushed.status !== 0) throw new Error(`core cache push failed: ${pushed.stderr}`);
    for (let index = 0; index <= repetitions; index++) {
      const cold = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: 'off' });
      const warm = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: nginx.url });
      if (warm.built !== 0 || warm.team !== expected) notes.push(`repetition ${index}: the team start built ${warm.built} and took ${warm.team} modules from the team cache (expected 0 and ${expected})`);
      if (index === 0) continue; // warm-up
      fresh.push(cold.ms);
      team.push(warm.ms);
      progress(`remote-cache: repetition ${index}/${repetitions}: fresh ${cold.ms.toFixed(0)} ms (${cold.built} built), from the team cache ${warm.ms.toFixed(0)} ms (${warm.team} taken, ${warm.built} built)`);
    }
  } finally {
    nginx.child.kill('SIGTERM');
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  return {
    rows: [
      {
        id: 'remote-cache',
        measure: '1,000 modules: a fresh machine with the team cache (nginx, loopback) -> /state all valid',
        baselineName: 'a fresh machine without it',
        unit: 'ms',
        ours: summarize(team),
        baseline: summarize(fresh),
        checks: [],
        failed: notes.length ? notes.join('; ') : undefined,
      },
    ],
    notes: [`${repetitions} repetitions after a warm-up; each starts from an empty build cache, measured from process spawn; the remote on loopback (no network latency)`],
  };
}
