#!/usr/bin/env node
// What one edit costs the service (issues 32 and 33): an in-process service on a copy of
// fixtures/, the storefront's stylesheet (`sheet`) or helper (`code`) written with a marker,
// then its address asked until the answer has it; 3 warm-up edits, then N, 100 ms apart.
// `push`: the stylesheet written, the `styles` message of `/events` awaited (the development
// extension loaded), then its `href` fetched, as a page does; also prints the median of write
// -> message. Prints the wall median (write -> new answer) and the CPU time of this process per
// edit (service and client together: on a busy machine steadier than the wall clock). Run it
// under `node --cpu-prof` for the profile of the edit loop. `node bench/edit-cpu.js
// sheet|code|push [N]` after `npm run build`. Not part of `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { getText, keepAlive } from './lib/http.js';
import { distModule } from './lib/paths.js';
import { openSocket } from './lib/socket.js';
import { copyFixtures, DEVELOPMENT_QUERY, STOREFRONT } from './lib/workspaces.js';

const [kind = 'sheet', count = '60'] = process.argv.slice(2);
const { startService } = await import(distModule('service.js'));
const root = copyFixtures(`edit-cpu-${kind}`);
const sheet = kind !== 'code';
const file = path.join(root, sheet ? STOREFRONT.stylesheet : STOREFRONT.helper);
const original = fs.readFileSync(file, 'utf8');
const extensions = kind === 'push' ? [(await import(distModule('development/index.js'))).default] : [];
const service = await startService({ root, port: 0, logger: () => {}, extensions });
const agent = keepAlive();
const address = sheet ? STOREFRONT.modules.replace('/modules/', '/styles/') : STOREFRONT.modules;
const url = `${service.url}${address.slice(1)}?${DEVELOPMENT_QUERY}`;
await service.report();
await getText(url, { agent });
const events = kind === 'push' ? await openSocket(`${service.url.replace(/^http/, 'ws')}events`) : null;

// The address of the new sheet: asked until it has the marker, or told by the push.
async function answerWith(needle) {
  if (!events) {
    let { text } = await getText(url, { agent });
    while (!text.includes(needle)) ({ text } = await getText(url, { agent }));
    return undefined;
  }
  for (;;) {
    const { at, message } = await events.next((message) => message.type === 'styles' && message.module === STOREFRONT.label);
    const { status, text } = await getText(new URL(message.href, service.url), { agent });
    if (status === 200 && text.includes(needle)) return at;
  }
}

const times = [];
const toMessage = [];
let cpu = 0;
for (let index = 0; index < Number(count) + 3; index++) {
  const marker = sheet ? `.edit-${index} { color: red; }` : `globalThis.__benchEdit = "edit-${index}";`;
  const needle = sheet ? `.edit-${index}` : `"edit-${index}"`;
  events?.clear();
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  await fs.promises.writeFile(file, `${original}\n${marker}\n`);
  const messageAt = await answerWith(needle);
  const used = process.cpuUsage(startedCpu);
  if (index >= 3) {
    times.push(performance.now() - started);
    if (messageAt !== undefined) toMessage.push(messageAt - started);
    cpu += (used.user + used.system) / 1000;
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const median = (list) => +[...list].sort((a, b) => a - b)[list.length >> 1].toFixed(2);
console.log(JSON.stringify({ kind, edits: times.length, wallMedianMs: median(times), ...(toMessage.length > 0 ? { messageMedianMs: median(toMessage) } : {}), cpuPerEditMs: +(cpu / times.length).toFixed(2) }));
events?.close();
await service.close();
process.exit(0);
