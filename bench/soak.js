// A bounded soak of `core run` (issue 7): for N seconds (60 by default, `--seconds N`), ten
// clients request a mix of addresses over loopback while an editor changes a stylesheet and
// a helper of the example workspace every 100–200 ms, sometimes breaking the helper and
// fixing it again. The service runs in a child process, recording its events.
//
// Errors are only what must never happen: a 5xx, a connection failure, or an answer that
// contradicts the edits (code or a stylesheet older than the last edit written before the
// request was sent). Expected refusals (404, 400, a 422 while the helper is broken) are not.
// The child's resident memory (VmRSS) is sampled after a warm-up and at the end, each time
// after a full garbage collection (bench/soak-gc.cjs, preloaded with --expose-gc): RSS under
// load swings with the collector's rhythm. SOAK_CHILD_NODE_OPTIONS adds options to the child.
//
// Prints requests served, errors, p50/p99 latency and the RSS growth; exits 1 when there was
// an error, when RSS grew by 10 % or more, or when the recorded log does not replay to the
// last /state. Uses the compiled service in ../dist/ (`npm run soak` builds it first).
//
// `--paused-readers N [--cycles M]` is another soak (README "The event log, replay and state
// subscription"): N readers of the /state event stream and N of /log that read the answer's
// head and then stop reading, while the shop's package manifest is broken (a name of 100 KB,
// which every /state report and workspace.read event then carries) and fixed M times (400 by
// default). It prints RSS and the heap in use, after a full collection, before the readers,
// after the cycles, and once the readers have closed, and how the readers ended; exits 1 when
// the heap grew by more than the bounds allow (the readers', the event log's) or the readers
// were not released.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH);
const { lastSession, parseLog, replay } = await import(new URL('../dist/store/replay.js', import.meta.url).href);
const { selectReport } = await import(new URL('../dist/store/selectors.js', import.meta.url).href);

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, clients: { type: 'string', default: '10' }, 'paused-readers': { type: 'string' }, cycles: { type: 'string', default: '400' } },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
if (!(SECONDS > 0) || !(CLIENTS > 0)) {
  process.stderr.write('usage: node bench/soak.js [--seconds N] [--clients N]\n');
  process.exit(2);
}
const WARM_UP_MS = Math.min(10_000, (SECONDS * 1000) / 4);

const DEV = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';
const PROD = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';
const HELPER = 'packages/shop/storefront/cart.ts';
const STYLES = 'packages/shop/storefront/storefront.css';

const log = (message) => process.stderr.write(`[soak ${((performance.now() - started) / 1000).toFixed(1).padStart(5)}s] ${message}\n`);
const started = performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values, q) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};

// ---------------------------------------------------------------------------------------
// The workspace: a fresh copy of fixtures/ in bench/.work/soak.

const WORK = path.join(BENCH, '.work', 'soak');
fs.rmSync(WORK, { recursive: true, force: true });
fs.mkdirSync(WORK, { recursive: true });
fs.cpSync(path.join(REPO, 'fixtures'), WORK, { recursive: true, filter: (source) => !['.core', 'node_modules'].includes(path.basename(source)) });
const RECORD = path.join(BENCH, '.work', 'soak.ndjson');
fs.rmSync(RECORD, { force: true });

const original = { [HELPER]: fs.readFileSync(path.join(WORK, HELPER), 'utf8'), [STYLES]: fs.readFileSync(path.join(WORK, STYLES), 'utf8') };

// ---------------------------------------------------------------------------------------
// The editor: every edit writes a numbered marker, atomically (a temporary file renamed over
// the old one, as many editors save). `written` is the number of the last edit of each file.

const written = { [HELPER]: -1, [STYLES]: -1 };
let edits = 0;
let breaks = 0;

