// How the service stops: after a start that never listened, and the close of a running one.
// Nothing may keep running after either: effects, watcher, esbuild, the team cache's agent.
import type { Server } from 'node:http';
import type { Subscription } from 'rxjs';
import { endedOrHungKilled } from '../bundlers/esbuild-service.js';
import type { BundlerRegistry } from '../bundlers/registry.js';
import type { App } from '../http/app.js';
import type { BuildCache } from '../io/build-cache.js';
import type { FileHashes } from '../io/file-hashes.js';
import type { RemoteClient } from '../io/remote-cache/client.js';
import type { EventLog } from '../store/log.js';
import type { Store } from '../store/store.js';

export interface StoppableParts {
  store: Store;
  log: EventLog;
  /** Every subscription of the service, the effects' own last. */
  subscriptions: readonly Subscription[];
  registry: BundlerRegistry;
  cache: BuildCache | null;
  remoteClient: RemoteClient | null;
  /** Its worker, reading ahead on the second core. */
  hashes: FileHashes;
  /** What the extensions end at the close (`ExtensionHost.atClose`), in the order given. */
  extensionEnds: readonly (() => Promise<void>)[];
}

/** Undoes a start whose server could not listen. */
export async function stopUnstarted(parts: StoppableParts): Promise<void> {
  for (const subscription of parts.subscriptions) subscription.unsubscribe();
  parts.log.close();
  parts.store.complete();
  const ended = await endBuilds(parts);
  parts.remoteClient?.close();
  await parts.hashes.close?.();
  ended.throwIfFailed();
}

/**
 * The bundlers' builds and the extensions' esbuild calls, cancelled and waited for together: once
 * this settles esbuild's process holds nothing of the service (README "The programmatic API").
 * One that fails lets the others and the rest of the close go on; its failure is then `close()`'s.
 */
async function endBuilds(parts: StoppableParts): Promise<{ throwIfFailed(): void }> {
  const ending = Promise.allSettled([parts.registry.dispose(), ...parts.extensionEnds.map(async (end) => end())]);
  // A hung esbuild process would never answer them: it is killed (README "When esbuild's process dies").
  await endedOrHungKilled(ending);
  const ended = await ending;
  const failed = ended.find((outcome) => outcome.status === 'rejected');
  return {
    throwIfFailed() {
      if (failed) throw failed.reason;
    },
  };
}

/** `Service.close`: the first call closes, every call returns the same promise. */
export function closeOnce(parts: StoppableParts, app: App, server: Server): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => (closing ??= closeService(parts, app, server));
}

async function closeService(parts: StoppableParts, app: App, server: Server): Promise<void> {
  for (const client of app.koa.ws.server?.clients ?? []) client.terminate();
  app.koa.ws.server?.close();
  // No new connection, none idle; a request still waiting (on the state, a build, a join) is
  // answered SERVICE_CLOSING once what it waits on ends below (README "The programmatic API"),
  // and only then are the connections cut.
  const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  parts.subscriptions[parts.subscriptions.length - 1]?.unsubscribe(); // the effects
  // The effects' last cache write (what settled since the one before) is not cut short.
  await parts.cache?.idle();
  parts.remoteClient?.close();
  parts.store.dispatch({ type: 'service.stopped' });
  for (const subscription of parts.subscriptions) subscription.unsubscribe();
  parts.log.close();
  parts.store.complete();
  const ended = await endBuilds(parts);
  // The answers of the requests those ends released are written by now, or on this turn.
  await new Promise((resolve) => setImmediate(resolve));
  server.closeAllConnections();
  await serverClosed;
  await parts.hashes.close?.();
  ended.throwIfFailed();
}
