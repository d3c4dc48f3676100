// One service's one-module requests taken apart (issue 33): the diagnostic companion of
// bench/one-module-pairs.js, for one service at a time, with the counters and the profiles.
// `node bench/one-module-rate.js SIZE [REPO] [--node-arg=...] [--perf] [--series=3] [--seconds=3]`
//   SIZE      2, 1000 or 10000: the page-load workspace of bench/measures/scale-10000.js
//   REPO      the build whose bin/core.js runs (default this repository); started and settled by
//             bench/lib/settled-service.js
//   --node-arg  passed to node before bin/core.js (--cpu-prof, --trace-gc, ...); repeatable
//   --perf    `perf stat` on the service's pid during each series
//   --strace=FILE  the service's file system calls during the first series, into FILE
//   --perf-record=FILE  `perf record` (cpu-clock samples) of the service's main thread during the first series, into FILE
//   --gc-log=FILE  the service's --trace-gc lines, into FILE
//   --snapshot=FILE  a heap snapshot of the service after the requests, into FILE (needs
//             --node-arg=--heapsnapshot-signal=SIGUSR2)
//   --state=N   N `/state` requests before the load, as the bench's scale-10000 measure makes
//   --fresh   empties the build cache first: a first start, as the bench's scale-10000 measures
// Once the service is settled, its CPU over 5 s without requests, then autocannon on one
// module's development address (10 connections): 1 s of warm-up, then `--series` series of
// `--seconds` s; per series req/s, the CPU of the service, its children, this process (the load
// generator) and the rest of the machine, and per request the service's user and system time,
// page faults, context switches and (with --trace-gc) scavenges and mark-compacts. The window
// of the requests is printed in the clock of a --cpu-prof profile, to cut one to it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { keepAlive, timedGet } from './lib/http.js';
import { REPO } from './lib/paths.js';
import { cpuMs, descendants, stopChild } from './lib/processes.js';
import { rssMB, startSettled } from './lib/settled-service.js';
import { sleep } from './lib/stats.js';

