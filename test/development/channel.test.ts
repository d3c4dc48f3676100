// When a new client of `/events` is greeted (src/development/channel.ts): from a state checked
// against the disk, once the requests being answered are, in virtual time.
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { greetingState$, GREETING_AT_MOST_MS, GREETING_QUIET_MS } from '../../src/development/channel.js';
import { initialState, type ServiceState } from '../../src/store/state.js';

describe('greetingState$', () => {
  let scheduler: TestScheduler;
  let checks: number[];
  const state = initialState() as ServiceState;
  const readiness = () => ({
    settled: () => {
      checks.push(scheduler.now());
      return Promise.resolve(state);
    },
  });
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    checks = [];
  });

  it('checks the disk only once no request has been answered for the quiet time', () => {
    scheduler.run(({ cold }) => {
      // The page's script is answered from 0 to 50 ms, the client connected at 0.
      const requestsInProgress$ = cold('1 49ms 0', { 0: 0, 1: 1 });
      greetingState$({ readiness: readiness() as never, requestsInProgress$ }, scheduler).subscribe();
    });
    expect(checks).to.deep.equal([50 + GREETING_QUIET_MS]);
  });

  it('checks at most as late as told while requests go on', () => {
    scheduler.run(({ cold }) => {
      greetingState$({ readiness: readiness() as never, requestsInProgress$: cold('1', { 1: 1 }) }, scheduler).subscribe();
    });
    expect(checks).to.deep.equal([GREETING_AT_MOST_MS]);
  });

  it('checks at once without a count of requests', () => {
    scheduler.run(() => {
      greetingState$({ readiness: readiness() as never }, scheduler).subscribe();
    });
    expect(checks).to.deep.equal([0]);
  });
});
