// Repeated answers, without Koa's per-request work. Once the modules route has answered an
// output, the same request-target is answered again straight from this cache for as long as
// the state is the very same object: the state is immutable, so the route would derive the same
// answer. It is no second HTTP stack (ARCHITECTURE.md "One HTTP path"): every request first
// passes the same guards Koa runs (guards/request-guards.ts), the route's own cross-site rule
// and the check against the disk; the headers are the route's (`outputHeaders`), and freshness
// is Koa's own rule (the `fresh` package). Anything else goes to Koa.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import fresh from 'fresh';
import type { ServiceState } from '../store/state.js';
import type { CheckScope, FreshnessCheck } from '../streams/freshness.js';
import { firstRefusal, type RequestGuard } from './guards/request-guards.js';
import { isCrossSiteRefused, outputHeaders, type OutputHeaders } from './send-output.js';

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
  /** Whether the check of this request's answer already ran here: the route need not run another. */
  checked(request: IncomingMessage): boolean;
  /** A request listener answering from the cache, handing every other request to `next`. */
  listener(next: RequestListener): RequestListener;
}

export interface AnswerCacheDeps {
  getState(): ServiceState;
  freshness: FreshnessCheck;
  /** The guards of every request, in their order: the same list Koa runs. */
  guards: readonly RequestGuard[];
  /** Most answers kept; the least recently stored go first. */
  limit?: number;
  /**
   * The answer the route gives `target` from the state alone, without a check against the disk
   * (an address naming the last build's bytes), or null: taken before any is stored, so the
   * first request of such an address (a page's fetch right after a push) skips Koa too.
   */
  derive?(target: string, state: ServiceState): CachedAnswer | null;
}

interface Stored extends CachedAnswer {
  /** Written as they are: built once, not per request. */
  notModified: Record<string, string>;
  full: Record<string, string | number>;
}

export function createAnswerCache(deps: AnswerCacheDeps): AnswerCache {
  const limit = deps.limit ?? 512;
  const answers = new Map<string, Stored>();
  const checkedRequests = new WeakSet<IncomingMessage>();

  function usable(req: IncomingMessage, answer: Stored | undefined): answer is Stored {
    if (!answer || answer.state !== deps.getState()) return false;
    return firstRefusal(deps.guards, req) === null && !isCrossSiteRefused(req, answer.anyOrigin);
  }

  function send(req: IncomingMessage, res: ServerResponse, answer: Stored) {
    if (fresh(req.headers, { etag: answer.notModified.ETag })) {
      res.writeHead(304, answer.notModified);
      res.end();
      return;
    }
    res.writeHead(200, answer.full);
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  }

  function remember(target: string, answer: CachedAnswer): Stored {
    const notModified = outputHeaders(answer);
    const full = { ...notModified, 'Content-Type': answer.type, 'Content-Length': answer.body.length };
    const stored = { ...answer, notModified, full };
    answers.delete(target);
    answers.set(target, stored);
    if (answers.size > limit) answers.delete(answers.keys().next().value!);
    return stored;
  }

  function find(target: string): Stored | undefined {
    const stored = answers.get(target);
    if (stored?.state === deps.getState() || !deps.derive) return stored;
    const derived = deps.derive(target, deps.getState());
    return derived ? remember(target, derived) : stored;
  }

  return {
    remember: (target, answer) => void remember(target, answer),
    checked: (request) => checkedRequests.has(request),
    listener(next) {
      return function answerFromCache(req, res) {
        const target = req.url ?? '';
        const answer = find(target);
        if (!usable(req, answer)) return next(req, res);
        if (answer.unchecked) return send(req, res, answer);
        deps.freshness.check(answer.scope).then(() => {
          // The check found a change, or something else happened meanwhile: ask Koa.
          if (answer.state !== deps.getState()) {
            if (answers.get(target) === answer) answers.delete(target);
            checkedRequests.add(req);
            return next(req, res);
          }
          send(req, res, answer);
        }, () => next(req, res));
      };
    },
  };
}
