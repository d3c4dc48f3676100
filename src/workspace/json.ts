// JSON text to a value, or a MANIFEST_INVALID diagnostic that points at the broken spot.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; diagnostic: Diagnostic };

export function parseJson(text: string, file: string): Parsed<unknown> {
  try {
    // A byte order mark is legal in a file an editor saved, not in JSON.
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const result = manifestInvalid(file, `${file} is not valid JSON: ${reason}`);
    const where = locate(text, reason);
    if (where) Object.assign(result, where);
    return { ok: false, diagnostic: result };
  }
}

// V8 names either a position or a line and column; editors want the line and column.
function locate(text: string, reason: string): { line: number; column: number } | null {
  const lineColumn = /line (\d+) column (\d+)/.exec(reason);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(reason);
  if (!position) return text.trim() === '' ? { line: 1, column: 1 } : null;
  const before = text.slice(0, Number(position[1]));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const describeType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
