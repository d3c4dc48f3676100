// esbuild contexts kept for incremental rebuilds, one per key (a module variant), the least
// recently used disposed beyond a limit. Rebuilds of one context run one at a time: a
// rebuild started while a cancelled one winds down would be cancelled with it, and esbuild's
// "The build was canceled" would be taken for the module's error. A context is disposed only
// once its last rebuild has wound down: esbuild 0.28's process dies of a nil pointer when a
// dispose arrives after a rebuild and its cancel, before that rebuild started (README "When
// esbuild's process dies"). A context made by a process that died since is dropped, never
// disposed (esbuild-service.ts).
import * as esbuild from 'esbuild';
import { keptUntilSettled } from './calls-in-flight.js';
import { noticingDeath, serviceCall, serviceGeneration, settledNoticingDeath } from './esbuild-service.js';
import { BuildCancelled } from './types.js';

export interface ContextPool {
  /**
   * Rebuilds the context of `key`, created from `options()` when there is none or its
   * `signature` (what the options depend on) changed. Rejects with esbuild's failure, or
   * with BuildCancelled once `signal` aborts.
   */
  rebuild(key: string, signature: string, options: () => esbuild.BuildOptions, signal?: AbortSignal): Promise<esbuild.BuildResult>;
  dispose(): Promise<void>;
  /** Forgets, without disposing them, the contexts made by an esbuild process that died since. */
  abandon(): void;
  /** Disposes the context of `key`, if any: its next rebuild starts from a new one. */
  discard(key: string): Promise<void>;
}

interface Pooled {
  context: esbuild.BuildContext;
  /** The esbuild process that made it (`serviceGeneration`). */
  generation: number;
  signature: string;
  /** Settles once the last rebuild has wound down; null when it has. */
  busy: Promise<void> | null;
  /** Given the result of the context's next build that succeeds, as esbuild ends it. */
  ended: { take: ((result: esbuild.BuildResult) => void) | null };
}

/** A pool key (module, variant, and `styles` for a sheet's own context) in words, for the record of calls in flight. */
const named = (key: string): string => key.split('\0').join(' ');

// A successful build's result, taken as esbuild ends the build: `rebuild()` answers one round trip
// to esbuild's process later (its "on-end" message is sent within a rebuild anyway, then answered,
// then the rebuild), while the request that asked for the build waits. A failure is taken from
// `rebuild()`, with the error it makes.
function endedPlugin(ended: Pooled['ended']): esbuild.Plugin {
  return {
    name: 'core-context-pool',
    setup(build) {
      build.onEnd((result) => {
        const take = ended.take;
        ended.take = null;
        if (result.errors.length === 0) take?.(result);
      });
    },
  };
}

// One rebuild of a pooled context, after the one before it has wound down; cancelled with `signal`.
async function rebuildPooled(entry: Pooled, signal: AbortSignal | undefined): Promise<esbuild.BuildResult> {
  const { context } = entry;
  // Only a rebuild still winding down is waited for: awaiting a settled one would queue
  // esbuild's call behind whatever else this turn started (the route that asked for it).
  const previous = entry.busy;
  let release!: () => void;
  const busy = new Promise<void>((resolve) => (release = resolve));
  entry.busy = busy;
  let cancelled: Promise<void> = Promise.resolve();
  let rebuilt: Promise<unknown> = Promise.resolve();
  const cancel = () => void (cancelled = settledNoticingDeath(context.cancel()).catch(() => {}));
  try {
    if (previous) await previous;
    if (signal?.aborted) throw new BuildCancelled();
    signal?.addEventListener('abort', cancel, { once: true });
    const ended = new Promise<esbuild.BuildResult>((resolve) => (entry.ended.take = resolve));
    // Taken as esbuild ends the build, its answer may come after the process died (esbuild-service.ts).
    const rebuilding = noticingDeath(context.rebuild());
    rebuilt = rebuilding.catch(() => {});
    const result = await Promise.race([ended, rebuilding]);
    if (signal?.aborted) throw new BuildCancelled();
    return result;
  } catch (error) {
    if (signal?.aborted) throw new BuildCancelled();
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
    void Promise.all([cancelled, rebuilt]).then(() => {
      if (entry.busy === busy) entry.busy = null;
      release();
    });
  }
}

