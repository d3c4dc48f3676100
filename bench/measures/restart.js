// Restarting a 1,000-module workspace with the build cache (README "The build cache"):
//   first    `core run --port 0` spawned with an empty cache -> the first `/state` listing
//            every module valid (every module built)
//   restart  the same, spawned again once the first wrote its cache -> `/state` all valid
//            (every module restored, none built: checked in its event log)
// The workspace is the scale measure's (200 packages x 5 modules). Each repetition starts
// from an empty cache; ratio = restart / first.
import fs from 'node:fs';
import path from 'node:path';
import { timedGet } from '../lib/http.js';
import { progress } from '../lib/log.js';
import { WORK } from '../lib/paths.js';
import { startCore, stopChild } from '../lib/processes.js';
import { now, sleep, summarize } from '../lib/stats.js';
import { generateScaleWorkspace } from '../lib/workspaces.js';

export const name = 'restart';

async function untilAllValid(url, expected, started) {
  for (;;) {
    const answer = await timedGet(`${url}state`);
    if (answer.status !== 200) throw new Error(`/state answered ${answer.status}`);
    const report = JSON.parse(answer.body.toString('utf8'));
    if (report.modules.length === expected && report.modules.every((module) => module.status === 'valid')) return now() - started;
    if (now() - started > 300_000) throw new Error('/state not all valid after 300 s');
    await sleep(20);
  }
}

async function builds(url) {
  const answer = await timedGet(`${url}log`);
  const events = answer.body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return {
    built: events.filter((event) => event.type === 'build.started').reduce((sum, event) => sum + event.modules.length, 0),
    restored: events.find((event) => event.type === 'cache.restored')?.builds.length ?? 0,
  };
}

async function startOnce(root, expected, cacheDir) {
  const started = now();
  const { child, url } = await startCore(root, { ms: 300_000, cacheDir });
  try {
    const ms = await untilAllValid(url, expected, started);
    return { ms, ...(await builds(url)), child };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

async function cacheWritten(cacheDir, expected) {
  const index = path.join(cacheDir, 'builds.json');
  const deadline = now() + 60_000;
  for (;;) {
    try {
      if (JSON.parse(fs.readFileSync(index, 'utf8')).entries.length >= expected) return;
    } catch {
      // not written yet
    }
    if (now() > deadline) throw new Error(`${index} does not hold ${expected} entries after 60 s`);
    await sleep(50);
  }
}

export async function run({ quick }) {
  const repetitions = quick ? 1 : 5;
  progress('restart: generating 200 packages x 5 modules');
  const { dir: root, modules: expected } = generateScaleWorkspace('restart-1000');
  const cacheDir = path.join(WORK, 'restart-cache');
  const first = [];
  const restart = [];
  const notes = [];
  for (let index = 0; index <= repetitions; index++) {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const cold = await startOnce(root, expected, cacheDir);
    await cacheWritten(cacheDir, expected);
    await stopChild(cold.child);
    const warm = await startOnce(root, expected, cacheDir);
    await stopChild(warm.child);
    if (warm.built !== 0 || warm.restored !== expected) notes.push(`repetition ${index}: the restart built ${warm.built} and restored ${warm.restored} modules (expected 0 and ${expected})`);
    if (index === 0) continue; // warm-up
    first.push(cold.ms);
    restart.push(warm.ms);
    progress(`restart: repetition ${index}/${repetitions}: first start ${cold.ms.toFixed(0)} ms (${cold.built} built), restart ${warm.ms.toFixed(0)} ms (${warm.restored} restored, ${warm.built} built)`);
  }
  fs.rmSync(cacheDir, { recursive: true, force: true });
  return {
    rows: [
      {
        id: 'restart',
        measure: '1,000 modules: restart with the build cache -> /state all valid',
        baselineName: 'first start, empty cache -> /state all valid',
        unit: 'ms',
        ours: summarize(restart),
        baseline: summarize(first),
        checks: [{ on: 'ratio', op: '<=', value: 0.25 }],
        failed: notes.length ? notes.join('; ') : undefined,
      },
    ],
    notes: [`${repetitions} repetitions after a warm-up; each starts from an empty cache, both measured from process spawn`],
  };
}
