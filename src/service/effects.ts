// The effects run under their supervisor (README "Effects and their supervisor"), the one
// dispatch of their facts, and the push messages, which fail as an effect does.
import { defer, merge, startWith, Subject, type Observable, type Subscription } from 'rxjs';
import { pushed$ as derivePushed$, type Pushed } from '../effects/push-messages.js';
import { guardCallbacks, supervise, type CallbackGuard } from '../effects/supervisor.js';
import { effectRows, type EffectDeps, type EffectName } from '../effects/table.js';
import type { BuildHistory } from '../store/build-history.js';
import { EVENT_FORMAT, type Facts } from '../store/events.js';
import type { ServiceState } from '../store/state.js';
import type { Store } from '../store/store.js';
import { VERSION } from '../version.js';

export interface RunningEffects {
  /** Dispatches facts after the start; false when the reducer threw (reported as `effect.failed`). */
  dispatch(facts: Facts): boolean;
  callbacks: CallbackGuard;
  /** Every subscription, the effects' own last (the close stops them first). */
  subscriptions: Subscription[];
  /** Stylesheet, invalid and code messages, each with what a `styles` one names (its answer is made from that). */
  pushed$: Observable<Pushed>;
}

export interface EffectsOptions {
  root: string;
  watch: boolean;
  /** The preview's CDN is the service's own (README "The local CDN"): said in `service.started`. */
  localCdn: boolean;
  logger: (message: string) => void;
}

export function startEffects(store: Store, history: BuildHistory, deps: EffectDeps, options: EffectsOptions): RunningEffects {
  const { logger } = options;
  // A callback that is no effect reports a throw as an effect does (an `effect.failed` fact);
  // that fact goes straight to the store, so a report never reports itself.
  const callbacks = guardCallbacks((fact) => {
    try {
      store.dispatch(fact);
    } catch (error) {
      logger(`core: internal error while reducing effect.failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }, logger);
  // The one dispatch of every fact after the start: a defect in the reducer must not escape
  // as an unhandled error either.
  const dispatch = (facts: Facts): boolean => {
    try {
      store.dispatch(facts);
      return true;
    } catch (error) {
      callbacks.failed('reducer', error, `reducing ${JSON.stringify(Array.isArray(facts) ? facts.map((fact) => fact.type) : (facts as { type: string }).type)}`);
      return false;
    }
  };
  const supervised = (names: readonly EffectName[]) =>
    merge(...effectRows(names).map(([name, effect]) => supervise(name, effect, store.events$, store.state$, deps, { scheduler: deps.scheduler, logger })));
  const subscriptions: Subscription[] = [];
  subscriptions.push(store.events$.subscribe((event) => callbacks.run('history', () => history.add(event, store.getState()))));
  // Subscribed before the first event, so the log holds every one.
  subscriptions.push(supervised(['record']).subscribe(dispatch));
  store.dispatch({ type: 'service.started', format: EVENT_FORMAT, root: options.root, service: VERSION, ...(options.localCdn ? { localCdn: true as const } : {}) });

  // Each state reaches the push messages before the effects (ARCHITECTURE.md "One stylesheet
  // edit", step 5): a `styles` message then leaves before they judge the state (the build
  // cache's `selectSettled`, the bundled preview's). Nothing listens, nothing is derived.
  const ahead = statesAhead(store.state$, store.getState);
  subscriptions.push(ahead.subscription);

  const effects = supervised(['manifests', 'builds', ...(options.watch ? (['watch'] as const) : []), 'outputs', 'persist']);
  subscriptions.push(effects.subscribe(dispatch));

  // Not an effect (it derives messages, not facts), but it may fail like one.
  const pushed$ = supervise('push', (_event$, state$) => derivePushed$(state$), store.events$, ahead.state$, deps, { scheduler: deps.scheduler, logger, onFailed: dispatch });
  return { dispatch, callbacks, subscriptions, pushed$ };
}

/**
 * The states of `state$` as its subscriber of this moment sees them, ahead of every later one:
 * each subscriber of the returned `state$` gets the current state, then each new one before the
 * subscribers of `state$` made after this call. Costs nothing while nobody listens.
 */
export function statesAhead(state$: Observable<ServiceState>, getState: () => ServiceState): { state$: Observable<ServiceState>; subscription: Subscription } {
  const states = new Subject<ServiceState>();
  const subscription = state$.subscribe(states);
  return { state$: defer(() => states.pipe(startWith(getState()))), subscription };
}
