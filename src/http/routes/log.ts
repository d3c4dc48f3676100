// `/log` (contract §9): the events kept in memory, as NDJSON; `?since=SEQ` for the newer ones.
import type { HttpContext } from '../context.js';
import type { EventLog } from '../../store/log.js';
import { toNdjsonLine } from '../../store/log.js';
import { ServiceError } from '../errors.js';

export function logRoute(log: EventLog) {
  return function eventLog(ctx: HttpContext): void {
    const since = ctx.query.since;
    if (since !== undefined && (typeof since !== 'string' || !/^\d+$/.test(since))) {
      throw new ServiceError('OPTION_UNSUPPORTED', '/log: since must be an event seq (a whole number)');
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/x-ndjson; charset=utf-8';
    ctx.body = log.events(since === undefined ? undefined : Number(since)).map(toNdjsonLine).join('');
  };
}
