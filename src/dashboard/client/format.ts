// How numbers, times and places read on the dashboard.
import type { Diagnostic } from '../../workspace/diagnostics.js';

export function bytes(size: number): string {
  // A no-break space: a narrow column never parts the number from its unit.
  if (size < 1024) return `${size}\u00a0B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(size < 10 * 1024 ? 1 : 0)}\u00a0KB`;
  return `${(size / 1024 / 1024).toFixed(1)}\u00a0MB`;
}

export function duration(ms: number | null): string {
  if (ms === null) return '…';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** `HH:MM:SS.mmm` of an ISO time, in UTC as the log records it. */
export const clock = (time: string): string => time.slice(11, 23);

export function place(diagnostic: Diagnostic): string {
  if (!diagnostic.file) return '';
  if (!diagnostic.line) return diagnostic.file;
  return `${diagnostic.file}:${diagnostic.line}${diagnostic.column ? `:${diagnostic.column}` : ''}`;
}

/** The heading over a workspace with no invalid module. */
export const allValidHeading = (built: number): string => (built === 1 ? 'The built module is valid' : `All ${built} built modules are valid`);
