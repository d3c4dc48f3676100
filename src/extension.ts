// What an extension (a module named in CORE_SERVICE_EXTENSIONS) receives, and must export.
import type Router from '@koa/router';
import type { Observable } from 'rxjs';
import type { Readiness } from './http/readiness.js';
import type { SocketRoutes } from './http/sockets.js';
import type { OutputCache } from './outputs/output-cache.js';
import type { CoreEvent } from './store/events.js';
import type { ServiceState } from './store/state.js';
import type { PushMessage } from './protocol/push.js';

export interface ExtensionHost {
  /** The workspace directory, absolute. */
  root: string;
  /** CORE_CDN_ORIGIN without a trailing slash; null when unset. */
  cdnOrigin: string | null;
  state$: Observable<ServiceState>;
  events$: Observable<CoreEvent>;
  getState(): ServiceState;
  readiness: Readiness;
  /** How many requests are being answered (the HTTP app's count): work that can wait for them does. */
  requestsInProgress$?: Observable<number>;
  outputs: OutputCache;
  /**
   * Where joined pages may be kept across restarts, in the build cache's directory, and what joins
   * them (versions and code, as a string): absent without a build cache (README "The build cache").
   */
  savedPages?: { dir: string; identity: string };
  /** GET routes, after the Host guard and with the error answers of README "Error codes". */
  router: Router;
  sockets: SocketRoutes;
  /** Stylesheet, invalid and code messages derived from the state (README "Preview and stylesheet push"). */
  push$: Observable<PushMessage>;
  /** A line for the person running the service (stderr). */
  logger(message: string): void;
  /** A throw of the extension's own callback (a subscription, a timer): reported as an effect's failure is, an `effect.failed` event. */
  failed(name: string, error: unknown): void;
  /**
   * `end`, called when the service closes, once it answers no request and its state has ended:
   * `close()` resolves after every `end` has (README "The programmatic API": what the extension
   * started in esbuild is cancelled and waited for there).
   */
  atClose(end: () => Promise<void>): void;
}

export interface ServiceExtension {
  name: string;
  setup(host: ExtensionHost): void | Promise<void>;
}
