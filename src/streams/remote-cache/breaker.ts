// The outage breaker of the remote cache (README "A team's remote cache"): after a few failures
// (a refused connection, a time limit, a 5xx, a cut body) the rest of the run asks nothing more,
// so a dead cache costs a start a few time limits at most, never one per module.
export interface Breaker {
  /** False once open: the remote is not asked again this run. */
  readonly closed: boolean;
  failed(): void;
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
  };
}
