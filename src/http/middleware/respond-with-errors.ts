// Every error becomes the JSON body of the README's "Error codes". An unexpected exception is a defect: it
// is logged with its stack and answered 500 INTERNAL_ERROR, and the server lives on.
import type { Middleware } from 'koa';
import { ServiceError, isServiceError } from '../errors.js';

export function respondWithErrors(log: (message: string) => void): Middleware {
  return async function respondWithErrors(ctx, next) {
    try {
      await next();
    } catch (caught) {
      const error = isServiceError(caught) ? caught : internal(caught, log);
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify(error.toJSON());
    }
  };
}

function internal(caught: unknown, log: (message: string) => void): ServiceError {
  log(`core: internal error: ${caught instanceof Error ? caught.stack : String(caught)}`);
  return new ServiceError('INTERNAL_ERROR', `the service failed to answer: ${caught instanceof Error ? caught.message : String(caught)}`);
}
