// Spawn -> first module served, on the example workspace: the process spawned -> the last byte
// of the first answer with the storefront module's code.
//   ours      `core run --port 0` (a new empty build cache), then GET of the storefront's development address
//   baseline  a Vite 8 dev server (bench/children/vite-server.js), then GET of the same entry
//             file as Vite serves it to a page (transformed to JavaScript)
// Both pay Node's start and their imports; a fresh copy of the workspace per server, fresh
// processes per repetition, alternating.
import fs from 'node:fs';
import path from 'node:path';
import { progress } from '../lib/log.js';
import { CHILDREN } from '../lib/paths.js';
import { readModel } from '../lib/service-model.js';
import { startCore, startScript, stopChild } from '../lib/processes.js';
import { now, summarize } from '../lib/stats.js';
import { copyFixtures, DEVELOPMENT_QUERY, STOREFRONT } from '../lib/workspaces.js';

export const name = 'first-module';

async function firstAnswer(address, expected) {
  const response = await fetch(address);
  const text = await response.text();
  if (response.status !== 200 || !text.includes(expected)) throw new Error(`${address} answered ${response.status}: ${text.slice(0, 200)}`);
}

async function ours(root) {
  const started = now();
  const { child, url } = await startCore(root);
  try {
    await firstAnswer(new URL(`${STOREFRONT.modules}?${DEVELOPMENT_QUERY}`, url), 'demo-storefront');
    return now() - started;
  } finally {
    await stopChild(child);
  }
}

async function vite(root, entriesFile) {
  fs.rmSync(path.join(root, '.vite-cache'), { recursive: true, force: true });
  const started = now();
  const { child, url } = await startScript(path.join(CHILDREN, 'vite-server.js'), [root, entriesFile], { cwd: root });
  try {
    await firstAnswer(new URL(`/${STOREFRONT.entry}`, url), 'demo-storefront');
    return now() - started;
  } finally {
    await stopChild(child);
  }
}

export async function run({ quick }) {
  const repetitions = quick ? 3 : 11;
  const oursRoot = copyFixtures('first-module-ours');
  const viteRoot = copyFixtures('first-module-vite');
  const entries = {};
  for (const module of readModel(viteRoot).modules) if (module.entry) entries[module.specifier] = path.join(viteRoot, module.entry);
  const entriesFile = path.join(viteRoot, 'bench-entries.json');
  fs.writeFileSync(entriesFile, JSON.stringify(entries));
  progress(`first-module: a warm-up of each, then ${repetitions} repetitions, alternating`);
  await ours(oursRoot);
  await vite(viteRoot, entriesFile);
  const results = { ours: [], vite: [] };
  for (let index = 0; index < repetitions; index++) {
    results.ours.push(await ours(oursRoot));
    results.vite.push(await vite(viteRoot, entriesFile));
  }
  return {
    rows: [
      {
        id: 'first-module',
        measure: 'spawn -> first module served (example workspace)',
        baselineName: 'Vite 8 dev server, spawn -> the same entry served',
        unit: 'ms',
        ours: summarize(results.ours),
        baseline: summarize(results.vite),
        checks: [{ on: 'ratio', op: '<=', value: 0.8 }],
      },
    ],
    raw: results,
    notes: [`${repetitions} repetitions after a warm-up of each; ours starts with a new, empty build cache`],
  };
}
