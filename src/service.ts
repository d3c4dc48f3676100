// The composition root: the store, its effects, the HTTP application and the extensions,
// wired together. `startService` is the programmatic API of README "The event log, replay and state subscription"; `core run` is a
// thin command over it.
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { asapScheduler, merge, share, type Observable, type Subscription } from 'rxjs';
import { createBundlerRegistry } from './bundlers/registry.js';
import { resolveModule, type ResolvedModule } from './load-module.js';
import type { ExtensionHost, ServiceExtension } from './extension.js';
import { createActivity } from './http/activity.js';
import { createApp } from './http/app.js';
import { handleClientError } from './http/client-error.js';
import { serverTimeLimits } from './http/time-limits.js';
import { createReadiness, type Readiness } from './http/readiness.js';
import { createAssetFiles } from './io/asset-files.js';
import { createOutputCache, type OutputCache } from './outputs/output-cache.js';
import { BUILD_HISTORY_LIMIT, createBuildHistory, type BuildHistory } from './store/build-history.js';
import { EVENT_FORMAT, type CoreEvent, type Facts } from './store/events.js';
import { createEventLog, type EventLog } from './store/log.js';
import { selectReport, type Report } from './store/selectors.js';
import type { ServiceState } from './store/state.js';
import { createStore, type Store } from './store/store.js';
import { createBuildRunner } from './io/build-runner.js';
import { counter } from './effects/builds.js';
import { createFileHashes, type FileHashesOptions } from './io/file-hashes.js';
import { createFreshnessCheck } from './io/freshness.js';
import { cacheLocation, createBuildCache, type SavedBuild } from './io/build-cache.js';
import { createRemoteClient, type ClientLimits } from './io/remote-cache/client.js';
import type { RemoteCacheSettings } from './io/remote-cache/settings.js';
import { createStartRestore } from './io/remote-cache/start-restore.js';
import { effectRows, type EffectDeps, type EffectName } from './effects/table.js';
import { openEventFile } from './io/event-file.js';
import { guardCallbacks, supervise } from './effects/supervisor.js';
import { pushMessages$ } from './effects/push-messages.js';
import { watchTree, type TreeWatcher } from './io/tree-watcher.js';
import { VERSION } from './version.js';
import { readWorkspace } from './workspace/read-workspace.js';
import type { WorkspaceModel } from './workspace/model.js';
import { ESBUILD_VERSION } from './bundlers/esbuild-service.js';
import { bundlersCodeHash, workspaceReaderCodeHash } from './code-hash.js';

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
  readonly internals: { store: Store; log: EventLog; outputs: OutputCache; readiness: Readiness; server: Server; history: BuildHistory };
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const root = path.resolve(options.root ?? process.cwd());
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const cdnOrigin = options.cdnOrigin ? options.cdnOrigin.replace(/\/+$/, '') : null;

  // Freezing every new object of every state costs more than all the rest of a large
  // workspace's start: on only when debugging (CORE_DEBUG_FREEZE=1) and in the tests.
  const store = createStore({ freeze: options.freeze ?? process.env.CORE_DEBUG_FREEZE === '1' });
  const log = createEventLog(store.events$);
  const history = createBuildHistory(BUILD_HISTORY_LIMIT);
  const hashes = createFileHashes(root, options.fileHashes?.now, options.fileHashes);
  const outputs = createOutputCache();
  const registry = createBundlerRegistry(root, resolveModule);
  const identity = { service: VERSION, esbuild: ESBUILD_VERSION, bundlers: bundlersCodeHash() };
  const cache = options.cache ? createBuildCache(typeof options.cache === 'string' ? path.resolve(options.cache) : cacheLocation(root), root, identity, { hashes, outputs, reader: workspaceReaderCodeHash(), logger }) : null;
  const remote = cache && options.remoteCache ? { ...options.remoteCache, client: createRemoteClient(options.remoteCache.settings, options.remoteCache.limits) } : null;
  const activity = createActivity();
  /** The tree watcher while the watch effect runs: its silence spares the check a stat (README "Addresses"). */
  let treeWatcher: TreeWatcher | null = null;
  const baseDeps: EffectDeps = {
    root,
    scheduler: asapScheduler,
    logger,
    readWorkspace: (deepImports) => readWorkspace(hashes, deepImports),
    ...(cache
      ? {
          restoreWorkspace: () => cache.restoreWorkspace(),
          restoreBuilds: remote ? createStartRestore({ cache, client: remote.client, settings: remote.settings, identity, outputs, logger }) : (workspace: WorkspaceModel) => cache.restore(workspace),
          saveBuilds: (builds: readonly SavedBuild[], state: ServiceState) => cache.save(builds, state.workspace),
        }
      : {}),
    run: createBuildRunner({ registry, outputs, hashes }),
    concurrency: options.concurrency ?? Math.max(2, os.availableParallelism()),
    buildNumbers: counter(),
    hashes,
    outputs,
    createWatcher: (dir, ignored) => (treeWatcher = watchTree(dir, { ignored })),
    // After the first page: its join and the walk of a large tree each wanted both cores.
    requestsInProgress$: activity.inProgress$,
    watchLimit: options.watchLimit ?? watchLimitFromEnvironment(logger),
    ...(options.record ? { recordFile: path.resolve(options.record) } : {}),
    openEventFile,
  };
  const deps = options.effectDeps ? options.effectDeps(baseDeps) : baseDeps;
  // A callback that is no effect reports a throw as an effect does (an `effect.failed` fact);
  // that fact goes straight to the store, so a report never reports itself.
  const callbacks = guardCallbacks((fact) => {
    try {
      store.dispatch(fact);
    } catch (error) {
      logger(`core: internal error while reducing effect.failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }, logger);
  // The one dispatch of every fact after the start: a defect in the reducer must not escape
  // as an unhandled error either.
  const dispatch = (facts: Facts): boolean => {
    try {
      store.dispatch(facts);
      return true;
    } catch (error) {
      callbacks.failed('reducer', error, `reducing ${JSON.stringify(Array.isArray(facts) ? facts.map((fact) => fact.type) : (facts as { type: string }).type)}`);
      return false;
    }
  };
  const supervised = (names: readonly EffectName[]) =>
    merge(...effectRows(names).map(([name, effect]) => supervise(name, effect, store.events$, store.state$, deps, { scheduler: deps.scheduler, logger })));
  const subscriptions: Subscription[] = [];
  subscriptions.push(store.events$.subscribe((event) => callbacks.run('history', () => history.add(event, store.getState()))));
  // Subscribed before the first event, so the log holds every one.
  subscriptions.push(supervised(['record']).subscribe(dispatch));
  store.dispatch({ type: 'service.started', format: EVENT_FORMAT, root, service: VERSION });

  const effects = supervised(['manifests', 'builds', ...(options.watch === false ? [] : (['watch'] as const)), 'outputs', 'persist']);
  subscriptions.push(effects.subscribe(dispatch));

  const freshness = createFreshnessCheck({ hashes, getState: store.getState, dispatch, failed: (error) => callbacks.failed('freshness', error), quiet: () => treeWatcher && treeWatcher.unchangedSince });
  const readiness = createReadiness({ state$: store.state$, getState: store.getState, dispatch, freshness });
  // The first read has just looked at the disk (or proved the cached model by its stats), and no
  // request waits yet: a check now would stat every manifest again for nobody.
  await readiness.workspace(undefined, true);
  const hosts = { allowedHosts: [...(options.allowedHosts ?? []), ...(WILDCARD_HOSTS.has(host) ? [] : [host])], anyAddress: WILDCARD_HOSTS.has(host) };
  const app = createApp({ readiness, freshness, getState: store.getState, state$: store.state$, outputs, assets: createAssetFiles(root), log, hosts, logger, history, cdnOrigin, root, activity, eventStreamBufferBytes: options.eventStreamBufferBytes });

  // Not an effect (it derives messages, not facts), but it may fail like one.
  const push$ = supervise('push', (_event$, state$) => pushMessages$(state$), store.events$, store.state$, deps, { scheduler: deps.scheduler, logger, onFailed: dispatch }).pipe(share());
  const extensionHost: ExtensionHost = {
    root,
    cdnOrigin,
    state$: store.state$,
    events$: store.events$,
    getState: store.getState,
    readiness,
    outputs,
    ...(cache ? { savedPages: { dir: path.join(cache.dir, 'pages'), identity: JSON.stringify(identity) } } : {}),
    router: app.router,
    sockets: app.sockets,
    push$,
    logger,
    failed: callbacks.failed,
  };
  const loaded: string[] = [];
  for (const wanted of options.extensions ?? []) {
    const extension = typeof wanted === 'string' ? await loadExtension(wanted, root) : wanted;
    await extension.setup(extensionHost);
    loaded.push(extension.name);
  }

  let server: Server;
  try {
    server = await listen(app, options.port ?? 0, host, options.strictPort ?? true);
  } catch (error) {
    // Nothing may keep running for a service that never started: effects, watcher, esbuild.
    for (const subscription of subscriptions) subscription.unsubscribe();
    log.close();
    store.complete();
    await registry.dispose();
    remote?.client.close();
    throw error;
  }
  const port = (server.address() as { port: number }).port;
  const urlHost = WILDCARD_HOSTS.has(host) ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    root,
    state$: store.state$,
    events$: store.events$,
    report: async () => selectReport(await readiness.settled()),
    extensions: loaded,
    internals: { store, log, outputs, readiness, server, history },
    close() {
      closing ??= (async () => {
        for (const client of app.koa.ws.server?.clients ?? []) client.terminate();
        app.koa.ws.server?.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        subscriptions[subscriptions.length - 1]?.unsubscribe(); // the effects
        // The effects' last cache write (what settled since the one before) is not cut short.
        await cache?.idle();
        remote?.client.close();
        store.dispatch({ type: 'service.stopped' });
        for (const subscription of subscriptions) subscription.unsubscribe();
        log.close();
        store.complete();
        await registry.dispose();
      })();
      return closing;
    },
  };
}

function watchLimitFromEnvironment(logger: (message: string) => void): number | undefined {
  const text = process.env.CORE_WATCH_LIMIT;
  if (text === undefined || text === '') return undefined;
  const limit = Number(text);
  if (Number.isInteger(limit) && limit > 0) return limit;
  logger(`core: CORE_WATCH_LIMIT must be a whole number above 0; got "${text}", so the default applies`);
  return undefined;
}

async function loadExtension(specifier: string, root: string): Promise<ServiceExtension> {
  let resolved: ResolvedModule;
  try {
    resolved = resolveModule(specifier, root);
  } catch (error) {
    throw new Error(`the extension ${specifier} (CORE_SERVICE_EXTENSIONS) cannot be resolved from the workspace or from @core-js/packages: ${(error as Error).message}`);
  }
  const module = (await resolved.load()) as { default?: ServiceExtension } & Partial<ServiceExtension>;
  const extension = module.default ?? (module as ServiceExtension);
  if (typeof extension?.setup !== 'function') throw new Error(`the extension ${specifier} exports no setup(host) (a default export { name, setup })`);
  return { name: extension.name ?? specifier, setup: extension.setup.bind(extension) };
}

/** The service could not start listening: `PORT_IN_USE` or `HOST_UNAVAILABLE`, a condition, not a defect. */
export class ListenError extends Error {
  constructor(
    readonly code: 'PORT_IN_USE' | 'HOST_UNAVAILABLE',
    readonly port: number,
    readonly host: string,
    message: string,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

/** Ports tried after a busy one when `strictPort` is false (as Vite does). */
export const PORT_ATTEMPTS = 20;

async function listen(app: ReturnType<typeof createApp>, port: number, host: string, strictPort: boolean): Promise<Server> {
  const attempts = strictPort || port === 0 ? 1 : PORT_ATTEMPTS;
  for (let attempt = 0; ; attempt += 1) {
    const candidate = port + attempt;
    try {
      return await listenOnce(app, candidate, host);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE' && attempt + 1 < attempts && candidate < 65535) continue;
      if (code === 'EADDRINUSE') {
        const tried = attempts > 1 ? `ports ${port} to ${candidate} are` : `port ${port} is`;
        throw new ListenError('PORT_IN_USE', port, host, `${tried} in use on ${host}`);
      }
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new ListenError('HOST_UNAVAILABLE', port, host, `${host} is not an address of this machine`);
      throw error;
    }
  }
}

function listenOnce(app: ReturnType<typeof createApp>, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Slow clients may not hold sockets open forever (src/http/time-limits.ts).
    const server = createServer(serverTimeLimits, app.listener);
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; the Host
    // guard answers it instead, with the JSON body of the README's error table (HOST_NOT_ALLOWED).
    (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
    // Two Host headers (a request HTTP/1.1 says must be refused) would reach the guard as the
    // first alone; joined, they make one malformed value that the guard, the WebSocket check
    // and every other reader of Host refuse. Other duplicate headers are lists anyway.
    (server as Server & { joinDuplicateHeaders: boolean }).joinDuplicateHeaders = true;
    server.on('clientError', handleClientError);
    server.on('connect', app.refuseTunnel);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      // Only once listening: the WebSocket server re-emits the HTTP server's errors, and a
      // busy port would reach it as an unhandled 'error' event, a crash instead of an answer.
      app.attachSockets(server);
      resolve(server);
    });
    server.listen({ port, host: host.replace(/^\[|\]$/g, '') });
  });
}
