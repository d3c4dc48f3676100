// The shape of one guard, apart from the list (`request-guards.ts`) that imports every guard.
import type { IncomingMessage } from 'node:http';
import type { ServiceError } from '../errors.js';

/** The refusal of a request, or null when the guard lets it through. Pure over the request's head. */
export type RequestGuard = (request: IncomingMessage) => ServiceError | null;