function save(file, text) {
  const target = path.join(WORK, file);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.soak-tmp`);
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, target);
}

// The helper with a marker used by totalCents, so that it stays in the bundle.
const TOTAL = 'export const totalCents = (lines: readonly Line[]): number => lines.reduce((sum, line) => sum + line.cents * line.quantity, 0);';
if (!original[HELPER].includes(TOTAL)) throw new Error(`${HELPER} of fixtures/ changed: the soak's edit no longer applies`);
const helperWith = (n) => original[HELPER].replace(TOTAL, `const SOAK = 'SOAK_H_${n}';\n${TOTAL.slice(0, -1)} + SOAK.length * 0;`);

function edit(random) {
  const n = edits++;
  if (random < 0.5) {
    save(STYLES, `${original[STYLES]}\ndemo-storefront .soak {\n  --soak: "SOAK_C_${n}";\n}\n`);
    written[STYLES] = n;
  } else if (random < 0.93) {
    save(HELPER, helperWith(n));
    written[HELPER] = n;
  } else {
    // Broken, until the next edit of the helper fixes it.
    save(HELPER, `${original[HELPER]}\nexport const SOAK_BROKEN_${n} = ;\n`);
    written[HELPER] = n;
    breaks += 1;
  }
}

// ---------------------------------------------------------------------------------------
// The service, in a child process.

const child = spawn(process.execPath, ['--expose-gc', '--require', path.join(BENCH, 'soak-gc.cjs'), path.join(REPO, 'bin', 'core.js'), 'run', '--port', '0', '--record', RECORD], {
  cwd: WORK,
  env: { ...process.env, CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'https://esm.sh', NO_COLOR: '1', NODE_OPTIONS: process.env.SOAK_CHILD_NODE_OPTIONS ?? '' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let childOut = '';
let childErr = '';
child.stdout.setEncoding('utf8').on('data', (chunk) => (childOut += chunk));
child.stderr.setEncoding('utf8').on('data', (chunk) => (childErr += chunk));
const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
let base = null;
for (const deadline = Date.now() + 30_000; !base; await sleep(20)) {
  base = /^\s*(http:\/\/[^\s/]+)\/\s*$/m.exec(childOut)?.[1] ?? null;
  if (child.exitCode !== null) throw new Error(`core run ended before printing its URL: ${childErr}`);
  if (Date.now() > deadline) throw new Error('core run printed no URL within 30 s');
}
const url = new URL(base);
log(`service pid ${child.pid} at ${base}, workspace ${path.relative(REPO, WORK)}`);

/** The heap in use after the last full collection (bench/soak-gc.cjs), MiB. */
function heapUsedMiB() {
  const lines = [...childErr.matchAll(/^soak-heap (\d+)$/gm)];
  return lines.length === 0 ? NaN : Number(lines[lines.length - 1][1]) / 1024 / 1024;
}

function rssKiB() {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)[1]);
}

// RSS goes up and down with the garbage collector's rhythm: a sample is taken after a full
// collection (bench/soak-gc.cjs), the median of five readings.
async function collectedRss() {
  child.kill('SIGUSR2');
  await sleep(500);
  const readings = [];
  for (let n = 0; n < 5; n += 1) {
    readings.push(rssKiB());
    await sleep(100);
  }
  return quantile(readings, 0.5);
}

// ---------------------------------------------------------------------------------------
// The clients.

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function request(address) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: address, agent, headers: { host: url.host } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.end();
  });
}

/** What each address may answer, and what contradicts the edits. */
const MIX = [
  { weight: 6, address: `/m/@demo/shop@0.4.0/modules/storefront?${DEV}`, expect: [200, 422], marker: { file: HELPER, tag: 'H' } },
  { weight: 4, address: `/m/@demo/shop@0.4.0/styles/storefront?${DEV}`, expect: [200, 422], marker: { file: STYLES, tag: 'C' } },
  { weight: 2, address: `/m/@demo/shop@0.4.0/modules/storefront?${PROD}`, expect: [200, 422] },
  { weight: 2, address: `/m/@demo/shop@0.4.0/styles/storefront?${PROD}`, expect: [200, 422] },
  { weight: 2, address: '/m/@demo/shop@0.4.0/assets/storefront/cart.svg', expect: [200] },
  { weight: 2, address: `/m/@demo/ui@1.1.0/modules/badge?${DEV}`, expect: [200] },
  { weight: 1, address: `/m/@demo/ui@1.1.0/styles/badge?${PROD}`, expect: [200] },
  { weight: 2, address: `/m/@demo/ui@1.1.0/modules/price?${DEV}`, expect: [200] },
  { weight: 1, address: '/m/@demo/ui@1.1.0/modules/price?env=production', expect: [200] },
  { weight: 1, address: '/m/@demo/ui@1.1.0/assets/badge/star.svg', expect: [200] },
  { weight: 1, address: '/m/@demo/tools@0.2.0/modules/catalogue?target=node', expect: [200] },
  { weight: 2, address: '/state', expect: [200] },
  { weight: 1, address: '/preview/entry.json', expect: [200] },
  // Expected refusals.
  { weight: 1, address: `/m/@demo/shop@9.9.9/modules/storefront?${DEV}`, expect: [404] },
  { weight: 1, address: '/m/@demo/shop@0.4.0/modules/storefront?format=cjs', expect: [400] },
  { weight: 1, address: '/m/@demo/shop@0.4.0/assets/storefront/%2e%2e/package.json', expect: [404] },
  { weight: 1, address: `/m/@demo/ui@1.1.0/modules/price?target=node`, expect: [404] },
];
const WEIGHTED = MIX.flatMap((entry) => Array.from({ length: entry.weight }, () => entry));

