// The guards every request passes before anything answers it, in one ordered list. Koa runs
// them as one middleware; the answer cache and the WebSocket upgrade run the very same list
// before they answer (ARCHITECTURE.md "One HTTP path"), so a guard added here protects every
// answer the service gives.
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import type { ServiceError } from '../errors.js';
import { guardHost, type HostPolicy } from './guard-host.js';
import type { RequestGuard } from './request-guard.js';
import { refuseUnsafeMethod, refuseUnsafeTarget } from './refuse-unsafe-target.js';

export type { RequestGuard };

export function requestGuards(hosts: HostPolicy): readonly RequestGuard[] {
  return [refuseUnsafeTarget, refuseUnsafeMethod, guardHost(hosts)];
}

export function firstRefusal(guards: readonly RequestGuard[], request: IncomingMessage): ServiceError | null {
  for (const guard of guards) {
    const refusal = guard(request);
    if (refusal) return refusal;
  }
  return null;
}

export function guardRequests(guards: readonly RequestGuard[]): Middleware {
  return async function guardRequests(ctx, next) {
    const refusal = firstRefusal(guards, ctx.req);
    if (refusal) throw refusal;
    await next();
  };
}
