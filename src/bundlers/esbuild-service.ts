// esbuild's service (its Go process) is shared by every build of this process. If it dies (a
// crash of its own was seen under load: a nil pointer in its build service), every later call
// answers "The service is no longer running", for good. Instead, the first call that meets
// this restarts it (`esbuild.stop()` lets the next call start a new one) and tries once more;
// kept contexts belonged to the dead service and are dropped by their owners.
import * as esbuild from 'esbuild';

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
    esbuild.transform('').catch(() => {});
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
 * The generation whose process `startTuned` started. The package's builds run in `withLiveService`
 * (a stylesheet's transform follows a build), which starts the process first; a process that a
 * direct call of esbuild started before is kept as it is.
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

/** Starts a new service unless someone already did since `seen`; resolves to the generation now. */
export async function restartService(seen: number): Promise<number> {
  if (generation === seen) {
    generation += 1;
    // stop() ends the process before it returns: the new one starts before any other call can.
    const stopped = esbuild.stop();
    startedTuned();
    await stopped;
  }
  return generation;
}

/** `run`, once more on a new service when esbuild's died under it; `onRestart` drops what belonged to the old one. */
export async function withLiveService<T>(run: () => Promise<T>, onRestart: () => void = () => {}): Promise<T> {
  startedTuned();
  const seen = generation;
  try {
    return await run();
  } catch (error) {
    if (!isServiceGone(error)) throw error;
    await restartService(seen);
    onRestart();
    return run();
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