const args = process.argv.slice(2);
const positional = args.filter((arg) => !arg.startsWith('--'));
const option = (name, fallback) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const size = Number(positional[0] ?? 1000);
const repo = path.resolve(positional[1] ?? REPO);
const nodeArgs = args.filter((arg) => arg.startsWith('--node-arg=')).map((arg) => arg.slice('--node-arg='.length));
const withPerf = args.includes('--perf');
const series = Number(option('series', 3));
const seconds = Number(option('seconds', 3));
const freshCache = args.includes('--fresh');
const straceFile = option('strace', null);
const stateRequests = Number(option('state', 0));
// `N:SIGNAL`: after series N, SIGNAL to the service (a --require'd script of an experiment acts on it), then 5 s of rest.
const [signalAfter, signalName] = option('signal-after', '0:').split(':');

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const service = await startSettled({ size, repo, fresh: freshCache, nodeArgs });
const { app, child, moduleUrl } = service;
const gcLines = () => child.lines.filter((line) => /^\[\d+:0x[0-9a-f]+\]/.test(line));
try {
  const quietBefore = cpuMs(child.pid);
  await sleep(5000);
  const quietCpu = cpuMs(child.pid) - quietBefore;
  console.log(`${size} modules (${service.modules} in /state), ${repo}: valid after ${service.validMs.toFixed(0)} ms, settled after ${service.settledMs.toFixed(0)} ms, then ${quietCpu} ms of CPU in 5 s without requests; RSS ${rssMB(child.pid)} MB`);
  // As the bench's scale-10000 measure asks before its requests (its `/state` p50).
  const agent = keepAlive();
  for (let index = 0; index < stateRequests; index++) await timedGet(`${service.url}state`, { agent });
  agent.destroy();
  const gcBeforeLoad = gcLines().length;
  await autocannon({ url: moduleUrl, connections: 10, duration: 1 });
  const rates = [];
  const windowStart = monotonicUs();
  for (let index = 0; index < series; index++) {
    const gcBefore = gcLines().length;
    const cpuBefore = cpuMs(child.pid);
    const childrenBefore = childrenCpuMs(child.pid);
    const countsBefore = processCounts(child.pid);
    const threadsBefore = threadCpu(child.pid);
    const ownBefore = process.cpuUsage();
    const machineBefore = machineBusyMs();
    const perf = withPerf ? spawn('perf', ['stat', '-e', 'task-clock,cycles,instructions,cache-misses', '-p', String(child.pid)], { stdio: ['ignore', 'ignore', 'pipe'] }) : null;
    const strace = straceFile && index === 0 ? spawn('strace', ['-f', '-qq', '-e', 'trace=%stat,%file,getdents64', '-o', straceFile, '-p', String(child.pid)], { stdio: 'ignore' }) : null;
    const record = option('perf-record', null) && index === 0 ? spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '4000', '-t', String(child.pid), '-o', option('perf-record', null)], { stdio: 'ignore' }) : null;
    let perfText = '';
    perf?.stderr.on('data', (chunk) => (perfText += chunk));
    const load = await autocannon({ url: moduleUrl, connections: 10, duration: seconds });
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((resolve) => perf.once('exit', resolve));
    }
    if (record) {
      record.kill('SIGINT');
      await new Promise((resolve) => record.once('exit', resolve));
    }
    if (strace) {
      strace.kill('SIGINT');
      await new Promise((resolve) => strace.once('exit', resolve));
    }
    const cpu = cpuMs(child.pid) - cpuBefore;
    const childrenCpu = childrenCpuMs(child.pid) - childrenBefore;
    const countsAfter = processCounts(child.pid);
    const counted = Object.entries(countsAfter).map(([name, value]) => `${name} ${(((value - countsBefore[name]) * (name.endsWith('ms') ? 1000 : 1)) / load.requests.total).toFixed(2)}`).join(', ');
    const ownCpu = process.cpuUsage(ownBefore);
    const ownMs = (ownCpu.user + ownCpu.system) / 1000;
    const machineMs = machineBusyMs() - machineBefore;
    const total = load.requests.total;
    const gcs = gcLines().slice(gcBefore);
    const scavenges = gcs.filter((line) => line.includes('Scavenge'));
    const marks = gcs.filter((line) => line.includes('Mark-Compact') || line.includes('Mark-sweep'));
    const pause = (lines) => lines.reduce((sum, line) => sum + Number(/ ([\d.]+) \/ [\d.]+ ms/.exec(line)?.[1] ?? 0), 0);
    rates.push(load.requests.average);
    console.log(
      `series ${index + 1}: ${load.requests.average.toFixed(0)} req/s, ${total} requests, ${load.errors + load.non2xx} errors; CPU ms service ${cpu} (${((cpu * 1000) / total).toFixed(1)} us/request), its children ${childrenCpu}, the load generator ${ownMs.toFixed(0)}, the rest of the machine ${(machineMs - cpu - childrenCpu - ownMs).toFixed(0)} of ${machineMs.toFixed(0)}; RSS ${rssMB(child.pid)} MB` +
        (nodeArgs.includes('--trace-gc') ? `; per 10k requests: ${((scavenges.length * 10000) / total).toFixed(1)} scavenges (${((pause(scavenges) * 10000) / total).toFixed(1)} ms), ${((marks.length * 10000) / total).toFixed(2)} mark-compacts (${((pause(marks) * 10000) / total).toFixed(1)} ms)` : ''),
    );
    console.log(`  per request (us for the times): ${counted}`);
    console.log(`  per thread, us per request: ${threadsPerRequest(child.pid, threadsBefore, threadCpu(child.pid), total)}`);
    if (index + 1 === Number(signalAfter)) {
      const cpuBeforeSignal = cpuMs(child.pid);
      process.kill(child.pid, signalName);
      await sleep(5000);
      console.log(`${signalName} sent to the service after series ${signalAfter}: ${cpuMs(child.pid) - cpuBeforeSignal} ms of its CPU in the 5 s after; RSS ${rssMB(child.pid)} MB`);
    }
    if (perf) console.log(perfText.split('\n').filter((line) => /task-clock|cycles|instructions|cache-misses/.test(line)).map((line) => `  ${line.trim()}  (${perLine(line, total)})`).join('\n'));
  }
  console.log(`requests window (monotonic us, as a --cpu-prof's): ${windowStart} ${monotonicUs()}`);
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(`median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} req/s [${sorted[0].toFixed(0)}-${sorted.at(-1).toFixed(0)}]`);
  if (option('snapshot', null)) await heapSnapshot(option('snapshot', null));
  if (option('gc-log', null)) fs.writeFileSync(option('gc-log', null), gcLines().join('\n'));
  if (nodeArgs.includes('--trace-gc')) {
    const during = gcLines().slice(gcBeforeLoad).filter((line) => !line.includes('Scavenge'));
    console.log(`collections other than scavenges from the warm-up on: ${during.length}${during.length ? `\n  ${during.join('\n  ')}` : ''}`);
  }
  const last = gcLines().at(-1);
  if (last) console.log(`last GC line: ${last}`);
} finally {
  await stopChild(child);
}

