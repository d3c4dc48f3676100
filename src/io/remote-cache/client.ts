// The client of Bazel's HTTP remote cache protocol (README "A team's remote cache"):
// `GET`/`PUT`/`HEAD` of `ac/<sha256 hex>` (entries) and `cas/<sha256 hex>` (bytes named by their
// SHA-256) under the configured address; 404 is a miss. Connections are kept alive and shared by
// at most a few requests at once; every request has a time limit for its answer's headers, for
// each 16 KiB of its body and for all of it, and a bound on the body's size; a reading client
// (the start's, `core dist`'s) has a budget for all its requests' waiting (`wait-budget.ts`). A
// failure is counted, never retried, and opens the breaker: the rest of the run asks nothing more.
import http from 'node:http';
import https from 'node:https';
import { createBreaker, type Breaker } from './breaker.js';
import { createWaitBudget } from './wait-budget.js';
import type { RemoteCacheSettings } from './settings.js';

export type Store = 'ac' | 'cas';

/** Why a request brought no answer: counted by kind, and each opens the breaker a little more. */
export type FailureKind = 'refused' | 'timeout' | 'server-error' | 'unexpected-status' | 'truncated' | 'reset' | 'too-large' | 'denied' | 'unreachable';

export type Answer = { found: Buffer } | { missing: true } | { failed: FailureKind } | { skipped: true };

export interface RemoteClient {
  get(store: Store, digest: string): Promise<Answer>;
  head(store: Store, digest: string): Promise<Answer>;
  /** `stored`, or why not; a 401 or 403 is `denied`. */
  put(store: Store, digest: string, body: Uint8Array): Promise<'stored' | { failed: FailureKind } | { skipped: true }>;
  readonly breaker: Breaker;
  /** Requests made and body bytes received. */
  readonly counts: { requests: number; puts: number; bytes: number };
  close(): void;
}

export interface ClientLimits {
  /** Until the answer's headers, and then for each `MIN_BODY_BYTES` of its body, or all of it (default 2 s). */
  timeoutMs?: number;
  /** A request's whole time, its body's included (default `REQUEST_LIMIT_MS`). */
  requestMs?: number;
  /**
   * The time all the client's requests may keep its caller waiting, counted while any is in
   * flight (default: none; a start's and `core dist`'s: `START_BUDGET_MS`): once spent, the
   * requests in flight end as a `timeout` and the breaker opens.
   */
  budgetMs?: number;
  /** The largest body taken (default 64 MiB). */
  maxBodyBytes?: number;
  /** Requests at once over the kept-alive connections (default 8). */
  sockets?: number;
}

type Method = 'GET' | 'HEAD' | 'PUT';

// Issue 34's bound for a cache that never answers: a start costs at most 3 s more than one that
// builds everything (README "A team's remote cache"). A request gets no longer than the start's
// whole budget, and the start's requests, however they answer, no longer together: a server
// trickling inside the 16 KiB rule (8 KiB/s, 2 h for a 64 MiB body) costs what a silent one does.
export const REQUEST_LIMIT_MS = 3000;
export const START_BUDGET_MS = 3000;

export function createRemoteClient(settings: RemoteCacheSettings, limits: ClientLimits = {}): RemoteClient {
  const timeoutMs = limits.timeoutMs ?? 2000;
  const maxBodyBytes = limits.maxBodyBytes ?? 64 * 1024 * 1024;
  const agentOptions = { keepAlive: true, maxSockets: limits.sockets ?? 8 };
  const agent = settings.base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const breaker = createBreaker();
  const requestMs = limits.requestMs ?? REQUEST_LIMIT_MS;
  const budget = limits.budgetMs === undefined ? null : createWaitBudget(limits.budgetMs, () => breaker.gone());
  const counts = { requests: 0, puts: 0, bytes: 0 };
  const headers: Record<string, string> = settings.header ? { [settings.header[0]]: settings.header[1] } : {};

  const request = (method: Method, store: Store, digest: string, body?: Uint8Array) => {
    counts.requests += 1;
    if (method === 'PUT') counts.puts += 1;
    const waiting = budget?.begin();
    const limitsOf = { timeoutMs, requestMs, maxBodyBytes, ...(waiting ? { abandoned: waiting.signal } : {}) };
    return exchange({ method, url: new URL(`${store}/${digest}`, settings.base), agent, headers, body, ...limitsOf }).then((answer) => {
      waiting?.end();
      if ('failed' in answer) {
        if (answer.failed === 'refused' || answer.failed === 'timeout' || answer.failed === 'unreachable') breaker.gone();
        else breaker.failed();
      }
      else if (answer.status === 200) counts.bytes += answer.body.length;
      return answer;
    });
  };

  async function ask(method: Method, store: Store, digest: string): Promise<Answer> {
    if (!breaker.closed) return { skipped: true };
    const answer = await request(method, store, digest);
    if ('failed' in answer) return answer;
    if (answer.status === 200) return { found: answer.body };
    if (answer.status === 404) return { missing: true };
    breaker.failed();
    return { failed: statusFailure(answer.status) };
  }

  return {
    breaker,
    counts,
    get: (store, digest) => ask('GET', store, digest),
    head: (store, digest) => ask('HEAD', store, digest),
    async put(store, digest, body) {
      if (!breaker.closed) return { skipped: true };
      const answer = await request('PUT', store, digest, body);
      if ('failed' in answer) return answer;
      if (answer.status >= 200 && answer.status < 300) return 'stored';
      breaker.failed();
      return { failed: statusFailure(answer.status) };
    },
    close: () => agent.destroy(),
  };
}

