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
 * esbuild's process inherits this process's environment when the first call starts it, and
 * this process starts no other; a GOGC or GOMEMLIMIT set by the user wins, and then neither is set.
 */
export const ESBUILD_GOGC = '400';
export const ESBUILD_GOMEMLIMIT = '600MiB';
if (process.env.GOGC === undefined && process.env.GOMEMLIMIT === undefined) {
  process.env.GOGC = ESBUILD_GOGC;
  process.env.GOMEMLIMIT = ESBUILD_GOMEMLIMIT;
}

let generation = 0;

/** Which service the caller's contexts belong to. */
export const serviceGeneration = (): number => generation;

export const isServiceGone = (error: unknown): boolean => error instanceof Error && /^The service (?:is no longer running|was stopped)/.test(error.message);

/** Starts a new service unless someone already did since `seen`; resolves to the generation now. */
export async function restartService(seen: number): Promise<number> {
  if (generation === seen) {
    generation += 1;
    await esbuild.stop();
  }
  return generation;
}

/** `run`, once more on a new service when esbuild's died under it; `onRestart` drops what belonged to the old one. */
export async function withLiveService<T>(run: () => Promise<T>, onRestart: () => void = () => {}): Promise<T> {
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
  esbuild.transform('').catch(() => {});
}
