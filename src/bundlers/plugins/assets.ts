// Declared assets become addresses (README "Addresses"): an import yields
// `new URL('../assets/<subpath>/<file>', import.meta.url)`, a `url()` in a stylesheet is
// rewritten to the same relative address, climbing one `../` per segment of the subpath,
// so it resolves to `/m/<package>@<version>/assets/<subpath>/<file>` from the code and
// styles addresses alike (and from the files `core dist` writes).
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { CODE_IMPORT_KINDS } from '../import-kinds.js';
import type { BundleTarget } from '../types.js';

// Files that are assets by nature: importing one that is not declared is an error that says so.
const ASSET_EXTENSIONS = ['svg', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'ico', 'bmp', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp3', 'mp4', 'webm', 'ogg', 'wav', 'flac', 'pdf', 'wasm'];
// Files esbuild compiles as code, styles or data: declaring one as an asset serves it as an
// asset and never changes how imports of it (or of any file of its kind) resolve.
const COMPILED_EXTENSIONS = new Set(['js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts', 'css', 'json']);

const STYLESHEET_KINDS: ReadonlySet<esbuild.ImportKind> = new Set<esbuild.ImportKind>(['import-rule', 'url-token']);

/** The address of an asset relative to a module's code or styles address. */
export const assetAddress = (subpath: string, file: string): string => `${'../'.repeat(subpath.split('/').length)}assets/${subpath}/${file}`;

export function assetsPlugin(root: string, targets: BundleTarget[]): esbuild.Plugin {
  const declared = new Map<string, { subpath: string; file: string }>();
  const extensions = new Set(ASSET_EXTENSIONS);
  for (const target of targets) {
    for (const file of target.assets) {
      const extension = path.extname(file).slice(1).toLowerCase().replace(/[^a-z0-9]/g, '');
      if (COMPILED_EXTENSIONS.has(extension)) continue;
      declared.set(path.join(root, target.dir, file), { subpath: target.subpath, file });
      if (extension) extensions.add(extension);
    }
  }
  const filter = new RegExp(`\\.(?:${[...extensions].filter(Boolean).join('|')})(?:[?#].*)?$`, 'i');
  return {
    name: 'core-assets',
    setup(build) {
      build.onResolve({ filter }, (args) => {
        if (args.namespace !== 'file') return undefined;
        // In a stylesheet, `url(logo.svg)` is `./logo.svg`, by the rules of CSS.
        const relative = args.path.startsWith('.') || args.path.startsWith('/') || (STYLESHEET_KINDS.has(args.kind) && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(args.path));
        if (!relative) return undefined;
        const absolute = path.resolve(args.resolveDir, args.path.replace(/[?#].*$/, ''));
        // A name that is no file beside the sheet: esbuild keeps it as written, and build-results.ts
        // says it is served nowhere. A file there that is not declared is refused below, as `./` is.
        if (!args.path.startsWith('.') && !args.path.startsWith('/') && !declared.has(absolute) && !fs.existsSync(absolute)) return undefined;
        const asset = declared.get(absolute);
        if (!asset) {
          return {
            errors: [{ text: `"${args.path}" is not a declared asset: add "${path.basename(absolute)}" to "assets" in the module.json beside it` }],
          };
        }
        const address = assetAddress(asset.subpath, asset.file);
        if (!CODE_IMPORT_KINDS.has(args.kind)) return { path: address, external: true };
        // The file itself, so source maps and the metafile name it by its workspace path.
        return { path: absolute, pluginData: { assetAddress: address } };
      });
      build.onLoad({ filter }, (args) => {
        const address = (args.pluginData as { assetAddress?: string } | undefined)?.assetAddress;
        if (address === undefined) return undefined;
        return { contents: `export default new URL(${JSON.stringify(address)}, import.meta.url).href;\n`, loader: 'js' };
      });
    },
  };
}