// A status the protocol does not answer with (a redirect, say, where a directory stands at an
// entry's place) is no server error: it is told as what it is (README "A team's remote cache").
const statusFailure = (status: number): FailureKind => (status === 401 || status === 403 ? 'denied' : status >= 500 ? 'server-error' : 'unexpected-status');

function failureOf(error: NodeJS.ErrnoException): FailureKind {
  if (error.code === 'ECONNREFUSED') return 'refused';
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return 'reset';
  return 'unreachable';
}

interface Exchange {
  method: Method;
  url: URL;
  agent: http.Agent;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  timeoutMs: number;
  requestMs: number;
  maxBodyBytes: number;
  /** Aborted when the client's budget is spent: the request gives up as a timeout. */
  abandoned?: AbortSignal;
}

/** What a body must bring within each time limit, unless it ends sooner (16 KiB: 8 KiB/s at the default). */
const MIN_BODY_BYTES = 16 * 1024;

// One request: its status and whole body, or why there is none. Nothing here retries.
function exchange({ method, url, agent, headers, body, timeoutMs, requestMs, maxBodyBytes, abandoned }: Exchange): Promise<{ status: number; body: Buffer } | { failed: FailureKind }> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: { status: number; body: Buffer } | { failed: FailureKind }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(whole);
      abandoned?.removeEventListener('abort', giveUp);
      resolve(answer);
    };
    const transport = url.protocol === 'https:' ? https : http;
    const sent = transport.request(url, { method, agent, headers: { ...headers, ...(body ? { 'content-length': String(body.length), 'content-type': 'application/octet-stream' } : {}) } });
    const fail = (kind: FailureKind) => {
      finish({ failed: kind });
      sent.destroy();
    };
    // Until the headers, then for each MIN_BODY_BYTES of the body (or the rest of it): a silent
    // server ends at the limit, and so does one that sends a byte now and then, which a wait
    // between two parts of the body would keep waiting for (README "A team's remote cache").
    let timer = setTimeout(() => fail('timeout'), timeoutMs);
    // And all of it within its own limit, and the client's budget: a body that keeps the 16 KiB
    // rule can still take hours (README "A team's remote cache").
    const whole = setTimeout(() => fail('timeout'), requestMs);
    const giveUp = () => fail('timeout');
    if (abandoned?.aborted) giveUp();
    else abandoned?.addEventListener('abort', giveUp, { once: true });
    let windowBytes = 0;
    const windowEnds = () => {
      if (windowBytes < MIN_BODY_BYTES) return fail('timeout');
      windowBytes = 0;
      timer = setTimeout(windowEnds, timeoutMs);
    };
    let answering = false;
    // Once the headers came, a connection lost is a body cut short.
    sent.on('error', (error: NodeJS.ErrnoException) => finish({ failed: answering ? 'truncated' : failureOf(error) }));
    sent.on('response', (response) => {
      answering = true;
      const declared = Number(response.headers['content-length'] ?? NaN);
      if (declared > maxBodyBytes) return fail('too-large');
      const chunks: Buffer[] = [];
      let size = 0;
      clearTimeout(timer);
      timer = setTimeout(windowEnds, timeoutMs);
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        windowBytes += chunk.length;
        if (size > maxBodyBytes) return fail('too-large');
        chunks.push(chunk);
      });
      response.on('error', () => finish({ failed: 'truncated' }));
      response.on('close', () => {
        if (!response.complete || (method !== 'HEAD' && Number.isFinite(declared) && size !== declared)) return finish({ failed: 'truncated' });
        finish({ status: response.statusCode ?? 0, body: Buffer.concat(chunks, size) });
      });
    });
    sent.end(body);
  });
}
