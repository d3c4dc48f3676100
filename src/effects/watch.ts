// File-system changes, seen by the tree watcher (tree-watcher.ts), as `files.changed` facts
// with the new content hashes. Only paths the state depends on are reported (a manifest, a
// searched directory, an input of a build); the reducer decides what they make stale.
//
// Each notice is acted on as it comes (src/effects/changed-files.ts). A path an event names (a directory made or removed, a
// linked file) is looked at once more a little later: a directory made is often filled just
// after, and one notice may stand for several writes (the kernel merges notices not yet read).
// The check before answering a request covers whatever the watcher still misses.
import path from 'node:path';
import { asapScheduler, filter, Observable, switchMap, take } from 'rxjs';
import type { CoreEvent, Fact } from '../store/events.js';
import { selectSettled } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import { isSkippedDirectory, toWorkspacePath } from '../workspace/paths.js';
import { guarded, type EffectScheduling } from './effect.js';
import { REQUESTS_AT_MOST_MS, REQUESTS_QUIET_MS, whenRequestsQuiet$ } from './requests-quiet.js';
import { createChangedFiles } from './changed-files.js';
import { selectRecordedHashes, selectRecordedHashesOf } from '../store/selectors.js';
import type { FileHashes } from '../io/file-hashes.js';
import type { WatcherLike } from '../io/tree-watcher.js';
import { createWatchScope, type SeenEntry } from '../io/watch-scope.js';
import { pathsOfEvent, pathsOfNotice, reportedUnwatched } from '../io/watch-notices.js';
import type { Guard } from '../io/watcher-guard.js';

export interface WatchDeps extends EffectScheduling {
  root: string;
  hashes: FileHashes;
  /** `ignored` may be given what the watcher's walk knows of the entry (its directory entry). */
  createWatcher(root: string, ignored: (absolute: string, seen?: SeenEntry) => boolean, complete?: () => boolean): WatcherLike;
  /**
   * Files just saved, before their change is recorded, with their bytes as the watcher read them
   * (`bytesOf`): the bundlers may start on them at once (`anticipate` of the bundler registry).
   */
  anticipate?(saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined): void;
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

// The watcher starts once the first builds are done, and once the requests they answered are
// (`whenRequestsQuiet$`): setting it up walks the whole tree, and nothing needs it before then (the
// check before answering sees every change, and once ready every known path is looked at).
export function watch$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: WatchDeps): Observable<Fact> {
  return state$.pipe(
    filter(selectSettled),
    take(1),
    switchMap(() => whenRequestsQuiet$(deps.requestsInProgress$, deps.walkQuietMs ?? REQUESTS_QUIET_MS, deps.walkAtMostMs ?? REQUESTS_AT_MOST_MS, deps.scheduler ?? asapScheduler)),
    switchMap(() => watchFiles(state$, deps)),
  );
}

/** Unwatched paths reported in /state at most. */
export const UNWATCHED_REPORTED = 100;

const limitMessage = (limit: number) =>
  `core: the workspace holds more than ${limit} directories (and links to files) to watch; the rest is not watched (a change there is still seen before the next answer, but not pushed). ` +
  'Move large directories out of the workspace (node_modules and dot-directories are skipped), or raise CORE_WATCH_LIMIT';

// Before the store records the change and the builds are planned (ARCHITECTURE.md "One
// stylesheet edit"): the bytes are those just hashed, while the file's stat still says so.
function tellBundlers(deps: WatchDeps, files: Readonly<Record<string, string | null>>): void {
  try {
    deps.anticipate?.(
      Object.keys(files).filter((file) => files[file] !== null),
      (file) => {
        const recalled = deps.hashes.recall(file);
        return recalled.hash === files[file] ? recalled.bytes : undefined;
      },
    );
  } catch {
    // Only a head start is lost: the build that follows does the work itself.
  }
}

