// A stylesheet's `url()` or `@import` from the origin's root (`url(/m/<package>@<version>/assets/<subpath>/bg.svg)`)
// names what the origin serves there, never a file of the disk: it stays as written, as an
// image-set() string or a `new URL` from the origin's root does (README "Workspaces"), but the
// address of a declared asset of the module gets that asset's version in development, as the
// addresses the build writes do (README "Preview and stylesheet push"), and is made relative to
// the sheet in production: `core dist` writes no `/m/`, and its files are served from any origin
// and folder (README "core dist"). The address is written for each module after its build, from
// its own declarations, so a batch's outputs are those of each module built alone; the assets so
// named are inputs, so that an edit of one builds it again. Any other address under `/m/` is
// judged where the sheet's references are (`unservedStylesheetReferences`).
import { bufferView } from '../outputs/buffer-view.js';
import { assetsByAddress, writtenAssetAddress } from './plugins/assets.js';
import type { BundleTarget } from './types.js';

// A url() token esbuild printed whose address starts with one `/` (two are another host's): quoted, or
// unquoted with CSS escapes (esbuild prints a file name's space as `\ `, a quote as `\'`).
const ROOT_URL = /url\((?:"(\/(?!\/)(?:[^"\\\n]|\\.)*)"|'(\/(?!\/)(?:[^'\\\n]|\\.)*)'|(\/(?!\/)(?:[^"'()\s\\]|\\.)*))\)/gi;
// An `@import` of a string from the origin's root, as esbuild prints one it keeps (`@import "/m/...";`):
// the browser loads it as a `url()` is loaded (README "Workspaces").
const ROOT_IMPORT = /@import\s*(?:"(\/(?!\/)(?:[^"\\\n]|\\.)*)"|'(\/(?!\/)(?:[^'\\\n]|\\.)*)')/gi;
const CSS_ESCAPE = /\\(?:([0-9a-fA-F]{1,6})[ \t\n]?|(.))/g;
// A CSS escape's character: U+FFFD for zero or one beyond Unicode, as CSS reads it.
const codePoint = (code: number): string => String.fromCodePoint(code === 0 || code > 0x10ffff ? 0xfffd : code);
// The address a url() token names, its CSS escapes read.
const unescaped = (token: string): string => token.replace(CSS_ESCAPE, (_, hex: string | undefined, char: string | undefined) => (hex === undefined ? char! : codePoint(Number.parseInt(hex, 16))));
// A url() token of `address`: as written where nothing in it needs quotes, else quoted (a file's name may hold `(`, `'`).
const urlToken = (quote: string, address: string): string => (/^[^\s"'()\\]*$/.test(address) ? `url(${quote}${address}${quote})` : `url("${address.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}")`);

/** `styles` with each declared asset of `target` a `url()` or an `@import` names by its address from the origin's root written as `writtenAssetAddress` says; `named`: those assets. */
export function versionRootUrls(styles: Uint8Array | null, target: BundleTarget): { styles: Uint8Array | null; named: string[] } {
  if (styles === null || target.packageAddress === undefined) return { styles, named: [] };
  const bytes = bufferView(styles);
  // Most sheets: one search of the bytes, no text made.
  if (bytes.indexOf('url(/') === -1 && bytes.indexOf('url("/') === -1 && bytes.indexOf("url('/") === -1 && bytes.indexOf('@import') === -1) return { styles, named: [] };
  const byAddress = assetsByAddress(target);
  const named = new Set<string>();
  const text = bytes.toString('utf8');
  const versioned = text
    .replace(ROOT_URL, (token, double: string | undefined, single: string | undefined, bare: string | undefined) => {
      const own = writtenAssetAddress(byAddress, target, unescaped(double ?? single ?? bare!), target.packageAddress!);
      if (own === null) return token;
      named.add(own.file);
      return urlToken(double !== undefined ? '"' : single !== undefined ? "'" : '', own.address);
    })
    .replace(ROOT_IMPORT, (token, double: string | undefined, single: string | undefined) => {
      const own = writtenAssetAddress(byAddress, target, unescaped(double ?? single!), target.packageAddress!);
      if (own === null) return token;
      named.add(own.file);
      return `@import "${own.address.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;
    });
  return named.size === 0 ? { styles, named: [] } : { styles: Buffer.from(versioned), named: [...named].sort() };
}
