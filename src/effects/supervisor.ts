// Runs an effect and keeps it running. A failure of an effect is a defect, not a reason to stop
// serving: it becomes an `effect.failed` event (in the log, on the terminal), and the effect
// is subscribed again after a back-off that doubles with each failure in a row, up to a
// ceiling. Past a number of failures in a row the fault is also reported among the top-level
// diagnostics of `/state` (the reducer keeps it); the effect still restarts, at the ceiling,
// so a fault that goes away (a disk that was full) heals by itself.
import { asapScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { CoreEvent, Fact, Facts } from '../store/events.js';
import { EFFECT_FAILURE_BOUND } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import type { Effect } from './effect.js';

export interface SupervisionOptions {
  scheduler?: SchedulerLike;
  /** A line for the person running the service. */
  logger?(message: string): void;
  /** The wait before the first restart; it doubles with each failure in a row. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Failures in a row after which the fault is reported on `/state`. */
  bound?: number;
  /** An attempt that ran this long before failing starts a new count. */
  calmMs?: number;
}

export type EffectFailed = Extract<Fact, { type: 'effect.failed' }>;

export const SUPERVISION = { firstDelayMs: 100, maxDelayMs: 10_000, bound: EFFECT_FAILURE_BOUND, calmMs: 60_000 } as const;

/** The wait before restart number `failures` (1-based): doubling, bounded. */
export const restartDelay = (failures: number, firstDelayMs: number = SUPERVISION.firstDelayMs, maxDelayMs: number = SUPERVISION.maxDelayMs): number =>
  Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(failures - 1, 30));

/** What every supervised function is given: the events, the states and its dependencies. */
type Inputs<Deps> = [event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: Deps];
type Derivation<Deps, T> = (...inputs: Inputs<Deps>) => Observable<T>;
type Reported = SupervisionOptions & { onFailed(fact: EffectFailed): void };

/** Every effect's facts, and an `effect.failed` fact for each failure. */
export function supervise<Deps>(name: string, effect: Effect<Deps>, ...inputs: [...Inputs<Deps>, options?: SupervisionOptions]): Observable<Facts>;
/** A derivation that is not an effect (its values are not facts): failures go to `onFailed`. */
export function supervise<Deps, T>(name: string, effect: Derivation<Deps, T>, ...inputs: [...Inputs<Deps>, options: Reported]): Observable<T>;
export function supervise<Deps, T>(
  name: string,
  effect: Derivation<Deps, T>,
  event$: Observable<CoreEvent>,
  state$: Observable<ServiceState>,
  deps: Deps,
  options: SupervisionOptions & Partial<Pick<Reported, 'onFailed'>> = {},
): Observable<T | EffectFailed> {
  const scheduler = options.scheduler ?? asapScheduler;
  const firstDelayMs = options.firstDelayMs ?? SUPERVISION.firstDelayMs;
  const maxDelayMs = options.maxDelayMs ?? SUPERVISION.maxDelayMs;
  const bound = options.bound ?? SUPERVISION.bound;
  const calmMs = options.calmMs ?? SUPERVISION.calmMs;
  return new Observable<T | EffectFailed>((subscriber) => {
    let failures = 0;
    let startedAt = 0;
    let attempt: Subscription | null = null;
    let restart: Subscription | null = null;

    const fail = (error: unknown) => {
      if (subscriber.closed) return;
      if (scheduler.now() - startedAt >= calmMs) failures = 0;
      failures += 1;
      const retryInMs = restartDelay(failures, firstDelayMs, maxDelayMs);
      const message = messageOf(error);
      const fact: EffectFailed = { type: 'effect.failed', effect: name, message, failures, retryInMs };
      if (options.onFailed) options.onFailed(fact);
      else subscriber.next(fact);
      options.logger?.(failureLine(`the ${name} effect`, `${message}; it restarts in ${retryInMs} ms`, error, failures, bound));
      restart = scheduler.schedule(start, retryInMs);
    };

    function start() {
      restart = null;
      startedAt = scheduler.now();
      let facts$: Observable<T>;
      try {
        facts$ = effect(event$, state$, deps);
      } catch (error) {
        fail(error);
        return;
      }
      attempt = facts$.subscribe({
        next: (facts) => subscriber.next(facts),
        error: fail,
        // An effect that completes has nothing more to do (the store completed, or it had one job).
      });
    }

    start();
    return () => {
      attempt?.unsubscribe();
      restart?.unsubscribe();
    };
  });
}

/** Callbacks that are no effect (a timer's pass, a subscription, an extension's callback), run under the effects' rule. */
export interface CallbackGuard {
  /** `callback`'s result; undefined when it threw, which is then reported. */
  run<T>(name: string, callback: () => T): T | undefined;
  /** Reports a throw of the callback `name`, caught by its caller; `about` says what it was doing. */
  failed(name: string, error: unknown, about?: string): void;
}

/**
 * A throw of such a callback is a defect, not a reason to stop serving: it becomes an
 * `effect.failed` fact named after the callback (failures in a row: past the bound `/state`
 * lists it) and a line with its stack. Nothing restarts: the next call runs anew.
 */
export function guardCallbacks(report: (fact: EffectFailed) => void, logger: (message: string) => void, bound: number = SUPERVISION.bound): CallbackGuard {
  const inARow = new Map<string, number>();
  let reporting = false;
  const failed = (name: string, error: unknown, about?: string) => {
    const failures = (inARow.get(name) ?? 0) + 1;
    inARow.set(name, failures);
    const message = `${about ? `${about}: ` : ''}${messageOf(error)}`;
    logger(failureLine(`the ${name} callback`, message, error, failures, bound));
    // A callback that fails on every fact (one run for each event) would fail again on its own
    // report: that second failure is only logged.
    if (reporting) return;
    reporting = true;
    try {
      report({ type: 'effect.failed', effect: name, message, failures, retryInMs: 0 });
    } finally {
      reporting = false;
    }
  };
  return {
    failed,
    run(name, callback) {
      try {
        const result = callback();
        inARow.delete(name);
        return result;
      } catch (error) {
        failed(name, error);
        return undefined;
      }
    },
  };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The line of a failure, an effect's or a callback's alike: the first in a row carries its stack
 * (it is a defect, and this is what to report), the one that reaches the bound says where it is
 * listed and what to send.
 */
export function failureLine(what: string, message: string, error: unknown, failures: number, bound: number): string {
  const line = `core: ${what} failed: ${message}`;
  if (failures === 1 && error instanceof Error && error.stack) return `${line}\n${error.stack}`;
  if (failures === bound) return `${line}. It failed ${failures} times in a row: /state lists it; please report this defect with a log (core run --record FILE)`;
  return line;
}
