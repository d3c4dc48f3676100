#!/usr/bin/env node
// The benchmark suite of issue 6: `npm run bench [-- <measures>] [-- --quick]`.
//
//   node bench/run.js                 every measure, full repetitions
//   node bench/run.js cold,push       a subset, by measure name (see MEASURES)
//   node bench/run.js --quick         fewer repetitions and shorter runs, for development
//
// Each comparison runs side by side in one run (interleaved where it can be), every measure
// is repeated after a warm-up and summarized by its median. Prints one table of ratios
// (ours / baseline) and the raw medians and p90s on stdout, progress on stderr, and writes
// everything to bench/.work/results.json. Needs `npm run build` first (the script does it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { elapsedSeconds, progress } from './lib/log.js';
import { WORK } from './lib/paths.js';
import { clearFreshCaches } from './lib/processes.js';
import { judge, rawTable, resultsTable } from './lib/report.js';

const MEASURES = {
  cold: () => import('./measures/cold.js'),
  throughput: () => import('./measures/throughput.js'),
  push: () => import('./measures/push.js'),
  edit: () => import('./measures/edit.js'),
  scale: () => import('./measures/scale.js'),
  requests: () => import('./measures/requests.js'),
  restart: () => import('./measures/restart.js'),
  'page-load': () => import('./measures/page-load.js'),
  'first-module': () => import('./measures/first-module.js'),
  'remote-cache': () => import('./measures/remote-cache.js'),
  'scale-10000': () => import('./measures/scale-10000.js'),
};

/** Left out of a run that names no measure: slow (minutes); name it to run it. */
const ON_REQUEST = new Set(['scale-10000']);

/** Names for several measures at once. */
const GROUPS = {
  // Issue 33's comparisons, side by side in one run.
  'issue-33': ['page-load', 'edit', 'push', 'requests'],
};

const USAGE = `Usage: node bench/run.js [--quick] [MEASURE[,MEASURE...]]

Measures: ${Object.keys(MEASURES).join(', ')} (default: all but ${[...ON_REQUEST].join(', ')})
Groups: ${Object.entries(GROUPS).map(([group, names]) => `${group} = ${names.join(',')}`).join('; ')}
  cold        first /m/ request of a module vs esbuild build()
  throughput  warm requests/s of one cached module vs node:http and Vite 8 (autocannon, 10 connections)
  push        stylesheet written -> styles message -> new sheet fetched, vs Vite css-update
  edit        helper written -> next request returns the new code, vs esbuild context.rebuild()
  scale       1,000 modules: start -> /state all valid vs one esbuild build(); peak RSS; /state p50
  requests    req/s of one cached module, 1,000-module workspace vs a 2-module one
  restart     1,000 modules: restart with the build cache vs first start (empty cache)
  page-load   1,000-module page in Chromium, cold and warm, vs Vite 8 bundledDev and dev server
  first-module  spawn -> first module served vs Vite 8
  scale-10000 1,000 vs 10,000 modules: first start, restart, /state, req/s, warm page, peak RSS (slow)
Options:
  --quick     fewer repetitions and shorter runs (development only; not for the targets)
  --only M    the same as naming M (measures or groups, comma-separated)
`;

function parseArgs(argv) {
  const options = { quick: false, measures: Object.keys(MEASURES).filter((name) => !ON_REQUEST.has(name)) };
  const names = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--only' && index + 1 < argv.length) names.push(...argv[++index].split(',').map((name) => name.trim()).filter(Boolean));
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (arg.startsWith('-')) {
      process.stderr.write(`unknown option ${arg}\n${USAGE}`);
      process.exit(2);
    } else names.push(...arg.split(',').map((name) => name.trim()).filter(Boolean));
  }
  if (names.length > 0) {
    names.splice(0, names.length, ...names.flatMap((name) => GROUPS[name] ?? [name]));
    const unknown = names.filter((name) => !(name in MEASURES));
    if (unknown.length > 0) {
      process.stderr.write(`unknown measure ${unknown.join(', ')}\n${USAGE}`);
      process.exit(2);
    }
    options.measures = Object.keys(MEASURES).filter((name) => names.includes(name));
  }
  return options;
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: os.loadavg().map((load) => Number(load.toFixed(2))),
  };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  fs.mkdirSync(WORK, { recursive: true });
  clearFreshCaches();
  const started = new Date();
  const info = machine();
  progress(`measures: ${options.measures.join(', ')}${options.quick ? ' (--quick)' : ''}; ${info.cpu}, ${info.cores} cores, Node ${info.node}, load ${info.loadAverageAtStart.join(' ')}`);

  const rows = [];
  const measures = {};
  for (const name of options.measures) {
    const measureStarted = elapsedSeconds();
    progress(`${name}: start`);
    try {
      const measure = await MEASURES[name]();
      const result = await measure.run(options);
      rows.push(...result.rows.map(judge));
      measures[name] = { seconds: Number((elapsedSeconds() - measureStarted).toFixed(1)), raw: result.raw, notes: result.notes };
    } catch (error) {
      progress(`${name}: FAILED: ${error && error.stack ? error.stack : error}`);
      measures[name] = { seconds: Number((elapsedSeconds() - measureStarted).toFixed(1)), error: String(error && error.stack ? error.stack : error) };
    }
    progress(`${name}: done in ${(elapsedSeconds() - measureStarted).toFixed(1)} s`);
  }

  info.loadAverageAtEnd = os.loadavg().map((load) => Number(load.toFixed(2)));
  const totalSeconds = Number(elapsedSeconds().toFixed(1));
  const out = [];
  out.push(`# core benchmark, ${started.toISOString()}${options.quick ? ' (--quick: fewer repetitions, not for the targets)' : ''}`);
  out.push(`machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGB} GB, ${info.platform}, Node ${info.node}`);
  out.push(`load average: ${info.loadAverageAtStart.join(' ')} at start, ${info.loadAverageAtEnd.join(' ')} at end`);
  out.push('');
  out.push('ratio = ours / baseline (medians), same machine, same run');
  out.push(resultsTable(rows));
  out.push('');
  out.push('raw series (ms, req/s or MB):');
  out.push(rawTable(rows));
  out.push('');
  for (const [name, measure] of Object.entries(measures)) {
    if (measure.error) out.push(`${name}: ERROR ${measure.error.split('\n')[0]}`);
    for (const note of measure.notes ?? []) out.push(`${name}: ${note}`);
  }
  const failed = Object.entries(measures).filter(([, measure]) => measure.error).map(([name]) => name);
  out.push('');
  out.push(`${rows.filter((row) => row.pass).length}/${rows.filter((row) => row.pass !== null).length} targets met${failed.length ? `; measures that did not run to the end: ${failed.join(', ')}` : ''}; total ${totalSeconds} s`);
  process.stdout.write(`${out.join('\n')}\n`);

  const file = path.join(WORK, 'results.json');
  fs.writeFileSync(file, `${JSON.stringify({ date: started.toISOString(), quick: options.quick, machine: info, totalSeconds, rows, measures }, null, 2)}\n`);
  progress(`results written to ${path.relative(process.cwd(), file)}`);
  clearFreshCaches();
  // Child processes are stopped by the measures; esbuild's service and sockets may linger.
  process.exit(failed.length > 0 ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`bench: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
