// Replay: a recorded log folded with the same reducer, so it yields the state (and the
// `/state` report) the live service had. No build runs; outputs are known by hash only.
import { EVENT_FORMAT, EVENT_TYPES, type CoreEvent } from './events.js';
import { reducer } from './reducer.js';
import { selectReport, type ModuleReport } from './selectors.js';
import { initialState, type ServiceState } from './state.js';

export class LogFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogFormatError';
  }
}

export interface ParsedLog {
  events: CoreEvent[];
  /** Things worth saying that do not stop the replay (a cut-off last line). */
  warnings: string[];
}

/** Reads NDJSON events; refuses what it cannot read faithfully rather than misreading it. */
export function parseLog(text: string, name = 'the log'): ParsedLog {
  const lines = text.split('\n');
  const warnings: string[] = [];
  const events: CoreEvent[] = [];
  // Without a final newline, the last line was still being written when the writer died.
  const last = text.endsWith('\n') ? lines.length - 1 : lines.length;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      if (index === last - 1 && !text.endsWith('\n')) {
        warnings.push(`${name}: line ${index + 1} is cut off (the service stopped while writing it) and is skipped`);
        continue;
      }
      // A session killed mid-line, then a new one appended to the same file: the cut line
      // ends where the next session's service.started begins.
      if (startsSession(lines, index + 1)) {
        warnings.push(`${name}: line ${index + 1} is cut off (the service was killed while writing it; a new session follows) and is skipped`);
        continue;
      }
      throw new LogFormatError(`${name}: line ${index + 1} is not JSON: ${line.slice(0, 80)}`);
    }
    events.push(validate(event, index + 1, name));
  }
  if (events.length > 0 && events[0]!.type !== 'service.started') {
    warnings.push(`${name} does not begin with service.started: events before seq ${events[0]!.seq} are missing, so the report may be incomplete`);
  }
  return { events, warnings };
}

/** Is the first non-empty line from `index` on the start of a session? */
function startsSession(lines: readonly string[], index: number): boolean {
  const next = lines.slice(index).find((line) => line.trim() !== '');
  if (next === undefined) return false;
  try {
    return (JSON.parse(next) as { type?: unknown }).type === 'service.started';
  } catch {
    return false;
  }
}

function validate(value: unknown, line: number, name: string): CoreEvent {
  const event = value as Partial<CoreEvent> & { format?: unknown };
  if (typeof event !== 'object' || event === null || !Number.isInteger(event.seq) || typeof event.time !== 'string' || typeof event.type !== 'string') {
    throw new LogFormatError(`${name}: line ${line} is not an event (an object with seq, time and type)`);
  }
  if (!(EVENT_TYPES as readonly string[]).includes(event.type)) {
    throw new LogFormatError(`${name}: line ${line} has the event type "${event.type}", unknown to this version of core (event format ${EVENT_FORMAT}); it was written by a newer or different core`);
  }
  if (event.type === 'service.started' && event.format !== EVENT_FORMAT) {
    throw new LogFormatError(`${name}: line ${line} starts a log in event format ${JSON.stringify(event.format)}; this version of core reads format ${EVENT_FORMAT} only`);
  }
  return event as CoreEvent;
}

/** The events of the last session (a file may hold several `core run --record` sessions), up to `until`. */
export function lastSession(events: readonly CoreEvent[], until?: number): CoreEvent[] {
  let start = 0;
  events.forEach((event, index) => {
    if (event.type === 'service.started') start = index;
  });
  const session = events.slice(start);
  return until === undefined ? session : session.filter((event) => event.seq <= until);
}

export function replay(events: readonly CoreEvent[]): ServiceState {
  return events.reduce(reducer, initialState());
}

export interface TraceChange {
  specifier: string;
  from: ModuleReport | null;
  to: ModuleReport | null;
}

export interface TraceStep {
  event: CoreEvent;
  changes: TraceChange[];
}

/** Per event, the modules whose status or diagnostics it changed. */
export function trace(events: readonly CoreEvent[]): TraceStep[] {
  const steps: TraceStep[] = [];
  let state = initialState();
  let before = new Map<string, ModuleReport>();
  for (const event of events) {
    state = reducer(state, event);
    const after = modulesOf(state);
    const changes = changesBetween(before, after);
    if (changes.length > 0) steps.push({ event, changes });
    before = after;
  }
  return steps;
}

/** The modules of a state's report, by specifier. */
export const modulesOf = (state: ServiceState): Map<string, ModuleReport> => new Map(selectReport(state).modules.map((module) => [module.specifier, module]));

/** The modules whose status or diagnostics differ between two reports (the dashboard's replay asks too). */
export function changesBetween(before: ReadonlyMap<string, ModuleReport>, after: ReadonlyMap<string, ModuleReport>): TraceChange[] {
  const changes: TraceChange[] = [];
  for (const [specifier, module] of after) {
    const previous = before.get(specifier) ?? null;
    if (previous === module) continue;
    if (!previous || previous.status !== module.status || JSON.stringify(previous.diagnostics) !== JSON.stringify(module.diagnostics)) {
      changes.push({ specifier, from: previous, to: module });
    }
  }
  for (const [specifier, module] of before) {
    if (!after.has(specifier)) changes.push({ specifier, from: module, to: null });
  }
  return changes;
}
