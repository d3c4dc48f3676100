// When a new client of `/events` is greeted (src/development/channel.ts): from a state checked
// against the disk, once the requests being answered are, in virtual time.
import { expect } from 'chai';
import { BehaviorSubject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { createGreetings } from '../../src/development/channel.js';
import { REQUESTS_AT_MOST_MS, REQUESTS_QUIET_MS } from '../../src/effects/requests-quiet.js';
import { initialState, type ServiceState } from '../../src/store/state.js';

describe('createGreetings', () => {
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
      createGreetings({ readiness: readiness() as never, requestsInProgress$ }, scheduler)().subscribe();
    });
    expect(checks).to.deep.equal([50 + REQUESTS_QUIET_MS]);
  });

  it('checks at most as late as told while requests go on', () => {
    scheduler.run(({ cold }) => {
      createGreetings({ readiness: readiness() as never, requestsInProgress$: cold('1', { 1: 1 }) }, scheduler)().subscribe();
    });
    expect(checks).to.deep.equal([REQUESTS_AT_MOST_MS]);
  });

  it('checks at once without a count of requests', () => {
    scheduler.run(() => {
      createGreetings({ readiness: readiness() as never }, scheduler)().subscribe();
    });
    expect(checks).to.deep.equal([0]);
  });

  it('greets later clients at once, once one was greeted', async () => {
    const greetings = createGreetings({ readiness: readiness() as never, requestsInProgress$: new BehaviorSubject(1) }, scheduler);
    scheduler.run(({ flush }) => {
      greetings().subscribe();
      flush();
    });
    // The first check's promise settles after the virtual run: the second client comes later.
    await Promise.resolve();
    expect(checks).to.deep.equal([REQUESTS_AT_MOST_MS]);
    const connected = scheduler.now();
    scheduler.run(() => {
      greetings().subscribe();
    });
    expect(checks).to.deep.equal([REQUESTS_AT_MOST_MS, connected]);
  });
});
