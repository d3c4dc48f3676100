// One entry of an installed package as one ES module for browsers (README "The local CDN"):
// its own files bundled, its bare imports kept bare (the import map names one copy of each
// package for the whole page), CommonJS converted, production mode, minified.
import path from 'node:path';
import * as esbuild from 'esbuild';
import { withLiveService } from './esbuild-service.js';

export interface InstalledBundle {
  /** Empty for a stylesheet entry (README "Stylesheet modules"). */
  code: Uint8Array;
  /** Its bare imports, kept as they are written. */
  imports: string[];
  /** The sheet of a stylesheet entry, or of the stylesheets a code entry imports, its `@import`s joined in and its `url()` files inlined; absent when none. */
  styles?: Uint8Array;
}

// The files a published sheet may reference with `url()`: inlined, since the local CDN serves
// subpaths that `exports` names, never a package's other files.
const SHEET_FILES = ['.woff2', '.woff', '.ttf', '.otf', '.eot', '.svg', '.png', '.jpg', '.jpeg', '.gif', '.webp', '.avif'] as const;

const COMMON: esbuild.BuildOptions = {
  bundle: true,
  loader: Object.fromEntries(SHEET_FILES.map((extension) => [extension, 'dataurl' as const])),
  format: 'esm',
  platform: 'browser',
  packages: 'external',
  minify: true,
  write: false,
  metafile: true,
  logLevel: 'silent',
  define: { 'process.env.NODE_ENV': '"production"' },
  supported: { decorators: false },
};

/**
 * `commonJsNames(file)`: the names a CommonJS entry exports, asked only when the entry turns out
 * to be CommonJS (esbuild then gives it a default export alone); each becomes a named export.
 */
export function bundleInstalled(entry: string, commonJsNames: (file: string) => string[]): Promise<InstalledBundle> {
  return withLiveService(() => bundleOnce(entry, commonJsNames));
}

async function bundleSheet(entry: string): Promise<InstalledBundle> {
  // A sheet's `@import` of another package is joined in: an import map does not apply to CSS.
  const { packages: _external, ...common } = COMMON;
  const result = await esbuild.build({ ...common, entryPoints: [entry], outfile: 'out.css' });
  return { code: new Uint8Array(0), imports: [], styles: result.outputFiles![0]!.contents };
}

async function bundleOnce(entry: string, commonJsNames: (file: string) => string[]): Promise<InstalledBundle> {
  if (entry.endsWith('.css')) return bundleSheet(entry);
  let result: esbuild.BuildResult = await esbuild.build({ ...COMMON, entryPoints: [entry], outfile: 'out.js' });
  const exported = Object.values(result.metafile!.outputs)[0]?.exports ?? [];
  if (exported.length === 1 && exported[0] === 'default') {
    const names = commonJsNames(entry);
    if (names.length > 0) {
      const contents = `import module from ${JSON.stringify(entry)};\nexport default module;\nexport const { ${names.join(', ')} } = module;\n`;
      result = await esbuild.build({ ...COMMON, stdin: { contents, resolveDir: path.dirname(entry), sourcefile: 'cdn-entry.js', loader: 'js' }, outfile: 'out.js' });
    }
  }
  const imports = new Set<string>();
  for (const input of Object.values(result.metafile!.inputs)) {
    for (const record of input.imports) if (record.external && !/^(?:[a-z]+:|\/|\.)/.test(record.path)) imports.add(record.path);
  }
  // The stylesheets the code imports (a component's own sheet) go to a sheet beside it, which
  // the preview links as it links a stylesheet export's (README "Stylesheet modules").
  const styles = result.outputFiles!.find((file) => file.path.endsWith('.css'))?.contents;
  const code = result.outputFiles!.find((file) => file.path.endsWith('.js'))!.contents;
  return { code, imports: [...imports].sort(), ...(styles && styles.length > 0 ? { styles } : {}) };
}
