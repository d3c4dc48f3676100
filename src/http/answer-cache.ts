// Repeated answers, without Koa. Once the modules route has answered an output, the same
// request-target is answered again straight from this cache for as long as the state is
// the very same object: the state is immutable, so the route would derive the same answer.
// Every answer still waits for the check against the disk first, and the guards the route
// applies (Host, cross-site loads, methods) are applied here too; anything unusual goes to
// Koa. A warm page load is then as cheap as a static file server's.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ServiceState } from '../store/state.js';
import type { CheckScope, FreshnessCheck } from '../streams/freshness.js';
import { IMMUTABLE } from './send-output.js';
import { isHostAllowed, type HostPolicy } from './middleware/guard-host.js';

export interface CachedAnswer {
  /** The state the answer was derived from. */
  state: ServiceState;
  /** What the check before answering must look at. */
  scope: CheckScope;
  hash: string;
  type: string;
  /** Production outputs: any origin may load them, cross-site loads included. */
  anyOrigin: boolean;
  immutable?: boolean;
  body: Buffer;
}

/** Marks a request handed to Koa after the check of its answer's scope ran: no need for another. */
export const CHECKED = Symbol('core.checked');

export interface AnswerCache {
  remember(target: string, answer: CachedAnswer): void;
  /** A request listener answering from the cache, handing every other request to `next`. */
  listener(next: RequestListener): RequestListener;
}

export interface AnswerCacheDeps {
  getState(): ServiceState;
  freshness: FreshnessCheck;
  hosts: HostPolicy;
  /** Most answers kept; the least recently stored go first. */
  limit?: number;
}

interface Stored extends CachedAnswer {
  etag: string;
  /** Written as they are: built once, not per request. */
  fresh: Record<string, string>;
  full: Record<string, string | number>;
}

export function createAnswerCache(deps: AnswerCacheDeps): AnswerCache {
  const limit = deps.limit ?? 512;
  const answers = new Map<string, Stored>();
  // Host headers seen: a page load asks with the same one again and again.
  const hosts = new Map<string, boolean>();
  const hostAllowed = (header: string | undefined) => {
    if (header === undefined) return false;
    let allowed = hosts.get(header);
    if (allowed === undefined) {
      if (hosts.size > 64) hosts.clear();
      hosts.set(header, (allowed = isHostAllowed(header, deps.hosts)));
    }
    return allowed;
  };

  function usable(req: IncomingMessage, answer: Stored | undefined): answer is Stored {
    if (!answer || answer.state !== deps.getState()) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (!hostAllowed(req.headers.host)) return false;
    // A cross-site no-cors load of development output is refused by the route.
    return answer.anyOrigin || req.headers['sec-fetch-site'] !== 'cross-site';
  }

  function send(req: IncomingMessage, res: ServerResponse, answer: Stored) {
    if (matches(req, answer.etag)) {
      res.writeHead(304, answer.fresh);
      res.end();
      return;
    }
    res.writeHead(200, answer.full);
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  }

  return {
    remember(target, answer) {
      const etag = `"${answer.hash}"`;
      const fresh: Record<string, string> = { 'Cache-Control': answer.immutable ? IMMUTABLE : 'no-cache', 'X-Content-Type-Options': 'nosniff', ETag: etag };
      if (answer.anyOrigin) fresh['Access-Control-Allow-Origin'] = '*';
      const full = { ...fresh, 'Content-Type': answer.type, 'Content-Length': answer.body.length };
      answers.delete(target);
      answers.set(target, { ...answer, etag, fresh, full });
      if (answers.size > limit) answers.delete(answers.keys().next().value!);
    },
    listener(next) {
      return function answerFromCache(req, res) {
        const target = req.url ?? '';
        const answer = answers.get(target);
        if (!usable(req, answer)) return next(req, res);
        deps.freshness.check(answer.scope).then(() => {
          // The check found a change, or something else happened meanwhile: ask Koa.
          if (answer.state !== deps.getState()) {
            if (answers.get(target) === answer) answers.delete(target);
            (req as IncomingMessage & { [CHECKED]?: boolean })[CHECKED] = true;
            return next(req, res);
          }
          send(req, res, answer);
        }, () => next(req, res));
      };
    },
  };
}

// If-None-Match: `*`, or a list of entity tags (weak ones compare weakly), unless the request
// asks for no cache: the rules of Koa's `fresh`, so both paths answer alike.
function matches(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header || /(?:^|,)\s*no-cache\s*(?:,|$)/.test(req.headers['cache-control'] ?? '')) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
