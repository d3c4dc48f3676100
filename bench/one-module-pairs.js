// One module's development requests, several services side by side (issue 33): every service
// named on the command line is started and settled first, then they are loaded in turn, one
// short series each per round, so that a machine shared with other work slows each of them
// alike (a series of one is compared with the series of the other taken just before and after,
// not with a run minutes apart).
//   node bench/one-module-pairs.js SPEC SPEC... [--rounds=8] [--seconds=2] [--fresh] [--state=N] [--node-arg=...]
//   SPEC      SIZE or SIZE@REPO: 2, 1000 or 10000 modules (the page-load workspace of
//             bench/measures/scale-10000.js), served by REPO's bin/core.js (default this
//             repository); started and settled by bench/lib/settled-service.js, whose build
//             cache --fresh empties first (a first start, as the bench's scale-10000 row measures).
// Per series: autocannon, 10 connections, on `/m/<first package>@1.0.0/modules/m0?<development
// variant>` after 1 s of warm-up in the first round (and before it --state=N `/state` requests,
// as the bench's scale-10000 measure makes). Printed per service: req/s and the
// service's CPU per request (utime + stime of /proc/PID/stat), median [min-max] over the rounds,
// and per round the ratio to the first service's series of the same round.
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { keepAlive, timedGet } from './lib/http.js';
import { REPO } from './lib/paths.js';
import { cpuMs, descendants, stopChild } from './lib/processes.js';
import { rssMB, startSettled } from './lib/settled-service.js';
import { median } from './lib/stats.js';

const args = process.argv.slice(2);
const option = (name, fallback) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option('rounds', 8));
const seconds = Number(option('seconds', 2));
const fresh = args.includes('--fresh');
const stateRequests = Number(option('state', 0));
const nodeArgs = args.filter((arg) => arg.startsWith('--node-arg=')).map((arg) => arg.slice('--node-arg='.length));
const specs = args
  .filter((arg) => !arg.startsWith('--'))
  .map((spec) => {
    const [size, repo] = spec.split('@');
    return { label: spec, size: Number(size), repo: path.resolve(repo ?? REPO) };
  });
if (specs.length === 0) throw new Error('name at least one SIZE or SIZE@REPO');

async function settled(spec) {
  const service = await startSettled({ size: spec.size, repo: spec.repo, fresh, nodeArgs });
  console.log(`${spec.label}: ${service.modules} modules valid after ${service.validMs.toFixed(0)} ms, settled after ${service.settledMs.toFixed(0)} ms, RSS ${rssMB(service.child.pid)} MB`);
  return { ...spec, ...service, rates: [], cpu: [] };
}

/** CPU ms of every descendant of `pid` (the esbuild service process). */
function childrenCpuMs(pid) {
  return descendants(pid).reduce((sum, descendant) => sum + (cpuMs(descendant) ?? 0), 0);
}

const services = [];
try {
  // One at a time: a start of 10,000 modules takes both cores.
  for (const spec of specs) services.push(await settled(spec));
  for (const service of services) {
    const agent = keepAlive();
    for (let index = 0; index < stateRequests; index++) await timedGet(`${service.url}state`, { agent });
    agent.destroy();
    await autocannon({ url: service.moduleUrl, connections: 10, duration: 1 });
  }
  for (let round = 0; round < rounds; round++) {
    // The order turns each round, so neither is always loaded right after the other.
    const order = services.map((_, index) => services[(index + round) % services.length]);
    for (const service of order) {
      const before = cpuMs(service.child.pid);
      const childrenBefore = childrenCpuMs(service.child.pid);
      const load = await autocannon({ url: service.moduleUrl, connections: 10, duration: seconds });
      service.childrenCpu = childrenCpuMs(service.child.pid) - childrenBefore;
      if (load.errors + load.timeouts + load.non2xx > 0) throw new Error(`${service.label}: ${load.errors + load.timeouts + load.non2xx} errors/non-2xx under load`);
      service.rates.push(load.requests.average);
      service.cpu.push(((cpuMs(service.child.pid) - before) * 1000) / load.requests.total);
    }
    console.log(`round ${round + 1}: ${services.map((service) => `${service.label} ${service.rates[round].toFixed(0)} req/s ${service.cpu[round].toFixed(1)} us/request (its children ${service.childrenCpu} ms)`).join(', ')}; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
  }
  const range = (values, digits) => `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}]`;
  const [first] = services;
  for (const service of services) {
    const ratios = service.rates.map((rate, round) => rate / first.rates[round]);
    const cpuRatios = service.cpu.map((cpu, round) => cpu / first.cpu[round]);
    console.log(`${service.label}: ${range(service.rates, 0)} req/s, ${range(service.cpu, 1)} us of service CPU per request; per round / ${first.label}: req/s ${range(ratios, 2)}, CPU per request ${range(cpuRatios, 2)}`);
  }
} finally {
  for (const service of services) await stopChild(service.child);
}
