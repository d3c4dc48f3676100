// The browser replay's seeking (snapshots, a cached fold, binary searches) against the plain
// fold of `core replay`: the same state, the same changes, the same builds, at any point.
import fs from 'node:fs';
import { expect } from 'chai';
import { ReplayLog, SNAPSHOT_EVERY } from '../../src/dashboard/client/replay-log.js';
import { createBuildHistory } from '../../src/store/build-history.js';
import type { CoreEvent } from '../../src/store/events.js';
import { reducer } from '../../src/store/reducer.js';
import { lastSession, parseLog, replay, trace } from '../../src/store/replay.js';
import { selectReport } from '../../src/store/selectors.js';
import { initialState } from '../../src/store/state.js';
import { recordSession } from '../helpers/recorded-session.js';

/** A long session from a short one: its start, then edit-and-build cycles of one module, every third failing. */
function lengthen(events: CoreEvent[], cycles: number): CoreEvent[] {
  const start = events.slice(0, events.findIndex((event) => event.type === 'files.changed'));
  const ok = start.find((event) => event.type === 'build.succeeded')! as Extract<CoreEvent, { type: 'build.succeeded' }>;
  const bad = events.find((event) => event.type === 'build.failed')! as Extract<CoreEvent, { type: 'build.failed' }>;
  const file = Object.keys(ok.inputs)[0]!;
  const out = [...start];
  let seq = start.at(-1)!.seq;
  let build = 1000;
  let generation = reducer(start.reduce(reducer, initialState()), start.at(-1)!).builds[ok.module]!.variants[ok.variant]!.generation;
  let time = Date.parse(start.at(-1)!.time);
  const stamp = () => ({ seq: ++seq, time: new Date((time += 40)).toISOString() });
  for (let cycle = 1; cycle <= cycles; cycle += 1) {
    generation += 1;
    build += 1;
    const inputs = { ...ok.inputs, [file]: `hash-${cycle}` };
    out.push({ type: 'files.changed', files: { [file]: `hash-${cycle}` }, source: 'watcher', ...stamp() });
    out.push({ type: 'build.started', build, variant: ok.variant, bundler: 'ts', reason: 'change', modules: [{ module: ok.module, generation }], ...stamp() });
    out.push(cycle % 3 === 0 ? { ...bad, module: ok.module, variant: ok.variant, build, inputs, ...stamp() } : { ...ok, build, inputs, ...stamp() });
  }
  return out;
}

describe('ReplayLog', function () {
  let events: CoreEvent[];
  let log: ReplayLog;

  before(async function () {
    const recorded = lastSession(parseLog(fs.readFileSync(await recordSession(), 'utf8')).events);
    events = lengthen(recorded, 450);
    expect(events.length).to.be.greaterThan(2 * SNAPSHOT_EVERY);
    log = await ReplayLog.load(events.map((event) => JSON.stringify(event)).join('\n') + '\n', 'test', () => {});
    // Every third cycle breaks the module and the next fixes it: the cycles really fold.
    expect(log.changes.size).to.be.greaterThan(250);
  });

  it('gives the state of core replay --until at any index, seeking back and forth across snapshots', () => {
    const indexes = [events.length - 1, 0, SNAPSHOT_EVERY - 2, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, 700, 701, 702, 650, 2 * SNAPSHOT_EVERY + 3, 12, events.length - 2];
    for (const index of indexes) {
      expect(selectReport(log.stateAt(index)), `after index ${index}`).to.deep.equal(selectReport(replay(events.slice(0, index + 1))));
    }
  });

  it('records the status changes that trace finds, and finds each module the event behind its status', () => {
    const steps = trace(events);
    expect([...log.changes.keys()].map((index) => events[index]!.seq)).to.deep.equal(steps.map((step) => step.event.seq));
    const module = steps.at(-1)!.changes[0]!.specifier;
    const index = events.length - 1;
    const expected = steps.filter((step) => step.changes.some((change) => change.specifier === module)).at(-1)!.event.seq;
    expect(events[log.lastChange(module, index)!]!.seq).to.equal(expected);
    expect(events[log.nextChange(index, -1)]!.seq).to.equal(steps.at(-1)!.event.seq === events[index]!.seq ? steps.at(-2)!.event.seq : steps.at(-1)!.event.seq);
  });

  it('gives each module the last build it had at that point, running when it had not ended yet', () => {
    const started = events.findLastIndex((event) => event.type === 'build.started');
    const event = events[started] as Extract<CoreEvent, { type: 'build.started' }>;
    const module = event.modules[0]!.module;
    expect(log.historyAt(started).lastBuild(module, event.variant)).to.include({ build: event.build, outcome: 'running' });
    const history = createBuildHistory();
    let state = initialState();
    for (const e of events) history.add(e, (state = reducer(state, e)));
    expect(log.historyAt(events.length - 1).lastBuild(module, event.variant)).to.deep.equal(history.lastBuild(module, event.variant));
  });

  it('finds the event at a time', () => {
    expect(log.indexAtTime(Date.parse(events[300]!.time))).to.equal(300);
    expect(log.indexAtTime(0)).to.equal(0);
  });
});
