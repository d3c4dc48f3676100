#!/usr/bin/env node
// What one edit costs the service (issues 32 and 33): an in-process service on a copy of
// fixtures/, the storefront's stylesheet (`sheet`) or helper (`code`) written with a marker,
// then its address asked until the answer has it; 3 warm-up edits, then N, 100 ms apart.
// Prints the wall median (write -> new answer) and the CPU time of this process per edit
// (service and client together: on a busy machine steadier than the wall clock). Run it under
// `node --cpu-prof` for the profile of the edit loop. `node bench/edit-cpu.js sheet|code [N]`
// after `npm run build`. Not part of `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { getText, keepAlive } from './lib/http.js';
import { distModule } from './lib/paths.js';
import { copyFixtures, DEVELOPMENT_QUERY, STOREFRONT } from './lib/workspaces.js';

const [kind = 'sheet', count = '60'] = process.argv.slice(2);
const { startService } = await import(distModule('service.js'));
const root = copyFixtures(`edit-cpu-${kind}`);
const file = path.join(root, kind === 'sheet' ? STOREFRONT.stylesheet : STOREFRONT.helper);
const original = fs.readFileSync(file, 'utf8');
const service = await startService({ root, port: 0, logger: () => {} });
const agent = keepAlive();
const address = kind === 'sheet' ? STOREFRONT.modules.replace('/modules/', '/styles/') : STOREFRONT.modules;
const url = `${service.url}${address.slice(1)}?${DEVELOPMENT_QUERY}`;
await service.report();
await getText(url, { agent });
const times = [];
let cpu = 0;
for (let index = 0; index < Number(count) + 3; index++) {
  const marker = kind === 'sheet' ? `.edit-${index} { color: red; }` : `globalThis.__benchEdit = "edit-${index}";`;
  const needle = kind === 'sheet' ? `.edit-${index}` : `"edit-${index}"`;
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  await fs.promises.writeFile(file, `${original}\n${marker}\n`);
  let { text } = await getText(url, { agent });
  while (!text.includes(needle)) ({ text } = await getText(url, { agent }));
  const used = process.cpuUsage(startedCpu);
  if (index >= 3) {
    times.push(performance.now() - started);
    cpu += (used.user + used.system) / 1000;
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ kind, edits: times.length, wallMedianMs: +times[times.length >> 1].toFixed(2), cpuPerEditMs: +(cpu / times.length).toFixed(2) }));
await service.close();
process.exit(0);
