// Repeated answers, without the route's per-request work. Once the modules route has answered
// an output, the same request-target is answered again from this cache for as long as the
// state is the very same object: the state is immutable, so the route would derive the same
// answer. It is a Koa middleware right after the guards (ARCHITECTURE.md "One HTTP path"), so
// the guards, Koa's conditional GET and HEAD, and the one error writer are the route's own.
import type { Middleware } from 'koa';
import type { ServiceState } from '../store/state.js';
import type { CheckScope, FreshnessCheck } from '../streams/freshness.js';
import { isCrossSiteRefused, sendOutput, type OutputHeaders } from './send-output.js';

export interface CachedAnswer extends OutputHeaders {
  /** The state the answer was derived from. */
  state: ServiceState;
  /** What the check before answering must look at. */
  scope: CheckScope;
  body: Buffer;
  /** Derived from the state alone (an address naming the last build's bytes): it owes no check (README "Addresses"). */
  unchecked?: boolean;
}

export interface AnswerCache {
  remember(target: string, answer: CachedAnswer): void;
  /** Answers from the cache what it can, and hands every other request on. */
  middleware: Middleware;
}

export interface AnswerCacheDeps {
  getState(): ServiceState;
  freshness: FreshnessCheck;
  /** Most answers kept; the least recently stored go first. */
  limit?: number;
  /** Only request paths under this prefix are looked up. */
  prefix?: string;
  /**
   * The answer the route gives a request from the state alone, without a check against the
   * disk (an address naming the last build's bytes), or null: taken before any is stored, so
   * the first request of such an address (a page's fetch right after a push) skips the route.
   */
  derive?(path: string, querystring: string, token: unknown, state: ServiceState): CachedAnswer | null;
}

export function createAnswerCache(deps: AnswerCacheDeps): AnswerCache {
  const limit = deps.limit ?? 512;
  const prefix = deps.prefix ?? '/m/';
  const answers = new Map<string, CachedAnswer>();

  function remember(target: string, answer: CachedAnswer): CachedAnswer {
    answers.delete(target);
    answers.set(target, answer);
    if (answers.size > limit) answers.delete(answers.keys().next().value!);
    return answer;
  }

  function find(target: string, derive: () => CachedAnswer | null): CachedAnswer | undefined {
    const state = deps.getState();
    const stored = answers.get(target);
    if (stored?.state === state) return stored;
    const derived = deps.derive ? derive() : null;
    return derived ? remember(target, derived) : undefined;
  }

  return {
    remember: (target, answer) => void remember(target, answer),
    middleware: async function answerFromCache(ctx, next) {
      if (!ctx.path.startsWith(prefix)) return next();
      const target = ctx.url;
      const answer = find(target, () => deps.derive!(ctx.path, ctx.querystring, ctx.query.v, deps.getState()));
      // A refusal is the route's to write, with its message.
      if (!answer || isCrossSiteRefused(ctx.req, answer.anyOrigin)) return next();
      if (!answer.unchecked) {
        await deps.freshness.check(answer.scope);
        // The check found a change, or something else happened meanwhile: the route answers.
        if (answer.state !== deps.getState()) {
          if (answers.get(target) === answer) answers.delete(target);
          return next();
        }
      }
      sendOutput(ctx, answer.body, answer);
    },
  };
}
