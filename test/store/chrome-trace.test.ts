import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { chromeTrace, type TraceEvent } from '../../src/store/chrome-trace.js';
import { lastSession, parseLog } from '../../src/store/replay.js';
import { runCore } from '../helpers/cli.js';
import { BROKEN_MODULE, recordSession } from '../helpers/recorded-session.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** The Trace Event Format's rules that Perfetto and chrome://tracing rely on. */
function expectValidTrace(trace: { traceEvents: TraceEvent[] }) {
  expect(trace.traceEvents).to.be.an('array').that.is.not.empty;
  const open = new Map<string, number>();
  for (const event of trace.traceEvents) {
    expect(event, JSON.stringify(event)).to.include.keys('name', 'ph', 'ts', 'pid', 'tid');
    expect(event.name).to.be.a('string');
    expect(Number.isFinite(event.ts) && event.ts >= 0, `ts of ${event.name}`).to.equal(true);
    expect(['X', 'B', 'E', 'i', 'M']).to.include(event.ph);
    if (event.ph === 'X') expect(Number.isFinite(event.dur) && event.dur! >= 0, `dur of ${event.name}`).to.equal(true);
    const key = `${event.pid}/${event.tid}`;
    if ((event.ph as string) === 'B') open.set(key, (open.get(key) ?? 0) + 1);
    if ((event.ph as string) === 'E') {
      expect(open.get(key) ?? 0, `an E without its B on ${key}`).to.be.greaterThan(0);
      open.set(key, open.get(key)! - 1);
    }
  }
  expect([...open.values()].every((count) => count === 0), 'every B matched by an E').to.equal(true);
  // Builds on one lane never overlap.
  const builds = trace.traceEvents.filter((event) => event.ph === 'X');
  const byLane = new Map<number, TraceEvent[]>();
  for (const build of builds) byLane.set(build.tid, [...(byLane.get(build.tid) ?? []), build]);
  for (const [lane, list] of byLane) {
    const sorted = list.sort((a, b) => (a.args!.seq as number[])[0]! - (b.args!.seq as number[])[0]!);
    for (let i = 1; i < sorted.length; i += 1) {
      expect((sorted[i]!.args!.seq as number[])[0], `lane ${lane}`).to.be.greaterThan((sorted[i - 1]!.args!.seq as number[])[1]!);
    }
  }
}

describe('chromeTrace', function () {
  let record: string;
  before(async function () {
    record = await recordSession();
  });

  it('turns a recorded session into a valid trace: every build with its modules, reason and outcome', () => {
    const events = lastSession(parseLog(fs.readFileSync(record, 'utf8')).events);
    const trace = chromeTrace(events);
    expectValidTrace(trace);
    const builds = trace.traceEvents.filter((event) => event.ph === 'X');
    expect(builds.length).to.equal(events.filter((event) => event.type === 'build.started').length);
    for (const build of builds) expect(build.args).to.include.keys('modules', 'reason', 'outcome');
    const broken = builds.filter((build) => (build.args!.modules as string[]).includes(BROKEN_MODULE)).map((build) => build.args!.outcome);
    expect(broken).to.include('failed');
    expect(broken.at(-1)).to.equal('succeeded');
    expect(trace.traceEvents.filter((event) => event.ph === 'M' && event.name === 'thread_name').map((event) => event.args!.name)).to.include('build lane 1');
  });

  it('is written by core replay --chrome-trace', async function () {
    const out = path.join(tempWorkspace(), 'trace.json');
    const result = await runCore(['replay', record, '--chrome-trace', out], { cwd: path.dirname(record) });
    expect(result.code, result.stderr).to.equal(0);
    expectValidTrace(JSON.parse(fs.readFileSync(out, 'utf8')));
    // Success is told too: which file, how many builds, and what opens it.
    const builds = fs.readFileSync(record, 'utf8').split('\n').filter((line) => line.includes('"type":"build.started"')).length;
    expect(builds).to.be.greaterThan(0);
    expect(result.stderr).to.equal(`core replay: wrote ${out} (${builds} build${builds === 1 ? '' : 's'}); open it in ui.perfetto.dev or chrome://tracing\n`);
  });

  it('refuses a file it cannot write, with exit 1', async function () {
    const result = await runCore(['replay', record, '--chrome-trace', path.join(tempWorkspace(), 'no', 'such', 'dir', 'trace.json')], { cwd: path.dirname(record) });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/cannot write .*: no such file\n$/);
  });
});
