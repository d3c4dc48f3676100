// The time a reading client's requests may keep the start waiting, all together (README "A team's
// remote cache"): counted only while one of them is in flight, so the workspace's read and the
// entries' checks between two questions spend none of it. Once it is spent, every request in
// flight is given up (its `signal`) and the caller opens the breaker: whatever the server does (a
// trickle inside each request's limits, one slow answer after another), it costs a start at most
// this much more than building everything here.
export interface WaitBudget {
  /** A request is in flight from now until its `end`; its `signal` aborts once the budget is spent. */
  begin(): { signal: AbortSignal; end(): void };
}

export function createWaitBudget(budgetMs: number, spent: () => void): WaitBudget {
  // One controller a request: a signal shared by every request would gather a listener each.
  const inFlight = new Set<AbortController>();
  let waited = 0;
  let since = 0;
  let timer: NodeJS.Timeout | undefined;
  let over = false;
  const spend = () => {
    timer = undefined;
    over = true;
    spent();
    for (const controller of inFlight) controller.abort();
  };
  return {
    begin() {
      const controller = new AbortController();
      if (over) controller.abort();
      else if (inFlight.size === 0) {
        since = performance.now();
        timer = setTimeout(spend, Math.max(0, budgetMs - waited));
      }
      inFlight.add(controller);
      return {
        signal: controller.signal,
        end() {
          if (!inFlight.delete(controller) || inFlight.size > 0 || timer === undefined) return;
          clearTimeout(timer);
          timer = undefined;
          waited += performance.now() - since;
        },
      };
    },
  };
}
