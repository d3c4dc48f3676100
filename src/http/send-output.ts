// Sending an output (README "Addresses"): a strong ETag of its content, `Cache-Control: no-cache`
// (one version's content changes while it is developed), 304 for a matching If-None-Match,
// and a wildcard CORS header only where the content holds no source code.
import type { HttpContext } from './context.js';

export interface OutputHeaders {
  type: string;
  hash: string;
  /** Production outputs and assets: loadable by any origin. */
  anyOrigin: boolean;
  /** An address naming its content by hash (`v=<hash>`): those bytes forever (README "Addresses"). */
  immutable?: boolean;
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A `v` token that names an output by its content hash (the ETag value), as the preview writes it. */
export const isContentHash = (token: unknown): token is string => typeof token === 'string' && /^[A-Za-z0-9_-]{22}$/.test(token);

export function sendOutput(ctx: HttpContext, body: Buffer, headers: OutputHeaders): void {
  ctx.set('Cache-Control', headers.immutable ? IMMUTABLE : 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (headers.anyOrigin) ctx.set('Access-Control-Allow-Origin', '*');
  ctx.etag = headers.hash; // Koa quotes it: a strong validator
  ctx.type = headers.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = body;
}
