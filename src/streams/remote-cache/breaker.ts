// The outage breaker of the remote cache (README "A team's remote cache"): after a few failures
// (a 5xx, a cut body, a reset) the rest of the run asks nothing more, so a flaky cache costs a
// start a few answers at most, never one per module. A server that is not there (a refused
// connection, no route) or does not answer within the time limit opens it at once: asking it
// again would only wait again, and a hung cache must cost a start one time limit, not three.
import type { FailureKind } from './client.js';

export interface Breaker {
  /** False once open: the remote is not asked again this run. */
  readonly closed: boolean;
  failed(kind: FailureKind): void;
}

export const BREAKER_FAILURES = 3;

const ABSENT: ReadonlySet<FailureKind> = new Set(['refused', 'timeout', 'unreachable']);

export function createBreaker(limit = BREAKER_FAILURES): Breaker {
  let failures = 0;
  return {
    get closed() {
      return failures < limit;
    },
    failed(kind) {
      failures = ABSENT.has(kind) ? limit : failures + 1;
    },
  };
}
