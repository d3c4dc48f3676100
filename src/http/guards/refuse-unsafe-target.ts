// REQUEST_INVALID for a request-target that cannot be parsed safely (SECURITY.md): a
// fragment, a NUL byte, broken percent-encoding, or one too long to be a real address.
// Refused before any route looks at the path, so no route has to think about it; and
// METHOD_NOT_ALLOWED for anything but GET and HEAD: the service only reads.
import type { IncomingMessage } from 'node:http';
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

export function refuseUnsafeTarget(request: IncomingMessage): ServiceError | null {
  const problem = checkRequestTarget(request.url ?? '');
  return problem ? new ServiceError('REQUEST_INVALID', problem) : null;
}

export function refuseUnsafeMethod(request: IncomingMessage): ServiceError | null {
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  return new ServiceError('METHOD_NOT_ALLOWED', `${request.method} is not answered; the service answers GET and HEAD`, { headers: { Allow: 'GET, HEAD' } });
}
