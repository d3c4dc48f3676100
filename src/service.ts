// The composition root: the store, its effects, the HTTP application and the extensions,
// wired together; each part is a file of src/service/ (ARCHITECTURE.md "Layers").
// `startService` is the programmatic API of README "The event log, replay and state
// subscription"; `core run` is a thin command over it.
import { map, share, tap, type Observable } from 'rxjs';
import type { Server } from 'node:http';
import type { ExtensionHost, ServiceExtension } from './extension.js';
import type { AnswerCache } from './http/answer-cache.js';
import { joinedPagesCodeHash } from './code-hash.js';
import { createReadiness, type Readiness } from './http/readiness.js';
import { createAssetFiles } from './io/asset-files.js';
import type { FileHashesOptions } from './io/file-hashes.js';
import { realDirectory } from './io/confined-paths.js';
import { createFreshnessCheck } from './io/freshness.js';
import type { ClientLimits } from './io/remote-cache/client.js';
import type { RemoteCacheSettings } from './io/remote-cache/settings.js';
import type { OutputCache } from './outputs/output-cache.js';
import { BUILD_HISTORY_LIMIT, createBuildHistory, type BuildHistory } from './store/build-history.js';
import type { CoreEvent } from './store/events.js';
import { createEventLog, type EventLog } from './store/log.js';
import { selectReport, type Report } from './store/selectors.js';
import type { ServiceState } from './store/state.js';
import { createStore, type Store } from './store/store.js';
import type { EffectDeps } from './effects/table.js';
import { closeOnce, stopUnstarted } from './service/close.js';
import { createEffectDeps } from './service/effect-deps.js';
import { startEffects } from './service/effects.js';
import { setUpExtensions } from './service/extensions.js';
import { acceptedHosts, listen, serviceUrl } from './service/listen.js';

export { ListenError, PORT_ATTEMPTS } from './service/listen.js';

export interface ServiceOptions {
  /** The workspace directory (holding core.json). Default: the current directory. */
  root?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default true: a busy `port` is a `ListenError` (`PORT_IN_USE`); false: the next free port of the following ones is taken. */
  strictPort?: boolean;
  /** Default 127.0.0.1: loopback only. */
  host?: string;
  /** Host names accepted in `Host` besides localhost, 127.0.0.1, [::1] and `host`. */
  allowedHosts?: string[];
  /** Extensions: module specifiers such as `@core-js/packages/development`, or loaded extensions. Default: none. */
  extensions?: (string | ServiceExtension)[];
  /** CORE_CDN_ORIGIN. Default: none (the preview answers 503 PREVIEW_CDN_UNSET). */
  cdnOrigin?: string | null;
  /** Append every event to this NDJSON file. */
  record?: string;
  /** Watch the file system (default true); without it, the check before answering still sees every change. */
  watch?: boolean;
  /** Build jobs running at once. Default: the number of cores (at least 2). */
  concurrency?: number;
  /** Lines for the person running the service. Default: stderr. */
  logger?: (message: string) => void;
  /** Freeze every state, so that a mutation throws (slower). Default: CORE_DEBUG_FREEZE=1. */
  freeze?: boolean;
  /** Directories (and links to files) the watcher watches at most. Default: CORE_WATCH_LIMIT, else 50,000. */
  watchLimit?: number;
  /**
   * The build cache (README "The build cache"): true for its usual place (`cacheLocation`), a
   * directory, or false. Default false here; `core run` turns it on unless `--no-cache`.
   */
  cache?: boolean | string;
  /** For tests: the clock and the stat of the file hashes (a file system of whole seconds, simulated), or a timestamp granularity. */
  fileHashes?: FileHashesOptions & { now?: () => number };
  /**
   * The team's remote cache (README "A team's remote cache"), asked at start for what the build
   * cache lacks; only read, and only with `cache` on. Default: none.
   */
  remoteCache?: { settings: RemoteCacheSettings; limits?: ClientLimits } | null;
  /** For tests and tools: changes what the effects are given (to inject a fault, for instance). */
  effectDeps?: (deps: EffectDeps) => EffectDeps;
  /** Bytes of events a reader of /state or /log may leave untaken before it is dropped (README "The event log, replay and state subscription"). Default 1 MiB. */
  eventStreamBufferBytes?: number;
}

export type { EffectDeps } from './effects/table.js';

export interface Service {
  /** `http://HOST:PORT/` */
  url: string;
  port: number;
  root: string;
  state$: Observable<ServiceState>;
  events$: Observable<CoreEvent>;
  /** The `/state` report, once every module is built from the current sources. */
  report(): Promise<Report>;
  /** Loaded extensions by name. */
  extensions: string[];
  close(): Promise<void>;
  /** Internals for tools and tests. */
  readonly internals: { store: Store; log: EventLog; outputs: OutputCache; readiness: Readiness; server: Server; history: BuildHistory; answers: AnswerCache };
}

