// JSON text to a value, or a MANIFEST_INVALID diagnostic that points at the broken spot.
import { printParseErrorCode, visit, type ParseError, type ParseOptions } from 'jsonc-parser';
import { manifestInvalid, type Diagnostic } from './diagnostics.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; diagnostic: Diagnostic };

/**
 * Objects and arrays within one another a manifest may hold (README "Workspaces"): the walks of
 * `exports`, conditions, processors and the rest recurse, and a deeper manifest would overflow
 * the stack, so it is MANIFEST_INVALID before any of them runs.
 */
export const MAX_MANIFEST_DEPTH = 64;

export interface ParseJsonOptions {
  /** JSONC, as tsc reads tsconfig.json: comments and trailing commas allowed. */
  comments?: boolean;
}

export function parseJson(text: string, file: string, options: ParseJsonOptions = {}): Parsed<unknown> {
  // A byte order mark is legal in a file an editor saved, not in JSON.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const read = options.comments ? readJsonc(json) : readStrictJson(json);
  if (!read.ok) {
    const result = manifestInvalid(file, `${file} is not valid JSON: ${read.reason}`);
    if (read.offset !== null) Object.assign(result, lineAndColumn(json, read.offset));
    return { ok: false, diagnostic: result };
  }
  if (isDeeperThan(read.value, MAX_MANIFEST_DEPTH)) {
    return { ok: false, diagnostic: manifestInvalid(file, `${file} nests objects and arrays more than ${MAX_MANIFEST_DEPTH} levels deep; no manifest needs that many`) };
  }
  return { ok: true, value: read.value };
}

type Read = { ok: true; value: unknown } | { ok: false; reason: string; offset: number | null };

// The value is JSON.parse's, whose reason users know; V8 names a position for some errors only,
// so the offset is the first error jsonc-parser finds in the same text.
function readStrictJson(text: string): Read {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const syntaxError = firstSyntaxError(text, { disallowComments: true, allowTrailingComma: false });
    return { ok: false, reason, offset: syntaxError ? errorOffset(text, syntaxError) : null };
  }
}

function readJsonc(text: string): Read {
  const errors: ParseError[] = [];
  let value: unknown;
  try {
    value = jsoncValue(text, errors);
  } catch (error) {
    // jsonc-parser recurses: a nesting deeper than the stack has no one position. Anything else
    // is a defect, not a deep manifest.
    if (!(error instanceof RangeError)) throw error;
    return { ok: true, value: TOO_DEEP };
  }
  const error = errors[0];
  if (error) return { ok: false, reason: SYNTAX_ERRORS[printParseErrorCode(error.error)] ?? printParseErrorCode(error.error), offset: errorOffset(text, error) };
  return { ok: true, value };
}

/** Stands for a value nested deeper than the stack: deeper than any limit. */
const TOO_DEEP: unknown = (() => {
  let deep: unknown[] = [];
  for (let level = 0; level <= MAX_MANIFEST_DEPTH; level++) deep = [deep];
  return deep;
})();

/** The first syntax error of `text`; null when none, or when the nesting is too deep for the stack to say where. */
function firstSyntaxError(text: string, options: ParseOptions): ParseError | null {
  const errors: ParseError[] = [];
  try {
    visit(text, { onError: (error, offset, length) => void errors.push({ error, offset, length }) }, { ...options, allowEmptyContent: false });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return null;
  }
  return errors[0] ?? null;
}

// jsonc-parser places an error in a string at the string's start; the editor is sent to the
// escape, the character or the end of the line itself.
function errorOffset(text: string, error: ParseError): number {
  const name = printParseErrorCode(error.error);
  if (!['InvalidEscapeCharacter', 'InvalidUnicode', 'InvalidCharacter', 'UnexpectedEndOfString'].includes(name)) return error.offset;
  const inside = text.slice(error.offset + 1, error.offset + error.length);
  const valid = /^(?:[^\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*/.exec(inside)![0].length;
  // After the backslash: the letter that makes the escape wrong.
  return error.offset + 1 + valid + (inside[valid] === '\\' ? 1 : 0);
}

// jsonc-parser's own `parse` assigns members, so a `"__proto__"` key would set the object's
// prototype; here every key becomes an own member, as JSON.parse makes it.
function jsoncValue(text: string, errors: ParseError[]): unknown {
  const parents: (unknown[] | Record<string, unknown>)[] = [];
  let root: unknown;
  let member = '';
  const add = (value: unknown) => {
    const parent = parents[parents.length - 1];
    if (parent === undefined) root = value;
    else if (Array.isArray(parent)) parent.push(value);
    else Object.defineProperty(parent, member, { value, enumerable: true, writable: true, configurable: true });
  };
  const open = (container: unknown[] | Record<string, unknown>) => {
    add(container);
    parents.push(container);
  };
  visit(
    text,
    {
      onObjectBegin: () => open({}),
      onObjectProperty: (name) => void (member = name),
      onObjectEnd: () => void parents.pop(),
      onArrayBegin: () => open([]),
      onArrayEnd: () => void parents.pop(),
      onLiteralValue: add,
      onError: (error, offset, length) => void errors.push({ error, offset, length }),
    },
    { disallowComments: false, allowTrailingComma: true, allowEmptyContent: false },
  );
  return root;
}

const SYNTAX_ERRORS: Partial<Record<ReturnType<typeof printParseErrorCode>, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected text after the value',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape',
  InvalidCharacter: 'control character in a string',
};

/** Editors want the line and column of an offset (1-based). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
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

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** For messages: "it is <describeType>"; a member left out is "missing" (not "a undefined"). */
export const describeType = (value: unknown): string =>
  value === undefined ? 'missing' : value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
