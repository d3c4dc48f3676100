// Sending an output (README "Addresses"): a strong ETag of its content, `Cache-Control: no-cache`
// (one version's content changes while it is developed), 304 for a matching If-None-Match,
// and a wildcard CORS header only where the content holds no source code.
import type { IncomingMessage } from 'node:http';
import type { HttpContext } from './context.js';
import { contentRange, planRange, rangeNotSatisfiable } from './byte-ranges.js';

export interface OutputHeaders {
  type: string;
  hash: string;
  /** Production outputs and assets: loadable by any origin. */
  anyOrigin: boolean;
  /** An address naming its content by hash (`v=<hash>`): those bytes forever (README "Addresses"). */
  immutable?: boolean;
  /**
   * A declared asset: its hash also in `Server-Timing`, the one header of an answer a page's
   * resource timeline keeps, so that a page that fetched the asset's plain address knows which
   * bytes it got (README "Preview and stylesheet push": a page reconnecting compares them).
   */
  hashInTimeline?: boolean;
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The headers of an output's 200 and 304 answers alike (not its type): the one place they are written. */
export function outputHeaders(headers: OutputHeaders): Record<string, string> {
  const written: Record<string, string> = {
    'Cache-Control': headers.immutable ? IMMUTABLE : 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    ETag: `"${headers.hash}"`, // a strong validator
    'Accept-Ranges': 'bytes', // byte-ranges.ts
  };
  if (headers.anyOrigin) written['Access-Control-Allow-Origin'] = '*';
  if (headers.hashInTimeline) written['Server-Timing'] = `asset;desc="${headers.hash}"`;
  return written;
}

/**
 * A `<script src>` of another site reading development output (and its source maps) is
 * refused; fetch() with CORS is refused by the browser anyway, lacking the CORS header.
 */
export function isCrossSiteRefused(request: IncomingMessage, anyOrigin: boolean): boolean {
  return !anyOrigin && request.headers['sec-fetch-site'] === 'cross-site' && request.headers['sec-fetch-mode'] === 'no-cors';
}

export function sendOutput(ctx: HttpContext, body: Buffer, headers: OutputHeaders): void {
  ctx.set(outputHeaders(headers));
  ctx.type = headers.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  const plan = planRange(ctx.req.headers, body.length, `"${headers.hash}"`);
  if (plan.kind === 'unsatisfiable') {
    // The error's JSON is no part of the output: none of the output's headers describe it.
    for (const name of Object.keys(outputHeaders(headers))) ctx.remove(name);
    throw rangeNotSatisfiable(body.length, ctx.get('Range'));
  }
  if (plan.kind === 'part') {
    ctx.status = 206;
    ctx.set('Content-Range', contentRange(plan.start, plan.end, body.length));
    ctx.body = body.subarray(plan.start, plan.end + 1);
    return;
  }
  ctx.body = body;
}
