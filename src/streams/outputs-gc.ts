// Keeps the output cache to what the state still refers to.
import { asyncScheduler, auditTime, Observable, type SchedulerLike } from 'rxjs';
import type { OutputCache } from '../outputs/output-cache.js';
import type { ServiceState } from '../store/state.js';

export function referencedOutputs(state: ServiceState): Set<string> {
  const keep = new Set<string>();
  for (const builds of Object.values(state.builds)) {
    for (const variant of Object.values(builds.variants)) {
      const outputs = variant.last?.outputs;
      if (!outputs) continue;
      keep.add(outputs.code.hash);
      if (outputs.styles) keep.add(outputs.styles.hash);
    }
  }
  return keep;
}

export function outputsGc$(state$: Observable<ServiceState>, outputs: OutputCache, periodMs = 1000, scheduler: SchedulerLike = asyncScheduler): Observable<never> {
  return new Observable<never>((subscriber) =>
    state$.pipe(auditTime(periodMs, scheduler)).subscribe({
      next: (state) => void outputs.retain(referencedOutputs(state)),
      complete: () => subscriber.complete(),
    }),
  );
}
