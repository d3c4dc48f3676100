// The baseline of the 1,000-module start: one esbuild `build()` of every entry of the
// workspace with the options of the service's engine (`esbuildOptions`), in a fresh process
// as `core run` is. argv[2]: a JSON file { root, targets, refuse? } written by the bench
// from the service's own workspace model. Prints `DONE <build ms> <outputs> <errors>` and
// then waits for SIGTERM, so the bench can read its peak memory from /proc.
import fs from 'node:fs';
import * as esbuild from 'esbuild';
import { esbuildOptions } from '../../dist/bundlers/esbuild-engine.js';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const refuse = job.refuse ? { filter: new RegExp(job.refuse.filter), reason: job.refuse.reason } : undefined;
const started = performance.now();
const result = await esbuild.build(esbuildOptions(job.root, job.targets, job.variant, refuse));
const ms = performance.now() - started;
const codes = (result.outputFiles ?? []).filter((file) => file.path.endsWith('.js')).length;
process.stdout.write(`DONE ${ms.toFixed(1)} ${codes} ${result.errors.length}\n`);
const keep = setInterval(() => {}, 1 << 30);
const stop = () => {
  clearInterval(keep);
  esbuild.stop();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
