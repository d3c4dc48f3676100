// Files of a module's graph that are not regular files (README "Files that are not files").
// esbuild opens every file it loads without asking what it is, and opening a FIFO waits for a
// writer: the build never ended, and every answer waiting for it waited too. A callback on every
// load to ask first would tax every build (README "Files that are not files"), so:
// - the files known to be special are refused by one `onLoad` whose filter names exactly them
//   (esbuild tests it in Go against the resolved path: none known, no plugin at all);
// - a build that outlives a bound looks for special files among its packages' files, records
//   them, and opens each FIFO for writing once, which hands esbuild's waiting open an empty file
//   (no writer, no bytes: an end of file) so its build ends. Nothing is written, and no kept
//   context is touched (stopping esbuild's process would end them all);
// - that open releases every reader waiting on the FIFO, another build in flight included: so
//   every build during which a special file was learnt (the generation moved) is done again, as
//   is one whose results read a known special file without refusing it; none returns the empty file.
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { escapeRegExp } from './filters.js';
import { nonRegularKind, nonRegularText } from '../regular-files.js';
import type { BundleResult } from './types.js';

/** How long a build runs before its packages are searched for special files, and then how often again. */
export const STUCK_BUILD_MS = 1_500;
/** At most this many entries are looked at per search: a search costs a walk, never an unbounded one. */
const SEARCH_LIMIT = 50_000;
/** Folders no module's graph is loaded from by esbuild (bare imports stay external) or that are the service's own. */
const NOT_SEARCHED = new Set(['node_modules', '.core', '.git']);

export interface NonRegularFiles {
  /** Changes whenever the known files do: part of a kept context's signature, so its plugins follow. */
  generation(): number;
  /** The plugin refusing the known special files, or null while none is known (the common case). */
  guard(): esbuild.Plugin | null;
  /**
   * `run` (one or more esbuild builds of modules in the workspace-relative `dirs`), done again
   * with the guard when a special file was learnt while it ran (by its own search or another
   * build's: opening a FIFO releases every reader waiting on it) or one of its `results` read a
   * known special file without refusing it.
   */
  watched<T>(dirs: readonly string[], run: () => Promise<T>, results?: (result: T) => readonly BundleResult[]): Promise<T>;
}

export function createNonRegularFiles(root: string, stuckAfterMs = STUCK_BUILD_MS): NonRegularFiles {
  // Absolute (real) path to what it is, in words.
  const known = new Map<string, string>();
  let generation = 0;
  let guard: esbuild.Plugin | null = null;

  function learn(file: string, kind: string): boolean {
    if (known.get(file) === kind) return false;
    known.set(file, kind);
    generation += 1;
    guard = null;
    return true;
  }

  function forget(file: string): void {
    if (!known.delete(file)) return;
    generation += 1;
    guard = null;
  }

  function makeGuard(): esbuild.Plugin {
    const filter = new RegExp(`^(?:${[...known.keys()].map(escapeRegExp).join('|')})$`);
    return {
      name: 'core-non-regular-files',
      setup(build) {
        build.onLoad({ filter, namespace: 'file' }, (args) => {
          // A stat opens nothing: it cannot wait on a FIFO.
          const stats = fs.statSync(args.path, { throwIfNoEntry: false });
          const kind = stats && nonRegularKind(stats);
          if (!kind) {
            // A regular file in its place (or none): esbuild loads it, or says it is missing.
            forget(args.path);
            return undefined;
          }
          return { errors: [{ text: nonRegularText(path.relative(root, args.path).split(path.sep).join('/'), kind) }] };
        });
      },
    };
  }

  /** Whether a result read a known special file as a file: built before its guard, it holds an empty file. */
  function readKnownSpecialFile(results: readonly BundleResult[]): boolean {
    return results.some((result) =>
      result.inputs.some((input) => {
        const kind = known.get(path.join(root, input));
        return kind !== undefined && !result.errors.some((error) => error.message.includes(nonRegularText(input, kind)));
      }),
    );
  }

  async function watched<T>(dirs: readonly string[], run: () => Promise<T>, results: (result: T) => readonly BundleResult[] = () => []): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      // Read before the run: a file learnt while it ran, by any build's search, may have been
      // released to this build's waiting open as an empty file.
      const before = generation;
      const timer = setInterval(() => searchSpecialFiles(root, dirs, learn), stuckAfterMs);
      // Never what keeps the process alive: the build it watches is.
      timer.unref();
      let result: T;
      try {
        result = await run();
      } finally {
        clearInterval(timer);
      }
      // Its outputs may hold an empty file where a FIFO was: built again, refusing it. Twice at
      // most: a FIFO made during the second build is the third's (the next change) to refuse.
      const stale = generation !== before || readKnownSpecialFile(results(result));
      if (!stale || attempt === 2) return result;
    }
  }

  return {
    generation: () => generation,
    guard: () => (known.size === 0 ? null : (guard ??= makeGuard())),
    watched,
  };
}

/**
 * Records (`learn`) the special files under the workspace-relative `dirs`; true if one was new or
 * a FIFO had a reader waiting.
 */
function searchSpecialFiles(root: string, dirs: readonly string[], learn: (file: string, kind: string) => boolean): boolean {
  let met = false;
  let budget = SEARCH_LIMIT;
  const visit = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget < 0) return;
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!NOT_SEARCHED.has(entry.name) && depth < 64) visit(absolute, depth + 1);
      } else if (!entry.isFile() && noteSpecial(absolute, learn)) {
        met = true;
      }
    }
  };
  for (const dir of new Set(dirs)) visit(path.join(root, dir), 0);
  return met;
}

/** Whether `absolute` leads to a special file that was new, or to a FIFO a reader waited on. */
function noteSpecial(absolute: string, learn: (file: string, kind: string) => boolean): boolean {
  // A link is followed as esbuild follows it, to the real path its filter is tested against.
  let real: string;
  let stats: fs.Stats | undefined;
  try {
    real = fs.realpathSync(absolute);
    stats = fs.statSync(real, { throwIfNoEntry: false });
  } catch {
    return false;
  }
  const kind = stats && !stats.isDirectory() ? nonRegularKind(stats) : null;
  if (!kind) return false;
  const learnt = learn(real, kind);
  return releaseWaitingReader(real, stats!) || learnt;
}

/**
 * Opens the FIFO for writing and closes it at once, without blocking: a reader waiting in its open
 * (esbuild's) goes on and reads an end of file. True if one was waiting (the open fails with ENXIO
 * when no one reads).
 */
function releaseWaitingReader(file: string, stats: fs.Stats): boolean {
  if (!stats.isFIFO()) return false;
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | (fs.constants.O_NONBLOCK ?? 0)));
    return true;
  } catch {
    return false;
  }
}
