// A fresh machine starting a 1,000-module workspace from the team's remote cache (README "A
// team's remote cache"), against a real nginx on this machine:
//   fresh     `core run --port 0` spawned with an empty build cache and no remote -> `/state`
//             all valid (every module built)
//   team      the same with CORE_REMOTE_CACHE naming the nginx `core cache push` filled, signed
//             (the workspace's core.json holds the public key: the model is shared too) ->
//             `/state` all valid (every module from the team cache, none built: its event log)
//   edited    the team start after one leaf module's source changed here: only it is built
//   refused   CORE_REMOTE_CACHE naming a port nothing listens on (target <= 1.1 of fresh)
//   silent    a server that accepts and never answers, a stand-in for a hung cache server
//             (target <= fresh + 3 s)
//   dist      `core dist` with the team cache against without it (each with an empty build cache)
// The workspace is the scale measure's (200 packages x 5 modules); ratio = that / fresh.
// Skipped (an error row) when nginx is not installed.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
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
export async function startNginx(dir) {
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

// A team that signs (README "A team's remote cache": only then is the workspace model shared):
// a key pair made here, its public key in the workspace's `core.json` (CORE_REMOTE_CACHE names
// the server), the environment that signs a push.
export function signedTeam(root) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const manifest = path.join(root, 'core.json');
  const declared = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  const remoteCache = { url: 'http://127.0.0.1:9/', publicKey: publicKey.export({ type: 'spki', format: 'pem' }) };
  fs.writeFileSync(manifest, `${JSON.stringify({ ...declared, remoteCache }, null, 2)}\n`);
  return { CORE_REMOTE_CACHE_SIGNING_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }) };
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

// A server that takes every connection and never answers: what a hung cache server does.
function startSilent() {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => {
          for (const socket of sockets) socket.destroy();
          server.close();
        },
      }),
    ),
  );
}

function distOnce(root, cacheDir, env) {
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const out = path.join(WORK, 'remote-cache-dist');
  fs.rmSync(out, { recursive: true, force: true });
  const started = now();
  const result = spawnSync(process.execPath, [BIN, 'dist', '--out', out], { cwd: root, env: { ...process.env, CORE_CACHE_DIR: cacheDir, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`core dist failed: ${result.stderr}`);
  return now() - started;
}

const row = (id, measure, ours, baseline, failed) => ({ id, measure, baselineName: 'a fresh machine without it', unit: 'ms', ours: summarize(ours), baseline: summarize(baseline), checks: [], failed });

export async function run({ quick }) {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install -y nginx)');
  const repetitions = quick ? 1 : 5;
  progress('remote-cache: generating 200 packages x 5 modules');
  const { dir: root, modules: expected } = generateScaleWorkspace('remote-cache-1000');
  const signing = signedTeam(root);
  const nginx = await startNginx(path.join(WORK, 'remote-cache-nginx'));
  const cacheDir = path.join(WORK, 'remote-cache-local');
  const fresh = [];
  const team = [];
  const edited = [];
  const refused = [];
  const silent = [];
  const dist = { team: [], fresh: [] };
  const notes = [];
  const silentServer = await startSilent();
  const closedPort = `http://127.0.0.1:${await freePort()}/`;
  const leaf = path.join(root, 'packages/p000/m0/index.ts');
  const leafText = fs.readFileSync(leaf, 'utf8');
  try {
    progress('remote-cache: core cache push');
    const pushed = spawnSync(process.execPath, [BIN, 'cache', 'push'], { cwd: root, env: { ...process.env, ...signing, CORE_CACHE_DIR: cacheDir, CORE_REMOTE_CACHE: nginx.url }, encoding: 'utf8' });
    if (pushed.status !== 0) throw new Error(`core cache push failed: ${pushed.stderr}`);
    for (let index = 0; index <= repetitions; index++) {
      const cold = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: 'off' });
      const warm = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: nginx.url });
      if (warm.built !== 0 || warm.team !== expected) notes.push(`repetition ${index}: the team start built ${warm.built} and took ${warm.team} modules from the team cache (expected 0 and ${expected})`);
      // One leaf edited here, after the push: only that module misses.
      fs.writeFileSync(leaf, `${leafText}\nexport const editedHere = ${index};\n`);
      const edit = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: nginx.url });
      fs.writeFileSync(leaf, leafText);
      if (edit.built !== 1 || edit.team !== expected - 1) notes.push(`repetition ${index}: after one leaf edit the team start built ${edit.built} and took ${edit.team} (expected 1 and ${expected - 1})`);
      const down = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: closedPort });
      const hung = await startOnce(root, expected, cacheDir, { CORE_REMOTE_CACHE: silentServer.url });
      const distTeam = distOnce(root, cacheDir, { CORE_REMOTE_CACHE: nginx.url });
      const distFresh = distOnce(root, cacheDir, { CORE_REMOTE_CACHE: 'off' });
      if (index === 0) continue; // warm-up
      fresh.push(cold.ms);
      team.push(warm.ms);
      edited.push(edit.ms);
      refused.push(down.ms);
      silent.push(hung.ms);
      dist.team.push(distTeam);
      dist.fresh.push(distFresh);
      progress(
        `remote-cache: repetition ${index}/${repetitions}: fresh ${cold.ms.toFixed(0)} ms (${cold.built} built), team ${warm.ms.toFixed(0)} ms (${warm.team} taken, ${warm.built} built), ` +
          `leaf edited ${edit.ms.toFixed(0)} ms (${edit.built} built), refused ${down.ms.toFixed(0)} ms, silent ${hung.ms.toFixed(0)} ms, dist ${distTeam.toFixed(0)} / ${distFresh.toFixed(0)} ms`,
      );
    }
  } finally {
    fs.writeFileSync(leaf, leafText);
    silentServer.close();
    nginx.child.kill('SIGTERM');
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  const failed = notes.length ? notes.join('; ') : undefined;
  return {
    rows: [
      row('remote-cache', '1,000 modules: a fresh machine with the team cache (nginx, loopback) -> /state all valid (target <= 0.25)', team, fresh, failed),
      row('remote-cache-edited', 'the same after one leaf edited here (only it built)', edited, fresh, failed),
      row('remote-cache-refused', 'the same with a team cache refusing connections (target <= 1.1)', refused, fresh),
      row('remote-cache-silent', 'the same with a team cache that never answers (target <= fresh + 3 s)', silent, fresh),
      { ...row('remote-cache-dist', 'core dist with the team cache, empty local cache', dist.team, dist.fresh), baselineName: 'core dist without it' },
    ],
    notes: [`${repetitions} repetitions after a warm-up; each start and each core dist from an empty build cache, measured from process spawn; the remote on loopback (no network latency); "silent" is a mock that accepts and never answers`],
  };
}
