// Child processes: the servers under test run in their own processes, so the load generator
// and the client harness in this process never share their event loop. Every child started
// here is stopped here, by its own pid, also when the run fails.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, WORK } from './paths.js';
import { withTimeout } from './stats.js';

const running = new Set();

process.once('exit', () => {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {}
  }
});
// Without these, a run stopped by a signal would end without 'exit' and leave its servers running.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

/** Spawns `node <args>`; stdout is split into lines for `waitForLine`, stderr kept for errors. */
export function spawnNode(args, { cwd, env } = {}) {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.lines = [];
  child.stderrText = '';
  child.listeners = new Set();
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.exited.then(() => running.delete(child));
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      child.lines.push(line);
      for (const listener of child.listeners) listener(line);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    child.stderrText = (child.stderrText + chunk).slice(-8000);
  });
  return child;
}

/** The first stdout line (already seen or coming) matching `pattern`; its match. */
export function waitForLine(child, pattern, ms = 60_000, what = String(pattern)) {
  for (const line of child.lines) {
    const match = pattern.exec(line);
    if (match) return Promise.resolve(match);
  }
  let listener;
  const found = new Promise((resolve, reject) => {
    listener = (line) => {
      const match = pattern.exec(line);
      if (match) resolve(match);
    };
    child.listeners.add(listener);
    child.exited.then(({ code, signal }) => reject(new Error(`the child exited (${code ?? signal}) before printing ${what}; stderr:\n${child.stderrText}`)));
  });
  return withTimeout(found, ms, `${what}; stderr:\n${child.stderrText}`).finally(() => child.listeners.delete(listener));
}

/** SIGTERM, then SIGKILL if it has not exited after `ms`. */
export async function stopChild(child, ms = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await child.exited;
  clearTimeout(timer);
}

let freshCaches = 0;
const CACHES = path.join(WORK, 'caches');

/**
 * A new, empty build cache directory, `bench/.work/caches/<pid>-<n>`: what a first start on a
 * machine has, a cache that is empty but written to.
 */
export function freshCacheDir() {
  const dir = path.join(CACHES, `${process.pid}-${freshCaches++}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Removes the caches `freshCacheDir` made in this run, and those of runs no longer running. */
export function clearFreshCaches() {
  let names = [];
  try {
    names = fs.readdirSync(CACHES);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    if (pid === process.pid || !isRunning(pid)) fs.rmSync(path.join(CACHES, name), { recursive: true, force: true });
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * `core run --port 0` in `dir`; resolves with the child, its base URL, the cache it used and
 * `listeningMs` (spawn -> URL printed) once it listens. Every start gets a new, EMPTY build
 * cache of its own (`CORE_CACHE_DIR`, see `freshCacheDir`), as a first start on a machine
 * has: it reads nothing and writes its builds, as a first start does. `cacheDir` names the
 * cache to use instead (a restart); `noCache` runs with `--no-cache` (neither read nor write).
 * `nodeArgs` go to node before the script (`--cpu-prof`).
 */
export async function startCore(dir, { env = {}, ms = 120_000, cacheDir = null, noCache = false, nodeArgs = [] } = {}) {
  const started = performance.now();
  const cache = noCache ? null : (cacheDir ?? freshCacheDir());
  const args = [...nodeArgs, BIN, 'run', '--port', '0', ...(noCache ? ['--no-cache'] : [])];
  const child = spawnNode(args, { cwd: dir, env: cache ? { ...env, CORE_CACHE_DIR: cache } : env });
  const [, url] = await waitForLine(child, /^\s*(http:\/\/127\.0\.0\.1:\d+\/)\s*$/, ms, 'the service URL');
  return { child, url, cacheDir: cache, listeningMs: performance.now() - started };
}

/** A child script printing `URL <url>` once it listens. */
export async function startScript(script, args = [], { cwd, env, ms = 60_000 } = {}) {
  const started = performance.now();
  const child = spawnNode([script, ...args], { cwd, env });
  const [, url] = await waitForLine(child, /^URL (\S+)$/, ms, `the URL of ${script}`);
  return { child, url, listeningMs: performance.now() - started };
}

// Peak resident memory from /proc (Linux): VmHWM is the high-water mark of the resident set
// over the whole life of the process, so it is the peak, not the size at the time it is read.
export function peakRssBytes(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time the process has used so far, ms (utime + stime of /proc/PID/stat, Linux), or null. */
export function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The pids of every descendant of `pid` (the esbuild service process of a node process). */
export function descendants(pid) {
  const found = [];
  const walk = (parent) => {
    let tasks;
    try {
      tasks = fs.readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children = '';
      try {
        children = fs.readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8');
      } catch {}
      for (const child of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

export function commandOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).map((part) => part.split('/').pop()).join(' ');
  } catch {
    return '?';
  }
}
