// The outage breaker of the remote cache (README "A team's remote cache"): after a few failures
// (a 5xx, a cut body, a reset) the rest of the run asks nothing more, so a flaky cache costs a
// start a few answers at most, never one per module. A server that is not there (a refused
// connection, no route) or does not answer within the time limit opens it at once: asking it
// again would only wait again, and a hung cache must cost a start one time limit, not three.
export interface Breaker {
  /** False once open: the remote is not asked again this run. */
  readonly closed: boolean;
  /** A failure of an answering server: the third opens the breaker. */
  failed(): void;
  /** The server is not there, or does not answer: the breaker opens at once. */
  gone(): void;
}

export const BREAKER_FAILURES = 3;

export function createBreaker(limit = BREAKER_FAILURES): Breaker {
  let failures = 0;
  return {
    get closed() {
      return failures < limit;
    },
    failed() {
      failures += 1;
    },
    gone() {
      failures = limit;
    },
  };
}
