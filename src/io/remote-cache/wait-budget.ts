// The time a reading client's requests may keep the start waiting, all together (README "A team's
// remote cache"): counted only while one of them is in flight, so the workspace's read and the
// entries' checks between two questions spend none of it. Once it is spent, every request in
// flight is given up (`signal`) and the caller opens the breaker: whatever the server does (a
// trickle inside each request's limits, one slow answer after another), it costs a start at most
// this much more than building everything here.
export interface WaitBudget {
  /** A request is in flight from now. */
  begin(): void;
  /** A request begun is over. */
  end(): void;
  /** Aborted once the budget is spent: every request in flight gives up. */
  readonly signal: AbortSignal;
}

export function createWaitBudget(budgetMs: number, spent: () => void, now: () => number = performance.now.bind(performance)): WaitBudget {
  const controller = new AbortController();
  let inFlight = 0;
  let waited = 0;
  let since = 0;
  let timer: NodeJS.Timeout | undefined;
  const spend = () => {
    timer = undefined;
    waited = budgetMs;
    spent();
    controller.abort();
  };
  return {
    signal: controller.signal,
    begin() {
      inFlight += 1;
      if (inFlight > 1 || controller.signal.aborted) return;
      since = now();
      timer = setTimeout(spend, Math.max(0, budgetMs - waited));
    },
    end() {
      inFlight -= 1;
      if (inFlight > 0 || timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      waited += now() - since;
    },
  };
}
