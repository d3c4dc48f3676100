// Does a request's cost grow with the workspace? Requests/s of one cached module (its
// development variant, built at start), 10 connections (autocannon, in this process), in the
// generated 1,000-module workspace against the same in a workspace of 2 packages x 1 module
// generated the same way. Both servers run side by side, runs interleaved; the check before
// an output's answer looks at what that output depends on, never at every manifest.
import autocannon from 'autocannon';
import { progress } from '../lib/log.js';
import { startCore, stopChild } from '../lib/processes.js';
import { summarize } from '../lib/stats.js';
import { DEVELOPMENT_QUERY, generateScaleWorkspace } from '../lib/workspaces.js';

export const name = 'requests';

const CONNECTIONS = 10;

async function load(url, seconds) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  return { rps: result.requests.average, problems: result.errors + result.timeouts + result.non2xx };
}

async function serverFor(root) {
  const started = await startCore(root, { ms: 300_000 });
  await fetch(`${started.url}state`).then((response) => response.text()); // every module built
  const url = `${started.url}m/@bench/p000@1.0.0/modules/m0?${DEVELOPMENT_QUERY}`;
  const answer = await fetch(url);
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  return { child: started.child, url };
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
      servers.push({ key, url: server.url, results: [] });
    }
    for (const server of servers) await load(server.url, 1); // warm-up
    for (let index = 0; index < runs; index++) {
      for (const server of servers) server.results.push(await load(server.url, seconds));
      progress(`requests: run ${index + 1}/${runs}: ${servers.map((server) => `${server.key} ${server.results.at(-1).rps.toFixed(0)} req/s`).join(', ')}`);
    }
    const [largeSeries, smallSeries] = servers.map((server) => summarize(server.results.map((result) => result.rps)));
    const problems = servers.flatMap((server) => server.results.map((result) => result.problems)).reduce((a, b) => a + b, 0);
    return {
      rows: [
        {
          id: 'requests-scale',
          measure: 'one cached module, 1,000-module workspace vs 2-module one',
          baselineName: 'the same module request in a 2-module workspace',
          unit: 'req/s',
          ours: largeSeries,
          baseline: smallSeries,
          // Issue 33's target (issue 6 asked for 0.8).
          checks: [{ on: 'ratio', op: '>=', value: 0.9 }],
          failed: problems > 0 ? `${problems} errors/non-2xx` : undefined,
        },
      ],
      raw: Object.fromEntries(servers.map((server) => [server.key, { url: server.url, runs: server.results }])),
      notes: [`${runs} runs of ${seconds} s each per workspace after a 1 s warm-up, interleaved; ${CONNECTIONS} connections`],
    };
  } finally {
    for (const child of children) await stopChild(child);
  }
}
