// Replay of recorded NDJSON logs: parsing, sessions, the fold and the trace.
import { expect } from 'chai';
import { EVENT_FORMAT, type Fact } from '../../src/store/events.js';
import { toNdjsonLine } from '../../src/store/log.js';
import { lastSession, LogFormatError, parseLog, replay, trace } from '../../src/store/replay.js';
import { selectReport } from '../../src/store/selectors.js';
import { createStore } from '../../src/store/store.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { moduleModel, stamp, started, startedBuild, succeeded, TIME, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const one = moduleModel('one');
const two = moduleModel('two');

const line = (value: object) => `${JSON.stringify(value)}\n`;
const startedLine = (seq = 1, format: unknown = EVENT_FORMAT) => line({ seq, time: TIME, type: 'service.started', format, root: '/w', service: 'core 0.1.0' });
const stoppedLine = (seq: number) => line({ seq, time: TIME, type: 'service.stopped' });
const refusal = (text: string) => {
  try {
    parseLog(text, 'run.ndjson');
  } catch (error) {
    expect(error).to.be.instanceOf(LogFormatError);
    return (error as Error).message;
  }
  throw new Error('the log was accepted');
};

// A session: one module built valid, then edited into a failing build, then fixed.
const session: Fact[] = [
  started,
  { type: 'workspace.read', workspace: workspaceModel([one, two]) },
  startedBuild(1, DEV, [{ module: one, generation: 1 }, { module: two, generation: 1 }]),
  succeeded(1, one, DEV, 'e1'),
  succeeded(1, two, DEV, 'e1'),
  { type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' },
  startedBuild(2, DEV, [{ module: one, generation: 2 }]),
  { type: 'build.failed', build: 2, module: one.specifier, variant: DEV, errors: [diagnostic('BUNDLE_ERROR', 'Could not resolve "./gone.css"', { file: 'app/one/index.ts', line: 1, column: 8 })], imports: [], inputs: { 'app/one/index.ts': 'e2' } },
  { type: 'files.changed', files: { 'app/one/index.ts': 'e3' }, source: 'watcher' },
  startedBuild(3, DEV, [{ module: one, generation: 3 }]),
  succeeded(3, one, DEV, 'e3'),
];

describe('parseLog', () => {
  it('reads every event of a log, skipping blank lines', () => {
    const text = stamp(session).map(toNdjsonLine).join('\n');
    const parsed = parseLog(text);
    expect(parsed.warnings).to.deep.equal([]);
    expect(parsed.events).to.deep.equal(stamp(session));
  });

  it('skips a cut-off last line with a warning', () => {
    const text = `${startedLine(1)}${stoppedLine(2)}{"seq":3,"time":"${TIME}","type":"files.cha`;
    const parsed = parseLog(text, 'run.ndjson');
    expect(parsed.events.map((e) => e.seq)).to.deep.equal([1, 2]);
    expect(parsed.warnings).to.deep.equal(['run.ndjson: line 3 is cut off (the service stopped while writing it) and is skipped']);
  });

  it('refuses a line that is not JSON in the middle, naming it', () => {
    expect(refusal(`${startedLine(1)}not json at all\n${stoppedLine(3)}`)).to.equal('run.ndjson: line 2 is not JSON: not json at all');
  });

  it('refuses a broken last line that ends with a newline: it was written whole', () => {
    expect(refusal(`${startedLine(1)}{"seq":2,\n`)).to.contain('line 2 is not JSON');
  });

  it('refuses a line that is not an event', () => {
    for (const value of [[1], { seq: 'one', time: TIME, type: 'service.stopped' }, { seq: 2, type: 'service.stopped' }, { seq: 2, time: TIME }, 'text']) {
      expect(refusal(`${startedLine(1)}${line(value as object)}`), JSON.stringify(value)).to.equal('run.ndjson: line 2 is not an event (an object with seq, time and type)');
    }
  });

  it('refuses an unknown event type, saying the log comes from another core', () => {
    const message = refusal(`${startedLine(1)}${line({ seq: 2, time: TIME, type: 'cache.flushed' })}`);
    expect(message).to.equal('run.ndjson: line 2 has the event type "cache.flushed", unknown to this version of core (event format 2); it was written by a newer or different core');
  });

  it('refuses a log in another event format', () => {
    // Format 1 recorded no `resolution`: its builds would be taken as having read every input.
    expect(refusal(startedLine(1, 1))).to.equal('run.ndjson: line 1 starts a log in event format 1; this version of core reads format 2 only');
    expect(refusal(line({ seq: 1, time: TIME, type: 'service.started', root: '/w' }))).to.contain('starts a log in event format undefined');
  });

  it('warns when the log does not begin with service.started (a window of GET /log)', () => {
    const parsed = parseLog(`${stoppedLine(40)}`, 'log');
    expect(parsed.events).to.have.length(1);
    expect(parsed.warnings).to.deep.equal(['log does not begin with service.started: events before seq 40 are missing, so the report may be incomplete']);
  });

  it('reads an empty log as no events', () => {
    expect(parseLog('')).to.deep.equal({ events: [], warnings: [] });
  });
});

describe('lastSession', () => {
  const events = parseLog(`${startedLine(1)}${stoppedLine(2)}${stoppedLine(3)}${startedLine(1)}${stoppedLine(2)}${stoppedLine(3)}${stoppedLine(4)}`).events;

  it('takes the events from the last service.started on', () => {
    expect(lastSession(events)).to.deep.equal(events.slice(3));
  });

  it('stops after the event `until` of the last session', () => {
    expect(lastSession(events, 2).map((e) => `${e.seq}:${e.type}`)).to.deep.equal(['1:service.started', '2:service.stopped']);
    expect(lastSession(events, 0)).to.deep.equal([]);
  });

  it('takes every event of a log without service.started', () => {
    const window = events.slice(4);
    expect(lastSession(window)).to.deep.equal(window);
  });
});

describe('replay', () => {
  it('yields exactly the state and report of the live store, from the log it recorded', () => {
    const store = createStore({ now: () => new Date(TIME) });
    let recorded = '';
    store.events$.subscribe((event) => (recorded += toNdjsonLine(event)));
    for (const fact of session) store.dispatch(fact);
    const replayed = replay(parseLog(recorded).events);
    expect(replayed).to.deep.equal(store.getState());
    expect(selectReport(replayed)).to.deep.equal(selectReport(store.getState()));
    expect(selectReport(replayed).modules.map((m) => m.status)).to.deep.equal(['valid', 'valid']);
  });

  it('yields the report the live service had at an earlier seq', () => {
    const store = createStore({ now: () => new Date(TIME) });
    let recorded = '';
    let atEight: unknown;
    store.events$.subscribe((event) => (recorded += toNdjsonLine(event)));
    store.state$.subscribe((state) => state.seq === 8 && (atEight = selectReport(state)));
    for (const fact of session) store.dispatch(fact);
    const report = selectReport(replay(lastSession(parseLog(recorded).events, 8)));
    expect(report).to.deep.equal(atEight);
    expect(report.modules[0]).to.deep.include({ status: 'invalid' });
  });

  it('folds the last session only', () => {
    const first = stamp([started, { type: 'workspace.read', workspace: workspaceModel([one]) }]);
    const second = stamp([{ ...started, root: '/again' }]);
    const state = replay(lastSession([...first, ...second]));
    expect(state.root).to.equal('/again');
    expect(state.workspace.modules).to.deep.equal([]);
  });
});

describe('trace', () => {
  it('lists each event that changed a module status or diagnostics, with the change', () => {
    const steps = trace(stamp(session));
    const summary = steps.map((step) => [step.event.seq, step.event.type, step.changes.map((c) => `${c.specifier}: ${c.from?.status ?? '-'} -> ${c.to?.status ?? '-'}`)]);
    expect(summary).to.deep.equal([
      [2, 'workspace.read', ['@t/app/one: - -> pending', '@t/app/two: - -> pending']],
      [4, 'build.succeeded', ['@t/app/one: pending -> valid']],
      [5, 'build.succeeded', ['@t/app/two: pending -> valid']],
      [8, 'build.failed', ['@t/app/one: valid -> invalid']],
      [11, 'build.succeeded', ['@t/app/one: invalid -> valid']],
    ]);
    expect(steps[3]!.changes[0]!.to!.diagnostics.map((d) => d.kind)).to.deep.equal(['BUNDLE_ERROR']);
  });

  it('lists a module that disappears as a change to nothing', () => {
    const steps = trace(stamp([...session.slice(0, 4), { type: 'workspace.read', workspace: workspaceModel([two]) }]));
    const last = steps[steps.length - 1]!;
    expect(last.event.type).to.equal('workspace.read');
    expect(last.changes.map((c) => [c.specifier, c.from?.status, c.to])).to.deep.equal([['@t/app/one', 'valid', null]]);
  });

  it('lists a change of diagnostics even when the status stays invalid', () => {
    const failing = (build: number, message: string): Fact => ({ type: 'build.failed', build, module: one.specifier, variant: DEV, errors: [diagnostic('BUNDLE_ERROR', message)], imports: [], inputs: { 'app/one/index.ts': `h${build}` } });
    const steps = trace(
      stamp([
        started,
        { type: 'workspace.read', workspace: workspaceModel([one]) },
        startedBuild(1, DEV, [{ module: one, generation: 1 }]),
        failing(1, 'first'),
        { type: 'files.changed', files: { 'app/one/index.ts': 'x' }, source: 'watcher' },
        startedBuild(2, DEV, [{ module: one, generation: 2 }]),
        failing(2, 'second'),
      ]),
    );
    expect(steps.map((step) => step.event.seq)).to.deep.equal([2, 4, 7]);
    expect(steps[2]!.changes[0]!.to!.diagnostics[0]!.message).to.equal('second');
  });
});

describe('replay of effect.failed', () => {
  const failedLine = (seq: number, failures: number) => line({ seq, time: TIME, type: 'effect.failed', effect: 'builds', message: 'boom', failures, retryInMs: 100 * 2 ** (failures - 1) });

  it('reads effect.failed, and lists a fault repeated past the bound among the top-level diagnostics', () => {
    const few = parseLog(startedLine() + failedLine(2, 1) + failedLine(3, 2), 'run.ndjson');
    expect(selectReport(replay(few.events)).diagnostics).to.deep.equal([]);
    const many = parseLog(startedLine() + [1, 2, 3, 4, 5].map((failures) => failedLine(failures + 1, failures)).join(''), 'run.ndjson');
    const state = replay(many.events);
    expect(state.effects).to.deep.equal({ builds: { message: 'boom', failures: 5, worst: 5 } });
    expect(selectReport(state).diagnostics.map((problem) => problem.kind)).to.deep.equal(['EFFECT_FAILED']);
    expect(selectReport(state).diagnostics[0]!.message).to.include('the builds effect failed 5 times in a row (last: boom)');
  });
});
