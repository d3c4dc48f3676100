// Does a request's cost grow with the workspace? Requests/s of one cached module (its
// development variant, built at start), 10 connections (autocannon, in this process), in the
// generated 1,000-module workspace against the same in a workspace of 2 packages x 1 module
// generated the same way. Both servers run side by side, runs interleaved, the order turned each
// run; the check before an output's answer looks at what that output depends on, never at every
// manifest. Each service is left to settle after its first start (its build cache written, its
// watcher's first walk done) before any request is counted: that work, about 1 s of CPU at 1,000
// modules and none at 2, otherwise fell into the large service's first series (stop 53,
// bench/RESULTS.md). The service's CPU per request (/proc) is given beside the rate: on a
// machine shared with other work it moves less than the rate does.
import autocannon from 'autocannon';
import { progress } from '../lib/log.js';
import { cpuMs, startCore, stopChild } from '../lib/processes.js';
import { untilSettled } from '../lib/settled-service.js';
import { summarize } from '../lib/stats.js';
import { DEVELOPMENT_QUERY, generateScaleWorkspace } from '../lib/workspaces.js';

export const name = 'requests';

const CONNECTIONS = 10;

async function load(server, seconds) {
  const before = cpuMs(server.child.pid);
  const result = await autocannon({ url: server.url, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  const cpuUs = ((cpuMs(server.child.pid) - before) * 1000) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, cpuUs, problems: result.errors + result.timeouts + result.non2xx };
}

async function serverFor(root) {
  const started = await startCore(root, { ms: 300_000 });
  const report = JSON.parse(await fetch(`${started.url}state`).then((response) => response.text())); // every module built
  const settling = performance.now();
  await untilSettled(started.child, started.cacheDir, report.modules.length);
  const url = `${started.url}m/@bench/p000@1.0.0/modules/m0?${DEVELOPMENT_QUERY}`;
  const answer = await fetch(url);
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  return { child: started.child, url, settledMs: performance.now() - settling };
}

export async function run({ quick }) {
  const seconds = quick ? 1 : 4;
  const runs = quick ? 2 : 5;
  progress('requests: generating a 1,000-module and a 2-module workspace');
  const large = generateScaleWorkspace('requests-1000');
  const small = generateScaleWorkspace('requests-2', { packages: 2, modulesPerPackage: 1 });
  const children = [];
  try {
    const servers = [];
    for (const [key, root] of [['large', large.dir], ['small', small.dir]]) {
      const server = await serverFor(root);
      children.push(server.child);
      servers.push({ key, ...server, results: [] });
      progress(`requests: ${key} settled ${server.settledMs.toFixed(0)} ms after its /state`);
    }
    for (const server of servers) await load(server, 1); // warm-up
    for (let index = 0; index < runs; index++) {
      // Turned each run, so that neither is always loaded right after the other.
      for (const server of index % 2 === 0 ? servers : [...servers].reverse()) server.results.push(await load(server, seconds));
      progress(`requests: run ${index + 1}/${runs}: ${servers.map((server) => `${server.key} ${server.results.at(-1).rps.toFixed(0)} req/s, ${server.results.at(-1).cpuUs.toFixed(1)} us/request`).join('; ')}`);
    }
    const series = (key) => servers.map((server) => summarize(server.results.map((result) => result[key])));
    const [largeRates, smallRates] = series('rps');
    const [largeCpu, smallCpu] = series('cpuUs');
    const problems = servers.flatMap((server) => server.results.map((result) => result.problems)).reduce((a, b) => a + b, 0);
    return {
      rows: [
        {
          id: 'requests-scale',
          measure: 'one cached module, 1,000-module workspace vs 2-module one',
          baselineName: 'the same module request in a 2-module workspace',
          unit: 'req/s',
          ours: largeRates,
          baseline: smallRates,
          // Issue 33's target (issue 6 asked for 0.8).
          checks: [{ on: 'ratio', op: '>=', value: 0.9 }],
          failed: problems > 0 ? `${problems} errors/non-2xx` : undefined,
        },
        {
          id: 'requests-scale-cpu',
          measure: "the same, the service's CPU per request",
          baselineName: 'the same in the 2-module workspace',
          unit: 'us',
          ours: largeCpu,
          baseline: smallCpu,
          checks: [],
        },
      ],
      raw: Object.fromEntries(servers.map((server) => [server.key, { url: server.url, settledMs: server.settledMs, runs: server.results }])),
      notes: [`${runs} runs of ${seconds} s each per workspace after each service settled and a 1 s warm-up, interleaved (the order turned each run); ${CONNECTIONS} connections`],
    };
  } finally {
    for (const child of children) await stopChild(child);
  }
}
