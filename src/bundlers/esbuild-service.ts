// esbuild's service (its Go process) is shared by every build of this process. If it dies (a
// crash of its own was seen under load: a nil pointer in its build service), every later call
// answers "The service is no longer running", for good. Instead, a call that meets this asks
// `reviveService`, which tells a dead process from a context of one that died before (one
// exchange with the process now running), and only for a dead one starts another (`esbuild.stop()`
// lets the next call start a new one); then the call is tried once more. A new process is started
// at most RESTARTS_IN_WINDOW times within RESTART_WINDOW_MS: past that the engine is
// unavailable (EngineUnavailable, README "When esbuild's process dies") until a file is saved.
// Contexts belong to the generation they were made in, and one of an older generation is dropped
// by its owner, never disposed (context-pool.ts).
import * as esbuild from 'esbuild';
import { esbuildProcess, recordingStart } from './esbuild-process.js';
import { EngineUnavailable } from './types.js';

/**
 * The Go collector's target for esbuild's process (README "Performance"): at Go's default (100)
 * it collected about a sixth of the CPU of a first start's builds (1,000 modules, 2 cores);
 * at 400 esbuild's peak memory grows by about 100 MB there, and by some 300 MB at 10,000
 * modules, so a soft limit makes the collector run sooner once esbuild's heap is that large.
 * esbuild's process inherits this process's environment when a call starts it (synchronously,
 * in the call): `startTuned` sets both for that call only and takes them away at once, so this
 * process's environment, an embedder's included, stays as it was. A GOGC or GOMEMLIMIT set by
 * the user wins, and then neither is set.
 */
export const ESBUILD_GOGC = '400';
export const ESBUILD_GOMEMLIMIT = '600MiB';

/** esbuild's process started now, unless one runs, with the collector's settings in its environment only. */
function startTuned(): void {
  const tuned = process.env.GOGC === undefined && process.env.GOMEMLIMIT === undefined;
  if (tuned) {
    process.env.GOGC = ESBUILD_GOGC;
    process.env.GOMEMLIMIT = ESBUILD_GOMEMLIMIT;
  }
  try {
    // Any call starts the process when none runs: the spawn happens before the call returns.
    noticingDeath(recordingStart(() => esbuild.transform(''))).catch(() => {});
  } catch {
    // A process that cannot start is the next build's to report.
  } finally {
    if (tuned) {
      delete process.env.GOGC;
      delete process.env.GOMEMLIMIT;
    }
  }
}

let generation = 0;
/**
 * The generation whose process `startTuned` started. Every esbuild call of the service goes
 * through `withLiveService` or `serviceCall`, which start the process first: no other call of the
 * service starts one (a process that another copy's call started before is kept as it is).
 */
let started = -1;

function startedTuned(): void {
  if (started === generation) return;
  started = generation;
  startTuned();
}

/** Which service the caller's contexts belong to. */
export const serviceGeneration = (): number => generation;

export const isServiceGone = (error: unknown): boolean => error instanceof Error && /^The service (?:is no longer running|was stopped)/.test(error.message);

/** New processes started within RESTART_WINDOW_MS at most; past that the engine is unavailable until a file is saved. */
export const RESTARTS_IN_WINDOW = 3;
export const RESTART_WINDOW_MS = 60_000;

/** The restart window's clock. */
let clock: () => number = Date.now;

/**
 * Measures the restart window by `measure` until the returned restore: a test's deaths then fall
 * within the window, or past it, however slow the machine is (a loaded one took its 60 s for a
 * few deaths).
 */
export function measureRestartWindowBy(measure: () => number): () => void {
  clock = measure;
  return () => void (clock = Date.now);
}

/** When each recent new process was started (ms), the oldest first. */
let restarts: number[] = [];
/** Set once the restarts ran out: every build fails at once, without starting esbuild, until `allowRestarts`. */
let unavailable: EngineUnavailable | null = null;
let reviving: Promise<void> | null = null;

/** A file was saved (README "When esbuild's process dies"): an engine that died too often may try again. */
export function allowRestarts(): void {
  restarts = [];
  unavailable = null;
}

/** Throws EngineUnavailable once the restarts ran out. */
export function throwIfUnavailable(): void {
  if (unavailable) throw unavailable;
}

/** Whether the restarts ran out: no process runs, and no call may start one (any esbuild call would). */
export const isUnavailable = (): boolean => unavailable !== null;

// One exchange with the process now running (starting it if none runs) says whether it is gone:
// a call of a context made by a process that died before says so too, and must not stop a live
// one, whose calls in flight would then never be answered (`esbuild.stop()` ends its streams
// without failing them).
async function currentIsGone(): Promise<boolean> {
  startedTuned();
  try {
    await recordingStart(() => esbuild.transform(''));
    return false;
  } catch (error) {
    return isServiceGone(error);
  }
}

/**
 * A new process in place of a dead one, unless the restarts ran out (then EngineUnavailable).
 * The dead one's streams are ended either way, at once: esbuild's host fails every call of a
 * process whose stdin refused a write, but goes on reading its stdout, and an answer the process
 * wrote before it died, read then, is one to no call: esbuild 0.28.2's handleIncomingPacket
 * (lib/main.js, "let callback = responseCallbacks[packet.id]", cleared by afterClose) throws
 * "callback is not a function" uncaught, which ended the program (README "When esbuild's process dies").
 */
