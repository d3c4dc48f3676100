#!/usr/bin/env node
// Where the cold start of the 1,000-module page goes (issue 33): `core run` spawned with a new,
// empty build cache and `--cpu-prof`, Chromium on `/preview/bundled/` right after the URL line,
// stopped once the page is rendered. Prints, as text for bench/RESULTS.md:
//   - the wall clock: spawn -> listening -> page answered -> rendered, and the service's own
//     events from /log (workspace read, each start-up build, the requests);
//   - the CPU time of the service process and of its esbuild process (/proc, at the end);
//   - the service's CPU profile: self time by source file (through dist/core.cjs.map) and the
//     costliest functions, with their share of the profiled time;
//   - then Vite 8 bundledDev on the same sources, its wall clock and the CPU of its processes.
// `node bench/profile-cold.js [--runs N]` (after `npm run build`). Not part of `npm run bench`.
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { launchChromium } from './lib/chromium.js';
import { timedGet } from './lib/http.js';
import { CHILDREN, DIST, WORK } from './lib/paths.js';
import { cpuMs, descendants, startCore, startScript, stopChild } from './lib/processes.js';
import { now } from './lib/stats.js';
import { generatePageLoadWorkspace } from './lib/workspaces.js';
import { renderedCheck } from './lib/rendered.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 1;


async function profileOnce(browser, app, profileDir) {
  fs.rmSync(profileDir, { recursive: true, force: true });
  fs.mkdirSync(profileDir, { recursive: true });
  const started = now();
  const wallStart = Date.now();
  const { child, url, listeningMs } = await startCore(app.dir, {
    ms: 300_000,
    env: { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'local' },
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=500'],
  });
  const context = await browser.newContext();
  let answeredMs;
  let renderedMs;
  const cpu = {};
  let events = [];
  try {
    const page = await context.newPage();
    const [check, args] = renderedCheck(app);
    await page.goto(`${url}preview/bundled/`, { waitUntil: 'commit', timeout: 300_000 });
    answeredMs = now() - started;
    await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
    renderedMs = now() - started;
    cpu.service = cpuMs(child.pid);
    cpu.esbuild = descendants(child.pid).map(cpuMs).reduce((sum, ms) => sum + (ms ?? 0), 0);
    const log = await timedGet(`${url}log`);
    events = log.body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  } finally {
    await context.close();
    await stopChild(child, 30_000);
  }
  const profileFile = fs.readdirSync(profileDir).find((file) => file.endsWith('.cpuprofile'));
  return { listeningMs, answeredMs, renderedMs, cpu, events, wallStart, profile: profileFile ? JSON.parse(fs.readFileSync(path.join(profileDir, profileFile), 'utf8')) : null };
}

function timeline({ events, wallStart }) {
  const at = (event) => Date.parse(event.time) - wallStart;
  const lines = [];
  const read = events.find((event) => event.type === 'workspace.read');
  const started = events.find((event) => event.type === 'service.started');
  if (started) lines.push(`service.started at ${at(started)} ms after spawn`);
  if (read) lines.push(`workspace.read at ${at(read)} ms`);
  const builds = new Map();
  for (const event of events) {
    if (event.type === 'build.started') builds.set(event.build, { modules: event.modules.length, reason: event.reason, variant: event.variant, started: at(event), finished: null });
    else if ((event.type === 'build.succeeded' || event.type === 'build.failed') && builds.has(event.build)) builds.get(event.build).finished = at(event);
  }
  for (const [id, build] of builds) lines.push(`build #${id}: ${build.modules} module(s)${build.reason ? `, ${build.reason}` : ''}, ${build.started}-${build.finished ?? '?'} ms (${build.finished === null ? '?' : build.finished - build.started} ms)`);
  const requests = events.filter((event) => event.type === 'output.requested');
  if (requests.length) lines.push(`output.requested: ${requests.length}, first at ${at(requests[0])} ms, last at ${at(requests.at(-1))} ms`);
  const counts = {};
  for (const event of events) counts[event.type] = (counts[event.type] ?? 0) + 1;
  lines.push(`events: ${Object.entries(counts).map(([type, count]) => `${type} ${count}`).join(', ')}`);
  return lines;
}

