// The generated workspace of 200 packages x 5 modules (1,000 modules, each with a helper, a
// stylesheet and a bare import of the previous package's module):
//   start   `core run --port 0` spawned -> the first `/state` answer listing every module
//           valid (GET /state is answered once every module is built; asked again until all
//           are valid). Baseline: a child process spawned -> one esbuild build() of all
//           1,000 entries with the service's options done. Both are measured from process
//           spawn, so both pay node's start, their imports and esbuild's service start.
//   rss     the peak resident set (VmHWM: the high-water mark, not the size when read) of
//           the `core run` process after /state, the judged figure; and, for information,
//           the same plus the peak of its esbuild service process (a separate Go process
//           that does the compiling), a sum of peaks, so an upper bound of the two together,
//           next to the same sum for the esbuild baseline's process.
//   state   GET /state from the settled service, sequential, time to the last byte.
// Repetitions alternate (ours, esbuild, ours, ...) after one warm-up of each.
import fs from 'node:fs';
import path from 'node:path';
import { progress } from '../lib/log.js';
import { CHILDREN, WORK } from '../lib/paths.js';
import { commandOf, descendants, peakRssBytes, spawnNode, startCore, stopChild, waitForLine } from '../lib/processes.js';
import { buildJob, developmentVariant, moduleTargets, readModel } from '../lib/service-model.js';
import { now, sleep, summarize } from '../lib/stats.js';
import { keepAlive, timedGet } from '../lib/http.js';
import { generateScaleWorkspace } from '../lib/workspaces.js';

export const name = 'scale';

const MB = 1024 * 1024;

/** VmHWM of a process and of each of its descendants, in MB. */
function treePeak(pid) {
  const node = peakRssBytes(pid);
  const others = descendants(pid).map((child) => ({ pid: child, command: commandOf(child), bytes: peakRssBytes(child) }));
  if (node === null) return null;
  const total = node + others.reduce((sum, other) => sum + (other.bytes ?? 0), 0);
  return { totalMB: total / MB, nodeMB: node / MB, children: others.map((other) => ({ command: other.command, MB: (other.bytes ?? 0) / MB })) };
}

async function oursOnce(root, expected, { stateRequests = 0 } = {}) {
  const started = now();
  const { child, url } = await startCore(root, { ms: 300_000 });
  const listeningMs = now() - started;
  try {
    let report;
    for (;;) {
      const answer = await timedGet(`${url}state`);
      if (answer.status !== 200) throw new Error(`/state answered ${answer.status}`);
      report = JSON.parse(answer.body.toString('utf8'));
      const valid = report.modules.filter((module) => module.status === 'valid').length;
      if (report.modules.length === expected && valid === expected) break;
      if (now() - started > 300_000) {
        const bad = report.modules.find((module) => module.status !== 'valid');
        throw new Error(`/state: ${valid} of ${report.modules.length} valid (expected ${expected}) after 300 s; e.g. ${JSON.stringify(bad)}`);
      }
      await sleep(20);
    }
    const ms = now() - started;
    const peak = treePeak(child.pid);
    const state = [];
    if (stateRequests > 0) {
      const agent = keepAlive();
      for (let index = 0; index < 5; index++) await timedGet(`${url}state`, { agent }); // warm-up
      for (let index = 0; index < stateRequests; index++) {
        const answer = await timedGet(`${url}state`, { agent });
        if (answer.status !== 200) throw new Error(`/state answered ${answer.status}`);
        state.push(answer.ms);
      }
      agent.destroy();
    }
    const timeline = stateRequests > 0 ? await buildTimeline(url) : null;
    return { ms, listeningMs, peak, state, bytes: JSON.stringify(report).length, timeline };
  } finally {
    await stopChild(child);
  }
}

/** The start-up builds, from the service's event log: modules per build, start and end (ms after service.started). */
async function buildTimeline(url) {
  const answer = await timedGet(`${url}log`);
  const events = answer.body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const started = Date.parse(events.find((event) => event.type === 'service.started')?.time ?? events[0].time);
  const at = (event) => Date.parse(event.time) - started;
  const builds = new Map();
  for (const event of events) {
    if (event.type === 'build.started') builds.set(event.build, { modules: event.modules.length, started: at(event), finished: null });
    else if ((event.type === 'build.succeeded' || event.type === 'build.failed') && builds.has(event.build)) builds.get(event.build).finished = at(event);
  }
  const workspaceRead = events.find((event) => event.type === 'workspace.read');
  return { workspaceReadMs: workspaceRead ? at(workspaceRead) : null, builds: [...builds.values()] };
}

async function baselineOnce(jobFile, expected) {
  const started = now();
  const child = spawnNode([path.join(CHILDREN, 'esbuild-all.js'), jobFile]);
  try {
    const [, buildMs, codes, errors] = await waitForLine(child, /^DONE (\S+) (\d+) (\d+)$/, 300_000, 'DONE of esbuild-all.js');
    const ms = now() - started;
    if (Number(codes) !== expected || Number(errors) !== 0) throw new Error(`the esbuild baseline built ${codes} of ${expected} entries with ${errors} errors`);
    return { ms, buildMs: Number(buildMs), peak: treePeak(child.pid) };
  } finally {
    await stopChild(child);
  }
}

