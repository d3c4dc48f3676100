// Files of a module's graph that are not regular files (README "Files that are not files").
// esbuild opens every file it loads without asking what it is, and opening a FIFO waits for a
// writer: the build never ended, and every answer waiting for it waited too. A callback on every
// load to ask first would tax every build (README "Files that are not files"), so:
// - the files known to be special are refused by one `onLoad` whose filter names exactly them
//   (esbuild tests it in Go against the resolved path: none known, no plugin at all);
// - a tsconfig.json, jsconfig.json or package.json esbuild reads itself, outside any `onLoad`,
//   that is a known special file refuses before esbuild runs the modules whose entry's folder or
//   one above holds it, and those whose last build read through its folder while their sources
//   are unchanged (`refusedConfig`: nothing to look at while none is known, so no build pays);
//   while one is known, the guard refuses a relative import leading into its folder before
//   esbuild resolves there, for a module whose sources changed;
// - while a build outlives a bound, esbuild's threads are asked where they sleep (Linux: a few
//   small reads). One waiting in the open of a FIFO is asked which path (the call's arguments,
//   the path's bytes in esbuild's memory): that FIFO alone, inside the workspace's real root, is
//   recorded and opened for writing once, which hands esbuild's waiting open an empty file (no
//   writer, no bytes: an end of file) so its build ends; no other file is looked at nor opened.
//   Only where the path or the sleep cannot be told is the workspace searched, in turns, inside
//   its real root only: each special file is recorded, and a FIFO a build in flight may wait on
//   (one started before it was learnt, or a config) is opened for writing once, another
//   program's FIFO then too. Nothing is written, and no kept context is touched (stopping
//   esbuild's process would end them all);
// - that open releases every reader waiting on the FIFO, another build in flight included: so
//   every build during which a special file was learnt (the generation moved) is done again, as
//   is one whose results read a known special file without refusing it; none returns the empty file.
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { esbuildProcess } from './esbuild-process.js';
import { escapeRegExp } from './filters.js';
import { nonRegularKind, nonRegularText } from '../regular-files.js';
import { diagnostic } from '../workspace/diagnostics.js';
import { dirOf, joinRelative } from '../workspace/paths.js';
import { packageJsonPlaces, tsconfigPlaces } from '../workspace/tsconfig.js';
import type { BundleResult, BundleTarget } from './types.js';

/** How long a build runs before esbuild is asked whether it waits on a FIFO, and then how often again. */
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
   * `run` (one or more esbuild builds of modules of the workspace), done again
   * with the guard when a special file was learnt while it ran (by its own search or another
   * build's: opening a FIFO releases every reader waiting on it) or one of its `results` read a
   * known special file without refusing it.
   */
  watched<T>(run: (attempt: number) => Promise<T>, results?: (result: T) => readonly BundleResult[], runs?: number): Promise<T>;
  /**
   * The failed result of `target` when a config esbuild would read for it is a known special file
   * (stat'ed again: one a regular file replaced is forgotten): one of its entry's folder or above,
   * or one of a folder its last build read through (its inputs then, and `since.inputs`). The
   * latter not when its sources may have changed since (`since` null: not told; or a change of
   * `since.changed` other than a config), as its graph may have left that folder: esbuild tells,
   * the guard refusing a relative import into it. Null at once while none is known.
   */
  refusedConfig(target: BundleTarget, since?: { inputs: readonly string[]; changed: readonly string[] } | null): BundleResult | null;
  /** The special files known, relative to the root's real path, with what each is. */
  known(): Array<{ file: string; kind: string }>;
}

/**
 * What esbuild's threads wait on: no FIFO's open (false); the opens of FIFOs at these exact paths
 * (absolute, as the threads asked for them); the open of a FIFO whose path cannot be read (true);
 * or nothing can be told (null). Only true and null make the workspace searched.
 */
export type FifoWaits = boolean | null | { paths: readonly string[] };