/** Self time per source file and per function, through the bundle's source map. */
function analyse(profile) {
  const mapFile = path.join(DIST, 'core.cjs.map');
  const sourceMap = fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : null;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let index = 0; index < profile.samples.length; index++) self.set(profile.samples[index], (self.get(profile.samples[index]) ?? 0) + (profile.timeDeltas[index] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const where = (frame) => {
    const url = frame.url ?? '';
    if (!url) return { file: frame.functionName.startsWith('(') ? frame.functionName : '(native)', name: frame.functionName || '(anonymous)' };
    if (url.endsWith('core.cjs') && sourceMap) {
      const entry = sourceMap.findEntry(frame.lineNumber, frame.columnNumber);
      const source = entry?.originalSource ?? 'dist/core.cjs';
      const file = source.includes('node_modules/') ? `node_modules/${source.split('node_modules/').pop().split('/').slice(0, source.split('node_modules/').pop().startsWith('@') ? 2 : 1).join('/')}` : source.replace(/^.*?\/src\//, 'src/');
      return { file, name: `${frame.functionName || '(anonymous)'} (${file}:${(entry?.originalLine ?? frame.lineNumber) + 1})` };
    }
    if (url.startsWith('node:')) return { file: 'node: internals', name: `${frame.functionName || '(anonymous)'} (${url})` };
    const relative = url.replace(/^file:\/\//, '');
    const file = relative.includes('node_modules/') ? `node_modules/${relative.split('node_modules/').pop().split('/').slice(0, relative.split('node_modules/').pop().startsWith('@') ? 2 : 1).join('/')}` : path.relative(process.cwd(), relative);
    return { file, name: `${frame.functionName || '(anonymous)'} (${file}:${frame.lineNumber + 1})` };
  };
  const byFile = new Map();
  const byName = new Map();
  // A sample in Node's internals, native code or a library is charged to the nearest caller in
  // src/ (who asked for the stat, the hash, the copy): the share each part of the service costs.
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const bySourceCaller = new Map();
  for (const [id, micros] of self) {
    const place = where(nodes.get(id).callFrame);
    byFile.set(place.file, (byFile.get(place.file) ?? 0) + micros);
    byName.set(place.name, (byName.get(place.name) ?? 0) + micros);
    let caller = place.file.startsWith('src/') || (place.file.startsWith('(') && place.file !== '(native)') ? place : null;
    for (let up = parents.get(id); !caller && up !== undefined; up = parents.get(up)) {
      const candidate = where(nodes.get(up).callFrame);
      if (candidate.file.startsWith('src/')) caller = candidate;
    }
    const key = caller ? caller.file : `${place.file} (no caller in src/)`;
    bySourceCaller.set(key, (bySourceCaller.get(key) ?? 0) + micros);
  }
  const top = (map, count) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count).map(([key, micros]) => `  ${(micros / 1000).toFixed(0).padStart(6)} ms ${((micros / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
  return { totalMs: total / 1000, files: top(byFile, 20), callers: top(bySourceCaller, 20), functions: top(byName, 25) };
}

/** Vite 8 bundledDev on the same sources, for its CPU: spawn -> rendered, CPU of its processes. */
async function viteOnce(browser, app) {
  for (const dir of ['.vite-cache', 'node_modules/.vite']) fs.rmSync(path.join(app.dir, dir), { recursive: true, force: true });
  const started = now();
  const { child, url, listeningMs } = await startScript(path.join(CHILDREN, 'vite-server.js'), [app.dir, app.entriesFile, 'bundled'], { cwd: app.dir, ms: 300_000 });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const [check, args] = renderedCheck(app);
    await page.goto(url, { waitUntil: 'commit', timeout: 300_000 });
    const answeredMs = now() - started;
    await page.waitForFunction(check, args, { timeout: 300_000, polling: 'raf' });
    const renderedMs = now() - started;
    const cpu = { node: cpuMs(child.pid), children: descendants(child.pid).map(cpuMs).reduce((sum, ms) => sum + (ms ?? 0), 0) };
    return { listeningMs, answeredMs, renderedMs, cpu };
  } finally {
    await context.close();
    await stopChild(child);
  }
}

const app = generatePageLoadWorkspace('profile-1000');
const browser = await launchChromium();
try {
  for (let index = 0; index < runs; index++) {
    const result = await profileOnce(browser, app, path.join(WORK, 'profile-cold', String(index)));
    const out = [];
    out.push(`# cold start, 1,000-module page, run ${index + 1}/${runs}, load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    out.push(`spawn -> listening ${result.listeningMs.toFixed(0)} ms -> page answered ${result.answeredMs.toFixed(0)} ms -> rendered ${result.renderedMs.toFixed(0)} ms`);
    out.push(`CPU until rendered: service process ${result.cpu.service} ms, its esbuild process ${result.cpu.esbuild} ms`);
    out.push(...timeline(result));
    if (result.profile) {
      const analysis = analyse(result.profile);
      out.push(`service CPU profile (until stopped): ${analysis.totalMs.toFixed(0)} ms sampled; self time by file:`);
      out.push(...analysis.files);
      out.push('self time charged to the nearest src/ file on the stack:');
      out.push(...analysis.callers);
      out.push('costliest functions (self time):');
      out.push(...analysis.functions);
    } else out.push('no CPU profile written');
    const vite = await viteOnce(browser, app);
    out.push(`Vite 8 bundledDev, same sources, right after: spawn -> listening ${vite.listeningMs.toFixed(0)} ms -> page answered ${vite.answeredMs.toFixed(0)} ms -> rendered ${vite.renderedMs.toFixed(0)} ms; CPU until rendered: node ${vite.cpu.node} ms, its child processes ${vite.cpu.children} ms`);
    process.stdout.write(`${out.join('\n')}\n\n`);
  }
} finally {
  await browser.close();
}
process.exit(0);