export async function run({ quick }) {
  const repetitions = quick ? 1 : 5;
  const stateRequests = quick ? 20 : 50;
  progress('scale: generating 200 packages x 5 modules');
  const { dir: root, modules: expected } = generateScaleWorkspace('scale-1000');
  const modules = moduleTargets(readModel(root));
  if (modules.length !== expected) throw new Error(`the workspace model has ${modules.length} modules, expected ${expected}`);
  const jobFile = path.join(WORK, 'scale-1000-esbuild-job.json');
  fs.writeFileSync(jobFile, JSON.stringify(buildJob(root, modules, developmentVariant('browser'))));

  progress(`scale: warm-up, then ${repetitions} repetitions each, alternating`);
  await oursOnce(root, expected);
  await baselineOnce(jobFile, expected);
  const ours = [];
  const baseline = [];
  for (let index = 0; index < repetitions; index++) {
    const last = index === repetitions - 1;
    ours.push(await oursOnce(root, expected, { stateRequests: last ? stateRequests : 0 }));
    baseline.push(await baselineOnce(jobFile, expected));
    progress(`scale: repetition ${index + 1}/${repetitions}: ours ${ours.at(-1).ms.toFixed(0)} ms (peak ${ours.at(-1).peak?.totalMB.toFixed(0)} MB), esbuild ${baseline.at(-1).ms.toFixed(0)} ms`);
  }
  const peaks = ours.map((run) => run.peak).filter(Boolean);
  const basePeaks = baseline.map((run) => run.peak).filter(Boolean);
  const state = ours.at(-1).state;
  return {
    rows: [
      {
        id: 'scale-start',
        measure: '1,000 modules: spawn -> /state all valid',
        baselineName: 'spawn -> one esbuild build() of all 1,000 entries',
        unit: 'ms',
        ours: summarize(ours.map((run) => run.ms)),
        baseline: summarize(baseline.map((run) => run.ms)),
        checks: [{ on: 'ratio', op: '<=', value: 1.5 }],
      },
      {
        id: 'scale-rss',
        measure: '1,000 modules: peak RSS after /state, service process (VmHWM)',
        baselineName: '-',
        unit: 'MB',
        ours: summarize(peaks.map((peak) => peak.nodeMB)),
        baseline: null,
        checks: [{ on: 'ours', op: '<=', value: 400, label: 'ours peak' }],
        failed: peaks.length === 0 ? 'no /proc to read the peak from' : undefined,
      },
      {
        id: 'scale-rss-tree',
        measure: '1,000 modules: peak RSS, service + its esbuild process (sum of VmHWM)',
        baselineName: 'the esbuild baseline process, same sum',
        unit: 'MB',
        ours: summarize(peaks.map((peak) => peak.totalMB)),
        baseline: basePeaks.length ? summarize(basePeaks.map((peak) => peak.totalMB)) : null,
        checks: [],
      },
      {
        id: 'scale-state',
        measure: '/state from a settled store, 1,000 modules, p50',
        baselineName: '-',
        unit: 'ms',
        ours: summarize(state),
        baseline: null,
        checks: [{ on: 'ours', op: '<=', value: 20 }],
      },
    ],
    raw: {
      oursStartMs: ours.map((run) => run.ms),
      oursListeningMs: ours.map((run) => run.listeningMs),
      baselineMs: baseline.map((run) => run.ms),
      baselineBuildMs: baseline.map((run) => run.buildMs),
      oursPeaks: peaks,
      baselinePeaks: basePeaks,
      stateMs: state,
      stateBytes: ours.at(-1).bytes,
      startupBuilds: ours.at(-1).timeline,
    },
    notes: [
      'start: both measured from process spawn (node start, imports and esbuild service start included in both)',
      `ours spawn -> listening (URL printed) median ${summarize(ours.map((run) => run.listeningMs)).median.toFixed(0)} ms; esbuild build() alone inside its process median ${summarize(baseline.map((run) => run.buildMs)).median.toFixed(0)} ms`,
      peaks.length
        ? `peak RSS (VmHWM, MB, median): node ${summarize(peaks.map((peak) => peak.nodeMB)).median.toFixed(0)} + children ${summarize(peaks.map((peak) => peak.totalMB - peak.nodeMB)).median.toFixed(0)} (${peaks[0].children.map((child) => child.command).join(', ') || 'none'}); esbuild baseline: node ${basePeaks.length ? summarize(basePeaks.map((peak) => peak.nodeMB)).median.toFixed(0) : '-'} + children ${basePeaks.length ? summarize(basePeaks.map((peak) => peak.totalMB - peak.nodeMB)).median.toFixed(0) : '-'}`
        : 'peak RSS: not available (no /proc)',
      ours.at(-1).timeline
        ? `start-up builds (last repetition, from /log, ms after service.started): workspace read at ${ours.at(-1).timeline.workspaceReadMs}; ${ours.at(-1).timeline.builds.map((build) => `${build.modules} modules ${build.started}-${build.finished}`).join(', ')}`
        : 'start-up builds: not available',
      `/state: ${state.length} sequential requests after 5 warm-up ones, ${ours.at(-1).bytes} bytes of JSON, p50 ${summarize(state).median.toFixed(1)} ms, p90 ${summarize(state).p90.toFixed(1)} ms`,
    ],
  };
}