/** The paths the state recorded inside `directory` (workspace-relative, ending in `/`). */
const recordedInside = (state: ServiceState, directory: string): string[] => [...selectRecordedHashes(state).keys()].filter((recorded) => recorded.startsWith(directory) && recorded !== directory);

function watchFiles(state$: Observable<ServiceState>, deps: WatchDeps): Observable<Fact> {
  return new Observable<Fact>((subscriber) => {
    let current!: ServiceState;
    const states = state$.subscribe({ next: (state) => (current = state), error: (error) => subscriber.error(error) });
    const guard: Guard = (callback) => guarded(subscriber, callback);
    const scope = createWatchScope(deps.root, { limit: deps.watchLimit, skip: (absolute) => isIgnored(deps.root, absolute), onLimit: (limit) => deps.logger?.(limitMessage(limit)) });
    const changes = createChangedFiles({
      hashes: deps.hashes,
      scheduler: deps.scheduler ?? asapScheduler,
      settleMs: deps.settleMs ?? 75,
      truncationMs: deps.truncationMs ?? 20,
      aliases: (relative) => scope.aliases(relative),
      recorded: (paths) => selectRecordedHashesOf(current, paths),
      changed: (files) => {
        tellBundlers(deps, files);
        subscriber.next({ type: 'files.changed', files, source: 'watcher' });
      },
      guard,
    });

    // `complete`: past the limit a directory is not walked, so the watcher cannot vouch for its links.
    const watcher = deps.createWatcher(
      deps.root,
      (absolute, seen) => scope.ignored(absolute, seen),
      () => scope.complete,
    );
    watcher.on(
      'all',
      guard((event: string, absolute: string) => {
        const resolved = path.resolve(deps.root, absolute);
        if (event === 'unlink' || event === 'unlinkDir') scope.forget(resolved, event === 'unlinkDir');
        const paths = pathsOfEvent(deps.root, event, resolved);
        // A directory moved in or out whole (a rename) brings no notice of the files it holds:
        // every path the state recorded inside it is looked at (its package.json, its sources).
        if ((event === 'addDir' || event === 'unlinkDir') && paths.length > 0) paths.push(...recordedInside(current, paths[0]!));
        changes.seen(paths);
      }),
    );
    // Every notice of a watched directory or linked file, as fs.watch gives it: a save of a
    // plain file is known by this alone (its directory's watcher names it).
    watcher.on(
      'raw',
      guard((event: string, name: string, details: { watchedPath?: string }) => {
        changes.look(pathsOfNotice(deps.root, event, name, details?.watchedPath));
      }),
    );
    // Until the watcher has walked the tree, a change goes unseen: once it is ready, every
    // path the state depends on is looked at, so a change made meanwhile is still pushed.
    watcher.on(
      'ready',
      guard(() => {
        changes.look(selectRecordedHashes(current).keys());
      }),
    );
    // What the watcher cannot look at goes into /state (README "Links and large trees"): the
    // first UNWATCHED_REPORTED paths by name, a bounded event however much of the tree is unreadable.
    watcher.on(
      'unwatched',
      guard((list: ReadonlyMap<string, string>) => {
        const paths = reportedUnwatched(deps.root, list, UNWATCHED_REPORTED);
        // The state holds the list last told: the same list is not told again.
        if (JSON.stringify(paths) === JSON.stringify(current.unwatched ?? {})) return;
        subscriber.next({ type: 'watch.unwatched', paths });
      }),
    );
    watcher.on('error', () => {
      // A watcher error (too many watches, a vanished directory) loses events, not the
      // service: the check before answering still finds every change.
    });
    // A throw inside the watcher's own callbacks: it may have missed a change, so the effect
    // fails, and the supervisor reports it and starts a watcher afresh.
    watcher.on('defect', (error) => subscriber.error(error));

    return () => {
      states.unsubscribe();
      changes.close();
      void watcher.close();
    };
  });
}
