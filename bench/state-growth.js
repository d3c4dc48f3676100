// How the state's answers grow with the workspace, without esbuild (issue 33): the page-load app
// (bench/lib/workspaces.js) at 100 and 1,000 packages x 10 modules, read by the service's own
// `readWorkspace`, and a state folded by the real reducer from `service.started`,
// `workspace.read` and a `cache.restored` of every module's default variant (inputs hashed from
// the disk, imports as esbuild reports them, outputs named by a made-up hash). Then, per size:
//   report      `selectReport` of a state whose builds changed (what each build's result costs
//               `/state`), and of a state whose workspace was read again
//   json        the report serialized (`reportJson` of the `/state` route), in both cases
//   check all   the check before `/state` (`findChanges`, scope `all`), first pass of a state
//               and the next ones, every path proven unchanged by the watcher (no stat: what
//               is ours to make cheaper, not the kernel's)
//   check one   the check before one module's answer (scope `variant`): first pass after the
//               workspace was read again, first pass of a state, next passes
//               (each "nothing noticed since": the watcher's `proofGeneration` has not moved since
//               the pass before; in the other rows it moves before each pass)
//   recorded    what the watcher compares a notice with (`selectRecordedHashes`), after a build elsewhere
//   answer      `outputAnswer` of one module (the answer cache's rule), after a build elsewhere
// Figures are CPU ms of the process (`process.cpuUsage`). Ratio = 10,000 / 1,000 modules. `node --expose-gc bench/state-growth.js [--repeat N]` after `npm run build`.
import os from 'node:os';

// Run with --expose-gc: a collection before each timing, so none is charged to the next.
const gc = globalThis.gc;
import { distModule } from './lib/paths.js';
import { generatePageLoadWorkspace } from './lib/workspaces.js';
import { median } from './lib/stats.js';

const { readWorkspace } = await import(distModule('workspace/read-workspace.js'));
const { createFileHashes } = await import(distModule('io/file-hashes.js'));
const { findChanges } = await import(distModule('io/freshness.js'));
const { reducer } = await import(distModule('store/reducer.js'));
const { initialState } = await import(distModule('store/state.js'));
const { EVENT_FORMAT } = await import(distModule('store/events.js'));
const { selectReport, defaultVariantKey, selectSettled, selectRecordedHashes } = await import(distModule('store/selectors.js'));
const { outputAnswer } = await import(distModule('http/output-answer.js'));
const { reportJson } = await import(distModule('http/routes/state.js'));
const { parseAddress } = await import(distModule('http/address.js'));
const { parseOutputQuery } = await import(distModule('workspace/query.js'));
const { createOutputCache } = await import(distModule('outputs/output-cache.js'));
const { DEVELOPMENT_QUERY } = await import('./lib/workspaces.js');

const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 5;
// `--keep`: the workspaces of an earlier run are used again when present (development of the harness).
const keep = process.argv.includes('--keep');
const SIZES = [
  { packages: 100, label: '1,000' },
  { packages: 1000, label: '10,000' },
];

let stamp = 0;
const event = (fact) => ({ ...fact, seq: ++stamp, time: new Date(0).toISOString() });

function files(hashes, module) {
  const inputs = {};
  for (const name of ['index.ts', 'h1.ts', 'h2.ts', 'h3.ts', 'style.css']) {
    const file = `${module.dir}/${name}`;
    const hash = hashes.hash(file);
    if (hash !== null) inputs[file] = hash;
  }
  return inputs;
}