async function restartDead(): Promise<void> {
  // A call that failed before the restarts ran out asks too: its exchange would start a process.
  if (unavailable) return;
  if (!(await currentIsGone())) return;
  const now = clock();
  restarts = restarts.filter((at) => at > now - RESTART_WINDOW_MS);
  generation += 1;
  // stop() ends the dead process's streams before it returns: a new one starts before any other call can.
  const stopped = esbuild.stop();
  if (restarts.length >= RESTARTS_IN_WINDOW) {
    unavailable = new EngineUnavailable(`esbuild's process died ${restarts.length + 1} times within ${RESTART_WINDOW_MS / 1000} s`);
  } else {
    restarts.push(now);
    startedTuned();
  }
  await stopped;
}

/** Makes sure a live process runs, after a call found its own gone; one check at a time for every caller. */
export function reviveService(): Promise<void> {
  reviving ??= restartDead().finally(() => (reviving = null));
  return reviving;
}

/**
 * `call`, an esbuild call whose failure by its process's death no build may be waiting for (a kept
 * context's rebuild taken as esbuild ended it, a plugin's own call, a check's transform). When the
 * process died, esbuild's host failed every call of it at once, and an answer the process wrote
 * before dying, read later, belongs to none ("callback is not a function", uncaught: see
 * `restartDead`): the failure asks for a live process in the same turn, which ends the dead one's
 * output before any of it is read (README "When esbuild's process dies").
 */
export function noticingDeath<T>(call: Promise<T>): Promise<T> {
  call.catch((error: unknown) => void (isServiceGone(error) && reviveService()));
  return call;
}

/**
 * `call` (one call of esbuild's API, which starts esbuild's process when none runs), made as every
 * esbuild call of the service is: refused at once past the restarts (EngineUnavailable), as it
 * would start a process none counts, which no close would kill when hung (README "When esbuild's
 * process dies"); else on this generation's process, started tuned first if none was, the process
 * it starts recorded (esbuild-process.ts), and its failure by a death noticed (`noticingDeath`).
 */
export function serviceCall<T>(call: () => Promise<T>): Promise<T> {
  if (unavailable) return Promise.reject(unavailable);
  startedTuned();
  return noticingDeath(recordingStart(call));
}

/**
 * `call`, a context's `dispose()` or `cancel()`, which esbuild settles alike whether its process
 * answered or died: once it has, a call that fails at once when the process is gone (one exchange
 * when it runs) tells, in the same turn, as `noticingDeath` does; it is waited for, as a call
 * left running holds the process. Past the restarts no process runs, and a call would start one:
 * none is made.
 */
export async function settledNoticingDeath(call: Promise<void>): Promise<void> {
  await call;
  if (!isUnavailable()) await serviceCall(() => esbuild.transform('')).catch(() => {});
}

/** `run`, once more when esbuild's process died under it (or a context of a dead one was called); `onRestart` drops what belonged to dead ones. */
export async function withLiveService<T>(run: () => Promise<T>, onRestart: () => void = () => {}): Promise<T> {
  throwIfUnavailable();
  startedTuned();
  try {
    return await run();
  } catch (error) {
    if (!isServiceGone(error)) throw error;
    await reviveService();
    throwIfUnavailable();
    onRestart();
    try {
      return await run();
    } catch (again) {
      if (isServiceGone(again)) throw new EngineUnavailable("esbuild's process died during the build, and again in the process started for it");
      throw again;
    }
  }
}

/** How long a close waits for its esbuild calls before asking whether esbuild's process answers at all, and how long for that answer. */
export const CLOSE_PATIENCE_MS = 5_000;

/** Whether `promise` settles, either way, within `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}

/**
 * Settles once `ended` (the close's esbuild calls) does. While they run, esbuild's process is asked
 * for one exchange every CLOSE_PATIENCE_MS: a process that answers is busy (a long build, which the
 * close waits for), one that does not is hung, and is killed (README "When esbuild's process dies"),
 * which fails every call it had: `ended` then settles.
 */
export async function endedOrHungKilled(ended: Promise<unknown>): Promise<void> {
  while (!(await settlesWithin(ended, CLOSE_PATIENCE_MS))) {
    // Past the restarts no process runs, and a call would start one: the calls wait on none.
    if (isUnavailable() || (await settlesWithin(serviceCall(() => esbuild.transform('')), CLOSE_PATIENCE_MS))) continue;
    // The service's own process only: another child running esbuild's binary is not ours to end.
    const pid = esbuildProcess();
    if (typeof pid !== 'number') continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended meanwhile: its calls have failed already.
    }
  }
}

/** The version of esbuild the built-in bundlers compile with: part of the build cache's key. */
export const ESBUILD_VERSION: string = esbuild.version;

/**
 * Starts esbuild's process ahead of the first build, on a start that will build (README
 * "Performance"): it then loads and starts on the other core while the workspace is read,
 * not after. A process that cannot start is the first build's to report.
 */
export function startEsbuildEarly(): void {
  startedTuned();
}
