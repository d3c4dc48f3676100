// The answer cache in front of Koa: repeated answers while the state stays the same object,
// after the check against the disk, with the guards of the route; a defect inside it is a 500.
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { checkedByCache, createAnswerCache, type CachedAnswer } from '../../src/http/answer-cache.js';
import { ServiceError } from '../../src/http/errors.js';
import { requestGuards, type RequestGuard } from '../../src/http/guards/request-guards.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import type { CheckScope } from '../../src/io/freshness.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { writeFile } from '../helpers/workspace.js';

describe('createAnswerCache', () => {
  let server: Server;
  let base: string;
  let state: ServiceState;
  let handedOver: string[];
  /** Of each request handed over, whether the cache says it checked it. */
  let checkedOnes: boolean[];
  let logged: string[];
  let failDerive = false;
  let checks: CheckScope[];
  let changeOnCheck: boolean;
  /** The check's pass throws (a defect): it proves nothing. */
  let checkThrows = false;
  let refuseEverything = false;
  /** Targets the state answers by itself (an address naming the last build's bytes), and how often one was asked for. */
  let derivable: Map<string, string>;
  let derivations: number;
  // A guard added to the list: the cache runs the list it is given, as Koa does.
  const refuseWhenAsked: RequestGuard = () => (refuseEverything ? new ServiceError('REQUEST_INVALID', 'refused by a guard added to the list') : null);
  const cache = createAnswerCache({
    getState: () => state,
    freshness: {
      check: async (scope) => {
        checks.push(scope);
        if (changeOnCheck) state = { ...state };
        return !checkThrows;
      },
    },
    guards: [...requestGuards({ allowedHosts: [], anyAddress: false }), refuseWhenAsked],
    logger: (message) => void logged.push(message),
    derive: (target, current) => {
      derivations += 1;
      if (failDerive) throw new Error('a defect while deriving');
      const text = derivable.get(target);
      return text === undefined ? null : { ...answer({ state: current, body: Buffer.from(text), immutable: true }), unchecked: true };
    },
  });
  const next: RequestListener = (req: IncomingMessage, res) => {
    handedOver.push(req.url ?? '');
    checkedOnes.push(checkedByCache(req));
    res.writeHead(299, { 'content-type': 'text/plain' });
    res.end('from koa');
  };
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
    server = createServer(cache.listener(next));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    state = initialState();
    handedOver = [];
    checkedOnes = [];
    logged = [];
    failDerive = false;
    checks = [];
    changeOnCheck = false;
    refuseEverything = false;
    derivable = new Map();
    derivations = 0;
  });

  it('hands a request it never answered to Koa', async () => {
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

  it('answers what the state gives a target by itself, before Koa and without the check, and keeps it for that state', async () => {
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
    // Only the one whose check found the change was checked: its route owes it no second check.
    expect(checkedOnes).to.deep.equal([false, true]);
    expect((await get(base, '/m/never')).status).to.equal(299);
    expect(checkedOnes).to.deep.equal([false, true, false]);
  });

  it('hands over a request whose check threw, as one the route must check again', async () => {
    cache.remember('/m/t', answer());
    checkThrows = true;
    try {
      expect((await get(base, '/m/t')).status, 'nothing was proven: not the stored answer').to.equal(299);
    } finally {
      checkThrows = false;
    }
    expect(handedOver).to.deep.equal(['/m/t']);
    expect(checkedOnes).to.deep.equal([false]);
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

  it('hands over a foreign Host, another method and a cross-site load of development output', async () => {
    cache.remember('/m/e', answer());
    await get(base, '/m/e', { host: 'evil.test' });
    await get(base, '/m/e', {}, 'POST');
    await get(base, '/m/e', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(handedOver).to.deep.equal(['/m/e', '/m/e', '/m/e']);
  });

  it('hands over what any guard of its list refuses: a guard added to the list protects cached answers', async () => {
    cache.remember('/m/guarded', answer());
    refuseEverything = true;
    expect((await get(base, '/m/guarded')).status).to.equal(299);
    refuseEverything = false;
    expect((await get(base, '/m/guarded')).status).to.equal(200);
    expect(handedOver).to.deep.equal(['/m/guarded']);
  });

  it('answers a defect inside it 500 INTERNAL_ERROR, as the error writer of Koa does, and serves on', async () => {
    failDerive = true;
    const failed = await get(base, '/m/defect?v=h1');
    expect(failed.status).to.equal(500);
    expect(failed.json().code).to.equal('INTERNAL_ERROR');
    expect(failed.headers).to.include({ 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' });
    expect(logged.join('\n')).to.contain('a defect while deriving');
    failDerive = false;
    derivable.set('/m/defect?v=h1', 'export const after = 1;\n');
    expect((await get(base, '/m/defect?v=h1')).text).to.equal('export const after = 1;\n');
    expect(handedOver).to.deep.equal([]);
  });

  it('answers a check that fails 500 INTERNAL_ERROR', async () => {
    const failing = createAnswerCache({ getState: () => state, freshness: { check: () => Promise.reject(new Error('a defect while checking')) }, guards: [], logger: (message) => void logged.push(message) });
    const failingServer = createServer(failing.listener(next));
    await new Promise<void>((resolve) => failingServer.listen(0, '127.0.0.1', resolve));
    failing.remember('/m/checked', answer());
    const res = await get(`http://127.0.0.1:${(failingServer.address() as AddressInfo).port}/`, '/m/checked');
    await new Promise<void>((resolve) => failingServer.close(() => resolve()));
    expect(res.status).to.equal(500);
    expect(res.json().code).to.equal('INTERNAL_ERROR');
    expect(logged.join('\n')).to.contain('a defect while checking');
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
    const small = createAnswerCache({ getState: () => state, freshness: { check: async () => true }, guards: requestGuards({ allowedHosts: [], anyAddress: false }), logger: () => {}, limit: 2, prefix: '/' });
    const seen: string[] = [];
    const smallServer = createServer(small.listener((req, res) => (seen.push(req.url ?? ''), res.end())));
    await new Promise<void>((resolve) => smallServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(smallServer.address() as AddressInfo).port}/`;
    for (const target of ['/1', '/2', '/3']) small.remember(target, answer());
    for (const target of ['/1', '/2', '/3']) await get(url, target);
    await new Promise<void>((resolve) => smallServer.close(() => resolve()));
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