function importsOf(hashes, module) {
  const entry = `${module.dir}/index.ts`;
  const text = hashes.readText(entry)?.text ?? '';
  return [...text.matchAll(/^import (?:[^'"]* from )?'([^.][^']*)';$/gm)].map((match) => ({ specifier: match[1], file: entry }));
}

function settledState(dir, outputs) {
  const hashes = createFileHashes(dir);
  const workspace = readWorkspace(hashes);
  const builds = workspace.modules.map((module, index) => {
    const code = outputs.put(Buffer.from(`export const m${index} = ${index};\n`));
    return { module: module.specifier, variant: defaultVariantKey(module), outputs: { code, styles: null }, imports: importsOf(hashes, module), inputs: files(hashes, module) };
  });
  let state = initialState();
  for (const fact of [
    { type: 'service.started', format: EVENT_FORMAT, root: dir, service: 'bench' },
    { type: 'workspace.read', workspace },
    { type: 'cache.restored', dir: '', builds },
  ]) {
    state = reducer(state, event(fact));
  }
  if (!selectSettled(state)) throw new Error('the made-up state is not settled');
  return { state, hashes };
}

// CPU time of this process, not wall time: on a shared machine a wall clock counts the time the
// process waited for a core (load 11-17 when this was written), the CPU time what it did.
const time = (run) => {
  const started = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, value };
};

function measure(size) {
  const app = generatePageLoadWorkspace(`state-growth-${size.packages}`, { packages: size.packages, keep });
  const outputs = createOutputCache();
  const settled = settledState(app.dir, outputs);
  const { hashes } = settled;
  // Each run: a build elsewhere (new `builds`), then the workspace read again, whose state the
  // next run starts from, as a service's states follow each other.
  let state = settled.state;
  const module = `${app.packageName(0)}/m0`;
  const variant = defaultVariantKey(state.workspace.modules.find((m) => m.specifier === module));
  const scope = { kind: 'variant', module, variant };
  const address = parseAddress(`/m/${app.packageName(0)}@1.0.0/modules/m0`);
  const query = parseOutputQuery(new URLSearchParams(DEVELOPMENT_QUERY));
  const series = { report: [], reread: [], json: [], jsonReread: [], checkAllFirst: [], checkAll: [], checkSplit: [], checkOneFirst: [], checkOne: [], checkAllStill: [], checkOneStill: [], recorded: [], answer: [] };
  // Every path stamped once, so each has a confirmed hash for the watcher's proof to vouch for.
  findChanges(state, [{ kind: 'all' }], hashes);
  // What a watcher proves in a settled service: nothing changed since any stamp (README "Addresses").
  // `moving`: something was noticed before each pass (every path is proven again); `still`: nothing was.
  let notices = 0;
  const moving = Object.assign(() => true, { unchangedSince: () => true, proofGeneration: () => ++notices });
  const still = Object.assign(() => true, { unchangedSince: () => true, proofGeneration: () => 0 });
  const quiet = moving;
  let bytes = 0;
  for (let run = 0; run < repeat; run++) {
    // A build elsewhere: new `builds`, the same workspace.
    const built = { ...state, builds: { ...state.builds } };
    gc?.();
    series.report.push(time(() => selectReport(built)).ms);
    gc?.();
    const json = time(() => reportJson(selectReport(built)));
    series.json.push(json.ms);
    bytes = json.value.length;
    const reread = { ...state, workspace: { ...state.workspace }, builds: { ...state.builds } };
    gc?.();
    series.reread.push(time(() => selectReport(reread)).ms);
    gc?.();
    series.jsonReread.push(time(() => reportJson(selectReport(reread))).ms);
    gc?.();
    series.checkAllFirst.push(time(() => findChanges(built, [{ kind: 'all' }], hashes, quiet)).ms);
    gc?.();
    series.checkAll.push(time(() => findChanges(built, [{ kind: 'all' }], hashes, quiet)).ms);
    gc?.();
    series.checkSplit.push(time(() => findChanges(reread, [scope], hashes, quiet)).ms);
    gc?.();
    series.checkOneFirst.push(time(() => findChanges(built, [scope], hashes, quiet)).ms);
    const next = [];
    for (let index = 0; index < 20; index++) next.push(time(() => findChanges(built, [scope], hashes, quiet)).ms);
    series.checkOne.push(median(next));
    findChanges(built, [{ kind: 'all' }], hashes, still);
    gc?.();
    series.checkAllStill.push(time(() => findChanges(built, [{ kind: 'all' }], hashes, still)).ms);
    findChanges(built, [scope], hashes, still);
    const stillNext = [];
    for (let index = 0; index < 20; index++) stillNext.push(time(() => findChanges(built, [scope], hashes, still)).ms);
    series.checkOneStill.push(median(stillNext));
    selectRecordedHashes(built);
    const notice = { ...built, builds: { ...built.builds } };
    gc?.();
    series.recorded.push(time(() => selectRecordedHashes(notice)).ms);
    const other = { ...built, builds: { ...built.builds } };
    gc?.();
    const answer = time(() => outputAnswer(other, outputs, address, query.variant, undefined));
    if (!answer.value || answer.value instanceof Error) throw new Error(`no answer for ${module}: ${answer.value?.message}`);
    series.answer.push(answer.ms);
    state = reread;
  }
  return { modules: state.workspace.modules.length, sources: Object.keys(state.workspace.sources).length, bytes, series };
}

const results = SIZES.map((size) => ({ size, ...measure(size) }));
const rows = [
  ['report', '`selectReport`, builds changed'],
  ['reread', '`selectReport`, workspace read again'],
  ['json', 'the report as JSON, builds changed'],
  ['jsonReread', 'the report as JSON, workspace read again'],
  ['checkAllFirst', 'check before `/state`, first pass of a state'],
  ['checkAll', 'check before `/state`, next pass'],
  ['checkSplit', 'check before one module, first pass of a workspace'],
  ['checkOneFirst', 'check before one module, first pass of a state'],
  ['checkOne', 'check before one module, next pass'],
  ['checkAllStill', 'check before `/state`, next pass, nothing noticed since'],
  ['checkOneStill', 'check before one module, next pass, nothing noticed since'],
  ['recorded', 'the hashes a notice is compared with (`selectRecordedHashes`), builds changed'],
  ['answer', '`outputAnswer` of one module, builds changed'],
];
const fmt = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${median(values).toFixed(2)} ms [${sorted[0].toFixed(2)}-${sorted.at(-1).toFixed(2)}]`;
};
console.log(`load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}; ${repeat} runs; modules ${results.map((r) => r.modules).join(' / ')}; sources ${results.map((r) => r.sources).join(' / ')}; JSON ${results.map((r) => r.bytes).join(' / ')} bytes`);
console.log(`| measure | ${results.map((r) => `${r.size.label} modules`).join(' | ')} | growth |`);
console.log('|---|---|---|---|');
for (const [key, label] of rows) {
  const [small, large] = results.map((r) => r.series[key]);
  console.log(`| ${label} | ${fmt(small)} | ${fmt(large)} | ${(median(large) / median(small)).toFixed(1)} |`);
}
