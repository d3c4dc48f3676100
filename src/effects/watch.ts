// File-system changes, seen by the tree watcher (tree-watcher.ts), as `files.changed` facts
// with the new content hashes. Only paths the state depends on are reported (a manifest, a
// searched directory, an input of a build); the reducer decides what they make stale.
//
// Each notice is acted on as it comes. A path an event names (a directory made or removed, a
// linked file) is looked at once more a little later: a directory made is often filled just
// after, and one notice may stand for several writes (the kernel merges notices not yet read).
// The check before answering a request covers whatever the watcher still misses.
import path from 'node:path';
import { asapScheduler, filter, NEVER, Observable, of, race, switchMap, take, timer, type SchedulerLike, type Subscription } from 'rxjs';
import { UNVERIFIED, type CoreEvent, type Fact } from '../store/events.js';
import { selectSettled } from '../store/selectors.js';
import { knownInputHash, type ServiceState } from '../store/state.js';
import { isSkippedDirectory, toWorkspacePath } from '../workspace/paths.js';
import { contentHash } from '../outputs/content-hash.js';
import { guarded, type EffectScheduling } from './effect.js';
import type { FileHashes } from '../io/file-hashes.js';
import { createWatchScope, type SeenEntry } from '../io/watch-scope.js';
import type { WatcherLike } from '../io/tree-watcher.js';

export interface WatchDeps extends EffectScheduling {
  root: string;
  hashes: FileHashes;
  /** `ignored` may be given what the watcher's walk knows of the entry (its directory entry). */
  createWatcher(root: string, ignored: (absolute: string, seen?: SeenEntry) => boolean): WatcherLike;
  /** How long after a change the path is looked at again. */
  settleMs?: number;
  /** How long a file seen emptied waits for the rest of its save before it is reported. */
  truncationMs?: number;
  /** Directories and linked files watched at most (CORE_WATCH_LIMIT); a plain file is seen through its directory. */
  watchLimit?: number;
  /** A line for the person running the service. */
  logger?(message: string): void;
  /** How many requests are being answered (the HTTP app's count): the first walk waits for them. */
  requestsInProgress$?: Observable<number>;
  /** How long without a request being answered the first walk waits for, and at most how long. */
  walkQuietMs?: number;
  walkAtMostMs?: number;
}

/** Directories and files the service never depends on. */
export function isIgnored(root: string, absolute: string): boolean {
  const relative = toWorkspacePath(root, absolute);
  if (relative === null || relative === '.') return false;
  const segments = relative.split('/');
  // `.core/` at the root holds the selection, which counts.
  return segments.some((segment, index) => isSkippedDirectory(segment) && !(index === 0 && segment === '.core'));
}

/** The hash of an empty file. */
const EMPTY_FILE = contentHash('');

const recordedHashes = new WeakMap<ServiceState['builds'], WeakMap<ServiceState['workspace'], Map<string, Set<string | null>>>>();

/** Every path the state depends on, with the hashes it recorded for it; computed once per state. */
export function selectRecordedHashes(state: ServiceState): Map<string, Set<string | null>> {
  let byWorkspace = recordedHashes.get(state.builds);
  if (!byWorkspace) recordedHashes.set(state.builds, (byWorkspace = new WeakMap()));
  let recorded = byWorkspace.get(state.workspace);
  if (recorded) return recorded;
  recorded = new Map();
  const record = (path: string, hash: string | null) => {
    let hashes = recorded!.get(path);
    if (!hashes) recorded!.set(path, (hashes = new Set()));
    hashes.add(hash);
  };
  for (const [path, hash] of Object.entries(state.workspace.sources)) record(path, hash);
  for (const builds of Object.values(state.builds)) {
    for (const variant of Object.values(builds.variants)) {
      // The newest hash the state knows for each input: a change reported since the last build counts.
      for (const path of Object.keys(variant.last?.inputs ?? {})) record(path, knownInputHash(variant, path) ?? null);
    }
  }
  byWorkspace.set(state.workspace, recorded);
  return recorded;
}