/**
 * What the service's esbuild process (a child of this one, on Linux: `esbuildProcess`, never
 * another child running esbuild's binary) waits on: the kernel names where each thread sleeps
 * (`/proc/<pid>/task/<tid>/wchan`), and for one in the open of a FIFO, the call and its arguments
 * (`.../syscall`), whose path argument is read in the process's memory (`/proc/<pid>/mem`: our
 * child, same user). A few small reads, so a build that is merely slow costs nothing more. A
 * process that ended (a zombie not yet reaped included) waits on nothing; one not known is not told.
 */
export function esbuildFifoWaits(arch: string = process.arch): FifoWaits {
  const pid = esbuildProcess();
  if (pid === 'ended') return false;
  if (pid === 'unknown') return null;
  try {
    const inFifoOpen: string[] = [];
    const sleeps = fs.readdirSync(`/proc/${pid}/task`).map((thread) => {
      const where = fs.readFileSync(`/proc/${pid}/task/${thread}/wchan`, 'utf8').trim();
      if (FIFO_OPEN_WAITS.has(where)) inFifoOpen.push(thread);
      return where;
    });
    const judged = waitsOnFifoFrom([sleeps]);
    // Ended while its threads were read: they said "0" as they went.
    if (judged !== true) return esbuildProcess() === 'ended' ? false : judged;
    const paths: string[] = [];
    for (const thread of inFifoOpen) {
      const opened = pathOpenedBy(String(pid), thread, arch);
      // One path not told is a FIFO not found: the search finds it.
      if (opened === null) return true;
      paths.push(opened);
    }
    return { paths };
  } catch {
    // Ended while it was read (its /proc folder gone), or not readable.
    return esbuildProcess() === 'ended' ? false : null;
  }
}

/**
 * From where each thread of each esbuild process sleeps: true if one waits in a FIFO's open, null
 * if a process's threads all say "0" (a kernel that hides it says so for each, as it does for a
 * running thread: that is not knowing, and a FIFO must not hang a build for it, so the search
 * runs), false otherwise.
 */
export function waitsOnFifoFrom(sleepsOfEachProcess: readonly (readonly string[])[]): boolean | null {
  if (sleepsOfEachProcess.some((sleeps) => sleeps.some((where) => FIFO_OPEN_WAITS.has(where)))) return true;
  return sleepsOfEachProcess.some((sleeps) => sleeps.every((where) => where === '' || where === '0')) ? null : false;
}

/**
 * The system calls that open a path, by Node's name of the processor: each call's number and the
 * place of the path among its arguments (open, openat, openat2 on x86-64; openat, openat2 on
 * arm64, which has no open). Another processor: not told, so the search runs.
 */
const OPEN_CALLS: Readonly<Record<string, ReadonlyMap<number, number>>> = {
  x64: new Map([
    [2, 0],
    [257, 1],
    [437, 1],
  ]),
  arm64: new Map([
    [56, 1],
    [437, 1],
  ]),
};

/** The folder argument meaning "the process's working directory" (AT_FDCWD). */
const AT_FDCWD = -100n;

/** An open a thread is in: where its path's bytes are, and the folder a relative path is taken in (null: the working directory). */
export interface OpenCall {
  pathAddress: bigint;
  folderFd: bigint | null;
}

/**
 * The open a thread is in, from its `/proc/<pid>/task/<tid>/syscall` line (the call's number, then
 * six arguments, the stack and the instruction pointer). Null when it is in no open known for
 * `arch`, runs (`running`), is in no call (`-1 ...`), or the line is none of these.
 */
export function openCallFrom(line: string, arch: string): OpenCall | null {
  const calls = OPEN_CALLS[arch];
  const fields = line.trim().split(/\s+/);
  if (!calls || !/^\d+$/.test(fields[0] ?? '')) return null;
  const place = calls.get(Number(fields[0]));
  const args = fields.slice(1, 7);
  if (place === undefined || args.length < 6 || !args.every((arg) => /^0x[0-9a-f]+$/i.test(arg))) return null;
  const pathAddress = BigInt(args[place]!);
  if (pathAddress === 0n) return null;
  const folder = place === 0 ? AT_FDCWD : BigInt.asIntN(64, BigInt(args[0]!));
  return { pathAddress, folderFd: folder === AT_FDCWD ? null : folder };
}

/** The longest path an open takes, with its NUL (Linux's PATH_MAX). */
const PATH_MAX = 4096;

