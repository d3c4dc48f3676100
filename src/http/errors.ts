// The one table of error codes (README "Error codes"): every error answer takes its status here.
import type { Diagnostic } from '../workspace/diagnostics.js';

export const ERRORS = {
  OUTPUT_NOT_AVAILABLE: { status: 404, remedy: 'declare the module in exports or module.json, or the file under "assets"' },
  CONDITIONAL_NOT_FOUND: { status: 404, remedy: 'add the platform to "platforms" in module.json if the module really runs there' },
  OPTION_UNSUPPORTED: { status: 400, remedy: 'use the query values of README "Addresses"' },
  BUILD_FAILED: { status: 422, remedy: 'fix the source; the diagnostics say where' },
  PREVIEW_CDN_UNSET: { status: 503, remedy: 'start the service again with CORE_CDN_ORIGIN set, for example https://esm.sh' },
  HOST_NOT_ALLOWED: { status: 403, remedy: 'use localhost, or start the service with --allowed-host for this host name' },
  CROSS_SITE_REFUSED: { status: 403, remedy: 'load production output (env=production) from other sites' },
  REQUEST_INVALID: { status: 400, remedy: 'send a request-target without "#", NUL bytes or broken percent-encoding' },
  REQUEST_TIMEOUT: { status: 408, remedy: 'send the request line and headers within 10 s, and the whole request within 60 s' },
  METHOD_NOT_ALLOWED: { status: 405, remedy: 'the service answers GET and HEAD only' },
  INTERNAL_ERROR: { status: 500, remedy: 'a defect of the service: please report it with the output of `core run`' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  diagnostics?: Diagnostic[];
}

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
    return ERRORS[this.code].status;
  }

  toJSON(): ErrorBody {
    return this.diagnostics ? { code: this.code, message: this.message, diagnostics: this.diagnostics } : { code: this.code, message: this.message };
  }
}

// By shape, not by class: an extension may load its own copy of this module.
export const isServiceError = (error: unknown): error is ServiceError =>
  error instanceof Error && error.name === 'ServiceError' && typeof (error as ServiceError).code === 'string' && (error as ServiceError).code in ERRORS;
