// Error answers. Their codes, statuses and remedies are the one table of `src/codes.ts`.
import { ERROR_CODES, errorBody, type ErrorBody, type ErrorCode } from '../codes.js';
import type { ServerResponse } from 'node:http';
import type { Diagnostic } from '../workspace/diagnostics.js';

export { ERROR_CODES, type ErrorCode };

/** An answer that is an error: thrown by routes, turned into JSON by `respondWithErrors`. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly diagnostics: Diagnostic[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { diagnostics?: Diagnostic[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.diagnostics = options.diagnostics;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toJSON(): ErrorBody<Diagnostic> {
    return errorBody(this.code, this.message, this.diagnostics);
  }
}

// By shape, not by class: an extension may load its own copy of this module.
export const isServiceError = (error: unknown): error is ServiceError =>
  error instanceof Error && error.name === 'ServiceError' && typeof (error as ServiceError).code === 'string' && (error as ServiceError).code in ERROR_CODES;

/** BUILD_FAILED for a module whose manifest is invalid: it has no build to wait for. */
export const unbuildable = (specifier: string, diagnostics: Diagnostic[]): ServiceError =>
  new ServiceError('BUILD_FAILED', `${specifier} cannot be built: its manifest is invalid`, { diagnostics });

// By name, as BuildCancelled is thrown by the bundlers' and the extensions' own copies alike.
const isBuildCancelled = (error: unknown): boolean => error instanceof Error && error.name === 'BuildCancelled';

/**
 * What is thrown while answering, as an error answer: a defect (anything but a ServiceError) is
 * logged with its stack and answered 500 INTERNAL_ERROR. A build or join the close cancelled is
 * the close's expected end, not a defect: SERVICE_CLOSING, nothing logged (README "The
 * programmatic API").
 */
export function asServiceError(caught: unknown, log: (message: string) => void): ServiceError {
  if (isServiceError(caught)) return caught;
  if (isBuildCancelled(caught)) return new ServiceError('SERVICE_CLOSING', 'the service is closing: the build this answer waited on was cancelled');
  log(`core: internal error: ${caught instanceof Error ? caught.stack : String(caught)}`);
  return new ServiceError('INTERNAL_ERROR', `the service failed to answer: ${caught instanceof Error ? caught.message : String(caught)}`);
}

/** The headers of every error answer: its own, then never cached, JSON. */
export const errorHeaders = (error: ServiceError): Record<string, string> => ({ ...error.headers, 'Cache-Control': 'no-store', 'Content-Type': 'application/json; charset=utf-8' });

/** An error answer written where Koa does not run (the answer cache in front of it), as `respondWithErrors` writes it. */
export function sendError(res: ServerResponse, error: ServiceError): void {
  if (res.headersSent) return void res.destroy();
  const body = JSON.stringify(error.toJSON());
  res.writeHead(error.status, { ...errorHeaders(error), 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
