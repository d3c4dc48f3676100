// The place in a source of a place in the code esbuild wrote, read from the code's own inline source
// map (a development build's, `sourcemap=inline`, README "Bundling real code"): a diagnostic found by
// parsing the output names the line and column its source writes, not a search of the source's text.
// The map's `sources` are relative to the output's directory, which is the workspace's root
// (src/bundlers/esbuild-options.ts), so each is a path of the workspace as diagnostics name files.

const INLINE_MAP = '//# sourceMappingURL=data:application/json;base64,';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((character, value) => [character, value]));

/** A place in a source: its path as the map names it, its line from 1, its column from 0 (in UTF-16 units, as JavaScript counts a string). */
export interface MappedPlace {
  source: string;
  line: number;
  column: number;
}

/** Where the source writes the code at `offset` of `code`, by the nearest mapping at or before it on its line; null without an inline map, or where it maps nothing. */
export function inlineMappedPlace(code: string, offset: number): MappedPlace | null {
  const marker = code.lastIndexOf(INLINE_MAP);
  if (marker < 0 || offset >= marker) return null;
  let map: { sources?: unknown; mappings?: unknown };
  try {
    map = JSON.parse(Buffer.from(code.slice(marker + INLINE_MAP.length).trim(), 'base64').toString('utf8')) as typeof map;
  } catch {
    return null;
  }
  if (!Array.isArray(map.sources) || typeof map.mappings !== 'string') return null;
  let generatedLine = 0;
  for (let at = code.indexOf('\n'); at >= 0 && at < offset; at = code.indexOf('\n', at + 1)) generatedLine++;
  const generatedColumn = offset - (code.lastIndexOf('\n', offset - 1) + 1);
  const lines = map.mappings.split(';');
  if (generatedLine >= lines.length) return null;
  // The source, line and column of each segment are relative to the previous segment's, across lines.
  const state = [0, 0, 0];
  let found: MappedPlace | null = null;
  for (let line = 0; line <= generatedLine; line++) {
    let column = 0;
    for (const segment of lines[line]!.split(',')) {
      if (segment === '') continue;
      const fields = decodeVlq(segment);
      if (fields === null) return null;
      column += fields[0]!;
      if (fields.length < 4) continue;
      for (let field = 0; field < 3; field++) state[field]! += fields[field + 1]!;
      if (line === generatedLine && column <= generatedColumn) {
        const source = map.sources[state[0]!];
        found = typeof source === 'string' ? { source, line: state[1]! + 1, column: state[2]! } : null;
      }
    }
  }
  return found;
}

/** The numbers of one segment of a map's `mappings`: base64 digits of five bits each, a continuation bit, the sign in the lowest bit. */
function decodeVlq(segment: string): number[] | null {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const character of segment) {
    const digit = DIGIT.get(character);
    if (digit === undefined) return null;
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if ((digit & 32) === 0) {
      values.push(value % 2 === 1 ? -Math.floor(value / 2) : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}
