// What Node 20's startup snapshot would save the command's start (issue 34.7, bench/RESULTS.md):
// a snapshot of this build's dist/core.cjs evaluated (`node --build-snapshot`), against the
// bundle loaded as bin/core.js loads it (bin/load-bundle.js, from its code cache). Spawn -> the
// bundle's `main` callable, wall time, alternated, each variant once per round:
//   bundle     `node` running bin/load-bundle.js on dist/core.cjs (today's start)
//   snapshot   `node --snapshot-blob` of the evaluated bundle (what a start given the flag would do)
//   relay      `node` that spawns the snapshot's `node` (what bin/core.js would have to do: a
//              process started as `node bin/core.js` cannot take a snapshot any more)
//   bare       `node` on an empty script (the floor: Node's own start)
// each with the environment as given and without NODE_EXTRA_CA_CERTS (Node 20 reads that file at
// every start, before any script runs).
//   node bench/start-snapshot.js [rounds]
// The snapshot's builder refuses node:http (Node 20's snapshot builder cannot load it) and cannot
// load the esbuild package (only built-ins): both are handed to the bundle as namespaces loaded
// on first use; the bundle reads neither while it loads, so its evaluation is the same. The blob,
// bench/.work/start-snapshot/core.blob, also runs the command given arguments:
// `TEAM_START_SNAPSHOT=bench/.work/start-snapshot/core.blob node bench/team-start.js . N`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST, REPO, WORK } from './lib/paths.js';
import { median, now } from './lib/stats.js';

const rounds = Number(process.argv[2] ?? '10');
const dir = path.join(WORK, 'start-snapshot');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const bundle = path.join(DIST, 'core.cjs');
const esbuildVersion = JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;

const files = {
  snapshotEntry: path.join(dir, 'snapshot-entry.cjs'),
  blob: path.join(dir, 'core.blob'),
  bundleLoad: path.join(dir, 'bundle-load.cjs'),
  relay: path.join(dir, 'relay.cjs'),
  bare: path.join(dir, 'bare.cjs'),
};
fs.writeFileSync(
  files.snapshotEntry,
  `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const { createRequire, isBuiltin } = require('node:module');
const file = ${JSON.stringify(bundle)};
const onFirstUse = new Set(['http', 'node:http', 'esbuild']);
let runtimeRequire = null;
const bundleRequire = (name) => {
  if (runtimeRequire !== null) return runtimeRequire(name);
  if (name === 'esbuild/package.json') return { version: ${JSON.stringify(esbuildVersion)} };
  if (isBuiltin(name) && !onFirstUse.has(name)) return require(name);
  if (!onFirstUse.has(name)) throw new Error('the snapshot builder cannot load ' + name);
  let loaded;
  return new Proxy({}, { get: (_, key) => { if (runtimeRequire === null) throw new Error('the bundle read ' + name + ' at load'); return (loaded ??= runtimeRequire(name))[key]; } });
};
const module = { exports: {} };
const source = fs.readFileSync(file, 'latin1');
(0, eval)('(function (exports, require, module, __filename, __dirname, bundleImport) {' + source + '\\n})')(module.exports, bundleRequire, module, file, path.dirname(file), (url) => Promise.reject(new Error('no import() from a snapshot: ' + url)));
// No arguments: say the bundle is ready (the timing below); else run the command, as bin/core.js.
v8.startupSnapshot.setDeserializeMainFunction(() => {
  runtimeRequire = createRequire(file);
  const args = process.argv.slice(1);
  const { user, system } = process.cpuUsage();
  if (args.length === 0) return void process.stdout.write(typeof module.exports.main === 'function' ? 'ready ' + (user + system) / 1000 + '\\n' : 'no main\\n');
  module.exports.main(args).then(
    (code) => { if (typeof code === 'number') process.exitCode = code; },
    (error) => { process.stderr.write('core: ' + (error && error.stack ? error.stack : error) + '\\n'); process.exitCode = 1; },
  );
});
`,
);
fs.writeFileSync(
  files.bundleLoad,
  `'use strict';
const { loadBundle } = require(${JSON.stringify(path.join(REPO, 'bin', 'load-bundle.js'))});
const { exports: bundleExports, fromCache } = loadBundle(${JSON.stringify(bundle)});
if (typeof bundleExports.main !== 'function' || !fromCache) throw new Error('no main, or not from the code cache');
const { user, system } = process.cpuUsage();
process.stdout.write('ready ' + (user + system) / 1000 + '\\n');
`,
);
// The relay adds its own CPU, up to its child's exit, to the child's.
fs.writeFileSync(
  files.relay,
  `'use strict';
require('node:child_process').spawn(process.execPath, ['--snapshot-blob', ${JSON.stringify(files.blob)}], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout.on('data', (chunk) => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(String(chunk).replace(/ready ([0-9.]+)/, (_, child) => 'ready ' + (Number(child) + (user + system) / 1000)));
});
`,
);
fs.writeFileSync(files.bare, `'use strict';\nconst { user, system } = process.cpuUsage();\nprocess.stdout.write('ready ' + (user + system) / 1000 + '\\n');\n`);

const built = spawnSync(process.execPath, ['--snapshot-blob', files.blob, '--build-snapshot', files.snapshotEntry], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`the snapshot was not made: ${built.stderr}`);
const refused = [...new Set(built.stderr.match(/built-in module "[^"]+"/g) ?? [])];
console.log(`snapshot of ${path.relative(REPO, bundle)}: ${(fs.statSync(files.blob).size / 1e6).toFixed(1)} MB; the builder's warnings: ${refused.join(', ') || 'none'}`);

const withoutCa = { ...process.env };
delete withoutCa.NODE_EXTRA_CA_CERTS;
const variants = {
  bundle: [files.bundleLoad],
  snapshot: ['--snapshot-blob', files.blob],
  relay: [files.relay],
  bare: [files.bare],
};

/** Spawn -> the child's `ready` line, ms, and the CPU it says it took to that line. */
function timed(args, env) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let ready;
    let cpu;
    child.stdout.on('data', (chunk) => {
      const line = /ready ([0-9.]+)/.exec(chunk.toString());
      if (ready === undefined && line) [ready, cpu] = [now() - started, Number(line[1])];
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && ready !== undefined ? resolve({ ms: ready, cpu }) : reject(new Error(`${args.join(' ')}: exit ${code}`))));
  });
}

const results = {};
for (let round = 0; round <= rounds; round++) {
  const order = Object.keys(variants);
  if (round % 2) order.reverse();
  for (const [envName, env] of round % 2 ? [['no CA', withoutCa], ['env', process.env]] : [['env', process.env], ['no CA', withoutCa]]) {
    for (const name of order) {
      const run = await timed(variants[name], env);
      // The first round warms the disk cache and is not counted.
      if (round > 0) (results[`${name}, ${envName}`] ??= []).push(run);
    }
  }
}
const describe = (values) => `${median(values).toFixed(1)} [${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}]`;
console.log(`load ${os.loadavg()[0].toFixed(2)}; medians [min-max], ms`);
for (const [name, runs] of Object.entries(results)) console.log(`${name.padEnd(18)} wall ${describe(runs.map((run) => run.ms))}, CPU ${describe(runs.map((run) => run.cpu))}, n ${runs.length}`);
