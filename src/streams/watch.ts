// File-system changes, seen by chokidar, as `files.changed` facts with the new content hashes.
// Only paths the state depends on are reported (a manifest, a searched directory, an input
// of a build); the reducer decides what they make stale.
//
// chokidar drops a second change of one file within 50 ms (its change throttle), so every
// path seen is looked at once more a little later: a quick second save is never lost. The
// check before answering a request covers whatever the watcher still misses.
import path from 'node:path';
import { Observable } from 'rxjs';
import type { Fact } from '../store/events.js';
import type { ServiceState } from '../store/state.js';
import { toWorkspacePath } from '../workspace/paths.js';
import type { FileHashes } from './file-hashes.js';

export interface WatcherLike {
  on(event: 'all', listener: (event: string, path: string) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  close(): Promise<void>;
}

export interface WatchDeps {
  root: string;
  hashes: FileHashes;
  getState(): ServiceState;
  createWatcher(root: string, ignored: (absolute: string) => boolean): WatcherLike;
  /** How long after a change the path is looked at again. */
  settleMs?: number;
}

const IGNORED_DIRS = new Set(['node_modules', '.git']);

/** Directories and files the service never depends on. */
export function isIgnored(root: string, absolute: string): boolean {
  const relative = toWorkspacePath(root, absolute);
  if (relative === null || relative === '.') return false;
  const segments = relative.split('/');
  return segments.some((segment, index) => {
    if (IGNORED_DIRS.has(segment)) return true;
    // Dot-directories hold no modules; `.core/` holds the selection, which counts.
    if (!segment.startsWith('.')) return false;
    return !(index === 0 && segment === '.core');
  });
}

const watchedPaths = new WeakMap<ServiceState['builds'], WeakMap<ServiceState['workspace'], Set<string>>>();

/** Every path the state depends on; computed once per state. */
export function selectDependedPaths(state: ServiceState): Set<string> {
  let byWorkspace = watchedPaths.get(state.builds);
  if (!byWorkspace) watchedPaths.set(state.builds, (byWorkspace = new WeakMap()));
  let paths = byWorkspace.get(state.workspace);
  if (paths) return paths;
  paths = new Set(Object.keys(state.workspace.sources));
  for (const builds of Object.values(state.builds)) {
    for (const variant of Object.values(builds.variants)) {
      for (const input of Object.keys(variant.last?.inputs ?? {})) paths.add(input);
    }
  }
  byWorkspace.set(state.workspace, paths);
  return paths;
}

export function watch$(deps: WatchDeps): Observable<Fact> {
  return new Observable<Fact>((subscriber) => {
    const settleMs = deps.settleMs ?? 75;
    const due = new Set<string>();
    const later = new Map<string, NodeJS.Timeout>();
    let flushing: NodeJS.Immediate | null = null;

    const flush = () => {
      flushing = null;
      const depended = selectDependedPaths(deps.getState());
      const files: Record<string, string | null> = {};
      for (const relative of due) {
        if (depended.has(relative)) files[relative] = deps.hashes.hash(relative);
      }
      due.clear();
      if (Object.keys(files).length > 0) subscriber.next({ type: 'files.changed', files, source: 'watcher' });
    };
    const look = (relative: string) => {
      due.add(relative);
      flushing ??= setImmediate(flush);
    };
    const seen = (relative: string) => {
      look(relative);
      clearTimeout(later.get(relative));
      later.set(relative, setTimeout(() => (later.delete(relative), look(relative)), settleMs));
    };

    const watcher = deps.createWatcher(deps.root, (absolute) => isIgnored(deps.root, absolute));
    watcher.on('all', (event, absolute) => {
      const relative = toWorkspacePath(deps.root, path.resolve(deps.root, absolute));
      if (relative === null || relative === '.') return;
      const parent = path.posix.dirname(relative);
      const parentKey = parent === '.' ? './' : `${parent}/`;
      if (event === 'addDir' || event === 'unlinkDir') seen(`${relative}/`);
      else seen(relative);
      if (event !== 'change') seen(parentKey);
    });
    watcher.on('error', () => {
      // A watcher error (too many watches, a vanished directory) loses events, not the
      // service: the check before answering still finds every change.
    });

    return () => {
      if (flushing) clearImmediate(flushing);
      for (const timer of later.values()) clearTimeout(timer);
      void watcher.close();
    };
  });
}