// The watcher starts once the first builds are done, and once the requests they answered are
// (`walkStart$`): setting it up walks the whole tree, and nothing needs it before then (the
// check before answering sees every change, and once ready every known path is looked at).
export function watch$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: WatchDeps): Observable<Fact> {
  return state$.pipe(
    filter(selectSettled),
    take(1),
    switchMap(() =>
      deps.requestsInProgress$
        ? walkStart$(deps.requestsInProgress$, deps.walkQuietMs ?? WALK_QUIET_MS, deps.walkAtMostMs ?? WALK_AT_MOST_MS, deps.scheduler ?? asapScheduler)
        : of(null),
    ),
    switchMap(() => watchFiles(state$, deps)),
  );
}

/** Unwatched paths reported in /state at most. */
export const UNWATCHED_REPORTED = 100;

/** The first walk waits for this long without a request being answered... */
export const WALK_QUIET_MS = 250;
/** ...or this long, whatever the requests. */
export const WALK_AT_MOST_MS = 3_000;

/**
 * Emits once no request has been in progress for `quietMs` (counted from subscription at the
 * earliest), or `atMostMs` after subscription: on a large workspace the walk and the first
 * page's work each want every core (README "Links and large trees").
 */
export function walkStart$(inProgress$: Observable<number>, quietMs: number, atMostMs: number, scheduler: SchedulerLike): Observable<unknown> {
  const quiet$ = inProgress$.pipe(switchMap((count) => (count === 0 ? timer(quietMs, scheduler) : NEVER)));
  return race(quiet$, timer(atMostMs, scheduler)).pipe(take(1));
}

