// Keeps the build cache (README "The build cache") up to date: once the builds have been
// quiet for a moment, every successful build of the state is written, so that the next start
// builds only what changed. Writing never blocks the service and never fails it: a cache that
// cannot be written costs the next start its speed, nothing else. It waits for the requests
// being answered, too: a first start's write (1,000 modules: 200-300 ms of the main thread) ran
// beside the bundled page's join and its rendering, each wanting both cores (README "The build cache").
import { asapScheduler, combineLatest, concatMap, debounce, distinctUntilChanged, EMPTY, filter, from, Observable, take, tap, timer } from 'rxjs';
import type { CoreEvent } from '../store/events.js';
import { selectSettled } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import { CacheNotWritten, type SavedBuild } from '../io/build-cache.js';
import type { EffectScheduling } from './effect.js';
import { REQUESTS_AT_MOST_MS, REQUESTS_QUIET_MS, whenRequestsQuiet$ } from './requests-quiet.js';

export interface PersistBuildsDeps extends EffectScheduling {
  /** Writes the cache; absent when the cache is off (`--no-cache`). */
  saveBuilds?(builds: readonly SavedBuild[], state: ServiceState): Promise<void>;
  /** How long the builds stay quiet before a write (default 500 ms). */
  persistDelayMs?: number;
  /** How many requests are being answered (the HTTP app's count): a write waits for them. */
  requestsInProgress$?: Observable<number>;
  /** How long without a request being answered a write waits for (default 1 s), and at most how long (3 s). */
  persistQuietMs?: number;
  persistAtMostMs?: number;
  logger?(message: string): void;
}

/** The successful builds of the state, as the cache keeps them. */
export function selectSavedBuilds(state: ServiceState): SavedBuild[] {
  const saved: SavedBuild[] = [];
  for (const [module, builds] of Object.entries(state.builds)) {
    for (const [variant, entry] of Object.entries(builds.variants)) {
      if (entry.status === 'done' && entry.last?.outputs) saved.push({ module, variant, record: entry.last });
    }
  }
  return saved;
}

// Once the builds stayed quiet for the delay, and the requests for their own time (or at most
// theirs): counted from the same settled state, so a quiet service writes after the delay alone.
function writeTime$(deps: PersistBuildsDeps): Observable<unknown> {
  const scheduler = deps.scheduler ?? asapScheduler;
  const requestsQuiet$ = whenRequestsQuiet$(deps.requestsInProgress$, deps.persistQuietMs ?? REQUESTS_QUIET_MS, deps.persistAtMostMs ?? REQUESTS_AT_MOST_MS, scheduler);
  return combineLatest([timer(deps.persistDelayMs ?? 500, scheduler), requestsQuiet$]).pipe(take(1));
}

export function persistBuilds$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: PersistBuildsDeps): Observable<never> {
  const save = deps.saveBuilds;
  if (!save) return EMPTY;
  return new Observable<never>((subscriber) => {
    // Said once until a write succeeds again; what the next start loses depends on whether an
    // earlier write's index is still there.
    let told = false;
    // Settled since the last write, not yet written: written when the service stops, too. A state
    // whose write failed stays unwritten (a full disk may have room again by then).
    let unsaved: ServiceState | null = null;
    const write = (state: ServiceState): Promise<void> =>
      save(selectSavedBuilds(state), state).then(
        () => {
          told = false;
        },
        (error: Error) => {
          unsaved ??= state;
          const loses = error instanceof CacheNotWritten && error.earlierIndexKept ? 'builds what changed since it was last written' : 'builds every module';
          if (!told) deps.logger?.(`core: the build cache cannot be written (${error.message}); the next start ${loses}`);
          told = true;
        },
      );
    const subscription = state$
      .pipe(
        filter(selectSettled),
        distinctUntilChanged((a, b) => a.builds === b.builds && a.workspace === b.workspace),
        tap((state) => (unsaved = state)),
        debounce(() => writeTime$(deps)),
        // One write at a time, in order: the last state written is the last one settled.
        concatMap((state) => {
          unsaved = null;
          return from(write(state));
        }),
      )
      .subscribe({ error: (error) => subscriber.error(error), complete: () => subscriber.complete() });
    return () => {
      subscription.unsubscribe();
      if (unsaved) void write(unsaved);
    };
  });
}