/** The path read as bytes from where an open's argument points: up to its NUL; null with none within PATH_MAX, an empty one, or bytes no path of ours is (not UTF-8). */
export function pathFromBytes(bytes: Uint8Array): string | null {
  const end = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0);
  if (end <= 0 || end >= PATH_MAX) return null;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8');
  return text.includes('\uFFFD') ? null : text;
}

/** The absolute path an open names: as it is, or a relative one taken in its folder (`folder()`: null when not told). */
export function absoluteOpened(opened: string, folder: () => string | null): string | null {
  if (path.isAbsolute(opened)) return path.normalize(opened);
  const base = folder();
  return base === null || !path.isAbsolute(base) ? null : path.join(base, opened);
}

/**
 * The absolute path thread `thread` of process `pid` is opening, or null where that cannot be
 * read (the files refused, EACCES or EPERM; the thread in no open; memory gone).
 */
function pathOpenedBy(pid: string, thread: string, arch: string): string | null {
  try {
    const callFile = `/proc/${pid}/task/${thread}/syscall`;
    const line = fs.readFileSync(callFile, 'utf8');
    const call = openCallFrom(line, arch);
    if (call === null) return null;
    const opened = pathFromBytes(bytesAt(pid, call.pathAddress));
    // Still in that very call once its bytes are read: they are its path, not what its memory
    // held after it returned.
    if (opened === null || fs.readFileSync(callFile, 'utf8') !== line) return null;
    return absoluteOpened(opened, () => fs.readlinkSync(call.folderFd === null ? `/proc/${pid}/cwd` : `/proc/${pid}/fd/${call.folderFd}`));
  } catch {
    return null;
  }
}

