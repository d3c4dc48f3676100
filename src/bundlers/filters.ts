// Filters of plugin callbacks: esbuild evaluates them in Go, so a path they reject never
// costs a call into JavaScript. Go's regular expressions have no lookahead.

/** `text` matched literally. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The paths that do not start with `prefix`. */
export function notStartingWith(prefix: string): RegExp {
  const inClass = (char: string) => (char === ']' || char === '\\' || char === '^' || char === '-' ? `\\${char}` : char);
  const alternatives = [...prefix].map((char, index) => `${escapeRegExp(prefix.slice(0, index))}(?:$|[^${inClass(char)}])`);
  return new RegExp(`^(?:${alternatives.join('|')})`);
}
