// The Koa application. The middleware order, in one list:
//   1. respondWithErrors     every error becomes the JSON body of contract §2
//   2. refuseUnsafeTarget    REQUEST_INVALID before anything parses the path (§11)
//   3. guardHost             HOST_NOT_ALLOWED: the DNS-rebinding guard (§2)
//   4. router                /m/, /state, /log, and what extensions add (/preview/, /u/)
//   5. notDeclared           OUTPUT_NOT_AVAILABLE for every other path
// WebSocket upgrades (koa-websocket) pass `verifyUpgrade` instead: route, Host, Origin.
import Router from '@koa/router';
import Koa from 'koa';
import websockify from 'koa-websocket';
import type { EventLog } from '../store/log.js';
import type { ServiceState } from '../store/state.js';
import type { OutputCache } from '../outputs/output-cache.js';
import type { AssetFiles } from '../outputs/asset-files.js';
import type { Observable } from 'rxjs';
import { ServiceError } from './errors.js';
import { guardHost, type HostPolicy } from './middleware/guard-host.js';
import { refuseUnsafeTarget } from './middleware/refuse-unsafe-target.js';
import { respondWithErrors } from './middleware/respond-with-errors.js';
import type { Readiness } from './readiness.js';
import { logRoute } from './routes/log.js';
import { modulesRoute } from './routes/modules.js';
import { stateRoute } from './routes/state.js';
import { createSocketRoutes, verifyUpgrade, type SocketRoutes } from './sockets.js';

export interface AppDeps {
  readiness: Readiness;
  state$: Observable<ServiceState>;
  outputs: OutputCache;
  assets: AssetFiles;
  log: EventLog;
  hosts: HostPolicy;
  report(message: string): void;
}

export interface App {
  koa: websockify.App;
  router: Router;
  sockets: SocketRoutes;
}

export function createApp(deps: AppDeps): App {
  const sockets = createSocketRoutes();
  const koa = websockify(new Koa(), { verifyClient: verifyUpgrade(sockets, deps.hosts), maxPayload: 4096 } as never);
  const router = new Router({ strict: true });
  router.get('/m/*rest', modulesRoute(deps));
  router.get('/state', stateRoute({ readiness: deps.readiness, state$: deps.state$ }));
  router.get('/log', logRoute(deps.log));

  // Errors after the answer started (a streamed body): a client that went away, such as a
  // closed /state event stream, is no defect; Koa's default handler would print each one.
  koa.on('error', function reportStreamError(error: Error & { code?: string }) {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    deps.report(`core: error while answering: ${error.stack ?? error.message}`);
  });
  koa.use(respondWithErrors(deps.report));
  koa.use(refuseUnsafeTarget());
  koa.use(guardHost(deps.hosts));
  koa.use(router.routes());
  koa.use(async function notDeclared(ctx, next) {
    await next();
    if (ctx.body === undefined && ctx.status === 404) {
      throw new ServiceError('OUTPUT_NOT_AVAILABLE', `nothing is served at ${ctx.path.length > 200 ? `${ctx.path.slice(0, 200)}…` : ctx.path}`);
    }
  });
  koa.ws.use(async (ctx) => {
    const handler = sockets.get(ctx.path);
    if (handler) handler(ctx.websocket, ctx.req);
    else ctx.websocket.close(1008, 'no such channel');
  });
  return { koa, router, sockets };
}
