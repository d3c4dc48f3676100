// What a disposed bundler still has running. A build left running, or an esbuild context left
// alive, holds esbuild's process, which then cannot be stopped cleanly (README "The event log,
// replay and state subscription": `close()`): a bundler's `dispose` cancels its calls in flight
// and waits for them to end.
import { BuildCancelled, type Bundler } from './types.js';

/** `call`, kept in `calls` until it settles (either way). */
export function keptUntilSettled<T>(calls: Set<Promise<unknown>>, call: Promise<T>): Promise<T> {
  const settled = call.then(
    () => {},
    () => {},
  );
  calls.add(settled);
  void settled.then(() => calls.delete(settled));
  return call;
}

/**
 * `bundler` whose `dispose` first cancels its builds in flight and waits for them; a build asked
 * for after rejects with BuildCancelled. Each call gets a signal of its own that follows the
 * caller's: one combined with a signal as long-lived as the bundler (AbortSignal.any) would be
 * kept as long as that one, in Node 20.
 */
export function endingItsCalls(bundler: Bundler): Bundler {
  let disposed = false;
  const calls = new Map<AbortController, Promise<unknown>>();
  function tracked<T>(caller: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (disposed) return Promise.reject(new BuildCancelled());
    const own = new AbortController();
    const follow = () => own.abort();
    if (caller?.aborted) own.abort();
    else caller?.addEventListener('abort', follow, { once: true });
    const call = run(own.signal);
    const settled = call.then(
      () => {},
      () => {},
    );
    calls.set(own, settled);
    void settled.then(() => {
      caller?.removeEventListener('abort', follow);
      calls.delete(own);
    });
    return call;
  }
  return {
    ...bundler,
    // Nothing is started for a disposed bundler, not even ahead of a build.
    ...(bundler.anticipate ? { anticipate: (saved, bytesOf) => void (disposed || bundler.anticipate!(saved, bytesOf)) } : {}),
    bundle: (targets, variant, caller) => tracked(caller, (signal) => bundler.bundle(targets, variant, signal)),
    rebuild: (target, variant, caller, since) => tracked(caller, (signal) => bundler.rebuild(target, variant, signal, since)),
    async dispose() {
      disposed = true;
      for (const own of calls.keys()) own.abort();
      await Promise.all(calls.values());
      await bundler.dispose();
    },
  };
}
