// The route's check before answering (README "Addresses"): it skips its own check only for a
// request the answer cache checked after it arrived; every other request is checked by the route.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BehaviorSubject } from 'rxjs';
import { expect } from 'chai';
import { createAnswerCache, type CachedAnswer } from '../../src/http/answer-cache.js';
import { ServiceError } from '../../src/http/errors.js';
import type { HttpContext } from '../../src/http/context.js';
import { answerOutput } from '../../src/http/output-answer.js';
import { createReadiness } from '../../src/http/readiness.js';
import type { CheckScope } from '../../src/io/freshness.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { edit } from '../helpers/edit.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { serve } from '../helpers/service.js';

describe('answerOutput and the answer cache: one check per request', () => {
  let server: Server;
  let base: string;
  const state$ = new BehaviorSubject<ServiceState>({ ...initialState(), workspaceRead: true });
  let checks: CheckScope[];
  /** The check finds a change: a new state, as a `files.changed` makes one. */
  let changeOnCheck = false;
  const freshness = {
    check: async (scope: CheckScope) => {
      checks.push(scope);
      if (changeOnCheck) state$.next({ ...state$.value });
      return true;
    },
  };
  const readiness = createReadiness({ state$, getState: () => state$.value, dispatch: () => true, freshness });
  const outputs = createOutputCache();
  const cache = createAnswerCache({ getState: () => state$.value, freshness, guards: [], logger: () => {} });
  const address = { kind: 'modules' as const, packageName: '@t/app', version: '1.0.0', segments: ['main'] };
  const scope: CheckScope = { kind: 'variant', module: '@t/app/main', variant: 'browser.development' };

  before(async () => {
    // The route's part: `answerOutput` with the request, as the modules route calls it. The
    // state holds no package, so the answer is a 404 once the workspace was waited for.
    server = createServer(
      cache.listener((req, res) => {
        answerOutput({ req } as HttpContext, address, developmentVariant('browser'), undefined, { readiness, outputs }).then(
          () => res.writeHead(200).end(),
          (error: unknown) => res.writeHead(error instanceof ServiceError ? error.status : 500).end(),
        );
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    checks = [];
    changeOnCheck = false;
  });

  it('checks a request the answer cache did not check', async () => {
    expect((await get(base, '/m/not-remembered')).status).to.equal(404);
    expect(checks).to.deep.equal([scope]);
  });

  it('does not check again a request the answer cache checked and handed over', async () => {
    const remembered: CachedAnswer = { state: state$.value, scope, hash: 'h1', type: 'text/javascript; charset=utf-8', anyOrigin: false, body: Buffer.from('x') };
    cache.remember('/m/remembered', remembered);
    changeOnCheck = true;
    expect((await get(base, '/m/remembered')).status).to.equal(404);
    expect(checks, 'the cache checked it; the route did not again').to.deep.equal([scope]);
  });
});

describe('answerOutput in the service without a watcher: a request the answer cache did not check', () => {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async () => {
    root = fixtureWorkspace('basic');
    service = await serve(root, { watch: false });
  });
  after(() => service.close());

  it('sees a file changed on disk since the last answer of its variant', async () => {
    expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text).to.contain('APP_HELPER_MARKER');
    edit(root, 'packages/app/main/helper.ts', (text) => text.replace('APP_HELPER_MARKER', 'ROUTE_CHECKED_EDIT'));
    // The same variant by another request-target: the answer cache holds none for it, so only
    // the route's own check can see the edit (no watcher runs).
    const reordered = DEV.split('&').reverse().join('&');
    expect(service.internals.answers.holds(`/m/@acme/app@1.0.0/modules/main?${reordered}`)).to.equal(false);
    expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${reordered}`)).text).to.contain('ROUTE_CHECKED_EDIT');
  });
});
