// Byte ranges of an output's answer (README "Addresses", "Range requests"): a `<video>` or
// `<audio>` asset seeks by asking for a part of its bytes, and Safari plays none it cannot ask so.
// One satisfiable range is answered 206 with `Content-Range`; several are answered whole (200),
// as RFC 9110 allows, unless they join into one; none satisfiable is 416 with `bytes */SIZE`.
// A Range the service does not read (another unit, a malformed one) is ignored, as RFC 9110 asks
// of an unknown unit, and so is one under an `If-Range` other than the answer's strong ETag. The
// service compresses no answer, so a range is always of the bytes the whole answer would carry.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { sendError, ServiceError } from './errors.js';

export type RangePlan =
  | { kind: 'whole' }
  | { kind: 'part'; start: number; end: number }
  | { kind: 'unsatisfiable' };

const WHOLE: RangePlan = { kind: 'whole' };
const SPEC = /^(\d*)-(\d*)$/;

/** The bytes `[start, end]` (both included) one range-spec selects of `size`; null when it selects none (unsatisfiable); 'invalid' when malformed. */
function selected(spec: string, size: number): [number, number] | null | 'invalid' {
  const match = SPEC.exec(spec);
  if (!match || (match[1] === '' && match[2] === '')) return 'invalid';
  const [, first, last] = match;
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 ? null : [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return 'invalid';
  if (start >= size) return null;
  return [start, last === '' ? size - 1 : Math.min(Number(last), size - 1)];
}

/** The ranges of a `bytes=` range-set, sorted and joined where they overlap or touch; null when malformed. */
function joinedRanges(rangeSet: string, size: number): Array<[number, number]> | null {
  // A list of RFC 9110: elements separated by commas with optional spaces, empty ones allowed.
  const specs = rangeSet.split(',').map((spec) => spec.trim()).filter((spec) => spec !== '');
  if (specs.length === 0) return null;
  const ranges: Array<[number, number]> = [];
  for (const spec of specs) {
    const range = selected(spec, size);
    if (range === 'invalid') return null;
    if (range) ranges.push(range);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const joined: Array<[number, number]> = [];
  for (const range of ranges) {
    const previous = joined[joined.length - 1];
    if (previous && range[0] <= previous[1] + 1) previous[1] = Math.max(previous[1], range[1]);
    else joined.push([...range]);
  }
  return joined;
}

/**
 * What an answer of `size` bytes with the strong validator `etag` (quoted) gives a request's
 * `Range` and `If-Range`: asked only where the answer would otherwise be a 200.
 */
export function planRange(headers: IncomingHttpHeaders, size: number, etag: string): RangePlan {
  const range = headers.range;
  if (typeof range !== 'string') return WHOLE;
  const ifRange = headers['if-range'];
  // A weak tag never matches (RFC 9110 "If-Range"), and a date cannot: no answer has a Last-Modified.
  if (ifRange !== undefined && String(ifRange).trim() !== etag) return WHOLE;
  const unit = /^\s*bytes\s*=/i.exec(range);
  if (!unit) return WHOLE;
  const ranges = joinedRanges(range.slice(unit[0].length), size);
  if (ranges === null) return WHOLE;
  if (ranges.length === 0) return { kind: 'unsatisfiable' };
  const [[start, end]] = ranges;
  // Several ranges apart are answered whole; a suffix of an empty answer selects no byte to name.
  return ranges.length === 1 && end >= start ? { kind: 'part', start, end } : WHOLE;
}

export const contentRange = (start: number, end: number, size: number): string => `bytes ${start}-${end}/${size}`;

/** The 416 of a range no byte of `size` satisfies: its `Content-Range` tells the size. */
export const rangeNotSatisfiable = (size: number, range: string): ServiceError =>
  new ServiceError('RANGE_NOT_SATISFIABLE', `the range "${range.length > 200 ? `${range.slice(0, 200)}…` : range}" selects none of the answer's ${size} bytes`, {
    headers: { 'Content-Range': `bytes */${size}` },
  });

/**
 * The part or the 416 of a `Range`, written where Koa does not run (the answer cache), as
 * `sendOutput` answers it through Koa: false when the whole answer is owed instead. `whole` are
 * the headers of the whole 200, its ETag included.
 */
export function sendRangeOf(req: IncomingMessage, res: ServerResponse, body: Buffer, whole: Record<string, string | number>): boolean {
  const plan = planRange(req.headers, body.length, String(whole.ETag));
  if (plan.kind === 'whole') return false;
  if (plan.kind === 'unsatisfiable') {
    sendError(res, rangeNotSatisfiable(body.length, req.headers.range ?? ''));
    return true;
  }
  const part = body.subarray(plan.start, plan.end + 1);
  res.writeHead(206, { ...whole, 'Content-Length': part.length, 'Content-Range': contentRange(plan.start, plan.end, body.length) });
  res.end(req.method === 'HEAD' ? undefined : part);
  return true;
}
