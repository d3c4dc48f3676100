// What the service still has running in esbuild. A build left running, or an esbuild context left
// alive, holds esbuild's process, which then cannot be stopped cleanly (README "The programmatic
// API": `close()`): whoever starts esbuild calls keeps them in a `CallsInFlight`, whose `end`
// cancels them and waits for them, and `close()` waits for every owner's end (a bundler's
// `dispose`, the local CDN's and the bundled preview's at the close).
// Each call is also named in one record of this process, `esbuildCallsRunning`: the test run's
// end (test/hooks.ts) refuses to stop esbuild's process while one is left, and names it.
import { BuildCancelled, type Bundler } from './types.js';

/** What each esbuild call in flight is for, in start order (a key per call). */
const running = new Map<object, string>();

/** What the esbuild calls of this process still running are for: empty once every service is closed. */
export const esbuildCallsRunning = (): string[] => [...running.values()];

/** Settles when `call` does, either way; `what` is named in `esbuildCallsRunning` until then. */
function recorded(what: string, call: Promise<unknown>): Promise<void> {
  const key = {};
  running.set(key, what);
  return call.then(
    () => void running.delete(key),
    () => void running.delete(key),
  );
}

/** `call`, kept in `calls` (and named `what` in the process's record) until it settles, either way. */
export function keptUntilSettled<T>(calls: Set<Promise<unknown>>, call: Promise<T>, what: string): Promise<T> {
  const settled = recorded(what, call);
  calls.add(settled);
  void settled.then(() => calls.delete(settled));
  return call;
}

export interface CallsInFlight {
  /**
   * `call` given a signal of its own, aborted by `end` and following `caller`'s, and kept until it
   * settles; rejects with BuildCancelled, calling nothing, once `end` was called.
   */
  run<T>(what: string, caller: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Aborts the signal of every call in flight, refuses new ones, and settles once every one has ended. */
  end(): Promise<void>;
}

/**
 * The calls of one owner. A call's signal follows the caller's through a listener removed when the
 * call settles: one combined with a signal as long-lived as the owner (AbortSignal.any) would be
 * kept as long as that one, in Node 20.
 */
export function createCallsInFlight(): CallsInFlight {
  let ended = false;
  const calls = new Map<AbortController, Promise<unknown>>();
  return {
    run(what, caller, call) {
      if (ended) return Promise.reject(new BuildCancelled());
      const own = new AbortController();
      const follow = () => own.abort();
      if (caller?.aborted) own.abort();
      else caller?.addEventListener('abort', follow, { once: true });
      const started = call(own.signal);
      calls.set(
        own,
        recorded(what, started).then(() => {
          caller?.removeEventListener('abort', follow);
          calls.delete(own);
        }),
      );
      return started;
    },
    async end() {
      ended = true;
      for (const own of calls.keys()) own.abort();
      await Promise.all(calls.values());
    },
  };
}

/**
 * `bundler` whose `dispose` first cancels its builds in flight and waits for them; a build asked
 * for after rejects with BuildCancelled.
 */
export function endingItsCalls(bundler: Bundler): Bundler {
  const calls = createCallsInFlight();
  let disposed = false;
  return {
    ...bundler,
    // Nothing is started for a disposed bundler, not even ahead of a build.
    ...(bundler.anticipate ? { anticipate: (saved, bytesOf) => void (disposed || bundler.anticipate!(saved, bytesOf)) } : {}),
    bundle: (targets, variant, caller) => calls.run(`the build of ${targets.map((target) => target.specifier).join(', ')}`, caller, (signal) => bundler.bundle(targets, variant, signal)),
    rebuild: (target, variant, caller, since) => calls.run(`the rebuild of ${target.specifier}`, caller, (signal) => bundler.rebuild(target, variant, signal, since)),
    async dispose() {
      disposed = true;
      await calls.end();
      await bundler.dispose();
    },
  };
}