/** The bytes of process `pid`'s memory from `address` up to a NUL (page by page, a read never crossing into a page that may be unmapped), PATH_MAX at most. */
function bytesAt(pid: string, address: bigint): Uint8Array {
  const PAGE = 4096n;
  const fd = fs.openSync(`/proc/${pid}/mem`, 'r');
  try {
    const chunks: Buffer[] = [];
    let read = 0;
    let at = address;
    while (read < PATH_MAX) {
      const chunk = Buffer.alloc(Math.min(Number(PAGE - (at % PAGE)), PATH_MAX - read));
      const got = fs.readSync(fd, chunk, 0, chunk.length, at);
      if (got <= 0) break;
      chunks.push(chunk.subarray(0, got));
      read += got;
      at += BigInt(got);
      if (chunk.subarray(0, got).includes(0)) break;
    }
    return Buffer.concat(chunks);
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the kernel has a thread sleep that opens a FIFO no one writes to (names of kernels since 2.6). */
const FIFO_OPEN_WAITS = new Set(['wait_for_partner', 'fifo_open']);

/** The guard's plugin name: a build made inside another (module-boundaries.ts) keeps it. */
export const NON_REGULAR_GUARD = 'core-non-regular-files';

/** The names esbuild reads in every folder it loads from, outside any `onLoad`: the guard cannot refuse them. */
const CONFIG_NAMES = new Set(['tsconfig.json', 'jsconfig.json', 'package.json']);

/** Whether esbuild reads `file` (a path) itself, where no plugin's load sees it. */
export const isConfigName = (file: string): boolean => CONFIG_NAMES.has(path.posix.basename(file.split(path.sep).join('/')));

/**
 * `releasesOutside`: a FIFO outside the workspace that esbuild is told to wait in the open of is
 * released too (the workspace's builds: a base an `extends` names, a config of a folder above the
 * workspace, README "Files that are not files"). Not for an installed package's builds, whose
 * root is one package: the workspace lies outside it, and its FIFOs are the workspace's watchdog's
 * to record before they are released.
 */
export function createNonRegularFiles(root: string, stuckAfterMs = STUCK_BUILD_MS, waitsOnFifo: () => FifoWaits = esbuildFifoWaits, releasesOutside = false): NonRegularFiles {
  // Known special files are recorded, and released, by their real path, inside this real root only.
  const realRoot = realPathOf(root);
  const outside = outsideFifos(root, releasesOutside);
  const links = followedLinks(realRoot);
  // Absolute (real) path to what it is, in words, and the generation that learnt it.
  const known = new Map<string, { kind: string; learntAt: number }>();
  let generation = 0;
  let guard: esbuild.Plugin | null = null;
  // The generation each attempt in flight started at: a FIFO learnt later may hold its open.
  const inFlight = new Set<{ startedAt: number }>();
  // Each module's inputs as its last result gave them (nothing derived while no config is known).
  const lastInputs = new Map<string, readonly string[]>();
  let searching = false;
  function learn(file: string, kind: string): boolean {
    if (known.get(file)?.kind === kind) return false;
    generation += 1;
    known.set(file, { kind, learntAt: generation });
    guard = null;
    return true;
  }
  function forget(file: string): void {
    if (!known.delete(file)) return;
    generation += 1;
    guard = null;
  }

  /** Whether a build in flight may be waiting in the open of the known FIFO `file`: one started without its refusal, or a config esbuild reads unasked. */
  function mayHoldOpen(file: string): boolean {
    const learntAt = known.get(file)?.learntAt ?? Infinity;
    return isConfigName(file) || [...inFlight].some((attempt) => attempt.startedAt < learntAt);
  }

  /** One search at a time: the interval of a long build never stacks them. Told which FIFOs: those alone, no walk, no other FIFO opened. */
  async function search(): Promise<void> {
    const waits = searching ? false : waitsOnFifo();
    if (waits === false) return;
    if (waits !== true && waits !== null) return waits.paths.forEach((opened) => noteWaitedFifo(realRoot, opened, learn, outside.note));
    searching = true;
    try {
      await searchSpecialFiles(realRoot, (absolute) => noteSpecialFile(realRoot, absolute, learn, mayHoldOpen));
    } finally {
      searching = false;
    }
  }

  async function watched<T>(run: (attempt: number) => Promise<T>, results: (result: T) => readonly BundleResult[] = () => [], runs = 3): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      // Read before the run: a file learnt while it ran, by any build's search, may have been
      // released to this build's waiting open as an empty file.
      const flight = { startedAt: generation };
      inFlight.add(flight);
      const timer = setInterval(() => void search(), stuckAfterMs);
      // Never what keeps the process alive: the build it watches is.
      timer.unref();
      let result: T;
      try {
        result = await run(attempt);
      } finally {
        clearInterval(timer);
        inFlight.delete(flight);
      }
      const resultsOfRun = results(result);
      for (const each of resultsOfRun) lastInputs.set(each.specifier, each.inputs);
      outside.name(resultsOfRun);
      // Its outputs may hold an empty file where a FIFO was: built again, refusing it. Twice at
      // most (by default): a FIFO made during the second build is the third's (the next change) to refuse.
      const stale = generation !== flight.startedAt || readKnownSpecialFile(realRoot, (file) => known.get(links.toReal(file)), resultsOfRun);
      if (!stale || attempt >= runs - 1) return result;
    }
  }

  return {
    generation: () => generation,
    guard: () => (known.size === 0 ? null : (guard ??= guardPlugin(realRoot, () => links.withAliases([...known.keys()]), (file) => forget(links.toReal(file))))),
    watched,
    refusedConfig: (target, since) => refusedByKnownConfig(realRoot, known, links, forget, target, () => (since === null || since?.changed.some((file) => !isConfigName(file)) ? [] : [...(lastInputs.get(target.specifier) ?? []), ...(since?.inputs ?? [])])),
    known: () => [...known].map(([file, { kind }]) => ({ file: path.relative(realRoot, file).split(path.sep).join('/'), kind })),
  };
}

/**
 * The watchdog's `refusedConfig`: null at once while no config is known. `readThrough()`: the
 * inputs telling the folders a build of `target` reads through (none where its sources may have changed).
 */
function refusedByKnownConfig(realRoot: string, known: ReadonlyMap<string, unknown>, links: LinkedPaths, forget: (file: string) => void, target: BundleTarget, readThrough: () => readonly string[]): BundleResult | null {
  // Asked first for every target of a build, before its guard is set up and its results judged:
  // where the target's workspace has linked directories is taken here.
  links.follow(target.workspace?.linkedDirs);
  const configs = links.withAliases([...known.keys()].filter(isConfigName));
  if (configs.length === 0) return null;
  const kindAt = (place: string) => specialStill(links.toReal(path.join(realRoot, place)), known, forget);
  return refusedConfigOf(target, kindAt) ?? refusedReadThrough(target, readThrough(), configs.map((file) => path.relative(realRoot, file).split(path.sep).join('/')), kindAt);
}