function watchFiles(state$: Observable<ServiceState>, deps: WatchDeps): Observable<Fact> {
  return new Observable<Fact>((subscriber) => {
    const settleMs = deps.settleMs ?? 75;
    const scheduler = deps.scheduler ?? asapScheduler;
    let current!: ServiceState;
    const states = state$.subscribe({ next: (state) => (current = state), error: (error) => subscriber.error(error) });
    const due = new Set<string>();
    const later = new Map<string, Subscription>();
    /** Files seen empty once, waiting for the rest of their save. */
    const truncated = new Set<string>();
    const truncationMs = deps.truncationMs ?? 20;
    let flushing: NodeJS.Immediate | null = null;
    const scope = createWatchScope(deps.root, {
      limit: deps.watchLimit,
      skip: (absolute) => isIgnored(deps.root, absolute),
      onLimit: (limit) =>
        deps.logger?.(
          `core: the workspace holds more than ${limit} directories (and links to files) to watch; the rest is not watched (a change there is still seen before the next answer, but not pushed). ` +
            'Move large directories out of the workspace (node_modules and dot-directories are skipped), or raise CORE_WATCH_LIMIT',
        ),
    });

    const flush = guarded(subscriber, () => {
      flushing = null;
      // Only what the state depends on, and only when it differs from what the state recorded:
      // a save that restores the content, or a second look at an unchanged file, changes nothing.
      const recorded = selectRecordedHashes(current);
      const files: Record<string, string | null> = {};
      for (const relative of due) {
        const known = recorded.get(relative);
        // Unknown, or known only as unverified: what reads it is being built again anyway.
        if (!known || (known.size === 1 && known.has(UNVERIFIED))) continue;
        const hash = deps.hashes.hash(relative);
        if (known.size === 1 && known.has(hash)) {
          truncated.delete(relative);
          continue;
        }
        // A save truncates the file, then writes it: a file seen empty that was not is looked
        // at again a little later, so no build (and no push of an empty stylesheet) starts from
        // half a save. A request meanwhile still gets what is on disk (the check before answering).
        if (hash === EMPTY_FILE && !known.has(EMPTY_FILE) && !truncated.has(relative)) {
          truncated.add(relative);
          scheduler.schedule(guarded(subscriber, () => look(relative)), truncationMs);
          continue;
        }
        truncated.delete(relative);
        files[relative] = hash;
      }
      due.clear();
      if (Object.keys(files).length > 0) subscriber.next({ type: 'files.changed', files, source: 'watcher' });
    });
    const look = (relative: string) => {
      due.add(relative);
      // The same file seen through a link to its directory, inside the workspace.
      for (const alias of scope.aliases(relative.replace(/\/$/, '') || '.')) due.add(relative.endsWith('/') ? `${alias}/` : alias);
      flushing ??= setImmediate(flush);
    };
    const seen = (relative: string) => {
      look(relative);
      later.get(relative)?.unsubscribe();
      later.set(
        relative,
        scheduler.schedule(
          guarded(subscriber, () => {
            later.delete(relative);
            look(relative);
          }),
          settleMs,
        ),
      );
    };

    const watcher = deps.createWatcher(deps.root, (absolute, seen) => scope.ignored(absolute, seen));
    watcher.on(
      'all',
      guarded(subscriber, (event: string, absolute: string) => {
        const resolved = path.resolve(deps.root, absolute);
        if (event === 'unlink' || event === 'unlinkDir') scope.forget(resolved, event === 'unlinkDir');
        const relative = toWorkspacePath(deps.root, resolved);
        if (relative === null || relative === '.') return;
        const parent = path.posix.dirname(relative);
        const parentKey = parent === '.' ? './' : `${parent}/`;
        if (event === 'addDir' || event === 'unlinkDir') seen(`${relative}/`);
        else seen(relative);
        if (event !== 'change') seen(parentKey);
      }),
    );
    // Every notice of a watched directory or linked file, as fs.watch gives it: a save of a
    // plain file is known by this alone (its directory's watcher names it).
    watcher.on(
      'raw',
      guarded(subscriber, (event: string, name: string, details: { watchedPath?: string }) => {
        const watched = details?.watchedPath;
        if (!watched) return;
        // A directory's watcher names the child; a file's watcher names the file itself.
        for (const candidate of name ? [path.resolve(watched, name), watched] : [watched]) {
          const relative = toWorkspacePath(deps.root, candidate);
          if (relative === null) continue;
          if (relative !== '.') look(relative);
          // Only an entry made, removed or renamed changes a listing: every platform reports
          // those as 'rename', and a save of a file's content as 'change'.
          if (event !== 'change') look(relative === '.' ? './' : `${relative}/`);
        }
      }),
    );
    // Until the watcher has walked the tree, a change goes unseen: once it is ready, every
    // path the state depends on is looked at, so a change made meanwhile is still pushed.
    watcher.on(
      'ready',
      guarded(subscriber, () => {
        for (const relative of selectRecordedHashes(current).keys()) look(relative);
      }),
    );
    // What the watcher cannot look at goes into /state (README "Links and large trees"): the
    // first UNWATCHED_REPORTED paths by name, a bounded event however much of the tree is unreadable.
    watcher.on(
      'unwatched',
      guarded(subscriber, (list: ReadonlyMap<string, string>) => {
        const paths: Record<string, string> = {};
        const relative = [...list]
          .map(([absolute, code]) => [toWorkspacePath(deps.root, absolute), code] as const)
          .filter((entry): entry is readonly [string, string] => entry[0] !== null)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [name, code] of relative.slice(0, UNWATCHED_REPORTED)) paths[name] = code;
        // The state holds the list last told: the same list is not told again.
        if (JSON.stringify(paths) === JSON.stringify(current.unwatched ?? {})) return;
        subscriber.next({ type: 'watch.unwatched', paths });
      }),
    );
    watcher.on('error', () => {
      // A watcher error (too many watches, a vanished directory) loses events, not the
      // service: the check before answering still finds every change.
    });

    return () => {
      states.unsubscribe();
      if (flushing) clearImmediate(flushing);
      for (const timer of later.values()) timer.unsubscribe();
      void watcher.close();
    };
  });
}
