// The answer cache, a Koa middleware right after the guards: repeated answers while the state
// stays the same object, after the check against the disk; every refusal and defect is
// written by the one error writer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { createAnswerCache, type AnswerCache, type AnswerCacheDeps, type CachedAnswer } from '../../src/http/answer-cache.js';
import { ServiceError } from '../../src/http/errors.js';
import { guardRequests, requestGuards, type RequestGuard } from '../../src/http/guards/request-guards.js';
import { respondWithErrors } from '../../src/http/middleware/respond-with-errors.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import type { CheckScope } from '../../src/streams/freshness.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { writeFile } from '../helpers/workspace.js';

/** Koa as the app runs it: the error writer, the guards, the cache, then a stand-in for the route. */
async function listen(cache: AnswerCache, guards: readonly RequestGuard[], handOver: (url: string) => void, log: (message: string) => void = () => {}): Promise<{ server: Server; base: string }> {
  const koa = new Koa();
  koa.use(respondWithErrors(log));
  koa.use(guardRequests(guards));
  koa.use(cache.middleware);
  koa.use((ctx) => {
    handOver(ctx.url);
    ctx.status = 299;
    ctx.body = 'from the route';
  });
  const server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

describe('createAnswerCache', () => {
  let server: Server;
  let base: string;
  let state: ServiceState;
  let handedOver: string[];
  let logged: string[];
  let checks: CheckScope[];
  let changeOnCheck: boolean;
  let refuseEverything = false;
  let failDerive = false;
  /** Targets the state answers by itself (an address naming the last build's bytes), and how often one was asked for. */
  let derivable: Map<string, string>;
  let derivations: number;
  // A guard added to the list: it runs before the cache, as every guard does.
  const refuseWhenAsked: RequestGuard = () => (refuseEverything ? new ServiceError('REQUEST_INVALID', 'refused by a guard added to the list') : null);
  const derive: AnswerCacheDeps['derive'] = (path, querystring, _token, current) => {
    derivations += 1;
    if (failDerive) throw new Error('a defect while deriving');
    const text = derivable.get(querystring ? `${path}?${querystring}` : path);
    return text === undefined ? null : { ...answer({ state: current, body: Buffer.from(text), immutable: true }), unchecked: true };
  };
  const cache = createAnswerCache({
    getState: () => state,
    freshness: {
      check: async (scope) => {
        checks.push(scope);
        if (changeOnCheck) state = { ...state };
      },
    },
    derive,
  });
  const answer = (overrides: Partial<CachedAnswer> = {}): CachedAnswer => ({
    state,
    scope: { kind: 'variant', module: '@t/app/main', variant: 'browser.development' },
    hash: 'h1',
    type: 'text/javascript; charset=utf-8',
    anyOrigin: false,
    body: Buffer.from('export const cached = 1;\n'),
    ...overrides,
  });

  before(async () => {
    handedOver = [];
    logged = [];
    ({ server, base } = await listen(cache, [...requestGuards({ allowedHosts: [], anyAddress: false }), refuseWhenAsked], (url) => handedOver.push(url), (message) => logged.push(message)));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    state = initialState();
    handedOver = [];
    logged = [];
    checks = [];
    changeOnCheck = false;
    refuseEverything = false;
    failDerive = false;
    derivable = new Map();
    derivations = 0;
  });

  it('hands a request it never answered to the route', async () => {
    const res = await get(base, '/m/never');
    expect(res.status).to.equal(299);
    expect(handedOver).to.deep.equal(['/m/never']);
  });

  it('answers a remembered target itself, after the check of its scope, with the headers of an output', async () => {
    cache.remember('/m/a', answer());
    const res = await get(base, '/m/a');
    expect(handedOver).to.deep.equal([]);
    expect(checks).to.deep.equal([{ kind: 'variant', module: '@t/app/main', variant: 'browser.development' }]);
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('export const cached = 1;\n');
    expect(res.headers).to.include({ etag: '"h1"', 'cache-control': 'no-cache', 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' });
    expect(res.headers).to.not.have.property('access-control-allow-origin');
  });

  it('answers what the state gives a target by itself, before the route and without the check, and keeps it for that state', async () => {
    derivable.set('/m/named?v=h1', 'export const named = 1;\n');
    const res = await get(base, '/m/named?v=h1');
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('export const named = 1;\n');
    expect(res.headers).to.include({ etag: '"h1"', 'cache-control': 'public, max-age=31536000, immutable' });
    expect(handedOver).to.deep.equal([]);
    expect(checks).to.deep.equal([]);
    expect((await get(base, '/m/named?v=h1')).status).to.equal(200);
    expect(derivations, 'derived once for the state').to.equal(1);
    // Still behind the guards and the cross-site rule of development output.
    expect((await get(base, '/m/named?v=h1', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })).status).to.equal(299);
    expect(handedOver).to.deep.equal(['/m/named?v=h1']);
  });

  it('asks the state again once it changed, before taking what it stored', async () => {
    cache.remember('/m/e', answer());
    state = { ...state };
    derivable.set('/m/e', 'export const derived = 2;\n');
    expect((await get(base, '/m/e')).text).to.equal('export const derived = 2;\n');
    derivable.delete('/m/e');
    state = { ...state };
    expect((await get(base, '/m/e')).status, 'nothing to derive, the stored answer is of another state').to.equal(299);
  });

  it('hands over once the state changed, and when the check itself finds a change', async () => {
    cache.remember('/m/b', answer());
    state = { ...state };
    expect((await get(base, '/m/b')).status).to.equal(299);
    cache.remember('/m/c', answer());
    changeOnCheck = true;
    expect((await get(base, '/m/c')).status).to.equal(299);
    expect(handedOver).to.deep.equal(['/m/b', '/m/c']);
  });

  it('answers 304 to a matching If-None-Match, but not when the request asks for no cache', async () => {
    cache.remember('/m/d', answer());
    const fresh = await get(base, '/m/d', { 'if-none-match': '"h1"' });
    expect(fresh.status).to.equal(304);
    expect(fresh.body.length).to.equal(0);
    expect((await get(base, '/m/d', { 'if-none-match': 'W/"h1"' })).status).to.equal(304);
    expect((await get(base, '/m/d', { 'if-none-match': '"other"' })).status).to.equal(200);
    expect((await get(base, '/m/d', { 'if-none-match': '"h1"', 'cache-control': 'no-cache' })).status).to.equal(200);
  });

  it('never answers what a guard refuses: a foreign Host, another method, a guard added to the list', async () => {
    cache.remember('/m/e', answer());
    expect((await get(base, '/m/e', { host: 'evil.test' })).json().code).to.equal('HOST_NOT_ALLOWED');
    expect((await get(base, '/m/e', {}, 'POST')).json().code).to.equal('METHOD_NOT_ALLOWED');
    refuseEverything = true;
    expect((await get(base, '/m/e')).json().code).to.equal('REQUEST_INVALID');
    refuseEverything = false;
    expect((await get(base, '/m/e')).status).to.equal(200);
    expect(checks, 'no refused request reached the cache').to.have.length(1);
  });

  it('hands a cross-site load of development output to the route, which refuses it', async () => {
    cache.remember('/m/e', answer());
    await get(base, '/m/e', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(handedOver).to.deep.equal(['/m/e']);
  });

  it('answers a defect inside it 500 INTERNAL_ERROR through the error writer, and serves on', async () => {
    failDerive = true;
    const failed = await get(base, '/m/defect?v=h1');
    expect(failed.status).to.equal(500);
    expect(failed.json().code).to.equal('INTERNAL_ERROR');
    expect(logged.join('\n')).to.contain('a defect while deriving');
    failDerive = false;
    derivable.set('/m/defect?v=h1', 'export const after = 1;\n');
    expect((await get(base, '/m/defect?v=h1')).text).to.equal('export const after = 1;\n');
  });

  it('serves production output cross-site, with the wildcard CORS header', async () => {
    cache.remember('/m/f', answer({ anyOrigin: true }));
    const res = await get(base, '/m/f', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(res.status).to.equal(200);
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(handedOver).to.deep.equal([]);
  });

  it('answers HEAD with the headers and no body', async () => {
    cache.remember('/m/g', answer());
    const res = await get(base, '/m/g', {}, 'HEAD');
    expect(res.status).to.equal(200);
    expect(res.headers['content-length']).to.equal(String(Buffer.byteLength('export const cached = 1;\n')));
    expect(res.body.length).to.equal(0);
  });

  it('keeps at most its limit of answers, forgetting the oldest', async () => {
    const small = createAnswerCache({ getState: () => state, freshness: { check: async () => {} }, limit: 2, prefix: '/' });
    const seen: string[] = [];
    const listening = await listen(small, requestGuards({ allowedHosts: [], anyAddress: false }), (url) => seen.push(url));
    for (const target of ['/1', '/2', '/3']) small.remember(target, answer());
    for (const target of ['/1', '/2', '/3']) await get(listening.base, target);
    await new Promise<void>((resolve) => listening.server.close(() => resolve()));
    expect(seen).to.deep.equal(['/1']);
  });
});

describe('the answer cache in the service', () => {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  const MAIN = `/m/@acme/app@1.0.0/modules/main?${DEV}`;

  before(async () => {
    root = fixtureWorkspace('basic');
    service = await serve(root);
  });
  after(() => service.close());

  it('answers a repeated request exactly as the route did', async () => {
    const first = await service.get(MAIN);
    const second = await service.get(MAIN);
    expect(second.status).to.equal(200);
    expect(second.text).to.equal(first.text);
    for (const header of ['etag', 'cache-control', 'content-type', 'content-length', 'x-content-type-options', 'access-control-allow-origin']) {
      expect(second.headers[header], header).to.equal(first.headers[header]);
    }
    const production = `/m/@acme/app@1.0.0/modules/main?${PROD}`;
    const prodFirst = await service.get(production);
    const prodSecond = await service.get(production);
    expect(prodSecond.headers['access-control-allow-origin']).to.equal('*');
    expect(prodSecond.text).to.equal(prodFirst.text);
  });

  it('never answers a repeated request with code older than the disk', async () => {
    await service.get(MAIN);
    await service.get(MAIN);
    for (let edit = 1; edit <= 3; edit += 1) {
      writeFile(root, 'packages/app/main/helper.ts', `export const HELPER_MARKER = 'CACHED_${edit}';\nexport function greet(): string {\n  return HELPER_MARKER;\n}\n`);
      const res = await service.get(MAIN);
      expect(res.text).to.contain(`CACHED_${edit}`);
      expect((await service.get(MAIN)).text).to.contain(`CACHED_${edit}`);
    }
  });

  it('still refuses a cross-site load of cached development output and a foreign Host', async () => {
    await service.get(MAIN);
    const crossSite = await service.get(MAIN, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(crossSite.status).to.equal(403);
    expect(crossSite.json().code).to.equal('CROSS_SITE_REFUSED');
    const foreign = await service.get(MAIN, { host: 'evil.test' });
    expect(foreign.status).to.equal(403);
    expect(foreign.json().code).to.equal('HOST_NOT_ALLOWED');
  });
});
