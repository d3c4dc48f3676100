// Warm request throughput: one cached module (the development variant of
// @demo/shop/storefront, built at start), 10 connections (autocannon, in this process),
// against three servers each in its own child process:
//   ours  `core run --port 0` in a copy of fixtures/
//   bare  a node:http server sending the exact bytes and headers ours answered
//   vite  a Vite 8 dev server over another copy, serving the same entry transformed
// A warm-up run per server, then `runs` runs of `seconds` each, interleaved
// (ours, bare, vite, ours, ...); the median of the requests/s of the runs.
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { progress } from '../lib/log.js';
import { CHILDREN, WORK } from '../lib/paths.js';
import { startCore, startScript, stopChild } from '../lib/processes.js';
import { readModel } from '../lib/service-model.js';
import { summarize } from '../lib/stats.js';
import { copyFixtures, DEVELOPMENT_QUERY, STOREFRONT } from '../lib/workspaces.js';

export const name = 'throughput';

const CONNECTIONS = 10;
// Headers the HTTP server of node adds itself.
const HOP_BY_HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** One autocannon run; requests/s (the mean of its per-second samples). */
async function load(url, seconds) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  const problems = result.errors + result.timeouts + result.non2xx;
  return { rps: result.requests.average, total: result.requests.total, meanLatencyMs: result.latency.average, p99Ms: result.latency.p99, problems };
}

/** Checks a server answers `url` with 200 and JavaScript before it is measured. */
async function expectJavaScript(url, what) {
  const response = await fetch(url);
  const body = Buffer.from(await response.arrayBuffer());
  const type = response.headers.get('content-type') ?? '';
  if (response.status !== 200 || !/javascript/.test(type)) {
    throw new Error(`${what} answered ${response.status} ${type} for ${url}: ${body.toString('utf8').slice(0, 300)}`);
  }
  return { response, body };
}

export async function run({ quick }) {
  const seconds = quick ? 1 : 4;
  const warmup = quick ? 1 : 2;
  const runs = quick ? 2 : 5;
  const children = [];
  try {
    // ours: `core run` as it starts by default, without extensions (the /m/ route is the same with them)
    const oursRoot = copyFixtures('throughput-ours');
    const ours = await startCore(oursRoot);
    children.push(ours.child);
    const oursUrl = `${ours.url}${STOREFRONT.modules.slice(1)}?${DEVELOPMENT_QUERY}`;
    await fetch(`${ours.url}state`).then((response) => response.text()); // settled
    const { response, body } = await expectJavaScript(oursUrl, 'the service');

    // bare node:http, the same bytes and headers
    const headers = {};
    for (const [header, value] of response.headers) if (!HOP_BY_HOP.has(header)) headers[header] = value;
    const answerFile = path.join(WORK, 'throughput-answer.json');
    fs.writeFileSync(answerFile, JSON.stringify({ status: response.status, headers, body: body.toString('base64') }));
    const bare = await startScript(path.join(CHILDREN, 'bare-server.js'), [answerFile]);
    children.push(bare.child);
    const bareUrl = `${bare.url}${STOREFRONT.modules.slice(1)}?${DEVELOPMENT_QUERY}`;
    const bareAnswer = await expectJavaScript(bareUrl, 'the bare server');
    if (Buffer.compare(bareAnswer.body, body) !== 0) throw new Error('the bare server does not send the bytes the service sent');

    // Vite 8
    const viteRoot = copyFixtures('throughput-vite');
    const entries = {};
    for (const module of readModel(viteRoot).modules) if (module.entry) entries[module.specifier] = path.join(viteRoot, module.entry);
    const entriesFile = path.join(viteRoot, 'bench-entries.json');
    fs.writeFileSync(entriesFile, JSON.stringify(entries));
    const vite = await startScript(path.join(CHILDREN, 'vite-server.js'), [viteRoot, entriesFile], { cwd: viteRoot });
    children.push(vite.child);
    const viteUrl = `${vite.url}${STOREFRONT.entry}`;
    const viteAnswer = await expectJavaScript(viteUrl, 'Vite');

    const servers = [
      { key: 'ours', url: oursUrl, bytes: body.length, results: [] },
      { key: 'bare', url: bareUrl, bytes: bareAnswer.body.length, results: [] },
      { key: 'vite', url: viteUrl, bytes: viteAnswer.body.length, results: [] },
    ];
    progress(`throughput: warm-up ${warmup} s per server, then ${runs} x ${seconds} s runs, interleaved (ours ${body.length} B, bare ${bareAnswer.body.length} B, vite ${viteAnswer.body.length} B)`);
    for (const server of servers) await load(server.url, warmup);
    for (let index = 0; index < runs; index++) {
      for (const server of servers) {
        const result = await load(server.url, seconds);
        server.results.push(result);
        if (result.problems > 0) server.problems = (server.problems ?? 0) + result.problems;
      }
      progress(`throughput: run ${index + 1}/${runs}: ${servers.map((server) => `${server.key} ${server.results.at(-1).rps.toFixed(0)} req/s`).join(', ')}`);
    }
    const [oursSeries, bareSeries, viteSeries] = servers.map((server) => summarize(server.results.map((result) => result.rps)));
    const failed = servers.filter((server) => server.problems).map((server) => `${server.key}: ${server.problems} errors/non-2xx`).join('; ') || undefined;
    return {
      rows: [
        {
          id: 'throughput-bare',
          measure: 'warm throughput, one cached module, 10 connections',
          baselineName: 'bare node:http, same bytes and headers',
          unit: 'req/s',
          ours: oursSeries,
          baseline: bareSeries,
          checks: [{ on: 'ratio', op: '>=', value: 0.8 }],
          failed,
        },
        {
          id: 'throughput-vite',
          measure: 'warm throughput, one cached module, 10 connections',
          baselineName: 'Vite 8 dev server, same entry transformed',
          unit: 'req/s',
          ours: oursSeries,
          baseline: viteSeries,
          checks: [{ on: 'ratio', op: '>=', value: 1.5 }],
          failed,
        },
      ],
      raw: Object.fromEntries(servers.map((server) => [server.key, { url: server.url, bytes: server.bytes, runs: server.results }])),
      notes: [
        `autocannon in the bench process, each server in its own child process; ${runs} runs of ${seconds} s each after a ${warmup} s warm-up, interleaved; ${CONNECTIONS} connections, no pipelining`,
        `bytes per answer: ours ${body.length}, bare ${bareAnswer.body.length}, vite ${viteAnswer.body.length} (Vite serves the entry alone, its imports as separate requests; ours bundles the helper)`,
      ],
    };
  } finally {
    await Promise.all(children.map((child) => stopChild(child)));
  }
}