/** Whether a result read a known special file as a file: built before its guard, it holds an empty file. */
function readKnownSpecialFile(realRoot: string, knownAt: (file: string) => { kind: string } | undefined, results: readonly BundleResult[]): boolean {
  return results.some((result) =>
    result.inputs.some((input) => {
      const kind = knownAt(path.join(realRoot, input))?.kind;
      return kind !== undefined && !result.errors.some((error) => error.message.includes(nonRegularText(input, kind)));
    }),
  );
}

/**
 * The workspace's directories reached through a link inside it (`linkedDirs` of its model), by
 * whose paths esbuild loads the files there (`plugins/linked-dirs.ts`, README "Links and large
 * trees"): a known special file, known by its real path, is refused and found in a result's
 * inputs by those paths too. `follow` takes the model's record before each build (`refusedConfig`
 * is asked first for every target).
 */
interface LinkedPaths {
  follow(linkedDirs: Readonly<Record<string, string>> | undefined): void;
  /** The real path of an absolute path through a linked directory; any other as it is. */
  toReal(file: string): string;
  /** `files` (real paths) and, for each under a linked directory's real path, the path through the link. */
  withAliases(files: readonly string[]): string[];
}

function followedLinks(realRoot: string): LinkedPaths {
  let followed: Readonly<Record<string, string>> | undefined;
  let pairs: Array<{ linked: string; real: string }> = [];
  const under = (file: string, dir: string) => file.startsWith(dir + path.sep);
  return {
    follow(linkedDirs) {
      if (linkedDirs === followed) return;
      followed = linkedDirs;
      // The deepest first: a module's own link inside a linked package leads to its own place.
      pairs = Object.entries(linkedDirs ?? {})
        .map(([linked, real]) => ({ linked: path.join(realRoot, linked), real: path.join(realRoot, real) }))
        .sort((a, b) => b.linked.length - a.linked.length);
    },
    toReal(file) {
      const pair = pairs.find((candidate) => under(file, candidate.linked));
      return pair ? pair.real + file.slice(pair.linked.length) : file;
    },
    withAliases(files) {
      return [...files, ...files.flatMap((file) => pairs.filter((pair) => under(file, pair.real)).map((pair) => pair.linked + file.slice(pair.real.length)))];
    },
  };
}

/**
 * The plugin refusing the `files` (real paths, and the paths through linked directories, taken as
 * each build sets it up) by what they are when esbuild is about to load one; `forget` one a regular file replaced.
 */
