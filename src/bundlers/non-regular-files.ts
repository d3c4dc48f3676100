// Files of a module's graph that are not regular files (README "Files that are not files").
// esbuild opens every file it loads without asking what it is, and opening a FIFO waits for a
// writer: the build never ended, and every answer waiting for it waited too. A callback on every
// load to ask first would tax every build (README "Files that are not files"), so:
// - the files known to be special are refused by one `onLoad` whose filter names exactly them
//   (esbuild tests it in Go against the resolved path: none known, no plugin at all);
// - a build that outlives a bound looks for special files among its packages' files, records
//   them, and opens each FIFO for writing once, which hands esbuild's waiting open an empty file
//   (no writer, no bytes: an end of file) so its build ends. Nothing is written, and no other
//   build in flight nor any kept context is touched (stopping esbuild's process would end them all);
// - a build that met one is done again, now with the refusal, and only that build counts.
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { escapeRegExp } from './filters.js';
import { nonRegularKind, nonRegularText } from '../regular-files.js';

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
   * with the guard when a special file was met while it ran.
   */
  watched<T>(dirs: readonly string[], run: () => Promise<T>): Promise<T>;
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

  async function watched<T>(dirs: readonly string[], run: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      let met = false;
      const timer = setInterval(() => {
        if (searchSpecialFiles(root, dirs, learn)) met = true;
      }, stuckAfterMs);
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
      if (!met || attempt === 2) return result;
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
