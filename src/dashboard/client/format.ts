// How numbers, times and places read on the dashboard.
import type { Diagnostic } from '../../workspace/diagnostics.js';

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(size < 10 * 1024 ? 1 : 0)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
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
