#!/usr/bin/env node
// The stylesheet push of `bench/measures/push.js` cut into phases on both sides (issue 33 point
// 3): `core run` (development extension) and the Vite 8 dev server run as children, each with
// bench/children/io-marks.cjs preloaded, the edits alternate as in the measure, and each edit's
// marks are placed in ms after the write began: the watcher's notices (`fs.watch#n`), the
// request to esbuild's process (`pipe.write` -> `pipe.written`, ours only) and its answer
// (`pipe.read`), the push message written (`socket.write#1`), the client has it, the answer to
// the sheet's fetch written (the next `socket.write`), the client has the new sheet. Medians over
// the edits; a mark missing from some edits says in how many it was. Not part of `npm run bench`.
//   node bench/push-phases.js [edits=40]
import fs from 'node:fs';
import path from 'node:path';
import { getText, keepAlive } from './lib/http.js';
import { CHILDREN } from './lib/paths.js';
import { startCore, startScript, stopChild } from './lib/processes.js';
import { readModel } from './lib/service-model.js';
import { openSocket } from './lib/socket.js';
import { median, sleep } from './lib/stats.js';
import { copyFixtures, STOREFRONT } from './lib/workspaces.js';

const edits = Number(process.argv[2] ?? 40);
const WARMUP = 3;
const GAP_MS = 150; // as the push measure: the watchers and the services settle
const SHEET_PATH = `/${STOREFRONT.stylesheet}`;
const marked = { NODE_OPTIONS: `--require ${path.join(CHILDREN, 'io-marks.cjs')}` };
const epochNow = () => performance.timeOrigin + performance.now();

// The MARK lines a child writes on stderr, kept with their times.
function collectMarks(child) {
  const marks = [];
  let buffered = '';
  child.stderr.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const match = /^MARK (\S+) ([\d.]+)$/.exec(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      if (match) marks.push([match[1], Number(match[2])]);
    }
  });
  return marks;
}

async function startOurs() {
  const root = copyFixtures('push-phases-ours');
  const { child, url } = await startCore(root, { env: { ...marked, CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'https://esm.sh' } });
  await fetch(`${url}state`).then((response) => response.text());
  const client = await openSocket(`${url.replace(/^http/, 'ws')}events`);
  return { key: 'ours', root, child, url, client, headers: {}, isPush: (message) => message.type === 'styles' && message.module === STOREFRONT.label, hrefOf: (message) => message.href };
}

async function startVite() {
  const root = copyFixtures('push-phases-vite');
  fs.writeFileSync(path.join(root, 'index.html'), `<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<link rel="stylesheet" href="${SHEET_PATH}">\n</head>\n<body></body>\n</html>\n`);
  const entries = {};
  for (const module of readModel(root).modules) if (module.entry) entries[module.specifier] = path.join(root, module.entry);
  fs.writeFileSync(path.join(root, 'bench-entries.json'), JSON.stringify(entries));
  const { child, url } = await startScript(path.join(CHILDREN, 'vite-server.js'), [root, path.join(root, 'bench-entries.json')], { cwd: root, env: marked });
  await fetch(url).then((response) => response.text());
  const token = /const wsToken = "([^"]*)"/.exec(await fetch(new URL('/@vite/client', url)).then((response) => response.text()))?.[1];
  if (token === undefined) throw new Error('no wsToken in /@vite/client');
  const headers = { accept: 'text/css,*/*;q=0.1' };
  await fetch(new URL(SHEET_PATH, url), { headers }).then((response) => response.text());
  const client = await openSocket(`${url.replace(/^http/, 'ws')}?token=${encodeURIComponent(token)}`, 'vite-hmr');
  await client.next((message) => message.type === 'connected');
  const isSheet = (update) => update.type === 'css-update' && update.path.split('?')[0] === SHEET_PATH;
  const hrefOf = (message) => {
    const update = message.updates.find(isSheet);
    return `${update.path.split('?')[0]}?t=${update.timestamp}`; // as Vite's client swaps a <link>
  };
  return { key: 'vite', root, child, url, client, headers, isPush: (message) => message.type === 'update' && message.updates.some(isSheet), hrefOf };
}

// One edit: its phases, ms after the write began (each mark's first three occurrences).
async function edit(side, marker) {
  const sheet = path.join(side.root, STOREFRONT.stylesheet);
  side.client.clear();
  const phases = {};
  const started = epochNow();
  await fs.promises.writeFile(sheet, `${side.original}\n.bench-phase-${marker} { color: red; }\n`);
  for (;;) {
    const { message } = await side.client.next(side.isPush);
    phases['client has the message'] ??= epochNow() - started;
    const { status, text } = await getText(new URL(side.hrefOf(message), side.url), { agent: side.agent, headers: side.headers });
    if (status === 200 && text.includes(`.bench-phase-${marker}`)) break;
  }
  const ended = epochNow();
  phases['client has the sheet'] = ended - started;
  await sleep(GAP_MS); // the child's marks come every 50 ms
  const seen = {};
  for (const [name, at] of side.marks.filter(([, at]) => at >= started && at <= ended)) {
    const count = (seen[name] = (seen[name] ?? 0) + 1);
    if (count <= 3) phases[`${name}#${count}`] = at - started;
  }
  return phases;
}

const sides = [];
try {
  sides.push(await startOurs(), await startVite());
  for (const side of sides) {
    side.marks = collectMarks(side.child);
    side.agent = keepAlive();
    side.original = fs.readFileSync(path.join(side.root, STOREFRONT.stylesheet), 'utf8');
    side.kept = {};
  }
  let marker = 0;
  for (let index = 0; index < WARMUP + edits; index++) {
    for (const side of sides) {
      const phases = await edit(side, ++marker);
      if (index >= WARMUP) for (const [name, ms] of Object.entries(phases)) (side.kept[name] ??= []).push(ms);
    }
  }
  for (const side of sides) {
    console.log(`${side.key}: medians over ${edits} edits, ms after the write began`);
    const rows = Object.entries(side.kept).map(([name, list]) => [name, median(list), list.length]).sort((a, b) => a[1] - b[1]);
    for (const [name, ms, count] of rows) console.log(`  ${ms.toFixed(2).padStart(7)}  ${name}${count < edits ? ` (in ${count} edits)` : ''}`);
  }
} finally {
  for (const side of sides) {
    side.client.close?.();
    side.agent?.destroy();
  }
  await Promise.all(sides.map((side) => stopChild(side.child)));
}
