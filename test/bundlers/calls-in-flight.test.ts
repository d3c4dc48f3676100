// The one record of esbuild calls in flight (calls-in-flight.ts): an owner's `end` cancels its
// calls and waits for them; each is named in the process's record until it settles, which the
// test run's end (test/hooks.ts) reads before it stops esbuild's process.
import { expect } from 'chai';
import { createCallsInFlight, esbuildCallsRunning } from '../../src/bundlers/calls-in-flight.js';

describe('createCallsInFlight', () => {
  it("names each call until it settles, and end() aborts the calls' signals, waits for them, then refuses new ones", async () => {
    const calls = createCallsInFlight();
    const events: string[] = [];
    let finish!: () => void;
    const running = calls.run('the held call', undefined, (signal) => {
      signal.addEventListener('abort', () => events.push('aborted'));
      return new Promise<void>((resolve) => (finish = resolve)).then(() => void events.push('call settled'));
    });
    const failed = calls.run('the failing call', undefined, async () => {
      throw new Error('refused');
    });
    expect(esbuildCallsRunning()).to.include.members(['the held call', 'the failing call']);
    expect(await failed.then(() => 'settled', (error: Error) => error.message)).to.equal('refused');
    expect(esbuildCallsRunning(), 'a failed call is forgotten').to.not.include('the failing call');
    const ended = calls.end().then(() => void events.push('ended'));
    await Promise.resolve();
    expect(events, 'before the held call settled').to.deep.equal(['aborted']);
    finish();
    await Promise.all([ended, running]);
    expect(events).to.deep.equal(['aborted', 'call settled', 'ended']);
    expect(esbuildCallsRunning()).to.not.include('the held call');
    let called = false;
    const after = await calls.run('after the end', undefined, async () => void (called = true)).then(() => 'ran', (error: Error) => error.name);
    expect(after).to.equal('BuildCancelled');
    expect(called, 'nothing called after end()').to.equal(false);
  });

  it("a call's signal follows the caller's", async () => {
    const calls = createCallsInFlight();
    const caller = new AbortController();
    let aborted = false;
    const running = calls.run('followed', caller.signal, (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve()))));
    caller.abort();
    await running;
    expect(aborted).to.equal(true);
  });
});