const latencies = [];
const statuses = new Map();
const errors = [];
const surprises = new Map(); // statuses outside `expect` that are no error (reported, not counted)
let served = 0;
let stopping = false;

function judge(entry, answer, floor) {
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  if (answer.status >= 500) return errors.push(`${entry.address} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  if (!entry.expect.includes(answer.status)) surprises.set(`${answer.status} ${entry.address}`, (surprises.get(`${answer.status} ${entry.address}`) ?? 0) + 1);
  if (answer.status !== 200 || !entry.marker || floor === -1) return;
  const seen = [...answer.text.matchAll(new RegExp(`SOAK_${entry.marker.tag}_(\\d+)`, 'g'))].map((m) => Number(m[1]));
  if (seen.length === 0 || Math.min(...seen) < floor) {
    errors.push(`${entry.address} answered edit ${seen.join(',') || '(none)'} of ${entry.marker.file}; edit ${floor} was written before the request`);
  }
}

async function client(end) {
  while (!stopping && performance.now() < end) {
    const entry = WEIGHTED[Math.floor(Math.random() * WEIGHTED.length)];
    const floor = entry.marker ? written[entry.marker.file] : -1;
    const at = performance.now();
    try {
      const answer = await request(entry.address);
      latencies.push(performance.now() - at);
      served += 1;
      judge(entry, answer, floor);
    } catch (error) {
      errors.push(`${entry.address}: ${error.message}`);
    }
  }
}

async function editor(end) {
  while (!stopping && performance.now() < end) {
    await sleep(100 + Math.random() * 100);
    edit(Math.random());
  }
  // Leave the tree whole: the helper fixed (with a marker of its own, as every edit), the
  // stylesheet as last edited.
  const n = edits++;
  save(HELPER, helperWith(n));
  written[HELPER] = n;
}

// ---------------------------------------------------------------------------------------
// The paused-readers soak.

async function pausedReaders(readers, cycles) {
  if (!(readers >= 0) || !(cycles > 0)) {
    process.stderr.write('usage: node bench/soak.js --paused-readers N [--cycles M]\n');
    process.exit(2);
  }
  const MANIFEST = 'packages/shop/package.json';
  const whole = fs.readFileSync(path.join(WORK, MANIFEST), 'utf8');
  const broken = JSON.stringify({ ...JSON.parse(whole), name: 'x'.repeat(100 * 1024) });
  const settled = async (withDiagnostics) => {
    const answer = await request('/state');
    if (answer.status !== 200 || JSON.parse(answer.text).diagnostics.length > 0 !== withDiagnostics) throw new Error(`/state answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  };
  await settled(false);
  const rssBefore = await collectedRss();
  const heapBefore = heapUsedMiB();
  log(`RSS before the readers: ${(rssBefore / 1024).toFixed(1)} MiB`);

  const sockets = [];
  for (const address of ['/state', '/log']) {
    for (let n = 0; n < readers; n += 1) {
      const socket = net.connect(Number(url.port), url.hostname);
      socket.on('error', () => {});
      socket.write(`GET ${address} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`);
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause(); // reads nothing more
      sockets.push(socket);
    }
  }
  const at = performance.now();
  for (let cycle = 1; cycle <= cycles; cycle += 1) {
    save(MANIFEST, broken);
    await settled(true);
    save(MANIFEST, whole);
    await settled(false);
    if (cycle % 100 === 0) log(`${cycle} break/fix cycles, RSS ${(rssKiB() / 1024).toFixed(1)} MiB`);
  }
  const rssPaused = await collectedRss();
  const heapPaused = heapUsedMiB();
  // A dropped reader's stream ends with `event: dropped`, after all it had not taken; one that
  // did not take it within the grace period had its connection closed before that event went.
  const outcomes = await Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve) => {
          let tail = '';
          let ours = false;
          socket.on('data', (chunk) => (tail = (tail + chunk.toString('utf8')).slice(-4096)));
          socket.once('close', () => resolve(ours ? 'open' : tail.includes('event: dropped') ? 'dropped' : 'closed'));
          socket.resume();
          setTimeout(() => ((ours = true), socket.destroy()), 5_000); // a reader not dropped stays open: closed here
        }),
    ),
  );
  const rssClosed = await collectedRss();
  const heapClosed = heapUsedMiB();
  const tally = (outcome) => outcomes.filter((each) => each === outcome).length;
  const lines = [
    `paused readers: ${readers} of /state and ${readers} of /log, ${cycles} break/fix cycles in ${((performance.now() - at) / 1000).toFixed(1)} s`,
    `readers: ${tally('dropped')} dropped with the last event taken, ${tally('closed')} closed by the service, ${tally('open')} still open, of ${sockets.length}`,
    `RSS (after a full collection): ${(rssBefore / 1024).toFixed(1)} MiB before the readers, ${(rssPaused / 1024).toFixed(1)} MiB after the cycles, ${(rssClosed / 1024).toFixed(1)} MiB once they closed`,
    `heap in use (after a full collection): ${heapBefore.toFixed(1)} MiB, ${heapPaused.toFixed(1)} MiB, ${heapClosed.toFixed(1)} MiB`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  agent.destroy();
  child.kill('SIGTERM');
  const { code } = await exited;
  // Each reader may hold 1 MiB and one event (about 100 KB here) in the service; the event log
  // 16 MiB of JSON (README), about twice that in memory; 16 MiB more for the rest.
  const bound = 2 * 16 + 16;
  const failed = code !== 0 || heapPaused - heapBefore > sockets.length * 1.2 + bound || heapClosed - heapBefore > bound;
  if (failed) process.stdout.write(`soak FAILED (service exit ${code})\n`);
  process.exit(failed ? 1 : 0);
}

