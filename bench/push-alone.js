#!/usr/bin/env node
// The stylesheet push of `core run` alone (issue 33), without Vite running beside it: on a
// busy 2-core machine the two servers of the `push` measure compete for the same cores, and
// its ratio moves more from run to run than any change does. `core run --dev` on a copy of
// fixtures/ in a child process, the storefront's stylesheet written with a marker, the
// `styles` message awaited on `/events` and its `href` fetched; 5 warm-up edits, then N,
// 150 ms apart. Prints the medians of write -> message and write -> new sheet fetched, and
// the CPU time of the service process (and with its esbuild process) per edit, from /proc
// (Linux; clock ticks of 10 ms, so over at least 40 edits). Compare two builds by running
// it from each, alternated. `node bench/push-alone.js [N]` after `npm run build`. Not part of
// `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { getText, keepAlive } from './lib/http.js';
import { cpuMs, descendants, startCore, stopChild } from './lib/processes.js';
import { median as medianOf } from './lib/stats.js';
import { openSocket } from './lib/socket.js';
import { copyFixtures, STOREFRONT } from './lib/workspaces.js';

const median = (list) => +medianOf(list).toFixed(2);

const count = Number(process.argv[2] ?? 60);
const WARMUP = 5;
const GAP_MS = 150;
const root = copyFixtures('push-alone');
const file = path.join(root, STOREFRONT.stylesheet);
const original = fs.readFileSync(file, 'utf8');
const { child, url } = await startCore(root, { env: { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'https://esm.sh' } });
await fetch(`${url}state`).then((response) => response.text());
const client = await openSocket(`${url.replace(/^http/, 'ws')}events`);
const agent = keepAlive();

/** User and system CPU of a process, ms (0 once it is gone). */
const ms = (pid) => cpuMs(pid) ?? 0;
const withChildren = () => [child.pid, ...descendants(child.pid)].reduce((sum, pid) => sum + ms(pid), 0);

const toMessage = [];
const toSheet = [];
let started = { service: 0, all: 0 };
for (let index = 0; index < count + WARMUP; index++) {
  if (index === WARMUP) started = { service: ms(child.pid), all: withChildren() };
  client.clear();
  const before = performance.now();
  await fs.promises.writeFile(file, `${original}\n.bench-push-${index} { color: rgb(${index % 256}, 0, 0); }\n`);
  for (;;) {
    const { at, message } = await client.next((message) => message.type === 'styles' && message.module === STOREFRONT.label);
    const { status, text } = await getText(new URL(message.href, url), { agent });
    if (status !== 200 || !text.includes(`.bench-push-${index}`)) continue; // a late message of an earlier edit
    if (index >= WARMUP) {
      toMessage.push(at - before);
      toSheet.push(performance.now() - before);
    }
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, GAP_MS));
}
const ended = { service: ms(child.pid), all: withChildren() };
const perEdit = (cpu) => +(cpu / count).toFixed(2);
console.log(
  JSON.stringify({
    edits: count,
    messageMedianMs: median(toMessage),
    fetchedMedianMs: median(toSheet),
    serviceCpuPerEditMs: perEdit(ended.service - started.service),
    withEsbuildCpuPerEditMs: perEdit(ended.all - started.all),
  }),
);
client.close();
agent.destroy();
await stopChild(child);
process.exit(0);
