// Keeps the output cache to what the state still refers to.
import { asapScheduler, auditTime, ignoreElements, tap, type Observable } from 'rxjs';
import type { OutputCache } from '../outputs/output-cache.js';
import type { CoreEvent } from '../store/events.js';
import type { ServiceState } from '../store/state.js';
import type { EffectScheduling } from './effect.js';

export interface OutputsGcDeps extends EffectScheduling {
  outputs: OutputCache;
  /** At most one pass per period (default 1 s). */
  outputsGcPeriodMs?: number;
}

export function referencedOutputs(state: ServiceState): Set<string> {
  const keep = new Set<string>();
  for (const builds of Object.values(state.builds)) {
    for (const variant of Object.values(builds.variants)) {
      const outputs = variant.last?.outputs;
      if (!outputs) continue;
      keep.add(outputs.code.hash);
      if (outputs.styles) keep.add(outputs.styles.hash);
      for (const chunk of Object.values(outputs.chunks ?? {})) keep.add(chunk.hash);
    }
  }
  return keep;
}

export function outputsGc$(_event$: Observable<CoreEvent>, state$: Observable<ServiceState>, deps: OutputsGcDeps): Observable<never> {
  return state$.pipe(
    auditTime(deps.outputsGcPeriodMs ?? 1000, deps.scheduler ?? asapScheduler),
    tap((state) => void deps.outputs.retain(referencedOutputs(state))),
    ignoreElements(),
  );
}
