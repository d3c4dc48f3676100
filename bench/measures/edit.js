// Code edit: the helper of @demo/shop/storefront (cart.ts) written with a new marker -> the
// next request of the module (development variant, the one pages load) answers the new
// code, ms from before the write to the last byte of that answer. A single GET right after
// the write must return the new code (the service checks the disk before answering); an
// answer without the marker counts as stale and is asked again until it has it.
// Ours, two rows: startService() in this process (watching, as `core run`), and `core run` in a
// child process, as a page's server is (its own process: the request and the answer cross a
// process, and the service's thread is not the client's). Baseline of each: an esbuild context
// with the same options (`esbuildOptions`), write then `rebuild()`, in this process, on its own
// copy of the workspace. Edits alternate (ours, esbuild, ...).
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { getText, keepAlive } from '../lib/http.js';
import { progress } from '../lib/log.js';
import { distModule } from '../lib/paths.js';
import { startCore, stopChild } from '../lib/processes.js';
import { codeOf, developmentVariant, moduleTargets, optionsFor, readModel } from '../lib/service-model.js';
import { now, sleep, summarize } from '../lib/stats.js';
import { copyFixtures, DEVELOPMENT_QUERY, STOREFRONT } from '../lib/workspaces.js';

export const name = 'edit';

const GAP_MS = 150;

const helperWith = (original, marker) => `${original}\nglobalThis.__benchEdit = "edit-${marker}";\n`;

export async function run({ quick }) {
  const edits = quick ? 5 : 30;
  const warmup = 3;
  const { startService } = await import(distModule('service.js'));
  const notes = [];
  const inProcess = await editLoop('edit', edits, warmup, async (root) => {
    const service = await startService({ root, port: 0, logger: (message) => notes.push(message) });
    await service.report();
    return { url: service.url, stop: () => service.close() };
  });
  const child = await editLoop('edit-child', edits, warmup, async (root) => {
    const { child: process, url } = await startCore(root);
    await getText(`${url}state`);
    return { url, stop: () => stopChild(process) };
  });
  const row = (id, measure, loop) => ({
    id,
    measure,
    baselineName: 'esbuild context.rebuild(), same entry and options',
    unit: 'ms',
    ours: summarize(loop.ours),
    baseline: summarize(loop.baseline),
    checks: [{ on: 'ratio', op: '<=', value: 1.5 }],
    failed: loop.stale > 0 ? `${loop.stale} of ${edits} first answers after the write held the old code` : undefined,
  });
  const raw = (loop) => ({ oursMs: loop.ours, baselineMs: loop.baseline, staleFirstAnswers: loop.stale, staleExtraMs: loop.staleExtraMs, baselineStale: loop.baselineStale });
  return {
    rows: [
      row('edit', 'code edit -> next request returns the new code, p50', inProcess),
      row('edit-child', 'same, `core run` in a child process, p50', child),
    ],
    raw: { ...raw(inProcess), child: raw(child), serviceMessages: [...new Set(notes)].slice(0, 10) },
    notes: [
      `ours: in-process startService() (watching), and \`core run\` in a child process (its own build cache), GET right after the write; baseline: in-process esbuild context of the same options, write then rebuild(); ${edits} edits each after ${warmup} warm-up edits, alternating, ${GAP_MS} ms apart`,
      `first answers after the write that held the old code: ${inProcess.stale} of ${edits} in process, ${child.stale} of ${edits} in the child${inProcess.baselineStale + child.baselineStale ? `; esbuild rebuilds without the marker: ${inProcess.baselineStale + child.baselineStale}` : ''}`,
    ],
  };
}

// One service (`start` on its copy of the workspace) against its own esbuild context, edits alternated.
async function editLoop(label, edits, warmup, start) {
  const oursRoot = copyFixtures(`${label}-ours`);
  const baseRoot = copyFixtures(`${label}-esbuild`);
  const original = fs.readFileSync(path.join(oursRoot, STOREFRONT.helper), 'utf8');
  const service = await start(oursRoot);
  const context = await esbuild.context(optionsFor(baseRoot, moduleTargets(readModel(baseRoot), (module) => module.specifier === STOREFRONT.specifier), developmentVariant('browser')));
  const agent = keepAlive(); // one connection, as a page has
  const moduleUrl = `${service.url}${STOREFRONT.modules.slice(1)}?${DEVELOPMENT_QUERY}`;
  const loop = { ours: [], baseline: [], stale: 0, staleExtraMs: [], baselineStale: 0 };
  try {
    await context.rebuild();
    progress(`${label}: ${warmup} warm-up edits each, then ${edits} edits each, alternating`);
    for (let index = 0; index < warmup + edits; index++) {
      const marker = `${index}-${Date.now()}`;
      const needle = `"edit-${marker}"`;
      // ours
      {
        const started = now();
        await fs.promises.writeFile(path.join(oursRoot, STOREFRONT.helper), helperWith(original, marker));
        let { text } = await getText(moduleUrl, { agent });
        const first = now() - started;
        let fresh = text.includes(needle);
        if (!fresh && index >= warmup) loop.stale++;
        while (!fresh && now() - started < 5000) {
          ({ text } = await getText(moduleUrl, { agent }));
          fresh = text.includes(needle);
        }
        if (!fresh) throw new Error(`the service did not answer the new code within 5 s of edit ${marker}`);
        if (index >= warmup) {
          loop.ours.push(now() - started);
          if (now() - started > first + 0.001) loop.staleExtraMs.push(now() - started - first);
        }
      }
      await sleep(GAP_MS);
      // esbuild context
      {
        const started = now();
        await fs.promises.writeFile(path.join(baseRoot, STOREFRONT.helper), helperWith(original, marker));
        const result = await context.rebuild();
        const ms = now() - started;
        const code = codeOf(result);
        if (!code || !Buffer.from(code).toString('utf8').includes(needle)) loop.baselineStale++;
        if (index >= warmup) loop.baseline.push(ms);
      }
      await sleep(GAP_MS);
    }
  } finally {
    agent.destroy();
    await context.dispose();
    await service.stop();
  }
  return loop;
}
