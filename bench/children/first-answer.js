// One measure of bench/first-answer.js, in a process of its own (cold code, as a start runs it):
// the state of a restart folded from its events with a build's own reducer, then that build's
// first `/state` report (`selectReport`, what the ready line makes) and first whole check against
// the disk (`createFreshnessCheck`, what the first `/state` waits for), each timed and its CPU taken.
//   node bench/children/first-answer.js REPOSITORY EVENTS.json WORKSPACE
import fs from 'node:fs';
import path from 'node:path';

const [repo, eventsFile, root] = process.argv.slice(2);
const load = (relative) => import(new URL(`file://${path.join(path.resolve(repo), 'dist', relative)}`).href);
const { reducer } = await load('store/reducer.js');
const { initialState } = await load('store/state.js');
const { selectReport, selectSettled, selectSharedFileCopies, selectBuildQueue } = await load('store/selectors.js');
const { createFileHashes } = await load('io/file-hashes.js');
const { createFreshnessCheck } = await load('io/freshness.js');

process.chdir(root); // as `core run` runs, in the workspace
let state = initialState();
for (const event of JSON.parse(fs.readFileSync(eventsFile, 'utf8'))) state = reducer(state, event);

async function timed(run) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpu: (used.user + used.system) / 1000 };
}

// What the service asks of the state before its ready line, then the report.
selectSettled(state);
selectSharedFileCopies(state);
selectBuildQueue(state);
const report = await timed(() => selectReport(state));

// Every path stamped as the restore stamps them, then a first pass over a new state (no plan kept).
const hashes = createFileHashes(root, Date.now, { readAhead: true });
const paths = new Set(Object.keys(state.workspace.sources));
for (const builds of Object.values(state.builds)) for (const variant of Object.values(builds.variants)) for (const input of Object.keys(variant.last?.inputs ?? {})) paths.add(input);
for (const relative of paths) hashes.hash(relative);
await new Promise((resolve) => setTimeout(resolve, 100)); // past the racy window of any stamp
let changed = 0;
const check = createFreshnessCheck({ hashes, getState: () => state, dispatch: () => void (changed += 1), failed: (error) => { throw error; } });
const first = await timed(() => check.check({ kind: 'all' }));
await hashes.close?.();
console.log(JSON.stringify({ report, check: first, modules: selectReport(state).modules.length, paths: paths.size, changed }));
