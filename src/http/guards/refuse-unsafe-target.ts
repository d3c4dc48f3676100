// REQUEST_INVALID for a request-target that cannot be parsed safely (SECURITY.md): a
// fragment, a NUL byte, broken percent-encoding, or one too long to be a real address.
// Refused before any route looks at the path, so no route has to think about it.
import type { Middleware } from 'koa';
import { ServiceError } from '../errors.js';

export const MAX_TARGET_LENGTH = 8192;

export function checkRequestTarget(target: string): string | null {
  if (target.length > MAX_TARGET_LENGTH) return `the request-target is longer than ${MAX_TARGET_LENGTH} characters`;
  if (target.includes('#')) return 'the request-target holds "#": a fragment is never sent to a server';
  if (target.includes('\0')) return 'the request-target holds a NUL byte';
  let decoded: string;
  try {
    decoded = decodeURIComponent(target.replace(/\+/g, ' '));
  } catch {
    return 'the request-target holds malformed percent-encoding';
  }
  if (decoded.includes('\0')) return 'the request-target holds an encoded NUL byte (%00)';
  return null;
}

export function refuseUnsafeTarget(): Middleware {
  return async function refuseUnsafeTarget(ctx, next) {
    const problem = checkRequestTarget(ctx.req.url ?? '');
    if (problem) throw new ServiceError('REQUEST_INVALID', problem);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new ServiceError('METHOD_NOT_ALLOWED', `${ctx.method} is not answered; the service answers GET and HEAD`, { headers: { Allow: 'GET, HEAD' } });
    }
    await next();
  };
}