// ---------------------------------------------------------------------------------------

if (values['paused-readers'] !== undefined) await pausedReaders(Number(values['paused-readers']), Number(values.cycles));

const end = performance.now() + SECONDS * 1000;
const first = await request('/state');
if (first.status !== 200) throw new Error(`/state answered ${first.status} at start`);
log(`running ${SECONDS} s with ${CLIENTS} clients; warm-up ${WARM_UP_MS / 1000} s`);
let rssWarm = null;
const warm = setTimeout(async () => {
  rssWarm = await collectedRss();
  log(`RSS after warm-up: ${(rssWarm / 1024).toFixed(1)} MiB (after a full collection; ${served} requests so far)`);
}, WARM_UP_MS);
const progress = setInterval(() => log(`${served} requests, ${errors.length} errors, ${edits} edits, RSS ${(rssKiB() / 1024).toFixed(1)} MiB`), 10_000);
const onSignal = () => (stopping = true);
process.once('SIGINT', onSignal);

await Promise.all([editor(end), ...Array.from({ length: CLIENTS }, () => client(end))]);
clearInterval(progress);
clearTimeout(warm);
const rssLoaded = rssKiB();
rssWarm ??= await collectedRss();
const rssEnd = await collectedRss();

// Quiet: the last /state, and the recorded log replayed to it.
const last = await request('/state');
agent.destroy();
child.kill('SIGTERM');
const { code } = await exited;
let replayed = 'not checked';
try {
  const parsed = parseLog(fs.readFileSync(RECORD, 'utf8'), RECORD);
  const same = JSON.stringify(selectReport(replay(lastSession(parsed.events)))) === JSON.stringify(JSON.parse(last.text));
  replayed = same ? `the log (${parsed.events.length} events) replays to the last /state` : 'MISMATCH: the log does not replay to the last /state';
} catch (error) {
  replayed = `MISMATCH: the log cannot be replayed: ${error.message}`;
}
const internal = childErr.split('\n').filter((line) => /internal error|effect failed/i.test(line));
for (const line of internal) errors.push(`the service reported: ${line.slice(0, 300)}`);

const growth = ((rssEnd - rssWarm) / rssWarm) * 100;
const lines = [
  `soak: ${SECONDS} s, ${CLIENTS} clients, ${edits} edits (${breaks} breaks and fixes)`,
  `requests served: ${served} (${(served / SECONDS).toFixed(0)}/s); statuses ${[...statuses].sort((a, b) => a[0] - b[0]).map(([status, count]) => `${status}: ${count}`).join(', ')}`,
  `errors: ${errors.length}`,
  `latency: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${latencies.reduce((a, b) => Math.max(a, b), 0).toFixed(1)} ms`,
  `RSS: ${(rssWarm / 1024).toFixed(1)} MiB after warm-up, ${(rssEnd / 1024).toFixed(1)} MiB at the end (each after a full collection; ${(rssLoaded / 1024).toFixed(1)} MiB under load just before): growth ${growth.toFixed(1)} %`,
  `replay: ${replayed}`,
  `service exit: ${code}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (surprises.size > 0) process.stdout.write(`unexpected but not wrong: ${[...surprises].map(([what, count]) => `${what} ×${count}`).join('; ')}\n`);
for (const error of errors.slice(0, 20)) process.stdout.write(`  error: ${error}\n`);
const failed = errors.length > 0 || !(growth < 10) || replayed.startsWith('MISMATCH') || code !== 0;
if (failed) process.stdout.write('soak FAILED\n');
process.exit(failed ? 1 : 0);
