// Repeated answers, without Koa's per-request work. Once the modules route has answered an
// output, the same request-target is answered again from this cache for as long as the state
// is the very same object: the state is immutable, so the route would derive the same answer.
// It is the request listener in front of Koa, measured cheaper than a middleware
// (ARCHITECTURE.md "One HTTP path"), and no second HTTP stack: it runs the guards first (what
// they refuse, Koa refuses), takes its answers from the route's one rule (`outputAnswer`),
// writes the route's headers (`outputHeaders`) with Koa's freshness rule (the `fresh`
// package), and answers a defect as `respondWithErrors` does.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import fresh from 'fresh';
import type { ServiceState } from '../store/state.js';
import type { CheckScope, FreshnessCheck } from '../io/freshness.js';
import { asServiceError, sendError } from './errors.js';
import { firstRefusal, type RequestGuard } from './guards/request-guards.js';
import { isCrossSiteRefused, outputHeaders, type OutputHeaders } from './send-output.js';
import { sendRangeOf } from './byte-ranges.js';

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
  /** Whether an answer of `target` is kept for the current state (asked by tests and tools). */
  holds(target: string): boolean;
  /** The server's request listener: answers from the cache what it can, and hands every other request to `koa`. */
  listener(koa: RequestListener): RequestListener;
}

export interface AnswerCacheDeps {
  getState(): ServiceState;
  freshness: FreshnessCheck;
  /** The guards of every request, in their order: the same list Koa runs. */
  guards: readonly RequestGuard[];
  /** Where a defect's stack goes. */
  logger(message: string): void;
  /** Most answers kept; the least recently stored go first. */
  limit?: number;
  /** Only request-targets under this prefix are looked up. */
  prefix?: string;
  /**
   * The answer the route gives a request-target from the state alone, without a check against
   * the disk (an address naming the last build's bytes), or null: taken before any is stored,
   * so the first request of such an address (a page's fetch right after a push) skips Koa too.
   */
  derive?(target: string, state: ServiceState): CachedAnswer | null;
}

// Requests the cache checked against the disk and then handed to Koa: the check ran after they
// arrived, so their route owes none again (README "Addresses").
const checkedRequests = new WeakSet<IncomingMessage>();

/** Whether the answer cache has checked `request` against the disk already (then handed it to Koa). */
export const checkedByCache = (request: IncomingMessage): boolean => checkedRequests.has(request);

interface Stored extends CachedAnswer {
  /** Written as they are: built once, not per request. */
  notModified: Record<string, string>;
  full: Record<string, string | number>;
}

export function createAnswerCache(deps: AnswerCacheDeps): AnswerCache {
  const limit = deps.limit ?? 512;
  const prefix = deps.prefix ?? '/m/';
  const answers = new Map<string, Stored>();

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
    const state = deps.getState();
    const stored = answers.get(target);
    if (stored?.state === state) return stored;
    const derived = deps.derive?.(target, state);
    return derived ? remember(target, derived) : undefined;
  }

  // Koa's rules for an output's 200, 304, 206, 416 and HEAD, as `sendOutput` applies them through Koa.
  function send(req: IncomingMessage, res: ServerResponse, answer: Stored) {
    if (fresh(req.headers, { etag: answer.notModified.ETag })) {
      res.writeHead(304, answer.notModified);
      res.end();
      return;
    }
    if (sendRangeOf(req, res, answer.body, answer.full)) return;
    res.writeHead(200, answer.full);
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  }

  /** The cached answer of this request, or null for Koa to answer (a refusal of the guards included). */
  function usable(req: IncomingMessage): Stored | null {
    if (firstRefusal(deps.guards, req) !== null) return null;
    const target = req.url ?? '';
    if (!target.startsWith(prefix)) return null;
    const answer = find(target);
    return answer && !isCrossSiteRefused(req, answer.anyOrigin) ? answer : null;
  }

  return {
    remember: (target, answer) => void remember(target, answer),
    holds: (target) => answers.get(target)?.state === deps.getState(),
    listener(koa) {
      const failed = (res: ServerResponse, caught: unknown) => sendError(res, asServiceError(caught, deps.logger));
      return function answerFromCache(req, res) {
        let answer: Stored | null;
        try {
          answer = usable(req);
          if (!answer) return koa(req, res);
          if (answer.unchecked) return send(req, res, answer);
        } catch (caught) {
          return failed(res, caught);
        }
        const checked = answer;
        deps.freshness.check(checked.scope).then((completed) => {
          // The check found a change, or something else happened meanwhile: Koa answers, from
          // the state this check made (its route waits for the builds, and checks no more).
          // A check that threw proved nothing: the route checks again, as for any request.
          if (!completed || checked.state !== deps.getState()) {
            const target = req.url ?? '';
            if (answers.get(target) === checked) answers.delete(target);
            if (completed) checkedRequests.add(req);
            return koa(req, res);
          }
          send(req, res, checked);
        }).catch((caught: unknown) => failed(res, caught));
      };
    },
  };
}
