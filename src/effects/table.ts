// Every effect of the service, by the name the supervisor reports it under (ARCHITECTURE.md
// "Layers"). What the effects are given is derived from this table: an effect that names a new
// need changes `EffectDeps`, and the composition root then fails to compile until it gives it.
import { builds$ } from './builds.js';
import type { Effect } from './effect.js';
import { manifests$ } from './manifests.js';
import { outputsGc$ } from './outputs-gc.js';
import { persistBuilds$ } from './persist-builds.js';
import { record$ } from './record.js';
import { watch$ } from './watch.js';

/** `record` first: it is subscribed before the first event, so the file holds every one. */
export const EFFECTS = {
  record: record$,
  manifests: manifests$,
  builds: builds$,
  watch: watch$,
  outputs: outputsGc$,
  persist: persistBuilds$,
} as const;

export type EffectName = keyof typeof EFFECTS;

type DepsOf<E> = E extends Effect<infer D> ? D : never;
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** What the effects are given: one object for all, each effect taking what it names (src/effects/effect.ts). */
export type EffectDeps = Intersection<DepsOf<(typeof EFFECTS)[EffectName]>>;

/** The table's rows, each typed as an effect of everything the effects are given (checked, not cast). */
export function effectRows(names: readonly EffectName[]): [EffectName, Effect<EffectDeps>][] {
  return names.map((name) => [name, EFFECTS[name]]);
}
