import { expect } from 'chai';
import { assignLanes, createBuildHistory, type BuildSpan } from '../../src/store/build-history.js';
import type { CoreEvent, Fact } from '../../src/store/events.js';
import { initialState } from '../../src/store/state.js';

const at = (seq: number, fact: Fact): CoreEvent => ({ ...fact, seq, time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq * 10)).toISOString() }) as CoreEvent;
const started = (seq: number, build: number, modules: string[]) =>
  at(seq, { type: 'build.started', build, variant: 'browser.development', bundler: 'ts', reason: 'startup', modules: modules.map((module) => ({ module, generation: 1 })) });
const succeeded = (seq: number, build: number, module: string) =>
  at(seq, { type: 'build.succeeded', build, module, variant: 'browser.development', outputs: { code: { hash: 'h', size: 1 }, styles: null }, imports: [], inputs: {} });
const failed = (seq: number, build: number, module: string) =>
  at(seq, { type: 'build.failed', build, module, variant: 'browser.development', errors: [{ kind: 'BUNDLE_ERROR', message: 'no' }], imports: [], inputs: {} });

describe('createBuildHistory', () => {
  it('ends a build when every module reported, failed when one failed', () => {
    const history = createBuildHistory();
    for (const event of [started(1, 1, ['a/x', 'a/y']), succeeded(2, 1, 'a/x'), failed(3, 1, 'a/y')]) history.add(event, initialState());
    const [span] = history.spans();
    expect(span).to.include({ build: 1, outcome: 'failed', startSeq: 1, endSeq: 3, reason: 'startup', incremental: false });
    expect(span!.failed).to.deep.equal(['a/y']);
    expect(history.lastBuild('a/y', 'browser.development')?.build).to.equal(1);
  });

  it('keeps a build running until its last module reports, and ends it on build.cancelled', () => {
    const history = createBuildHistory();
    history.add(started(1, 7, ['a/x', 'a/y']), initialState());
    history.add(succeeded(2, 7, 'a/x'), initialState());
    expect(history.spans()[0]!.outcome).to.equal('running');
    history.add(at(3, { type: 'build.cancelled', build: 7, reason: 'sources changed' }), initialState());
    expect(history.spans()[0]).to.include({ outcome: 'cancelled', cancelled: 'sources changed', endSeq: 3 });
  });

  it('keeps the last `limit` builds, and each module its last build', () => {
    const history = createBuildHistory(2);
    history.add(started(1, 1, ['a/old']), initialState());
    for (let build = 2; build <= 10; build += 1) history.add(started(build, build, ['a/x']), initialState());
    expect(history.spans().map((span) => span.build)).to.deep.equal([9, 10]);
    expect(history.lastBuild('a/old', 'browser.development')?.build).to.equal(1);
  });
});

describe('assignLanes', () => {
  const span = (startSeq: number, endSeq: number | null) => ({ startSeq, endSeq }) as BuildSpan;
  it('never puts two builds that overlap on one lane, and reuses a lane once free', () => {
    expect(assignLanes([span(1, 5), span(2, 3), span(4, 8), span(6, 7), span(9, null), span(10, 11)])).to.deep.equal([0, 1, 1, 0, 0, 1]);
  });
});
