// JSON text to a value, or a MANIFEST_INVALID diagnostic that points at the broken spot.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; diagnostic: Diagnostic };

/**
 * Objects and arrays within one another a manifest may hold (README "Workspaces"): the walks of
 * `exports`, conditions, processors and the rest recurse, and a deeper manifest would overflow
 * the stack, so it is MANIFEST_INVALID before any of them runs.
 */
export const MAX_MANIFEST_DEPTH = 64;

export function parseJson(text: string, file: string): Parsed<unknown> {
  // A byte order mark is legal in a file an editor saved, not in JSON.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const result = manifestInvalid(file, `${file} is not valid JSON: ${reason}`);
    const where = locate(json, reason);
    if (where) Object.assign(result, where);
    return { ok: false, diagnostic: result };
  }
  if (isDeeperThan(value, MAX_MANIFEST_DEPTH)) {
    return { ok: false, diagnostic: manifestInvalid(file, `${file} nests objects and arrays more than ${MAX_MANIFEST_DEPTH} levels deep; no manifest needs that many`) };
  }
  return { ok: true, value };
}

/** Whether `value` nests objects and arrays more than `limit` levels deep; without recursion, as the value may be deeper than the stack. */
export function isDeeperThan(value: unknown, limit: number): boolean {
  const pending: { item: unknown; depth: number }[] = [{ item: value, depth: 1 }];
  while (pending.length > 0) {
    const { item, depth } = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) pending.push({ item: child, depth: depth + 1 });
    }
  }
  return false;
}

// Editors want the line and column. V8 names a position for some errors only (Node 20 says
// "Unexpected token ..." or "Unexpected end of JSON input" without one); for the others the
// first error is found by scanning the text.
function locate(text: string, reason: string): { line: number; column: number } | null {
  const lineColumn = /line (\d+) column (\d+)/.exec(reason);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(reason);
  const offset = position ? Number(position[1]) : errorOffset(text);
  if (offset < 0) return null;
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** The offset of the first syntax error of `text`; -1 when none is found. */
function errorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(String(i));
  };
  const space = () => {
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i += 1;
  };
  const expect = (char: string) => {
    space();
    if (text[i] !== char) fail();
    i += 1;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const char = text[i];
      if (char === undefined || char < ' ') fail();
      if (char === '"') return void (i += 1);
      if (char !== '\\') i += 1;
      else {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) fail();
        i = ESCAPE.lastIndex;
      }
    }
  };
  // Members and elements alike: `open (item (, item)*)? close`.
  const sequence = (open: string, close: string, item: () => void) => {
    expect(open);
    space();
    if (text[i] === close) return void (i += 1);
    for (;;) {
      item();
      space();
      if (text[i] === close) return void (i += 1);
      expect(',');
    }
  };
  const value = (): void => {
    space();
    if (text[i] === '{') return sequence('{', '}', () => (string(), expect(':'), value()));
    if (text[i] === '[') return sequence('[', ']', value);
    if (text[i] === '"') return string();
    LITERAL.lastIndex = i;
    if (!LITERAL.test(text)) fail();
    i = LITERAL.lastIndex;
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (error) {
    // A nesting too deep for the stack has no one position: the diagnostic names none.
    return error instanceof SyntaxError ? Number(error.message) : -1;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** For messages: "it is <describeType>"; a member left out is "missing" (not "a undefined"). */
export const describeType = (value: unknown): string =>
  value === undefined ? 'missing' : value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
