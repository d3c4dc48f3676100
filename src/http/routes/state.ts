// `/state` (README "Addresses"): the report of every public module, answered once every module is
// built from the current sources. With `Accept: text/event-stream`, the same report as
// Server-Sent Events: the current one first, then one each time it changes.
import type { HttpContext } from '../context.js';
import { distinctUntilChanged, filter, map, type Observable } from 'rxjs';
import { selectReport, selectSettled, type ModuleReport, type Report } from '../../store/selectors.js';
import type { ServiceState } from '../../store/state.js';
import { streamEvents } from '../event-stream.js';
import type { Readiness } from '../readiness.js';

export interface StateRouteDeps {
  readiness: Readiness;
  state$: Observable<ServiceState>;
  /** Comment lines keeping idle event streams open through proxies. */
  heartbeatMs?: number;
  /** Bytes of events a reader may leave untaken before it is dropped (event-stream.ts). */
  bufferBytes?: number;
}

const serialized = new WeakMap<Report, string>();
const moduleJson = new WeakMap<ModuleReport, string>();

/**
 * The report as JSON text, serialized once per report: exactly `JSON.stringify(report)`, written
 * member by member so that each module's line, the same object while that module is unchanged
 * (`selectReport`), is serialized once, not once per build of any module.
 */
export function reportJson(report: Report): string {
  let text = serialized.get(report);
  if (text === undefined) serialized.set(report, (text = writeReport(report)));
  return text;
}

function writeReport(report: Report): string {
  const members: string[] = [];
  for (const [key, value] of Object.entries(report)) {
    if (value === undefined) continue;
    members.push(`${JSON.stringify(key)}:${key === 'modules' ? `[${(value as ModuleReport[]).map(writeModule).join(',')}]` : JSON.stringify(value)}`);
  }
  return `{${members.join(',')}}`;
}

function writeModule(module: ModuleReport): string {
  let text = moduleJson.get(module);
  if (text === undefined) moduleJson.set(module, (text = JSON.stringify(module)));
  return text;
}

export function stateRoute(deps: StateRouteDeps) {
  return async function state(ctx: HttpContext): Promise<void> {
    if (ctx.accepts('application/json', 'text/event-stream') === 'text/event-stream' && ctx.get('accept').includes('text/event-stream')) {
      return streamState(ctx, deps);
    }
    const settled = await deps.readiness.settled();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = reportJson(selectReport(settled));
  };
}

async function streamState(ctx: HttpContext, deps: StateRouteDeps) {
  await deps.readiness.settled();
  const reports$ = deps.state$.pipe(
    filter(selectSettled),
    map((state) => reportJson(selectReport(state))),
    distinctUntilChanged(),
    map((json) => ({ event: 'state', data: json })),
  );
  streamEvents(ctx, reports$, deps.heartbeatMs ?? 15_000, deps.bufferBytes);
}
