// A recorded log made seekable: folded once with the service's own reducer (the same fold as
// `core replay`), keeping a state every SNAPSHOT_EVERY events, the trace's changes per event
// and the build spans; a seek folds at most SNAPSHOT_EVERY - 1 events from a snapshot.
import { createBuildHistory, type BuildHistory, type BuildSpan } from '../../store/build-history.js';
import type { CoreEvent } from '../../store/events.js';
import { reducer } from '../../store/reducer.js';
import { changesBetween, lastSession, modulesOf, parseLog, type TraceChange } from '../../store/replay.js';
import type { ModuleReport } from '../../store/selectors.js';
import { initialState, type ServiceState } from '../../store/state.js';

export const SNAPSHOT_EVERY = 500;
const CHUNK = 2000;

export class ReplayLog {
  /** states[k]: the state after the first k * SNAPSHOT_EVERY events. */
  private readonly snapshots: ServiceState[] = [initialState()];
  /** By event index: the modules whose status or diagnostics that event changed. */
  readonly changes = new Map<number, TraceChange[]>();
  /** By module: the indexes of the events that changed it, ascending. */
  private readonly changedAt = new Map<string, number[]>();
  spans: BuildSpan[] = [];
  /** By `module\0variant`: the indexes in `spans` of its builds, ascending. */
  private readonly spansOf = new Map<string, number[]>();
  private cached: { index: number; state: ServiceState } | null = null;
  private changeIndexes: number[] | null = null;

  private constructor(
    readonly events: CoreEvent[],
    readonly warnings: string[],
  ) {}

  /** Parses and folds `text` (NDJSON), yielding to the page between chunks; throws LogFormatError. */
  static async load(text: string, name: string, progress: (done: number, total: number) => void): Promise<ReplayLog> {
    const parsed = parseLog(text, name);
    const log = new ReplayLog(lastSession(parsed.events), parsed.warnings);
    const history = createBuildHistory();
    let state = initialState();
    let before = new Map<string, ModuleReport>();
    for (let index = 0; index < log.events.length; index += 1) {
      const event = log.events[index]!;
      state = reducer(state, event);
      history.add(event, state);
      const after = modulesOf(state);
      const changes = changesBetween(before, after);
      before = after;
      if (changes.length > 0) {
        log.changes.set(index, changes);
        for (const change of changes) {
          if (!log.changedAt.has(change.specifier)) log.changedAt.set(change.specifier, []);
          log.changedAt.get(change.specifier)!.push(index);
        }
      }
      if ((index + 1) % SNAPSHOT_EVERY === 0) log.snapshots.push(state);
      if ((index + 1) % CHUNK === 0) {
        progress(index + 1, log.events.length);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
    log.spans = history.spans();
    log.spans.forEach((span, i) => {
      for (const module of span.modules) {
        const key = `${module}\0${span.variant}`;
        if (!log.spansOf.has(key)) log.spansOf.set(key, []);
        log.spansOf.get(key)!.push(i);
      }
    });
    return log;
  }

  /** The state right after the event at `index` (-1: before the first). */
  stateAt(index: number): ServiceState {
    if (index < 0) return this.snapshots[0]!;
    const block = Math.floor((index + 1) / SNAPSHOT_EVERY);
    let from = block * SNAPSHOT_EVERY;
    let state = this.snapshots[block]!;
    if (this.cached && this.cached.index < index && this.cached.index >= from) {
      from = this.cached.index + 1;
      state = this.cached.state;
    } else if (this.cached?.index === index) {
      return this.cached.state;
    }
    for (let i = from; i <= index; i += 1) state = reducer(state, this.events[i]!);
    this.cached = { index, state };
    return state;
  }

  /** The index of the last event at or before `index` that changed `specifier`'s status or diagnostics. */
  lastChange(specifier: string, index: number): number | null {
    const list = this.changedAt.get(specifier);
    return list ? lastAtOrBefore(list, (at) => at <= index) : null;
  }

  /** The index of the last event whose time is at or before `time` (ms). */
  indexAtTime(time: number): number {
    let low = 0;
    let high = this.events.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (Date.parse(this.events[middle]!.time) <= time) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return Math.max(0, found);
  }

  /** The next (or previous) event that changed a module, from `index`. */
  nextChange(index: number, direction: 1 | -1): number {
    this.changeIndexes ??= [...this.changes.keys()];
    const before = lastAtOrBefore(this.changeIndexes, (at) => at < index);
    if (direction === -1) return before ?? index;
    const position = before === null ? 0 : this.changeIndexes.indexOf(before) + 1;
    const next = this.changeIndexes.slice(position).find((at) => at > index);
    return next ?? index;
  }

  /** The build history as it stood after the event at `index`: builds not ended by then are running. */
  historyAt(index: number): BuildHistory {
    const seq = this.events[index]?.seq ?? 0;
    const asOf = (span: BuildSpan): BuildSpan => (span.endSeq !== null && span.endSeq <= seq ? span : { ...span, ended: null, endSeq: null, outcome: 'running', failed: [] });
    return {
      add() {},
      spans: () => this.spans.filter((span) => span.startSeq <= seq).map(asOf),
      lastBuild: (module, variant) => {
        const list = this.spansOf.get(`${module}\0${variant}`);
        if (!list) return undefined;
        const found = lastAtOrBefore(list, (i) => this.spans[i]!.startSeq <= seq);
        return found === null ? undefined : asOf(this.spans[found]!);
      },
    };
  }
}

/** The last item of an ascending list for which `holds` (true up to a point, then false). */
function lastAtOrBefore(list: readonly number[], holds: (item: number) => boolean): number | null {
  let low = 0;
  let high = list.length - 1;
  let found: number | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (holds(list[middle]!)) {
      found = list[middle]!;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