/**
 * The HTTP layer (Koa, its WebSocket server, the routes), loaded once the workspace is read: its
 * loading (~15 ms of a start's CPU) then runs while the first builds do, not before they are
 * dispatched (ARCHITECTURE.md "The command in one file").
 */
export const loadHttpLayer = () => import('./http/app.js');

// The origin `--cdn local` names (README "The local CDN"); the development extension that serves
// it is loaded only when asked, so its module's constant is not imported here.
const LOCAL_CDN_ORIGIN = 'local';

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const root = realDirectory(options.root ?? process.cwd());
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const cdnOrigin = options.cdnOrigin ? options.cdnOrigin.replace(/\/+$/, '') : null;

  // Freezing every new object of every state costs more than all the rest of a large
  // workspace's start: on only when debugging (CORE_DEBUG_FREEZE=1) and in the tests.
  const store = createStore({ freeze: options.freeze ?? process.env.CORE_DEBUG_FREEZE === '1' });
  const log = createEventLog(store.events$);
  const history = createBuildHistory(BUILD_HISTORY_LIMIT);
  const machinery = createEffectDeps(root, logger, options);
  const { deps, hashes, outputs, activity } = machinery;
  const { dispatch, callbacks, subscriptions, pushed$ } = startEffects(store, history, deps, { root, watch: options.watch !== false, localCdn: cdnOrigin === LOCAL_CDN_ORIGIN, logger });

  const freshness = createFreshnessCheck({ hashes, getState: store.getState, dispatch, failed: (error) => callbacks.failed('freshness', error), quiet: machinery.quiet });
  const readiness = createReadiness({ state$: store.state$, getState: store.getState, dispatch, freshness });
  // The first read has just looked at the disk (or proved the cached model by its stats), and no
  // request waits yet: a check now would stat every manifest again for nobody.
  await readiness.workspace(undefined, true);
  const { createApp } = await loadHttpLayer();
  const hosts = acceptedHosts(host, options.allowedHosts);
  const app = createApp({ readiness, freshness, getState: store.getState, state$: store.state$, outputs, assets: createAssetFiles(root), log, hosts, logger, history, cdnOrigin, root, activity, eventStreamBufferBytes: options.eventStreamBufferBytes });

  const { state$, events$, getState } = store;
  // A pushed sheet's answer is kept as the push goes out, made from what the push knew: the page's
  // fetch that follows parses nothing (ARCHITECTURE.md "One stylesheet edit"). Kept once this turn
  // has sent the message: no request is read before then, and the message leaves sooner.
  const push$ = pushed$.pipe(
    tap(({ sheet, message }) => {
      if (sheet && message.type === 'styles') queueMicrotask(() => callbacks.run('push', () => app.primeSheet(message.href, sheet.module, sheet.hash, sheet.state)));
    }),
    map(({ message }) => message),
    share(),
  );
  // The bundled preview keeps its joined pages beside the build cache (README "The build cache").
  const savedPages = machinery.cache ? { savedPages: { dir: machinery.cache.pagesDir, identity: JSON.stringify({ ...machinery.identity, pages: joinedPagesCodeHash() }) } } : {};
  const extensionEnds: (() => Promise<void>)[] = [];
  const atClose = (end: () => Promise<void>) => void extensionEnds.push(end);
  const extensionHost: ExtensionHost = { root, cdnOrigin, state$, events$, getState, readiness, requestsInProgress$: activity.inProgress$, outputs, ...savedPages, router: app.router, sockets: app.sockets, push$, logger, failed: callbacks.failed, atClose };
  const parts = { store, log, subscriptions, registry: machinery.registry, cache: machinery.cache, remoteClient: machinery.remoteClient, hashes, extensionEnds };
  let loaded: string[];
  let server: Server;
  try {
    // An extension that cannot load or set up stops the start as a port in use does.
    loaded = await setUpExtensions(options.extensions ?? [], extensionHost);
    server = await listen(app, options.port ?? 0, host, options.strictPort ?? true);
  } catch (error) {
    await stopUnstarted(parts);
    throw error;
  }
  const port = (server.address() as { port: number }).port;
  return {
    url: serviceUrl(host, port),
    port,
    root,
    state$,
    events$,
    report: async () => selectReport(await readiness.settled()),
    extensions: loaded,
    internals: { store, log, outputs, readiness, server, history, answers: app.answers },
    close: closeOnce(parts, app, server),
  };
}
