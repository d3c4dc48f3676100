// Cold request: the first `/m/` request of a module variant the service has not built yet
// (the production variant of @demo/shop/storefront; the service builds the development
// variant of every module at start), end to end: request sent on a new connection -> last byte of the body (node:http client).
// A fresh service per repetition, started in this process and settled (`report()`) before
// the request. Baseline: esbuild `build()` of the same entry with the same options
// (`esbuildOptions` of the service's engine), in this process, interleaved with ours.
import http from 'node:http';
import * as esbuild from 'esbuild';
import { keepAlive, timedGet } from '../lib/http.js';
import { progress } from '../lib/log.js';
import { distModule } from '../lib/paths.js';
import { codeOf, moduleTargets, optionsFor, productionVariant, readModel } from '../lib/service-model.js';
import { median, now, summarize } from '../lib/stats.js';
import { copyFixtures, PRODUCTION_QUERY, STOREFRONT } from '../lib/workspaces.js';

export const name = 'cold';

export async function run({ quick }) {
  const { startService } = await import(distModule('service.js'));
  const root = copyFixtures('cold');
  const modules = moduleTargets(readModel(root), (module) => module.specifier === STOREFRONT.specifier);
  const options = optionsFor(root, modules, productionVariant('browser'));
  const repetitions = quick ? 3 : 15;
  const ours = [];
  const baseline = [];
  const notes = [];
  let sameBytes = true;
  const serviceStartMs = [];
  const phases = [];
  const warm = [];

  const oneOurs = async () => {
    const started = now();
    const service = await startService({ root, port: 0, logger: (message) => notes.push(message) });
    try {
      await service.report(); // settled: the development variants are built
      serviceStartMs.push(now() - started);
      // Where the time goes: the service's events, stamped as they are dispatched.
      const events = [];
      const subscription = service.events$.subscribe((event) => events.push({ type: event.type, at: now() }));
      const url = `${service.url}${STOREFRONT.modules.slice(1)}?${PRODUCTION_QUERY}`;
      const agent = keepAlive(); // the cold request opens the connection, the repeat reuses it
      const sent = now();
      const answer = await timedGet(url, { agent });
      subscription.unsubscribe();
      if (answer.status !== 200) throw new Error(`the cold request answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 500)}`);
      const buildStarted = events.find((event) => event.type === 'build.started');
      const buildDone = events.find((event) => event.type === 'build.succeeded');
      if (buildStarted && buildDone) {
        answer.phases = { toBuildStarted: buildStarted.at - sent, build: buildDone.at - buildStarted.at, afterBuild: sent + answer.ms - buildDone.at };
      }
      answer.warmMs = (await timedGet(url, { agent })).ms; // the same request again, answered from the cache
      agent.destroy();
      return answer;
    } finally {
      await service.close();
    }
  };
  const oneBaseline = async () => {
    const started = now();
    const result = await esbuild.build(options);
    return { ms: now() - started, code: codeOf(result) };
  };

  // The floor of the HTTP part: the same GET (new server, new connection) of the same bytes
  // from a bare node:http server in this process. Information only.
  const oneFloor = async (body) => {
    const server = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'content-length': body.length });
      response.end(body);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return (await timedGet(`http://127.0.0.1:${server.address().port}${STOREFRONT.modules}?${PRODUCTION_QUERY}`)).ms;
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  };
  const floor = [];

  progress(`cold: warm-up, then ${repetitions} repetitions (fresh service each)`);
  const first = await oneOurs();
  await oneBaseline();
  await oneFloor(first.body);
  for (let index = 0; index < repetitions; index++) {
    const answer = await oneOurs();
    const build = await oneBaseline();
    ours.push(answer.ms);
    if (answer.phases) phases.push(answer.phases);
    warm.push(answer.warmMs);
    baseline.push(build.ms);
    floor.push(await oneFloor(answer.body));
    if (!build.code || Buffer.compare(Buffer.from(build.code), answer.body) !== 0) sameBytes = false;
  }
  return {
    rows: [
      {
        id: 'cold',
        measure: 'cold request (first /m/ request, production variant), ms',
        baselineName: 'esbuild build(), same entry and options, in-process',
        unit: 'ms',
        ours: summarize(ours),
        baseline: summarize(baseline),
        checks: [{ on: 'ratio', op: '<=', value: 1.3 }],
      },
    ],
    raw: {
      oursMs: ours,
      baselineMs: baseline,
      sameBytes,
      serviceStartToSettledMs: summarize(serviceStartMs),
      phasesMs: {
        requestToBuildStarted: summarize(phases.map((phase) => phase.toBuildStarted)),
        buildStartedToSucceeded: summarize(phases.map((phase) => phase.build)),
        succeededToLastByte: summarize(phases.map((phase) => phase.afterBuild)),
      },
      sameRequestAgainMs: summarize(warm),
      bareHttpFetchFloorMs: summarize(floor),
      serviceMessages: [...new Set(notes)].slice(0, 10),
    },
    notes: [
      'ours: in-process startService() per repetition, awaited report() (settled), then a timed GET of the production variant on a new connection; baseline: in-process esbuild.build() with esbuildOptions() of the service',
      `the answer and the baseline's output are ${sameBytes ? 'byte-identical' : 'NOT byte-identical'}`,
      `ours, medians: request sent -> build.started ${median(phases.map((phase) => phase.toBuildStarted)).toFixed(2)} ms, build.started -> build.succeeded ${median(phases.map((phase) => phase.build)).toFixed(2)} ms, build.succeeded -> last byte ${median(phases.map((phase) => phase.afterBuild)).toFixed(2)} ms; the same request again (cached, same connection) ${median(warm).toFixed(2)} ms`,
      `floor of the HTTP part (not in the baseline): the same GET from a bare node:http server in this process, new server and connection each time, median ${median(floor).toFixed(2)} ms`,
    ],
  };
}
