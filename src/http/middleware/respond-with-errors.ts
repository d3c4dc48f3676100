// Every error becomes the JSON body of the README's "Error codes". An unexpected exception is a defect: it
// is logged with its stack and answered 500 INTERNAL_ERROR, and the server lives on.
import type { Middleware } from 'koa';
import { asServiceError, errorHeaders } from '../errors.js';

export function respondWithErrors(log: (message: string) => void): Middleware {
  return async function respondWithErrors(ctx, next) {
    try {
      await next();
    } catch (caught) {
      const error = asServiceError(caught, log);
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = error.status;
      ctx.set(errorHeaders(error));
      ctx.body = JSON.stringify(error.toJSON());
    }
  };
}

