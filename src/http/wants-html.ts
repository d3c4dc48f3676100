// Whether a request is a browser's navigation, which gets a page instead of the JSON error or
// answer tools get (README "The dashboard", "Preview and stylesheet push"). A browser lists
// `text/html` by name in the Accept of a navigation; `*/*` alone (curl, fetch, an Accept-less
// client) or `text/*` is not asking for a page, nor is `text/html;q=0`.
import type { HttpContext } from './context.js';

/** The request's Accept names `text/html` (any case) with a quality above 0. */
export function wantsHtml(ctx: Pick<HttpContext, 'accepts'>): boolean {
  // Without arguments, Koa's `accepts` lists the media ranges the request accepts, as written.
  const accepted = ctx.accepts() as string[];
  return accepted.some((range) => range.toLowerCase() === 'text/html');
}
