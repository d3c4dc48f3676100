// Waiting for the requests being answered (src/effects/requests-quiet.ts), in virtual time.
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { whenRequestsQuiet$ } from '../../src/effects/requests-quiet.js';

describe('whenRequestsQuiet$', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
  });

  it('emits once no request has been answered for the quiet time, counted from when it is asked', () => {
    scheduler.run(({ hot, expectObservable }) => {
      const inProgress = hot('0', { 0: 0 });
      expectObservable(whenRequestsQuiet$(inProgress, 5, 100, scheduler)).toBe('-----(s|)', { s: 0 });
    });
  });

  it('waits for the requests in progress, and for the quiet after the last one', () => {
    scheduler.run(({ hot, expectObservable }) => {
      const inProgress = hot('a-b-------a--------', { a: 0, b: 1 });
      expectObservable(whenRequestsQuiet$(inProgress, 5, 100, scheduler)).toBe('---------------(s|)', { s: 0 });
    });
  });

  it('does not wait longer than it was told, whatever the requests', () => {
    scheduler.run(({ hot, expectObservable }) => {
      const inProgress = hot('a', { a: 3 });
      expectObservable(whenRequestsQuiet$(inProgress, 5, 20, scheduler)).toBe('--------------------(s|)', { s: 0 });
    });
  });

  it('emits at once without a request count (no HTTP app to wait for)', () => {
    scheduler.run(({ expectObservable }) => {
      expectObservable(whenRequestsQuiet$(undefined, 5, 20, scheduler)).toBe('(s|)', { s: null });
    });
  });
});
