// The builds of a recorded session in the Trace Event Format that Perfetto and
// chrome://tracing open (README "Builds as a trace"):
// one thread per build lane, each build a complete event ("X") with its modules, reason and
// outcome in `args`, and the events that are no build (file changes, requests) as instants.
import { assignLanes, createBuildHistory } from './build-history.js';
import type { CoreEvent } from './events.js';
import { reducer } from './reducer.js';
import { initialState } from './state.js';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'i' | 'M';
  ts: number;
  pid: number;
  tid: number;
  dur?: number;
  s?: 't' | 'p' | 'g';
  cat?: string;
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, string>;
}

const PID = 1;
const EVENTS_TID = 0;

/** `events`: one session, in order (see lastSession). */
export function chromeTrace(events: readonly CoreEvent[]): ChromeTrace {
  const history = createBuildHistory();
  let state = initialState();
  for (const event of events) {
    state = reducer(state, event);
    history.add(event, state);
  }
  const origin = events.length > 0 ? Date.parse(events[0]!.time) : 0;
  const micros = (time: string) => Math.max(0, Math.round((Date.parse(time) - origin) * 1000));
  const end = events.length > 0 ? events[events.length - 1]!.time : new Date(origin).toISOString();
  const spans = history.spans();
  const lanes = assignLanes(spans);
  const traceEvents: TraceEvent[] = [
    { name: 'process_name', ph: 'M', ts: 0, pid: PID, tid: EVENTS_TID, args: { name: `core ${state.root ?? ''}`.trim() } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: PID, tid: EVENTS_TID, args: { name: 'events' } },
  ];
  for (let lane = 0; lane < Math.max(0, ...lanes.map((l) => l + 1)); lane += 1) {
    traceEvents.push({ name: 'thread_name', ph: 'M', ts: 0, pid: PID, tid: lane + 1, args: { name: `build lane ${lane + 1}` } });
  }
  spans.forEach((span, index) => {
    const ts = micros(span.started);
    const name = span.modules.length === 1 ? span.modules[0]! : `${span.modules.length} modules`;
    traceEvents.push({
      name: `#${span.build} ${name}`,
      cat: `build,${span.outcome}`,
      ph: 'X',
      ts,
      dur: Math.max(0, micros(span.ended ?? end) - ts),
      pid: PID,
      tid: lanes[index]! + 1,
      args: {
        build: span.build,
        outcome: span.ended === null ? 'unfinished' : span.outcome,
        reason: span.reason,
        incremental: span.incremental,
        variant: span.variant,
        bundler: span.bundler,
        modules: span.modules,
        failed: span.failed,
        ...(span.cancelled ? { cancelled: span.cancelled } : {}),
        seq: [span.startSeq, span.endSeq],
      },
    });
  });
  for (const event of events) {
    if (event.type !== 'files.changed' && event.type !== 'output.requested' && event.type !== 'workspace.read' && event.type !== 'service.started' && event.type !== 'service.stopped') continue;
    const args: Record<string, unknown> = { seq: event.seq };
    if (event.type === 'files.changed') Object.assign(args, { files: Object.keys(event.files), source: event.source });
    if (event.type === 'output.requested') Object.assign(args, { module: event.module, variant: event.variant });
    traceEvents.push({ name: event.type, cat: 'event', ph: 'i', s: 't', ts: micros(event.time), pid: PID, tid: EVENTS_TID, args });
  }
  return { traceEvents, displayTimeUnit: 'ms', otherData: { source: 'core replay --chrome-trace', started: events[0]?.time ?? '' } };
}
