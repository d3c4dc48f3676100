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
// EDIT_CPU_PROFILE=<file>: a CPU profile of the measured edits only (from the first after the
// warm-up to the last, 200 us sampling), without the start and the copy of the fixtures.
// EDIT_CPU_PHASES=1: also prints, per kind of event of the store, the median of write -> its first
// such event in each edit (`files.changed` by its source): where an edit's time goes
// (bench/RESULTS.md, stop 51).
import fs from 'node:fs';
import inspector from 'node:inspector';
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
const profiler = process.env.EDIT_CPU_PROFILE ? await startProfiler() : null;
const phases = process.env.EDIT_CPU_PHASES ? phaseMarks(service.internals.store.events$) : null;
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
  if (index === 3) await profiler?.start();
  events?.clear();
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  phases?.edit(started);
  await fs.promises.writeFile(file, `${original}\n${marker}\n`);
  const messageAt = await answerWith(needle);
  const used = process.cpuUsage(startedCpu);
  if (index >= 3) {
    times.push(performance.now() - started);
    if (messageAt !== undefined) toMessage.push(messageAt - started);
    cpu += (used.user + used.system) / 1000;
    phases?.keep();
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const median = (list) => +[...list].sort((a, b) => a - b)[list.length >> 1].toFixed(2);
console.log(JSON.stringify({ kind, edits: times.length, wallMedianMs: median(times), ...(toMessage.length > 0 ? { messageMedianMs: median(toMessage) } : {}), cpuPerEditMs: +(cpu / times.length).toFixed(2) }));
if (phases) console.log(JSON.stringify({ phasesMedianMs: phases.medians() }));
if (profiler) fs.writeFileSync(process.env.EDIT_CPU_PROFILE, JSON.stringify(await profiler.stop()));
events?.close();
await service.close();
process.exit(0);

// The inspector's profiler in this process, sampling every 200 us once started.
async function startProfiler() {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  return { start: () => post('Profiler.start'), stop: async () => (await post('Profiler.stop')).profile };
}

// Per edit, ms from the write to the first event of each kind the store emits; `medians` over the
// edits kept (an edit without such an event counts nowhere: the count says how many had one).
function phaseMarks(events$) {
  let startedAt = 0;
  let marks = {};
  const kept = {};
  events$.subscribe((event) => {
    const kind = event.type === 'files.changed' ? `files.changed.${event.source}` : event.type;
    if (!(kind in marks)) marks[kind] = performance.now() - startedAt;
  });
  return {
    edit(at) {
      startedAt = at;
      marks = {};
    },
    keep() {
      marks.answer = performance.now() - startedAt;
      for (const [kind, ms] of Object.entries(marks)) (kept[kind] ??= []).push(ms);
    },
    medians: () => Object.fromEntries(Object.entries(kept).map(([kind, list]) => [kind, { edits: list.length, ms: median(list) }])),
  };
}
