// `image-set("./a.svg" 1x)` names an image by a string, which CSS reads as a URL, but esbuild
// resolves only `url()` tokens: the string stayed as written, the browser asked for it at the
// sheet's own address, where nothing is served, and the module was valid (README "Workspaces").
// Each string of an `image-set()` (or `-webkit-image-set()`) is written as the `url()` it means
// before esbuild parses the sheet, so it follows the rules of any `url()`: a declared asset's
// address, or an error at its place. A sheet without `image-set(` is left for esbuild to read.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { readRegularFile } from '../../regular-files.js';

const IMAGE_SET = /image-set\(/i;

/** `css` with each string directly inside an `image-set()` written as `url(<string>)`; comments, other strings and nested functions (`type("image/avif")`) kept. */
export function imageSetStringsAsUrls(css: string): string {
  let out = '';
  let at = 0;
  // Depth of parentheses inside each open image-set(), innermost last; -1 outside any.
  const open: number[] = [];
  let depth = 0;
  let i = 0;
  while (i < css.length) {
    const char = css[i]!;
    if (char === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      i = end === -1 ? css.length : end + 2;
      continue;
    }
    if (char === '"' || char === "'") {
      const end = stringEnd(css, i);
      if (open.length > 0 && open[open.length - 1] === depth) {
        out += `${css.slice(at, i)}url(${css.slice(i, end)})`;
        at = end;
      }
      i = end;
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '(' && /url$/i.test(css.slice(Math.max(0, i - 3), i)) && !/^\s*["']/.test(css.slice(i + 1, i + 64))) {
      // An unquoted url(...) is one token, whatever it holds (`data:image/png;base64,...`).
      const end = css.indexOf(')', i);
      i = end === -1 ? css.length : end + 1;
      continue;
    }
    if (char === '(') {
      depth += 1;
      if (/(?:^|[^\w-])(?:-webkit-)?image-set$/i.test(css.slice(Math.max(0, i - 18), i))) open.push(depth);
    } else if (char === ')') {
      if (open.length > 0 && open[open.length - 1] === depth) open.pop();
      depth = Math.max(0, depth - 1);
    } else if (char === '{' || char === '}' || char === ';') {
      // A declaration never spans these: an unclosed function ends here, as a parser recovers.
      open.length = 0;
      depth = 0;
    }
    i += 1;
  }
  return at === 0 ? css : out + css.slice(at);
}

// The index just past the string opening at `start` (its quote), or where a newline ends it unclosed.
function stringEnd(css: string, start: number): number {
  const quote = css[start];
  let i = start + 1;
  while (i < css.length) {
    const char = css[i];
    if (char === '\\') i += 2;
    else if (char === quote) return i + 1;
    else if (char === '\n') return i;
    else i += 1;
  }
  return css.length;
}

export function imageSetPlugin(): esbuild.Plugin {
  return {
    name: 'core-image-set',
    setup(build) {
      build.onLoad({ filter: /\.css$/, namespace: 'file' }, (args) => {
        let text: string;
        try {
          // Never waits on a FIFO (README "Files that are not files"): esbuild's read says what it is.
          text = readRegularFile(args.path).bytes.toString('utf8');
        } catch {
          return undefined;
        }
        if (!IMAGE_SET.test(text)) return undefined;
        const rewritten = imageSetStringsAsUrls(text);
        if (rewritten === text) return undefined;
        return { contents: rewritten, loader: args.path.endsWith('.module.css') ? 'local-css' : 'css', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
