// The builds of a session as spans (start, end, outcome), folded from the events: the
// dashboard's timeline, each module's last build, and `core replay --chrome-trace` all read
// them, so the three agree. Pure: the state after each event is all it reads besides it.
import type { BuildReason, CoreEvent } from './events.js';
import type { ServiceState } from './state.js';

/** How many builds the service keeps for `GET /state/details` (each module's last build is kept regardless). */
export const BUILD_HISTORY_LIMIT = 1000;

export type BuildOutcome = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'unfinished';

export interface BuildSpan {
  build: number;
  variant: string;
  bundler: string;
  reason: BuildReason;
  modules: string[];
  /** One module built before, alone: esbuild rebuilds it from its kept context. */
  incremental: boolean;
  started: string;
  startSeq: number;
  ended: string | null;
  endSeq: number | null;
  outcome: BuildOutcome;
  /** Modules whose result was build.failed. */
  failed: string[];
  /** Why it was cancelled (build.cancelled's reason). */
  cancelled?: string;
}

export interface BuildHistory {
  /** Folds one event; `after` is the state the event produced. */
  add(event: CoreEvent, after: ServiceState): void;
  /** The kept spans, oldest first. */
  spans(): BuildSpan[];
  /** The last build of one module variant that ended, or is running. */
  lastBuild(module: string, variant: string): BuildSpan | undefined;
}

/** `limit`: how many spans to keep (the oldest go first); each module's last build is kept regardless. */
export function createBuildHistory(limit = Infinity): BuildHistory {
  let kept: BuildSpan[] = [];
  const open = new Map<number, { span: BuildSpan; waiting: Set<string> }>();
  let last = new Map<string, BuildSpan>();

  const end = (span: BuildSpan, event: CoreEvent, outcome: BuildOutcome) => {
    span.ended = event.time;
    span.endSeq = event.seq;
    span.outcome = outcome;
    open.delete(span.build);
  };

  return {
    add(event, after) {
      switch (event.type) {
        case 'service.started':
          // A new session: builds of the previous one never ended.
          for (const { span } of open.values()) end(span, event, 'unfinished');
          last = new Map();
          break;
        case 'build.started': {
          const modules = event.modules.map((entry) => entry.module);
          const only = modules.length === 1 ? after.builds[modules[0]!]?.variants[event.variant] : undefined;
          const span: BuildSpan = {
            build: event.build,
            variant: event.variant,
            bundler: event.bundler,
            reason: event.reason,
            modules,
            incremental: only !== undefined && only.last !== null,
            started: event.time,
            startSeq: event.seq,
            ended: null,
            endSeq: null,
            outcome: 'running',
            failed: [],
          };
          open.set(event.build, { span, waiting: new Set(modules) });
          kept.push(span);
          if (kept.length > limit + Math.ceil(limit / 10)) kept = kept.slice(kept.length - limit);
          for (const module of modules) last.set(`${module}\0${event.variant}`, span);
          break;
        }
        case 'build.succeeded':
        case 'build.failed': {
          const entry = open.get(event.build);
          if (!entry) break;
          if (event.type === 'build.failed') entry.span.failed.push(event.module);
          entry.waiting.delete(event.module);
          if (entry.waiting.size === 0) end(entry.span, event, entry.span.failed.length > 0 ? 'failed' : 'succeeded');
          break;
        }
        case 'build.cancelled': {
          const entry = open.get(event.build);
          if (!entry) break;
          entry.span.cancelled = event.reason;
          end(entry.span, event, 'cancelled');
          break;
        }
        case 'service.stopped':
          for (const { span } of open.values()) end(span, event, 'unfinished');
          break;
        default:
          break;
      }
    },
    spans: () => (kept.length > limit ? kept.slice(kept.length - limit) : kept.slice()),
    lastBuild: (module, variant) => last.get(`${module}\0${variant}`),
  };
}

/** Lanes for spans that may overlap: each span takes the first lane free when it starts (by event order). */
export function assignLanes(spans: readonly BuildSpan[]): number[] {
  const laneEnds: number[] = [];
  return spans.map((span) => {
    let lane = laneEnds.findIndex((endSeq) => endSeq < span.startSeq);
    if (lane === -1) lane = laneEnds.length;
    laneEnds[lane] = span.endSeq ?? Infinity;
    return lane;
  });
}