function guardPlugin(realRoot: string, filesNow: () => string[], forget: (file: string) => void): esbuild.Plugin {
  return {
    name: NON_REGULAR_GUARD,
    setup(build) {
      const files = filesNow();
      const filter = new RegExp(`^(?:${files.map(escapeRegExp).join('|')})$`);
      const configs = files.filter(isConfigName);
      // A config esbuild reads itself when it resolves in its folder or one below: a relative
      // import leading there is refused before it resolves (only while such a config is known,
      // the one case this callback exists; `refusedConfig` refuses before esbuild runs the
      // modules whose last build went there).
      if (configs.length > 0) {
        build.onResolve({ filter: /^\.\.?(?:\/|$)/, namespace: 'file' }, (args) => {
          const led = path.resolve(args.resolveDir, args.path.replace(/[?#].*$/, ''));
          for (const config of configs) {
            const folder = path.dirname(config);
            if (led !== folder && !led.startsWith(`${folder}${path.sep}`)) continue;
            const stats = fs.statSync(config, { throwIfNoEntry: false });
            const kind = stats && nonRegularKind(stats);
            if (!kind) {
              forget(config);
              continue;
            }
            const place = path.relative(realRoot, config).split(path.sep).join('/');
            return { errors: [{ text: nonRegularText(place, kind), location: { file: place, line: 1, column: 0 } }] };
          }
          return undefined;
        });
      }
      build.onLoad({ filter, namespace: 'file' }, (args) => {
        // A stat opens nothing: it cannot wait on a FIFO.
        const stats = fs.statSync(args.path, { throwIfNoEntry: false });
        const kind = stats && nonRegularKind(stats);
        if (!kind) {
          // A regular file in its place (or none): esbuild loads it, or says it is missing.
          forget(args.path);
          return undefined;
        }
        return { errors: [{ text: nonRegularText(path.relative(realRoot, args.path).split(path.sep).join('/'), kind) }] };
      });
    },
  };
}

/** Walks the workspace in turns (an open directory read a batch at a time), never the whole tree in one turn, calling `note` with each entry that is no regular file nor folder. */
async function searchSpecialFiles(realRoot: string, note: (absolute: string) => void): Promise<void> {
  let budget = SEARCH_LIMIT;
  const visit = async (dir: string, depth: number): Promise<void> => {
    let handle: fs.Dir;
    try {
      handle = await fs.promises.opendir(dir);
    } catch {
      return;
    }
    try {
      for await (const entry of handle) {
        if (--budget < 0) return;
        const absolute = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!NOT_SEARCHED.has(entry.name) && depth < 64) await visit(absolute, depth + 1);
        } else if (!entry.isFile()) {
          note(absolute);
        }
      }
    } catch {
      // a folder removed while read: what was seen is kept
    }
  };
  await visit(realRoot, 0);
}

/** Records the special file an entry leads to (inside the real root only) and releases a FIFO a build may wait on. */
function noteSpecialFile(realRoot: string, absolute: string, learn: (file: string, kind: string) => boolean, mayHoldOpen: (file: string) => boolean): void {
  let real: string;
  let stats: fs.Stats | undefined;
  try {
    // A link is followed as esbuild follows it, to the real path its filter is tested against.
    real = fs.realpathSync(absolute);
    stats = fs.statSync(real, { throwIfNoEntry: false });
  } catch {
    return;
  }
  // Never learnt nor opened outside the workspace: the confinement refuses a link leading out.
  if (!real.startsWith(`${realRoot}${path.sep}`)) return;
  const kind = stats && !stats.isDirectory() ? nonRegularKind(stats) : null;
  if (!kind) return;
  learn(real, kind);
  if (stats!.isFIFO() && mayHoldOpen(real)) releaseWaitingReader(real);
}

/**
 * Records the FIFO esbuild is known to wait in the open of (`opened`, as its thread asked for it)
 * and releases that open: only when its real path is inside the real root, out of the folders the
 * search leaves (another watchdog's: an installed package's), and it is a FIFO still.
 */
function noteWaitedFifo(realRoot: string, opened: string, learn: (file: string, kind: string) => boolean, noteOutside: ((opened: string, real: string, kind: string) => void) | null): void {
  let real: string;
  let stats: fs.Stats | undefined;
  try {
    real = fs.realpathSync(opened);
    stats = fs.statSync(real, { throwIfNoEntry: false });
  } catch {
    return;
  }
  if (!real.startsWith(`${realRoot}${path.sep}`)) {
    // A config esbuild reads itself outside the workspace: no refusal reaches it, and nothing
    // there is watched, so it is released each time a build waits on it (README "Files that are
    // not files"); the build reads an end of file and fails at it.
    if (noteOutside === null || !stats?.isFIFO()) return;
    noteOutside(opened, real, nonRegularKind(stats)!);
    return releaseWaitingReader(real);
  }
  if (path.relative(realRoot, real).split(path.sep).some((part) => NOT_SEARCHED.has(part))) return;
  if (!stats?.isFIFO()) return;
  learn(real, nonRegularKind(stats)!);
  releaseWaitingReader(real);
}

/**
 * The FIFOs outside the workspace released (when `releases`), by the absolute path esbuild opened
 * and by the real path, with what each is: never refused before esbuild runs (nothing tells which
 * builds read them), only named in the errors esbuild gives at one (`name`).
 */
function outsideFifos(root: string, releases: boolean): { note: ((opened: string, real: string, kind: string) => void) | null; name(results: readonly BundleResult[]): void } {
  const released = new Map<string, string>();
  return {
    note: releases ? (opened, real, kind) => void [opened, real].forEach((file) => released.set(file, kind)) : null,
    name: (results) => (released.size > 0 ? nameOutsideFifos(root, released, results) : undefined),
  };
}

/**
 * Names in each error esbuild gave at a released FIFO outside the workspace (`outside`, by
 * absolute path) what that file is, for esbuild's own words ("Unexpected end of file in JSON")
 * say nothing of why. The error keeps its place.
 */
function nameOutsideFifos(root: string, outside: ReadonlyMap<string, string>, results: readonly BundleResult[]): void {
  for (const result of results) {
    result.errors.forEach((error, index) => {
      const file = error.file === undefined ? undefined : path.resolve(root, error.file);
      const kind = file === undefined ? undefined : outside.get(file);
      if (kind === undefined || error.message.startsWith(`"${file}"`)) return;
      result.errors[index] = { ...error, message: `${nonRegularText(file!, kind)} (a config esbuild reads itself, outside the workspace: it is released each time a build waits on it; esbuild: ${error.message})` };
    });
  }
}

function realPathOf(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/**
 * Opens the FIFO for writing and closes it at once, without blocking: a reader waiting in its open
 * (esbuild's) goes on and reads an end of file (the open fails with ENXIO when no one reads).
 */
function releaseWaitingReader(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | (fs.constants.O_NONBLOCK ?? 0)));
  } catch {
    // no reader
  }
}