async function heapSnapshot(target) {
  const taken = () => fs.readdirSync(app.dir).filter((name) => name.endsWith('.heapsnapshot'));
  for (const name of taken()) fs.rmSync(path.join(app.dir, name));
  process.kill(child.pid, 'SIGUSR2');
  let size = -1;
  for (;;) {
    await sleep(2000);
    const [name] = taken();
    if (!name) continue;
    const now = fs.statSync(path.join(app.dir, name)).size;
    if (now === size && now > 0) {
      fs.renameSync(path.join(app.dir, name), target);
      return;
    }
    size = now;
  }
}

/** The service's user and system CPU ms, page faults and context switches so far (Linux /proc). */
function processCounts(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const count = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { 'user ms': Number(fields[11]) * 10, 'system ms': Number(fields[12]) * 10, 'minor faults': Number(fields[7]), 'voluntary switches': count('voluntary_ctxt_switches'), 'involuntary switches': count('nonvoluntary_ctxt_switches') };
}

/** Each thread's name, CPU ms and context switches so far (Linux /proc/PID/task). */
function threadCpu(pid) {
  const threads = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.split(') ')[1].split(' ');
      const status = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const count = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      threads.set(tid, { name, ms: (Number(fields[11]) + Number(fields[12])) * 10, involuntary: count('nonvoluntary_ctxt_switches') });
    } catch {
      // ended meanwhile
    }
  }
  return threads;
}

/** The threads that used CPU between two `threadCpu` readings, grouped by name. */
function threadsPerRequest(pid, before, after, total) {
  const byName = new Map();
  for (const [tid, thread] of after) {
    const ms = thread.ms - (before.get(tid)?.ms ?? 0);
    const involuntary = thread.involuntary - (before.get(tid)?.involuntary ?? 0);
    const name = tid === String(pid) ? `main ${thread.name}` : thread.name;
    const sum = byName.get(name) ?? { ms: 0, involuntary: 0, threads: 0 };
    byName.set(name, { ms: sum.ms + ms, involuntary: sum.involuntary + involuntary, threads: sum.threads + 1 });
  }
  return [...byName].map(([name, sum]) => `${name} x${sum.threads} ${((sum.ms * 1000) / total).toFixed(1)} (${((sum.involuntary) / total).toFixed(2)} preempted)`).join(', ');
}

function childrenCpuMs(pid) {
  return descendants(pid).reduce((sum, descendant) => sum + (cpuMs(descendant) ?? 0), 0);
}

/** CPU ms the whole machine was busy (every core, /proc/stat: all but idle and iowait). */
function machineBusyMs() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const ticks = fields.reduce((sum, value) => sum + value, 0) - fields[3] - fields[4];
  return ticks * 10;
}

function perLine(line, total) {
  const value = Number(line.trim().split(/\s+/)[0].replace(/,/g, ''));
  return Number.isFinite(value) ? `${(value / total).toFixed(0)} per request` : '';
}
