// The Koa application. The middleware order, in one list:
//   1. respondWithErrors     every error becomes the JSON body of the README's "Error codes"
//   2. guardRequests         the guards of every request (guards/request-guards.ts): REQUEST_INVALID,
//                            METHOD_NOT_ALLOWED, HOST_NOT_ALLOWED (SECURITY.md)
//   3. router                /m/, /state, /log, the dashboard (/ for browsers, /dashboard/,
//                            /state/details), and what extensions add (/preview/, /u/)
//   4. notDeclared           OUTPUT_NOT_AVAILABLE for every other path (PREVIEW_NOT_LOADED under
//                            /preview/ while no extension serves it)
// The same guards run first in the answer cache in front of Koa, which answers a repeated request
// for an output whose state has not changed (answer-cache.ts), and in `verifyUpgrade` for
// WebSocket upgrades (koa-websocket), which then checks the channel and the Origin.
import type { RequestListener, Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import websockify from 'koa-websocket';
import type { BuildHistory } from '../store/build-history.js';
import type { EventLog } from '../store/log.js';
import type { ServiceState } from '../store/state.js';
import type { ModuleModel } from '../workspace/model.js';
import type { OutputCache } from '../outputs/output-cache.js';
import type { AssetFiles } from '../io/asset-files.js';
import type { Observable } from 'rxjs';
import { ServiceError } from './errors.js';
import type { HostPolicy } from './guards/guard-host.js';
import { guardRequests, requestGuards } from './guards/request-guards.js';
import { refuseTunnel } from './client-error.js';
import { respondWithErrors } from './middleware/respond-with-errors.js';
import type { Readiness } from './readiness.js';
import type { FreshnessCheck } from '../io/freshness.js';
import type { Activity } from './activity.js';
import { createAnswerCache, type AnswerCache } from './answer-cache.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { logRoute } from './routes/log.js';
import { modulesRoute, pushedSheetAnswer, uncheckedAnswer } from './routes/modules.js';
import { stateRoute } from './routes/state.js';
import { pingSockets } from './time-limits.js';
import { createSocketRoutes, verifyUpgrade, type SocketRoutes } from './sockets.js';

export interface AppDeps {
  readiness: Readiness;
  freshness: FreshnessCheck;
  getState(): ServiceState;
  state$: Observable<ServiceState>;
  outputs: OutputCache;
  assets: AssetFiles;
  log: EventLog;
  hosts: HostPolicy;
  /** Where the service's own messages go (a defect's stack, a failed stream). */
  logger(message: string): void;
  history: BuildHistory;
  cdnOrigin: string | null;
  root: string;
  /** Counts the requests being answered (for the watcher's first walk, which waits for them). */
  activity?: Activity;
  /** Bytes of events a reader of /state or /log may leave untaken before it is dropped (event-stream.ts). */
  eventStreamBufferBytes?: number;
}

export interface App {
  koa: websockify.App;
  router: Router;
  sockets: SocketRoutes;
  /** The request listener of the HTTP server: the answer cache, then Koa. */
  listener: RequestListener;
  /** Attaches the WebSocket routes to the server's upgrades. */
  attachSockets(server: Server): void;
  /** The server's 'connect' listener: CONNECT refused by the guards (client-error.ts). */
  refuseTunnel: ReturnType<typeof refuseTunnel>;
  /** The answer cache in front of Koa (answer-cache.ts). */
  answers: AnswerCache;
  /** Keeps the answer of a sheet the push has just named (`href`), made from its module and hash: the page's fetch that follows finds it. */
  primeSheet(href: string, module: ModuleModel, hash: string, state: ServiceState): void;
}

const isPreviewPath = (path: string) => path === '/preview' || path.startsWith('/preview/');

export function createApp(deps: AppDeps): App {
  const guards = requestGuards(deps.hosts);
  const sockets = createSocketRoutes();
  const socketOptions = { verifyClient: verifyUpgrade(sockets, guards), maxPayload: 4096 };
  const koa = websockify(new Koa(), socketOptions as never);
  const answers = createAnswerCache({
    getState: deps.getState,
    freshness: deps.freshness,
    guards,
    logger: deps.logger,
    derive: (target, state) => uncheckedAnswer(target, state, deps.outputs),
  });
  // Addresses are exact: no trailing-slash alias (strict) and no case alias (sensitive), so
  // `/M/...` or `/STATE` name nothing rather than a second address of the same answer.
  const router = new Router({ strict: true, sensitive: true });
  router.get('/m/*rest', modulesRoute({ ...deps, answers }));
  router.get('/state', stateRoute({ readiness: deps.readiness, state$: deps.state$, bufferBytes: deps.eventStreamBufferBytes }));
  router.get('/log', logRoute(deps.log, undefined, deps.eventStreamBufferBytes));
  const servesPreview = () => router.match('/preview/', 'GET').route;
  const dashboard = dashboardRoutes({ ...deps, previewAddress: () => (servesPreview() ? '/preview/' : null) });
  router.get('/', dashboard.page);
  router.get('/dashboard/:file', dashboard.file);
  router.get('/state/details', dashboard.details);

  // Errors after the answer started (a streamed body): a client that went away, such as a
  // closed /state event stream, is no defect; Koa's default handler would print each one.
  koa.on('error', function reportStreamError(error: Error & { code?: string }) {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    deps.logger(`core: error while answering: ${error.stack ?? error.message}`);
  });
  if (deps.activity) koa.use(deps.activity.middleware);
  koa.use(respondWithErrors(deps.logger));
  koa.use(guardRequests(guards));
  koa.use(router.routes());
  koa.use(async function notDeclared(ctx, next) {
    await next();
    if (ctx.body === undefined && ctx.status === 404) {
      // The preview is the development extension's: without it the cause is the missing
      // extension, not an undeclared module (README "The command line", `--dev`).
      if (isPreviewPath(ctx.path) && !servesPreview()) {
        throw new ServiceError('PREVIEW_NOT_LOADED', `nothing is served at ${ctx.path}: the preview is the development extension's, which this service did not load`);
      }
      throw new ServiceError('OUTPUT_NOT_AVAILABLE', `nothing is served at ${ctx.path.length > 200 ? `${ctx.path.slice(0, 200)}…` : ctx.path}`);
    }
  });
  koa.ws.use(async (ctx) => {
    const handler = sockets.get(ctx.path);
    if (handler) handler(ctx.websocket, ctx.req);
    else ctx.websocket.close(1008, 'no such channel');
  });
  return {
    koa,
    router,
    sockets,
    listener: answers.listener(koa.callback()),
    refuseTunnel: refuseTunnel(guards),
    answers,
    primeSheet(href, module, hash, state) {
      const answer = pushedSheetAnswer(module, hash, state, deps.outputs);
      if (answer) answers.remember(href, answer);
    },
    attachSockets: (server) => {
      koa.ws.listen({ server, ...socketOptions } as never);
      pingSockets(koa.ws.server!);
    },
  };
}