/** What the known special file `file` still is (a stat opens nothing: it cannot wait on a FIFO); null, and forgotten, once a regular file replaced it. */
function specialStill(file: string, known: ReadonlyMap<string, unknown>, forget: (file: string) => void): string | null {
  if (!known.has(file)) return null;
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  const kind = stats && nonRegularKind(stats);
  if (!kind) forget(file);
  return kind ?? null;
}

/**
 * The failed result of a target whose last build read through a folder holding a known special
 * config (`configs`, relative to the root; `kindAt` what each still is): esbuild reads the configs
 * of each folder it loads or resolves in, and of every folder above. Its inputs are those of that
 * build and the config, so a change of any builds it again (esbuild then tells where it goes).
 */
function refusedReadThrough(target: BundleTarget, readThrough: readonly string[], configs: readonly string[], kindAt: (place: string) => string | null): BundleResult | null {
  if (readThrough.length === 0) return null;
  const folders = new Set(readThrough.map((input) => (input.endsWith('/') ? input.slice(0, -1) : dirOf(input))));
  for (const place of configs) {
    const folder = dirOf(place);
    if (![...folders].some((read) => read === folder || folder === '.' || read.startsWith(`${folder}/`))) continue;
    const kind = kindAt(place);
    if (kind) {
      const inputs = [...new Set([target.entry, ...readThrough, place])].sort();
      return { specifier: target.specifier, code: null, styles: null, inputs, imports: [], errors: [diagnostic('BUNDLE_ERROR', nonRegularText(place, kind), { file: place })] };
    }
  }
  return null;
}

/**
 * The failed result of a target whose build esbuild would wait in: a tsconfig.json, jsconfig.json
 * or package.json where esbuild reads one for the entry's folder or one above (the places of
 * `tsconfigPlaces` and `packageJsonPlaces`) that is a known special file (`kindAt`). esbuild reads
 * those itself, outside any `onLoad`, so no guard could refuse them (README "Files that are not
 * files"). Null when none is.
 */
function refusedConfigOf(target: BundleTarget, kindAt: (place: string) => string | null): BundleResult | null {
  const dir = dirOf(target.entry);
  const places = [...tsconfigPlaces(dir), ...tsconfigPlaces(dir).map((place) => joinRelative(dirOf(place), 'jsconfig.json')), ...packageJsonPlaces(dir)];
  for (const place of places) {
    const kind = kindAt(place);
    if (kind) {
      return { specifier: target.specifier, code: null, styles: null, inputs: [target.entry, place], imports: [], errors: [diagnostic('BUNDLE_ERROR', nonRegularText(place, kind), { file: place })] };
    }
  }
  return null;
}