/** The context's process still runs: its context may be rebuilt and must be disposed. */
const isLive = (entry: Pooled): boolean => entry.generation === serviceGeneration();

/** Disposes `entry`'s context once its last rebuild has wound down; one of a dead process is only forgotten. */
async function disposeWhenIdle(entry: Pooled): Promise<void> {
  // One turn first: a caller that took the entry in this turn starts its rebuild before the dispose is sent.
  do await entry.busy;
  while (entry.busy);
  if (isLive(entry)) await settledNoticingDeath(entry.context.dispose()).catch(() => {});
}

/** Marks a kept entry the most recently used. */
function used(pool: Map<string, Pooled>, key: string, entry: Pooled): Pooled {
  pool.delete(key);
  pool.set(key, entry);
  return entry;
}

export function createContextPool(limit = 64): ContextPool {
  const pool = new Map<string, Pooled>();
  // A context left alive, or a build left running, holds esbuild's process, which then cannot
  // be stopped cleanly (README "The event log, replay and state subscription": `close()`). So
  // `dispose` cancels the rebuilds in flight and waits for every call made before it ends (a
  // context one of them makes joins the pool, and is disposed with it); a call that gets a new
  // context once `dispose` began builds nothing. The pool stays usable: a later call starts afresh.
  let disposals = 0;
  const calls = new Set<Promise<unknown>>();

  /** Disposes `entry` once idle, kept among the calls that `dispose` waits for. */
  const retire = (key: string, entry: Pooled, why: string): void => void keptUntilSettled(calls, disposeWhenIdle(entry), `the dispose of ${why} context of ${named(key)}`);

  async function take(key: string, signature: string, options: () => esbuild.BuildOptions): Promise<Pooled> {
    let entry = pool.get(key);
    if (entry && (entry.signature !== signature || !isLive(entry))) {
      pool.delete(key);
      retire(key, entry, 'a replaced');
      entry = undefined;
    }
    if (!entry) {
      const ended: Pooled['ended'] = { take: null };
      const made = options();
      const generation = serviceGeneration();
      entry = { context: await serviceCall(() => esbuild.context({ ...made, plugins: [...(made.plugins ?? []), endedPlugin(ended)] })), generation, signature, busy: null, ended };
      // Another build of this key made one meanwhile: replaced, it is disposed, not forgotten alive.
      const displaced = pool.get(key);
      if (displaced) retire(key, displaced, 'a displaced');
    }
    pool.delete(key);
    pool.set(key, entry); // most recently used last
    while (pool.size > limit) {
      const [oldest, stale] = pool.entries().next().value!;
      pool.delete(oldest);
      retire(oldest, stale, 'the least recently used');
    }
    return entry;
  }

  return {
    rebuild(key, signature, options, signal) {
      if (signal?.aborted) return Promise.reject(new BuildCancelled());
      const disposalsBefore = disposals;
      // A kept context is rebuilt in this very turn: the caller goes on (to record that the
      // build started) while esbuild works.
      const kept = pool.get(key);
      if (kept?.signature === signature && isLive(kept)) return keptUntilSettled(calls, rebuildPooled(used(pool, key, kept), signal), `the kept context's rebuild of ${named(key)}`);
      const made = take(key, signature, options).then((entry) => {
        if (disposals !== disposalsBefore) throw new BuildCancelled();
        return rebuildPooled(entry, signal);
      });
      return keptUntilSettled(calls, made, `a new context's build of ${named(key)}`);
    },
    async dispose() {
      disposals += 1;
      while (calls.size > 0) {
        for (const entry of pool.values()) if (entry.busy && isLive(entry)) void settledNoticingDeath(entry.context.cancel()).catch(() => {});
        await Promise.all(calls);
      }
      const all = [...pool.values()];
      pool.clear();
      await Promise.all(all.map(disposeWhenIdle));
    },
    abandon() {
      for (const [key, entry] of pool) if (!isLive(entry)) pool.delete(key);
    },
    async discard(key) {
      const entry = pool.get(key);
      if (!entry) return;
      pool.delete(key);
      await disposeWhenIdle(entry);
    },
  };
}
