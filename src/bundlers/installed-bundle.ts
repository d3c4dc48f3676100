// One entry of an installed package as one ES module for browsers (README "The local CDN"):
// its own files bundled, its bare imports kept bare (the import map names one copy of each
// package for the whole page), CommonJS converted, production mode, minified. Every file it
// loads, the entry first, must lie inside the package's real directory (SECURITY.md).
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { withLiveService } from './esbuild-service.js';

export interface InstalledBundle {
  code: Uint8Array;
  /** Its bare imports, kept as they are written. */
  imports: string[];
  /** The files it was built from, real paths. */
  inputs: string[];
}

/** A file the entry is or imports whose real path leaves the package: never read, never served. */
export class OutsidePackageError extends Error {
  constructor(readonly files: string[]) {
    super(`${files.join(', ')} ${files.length === 1 ? 'lies' : 'lie'} outside the package`);
    this.name = 'OutsidePackageError';
  }
}

const CONFINE_PLUGIN = 'confine-to-package';

// esbuild resolves a relative import wherever it leads (`../../secret.js`, a link); each file it
// is about to load is checked here first, by real path, and refused before it is read.
const confineToPackage = (packageDir: string): esbuild.Plugin => ({
  name: CONFINE_PLUGIN,
  setup(build) {
    build.onLoad({ filter: /.*/ }, (args) => {
      let real: string;
      try {
        real = fs.realpathSync(args.path);
      } catch {
        real = args.path;
      }
      if (real.startsWith(`${packageDir}${path.sep}`)) return undefined;
      return { errors: [{ text: 'outside the package', detail: real }] };
    });
  },
});

const COMMON: esbuild.BuildOptions = {
  bundle: true,
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
export function bundleInstalled(entry: string, packageDir: string, commonJsNames: (file: string) => string[]): Promise<InstalledBundle> {
  return withLiveService(() => bundleOnce(entry, packageDir, commonJsNames)).catch((error: unknown) => {
    const refused = (error as Partial<esbuild.BuildFailure>).errors?.filter((message) => message.pluginName === CONFINE_PLUGIN) ?? [];
    throw refused.length > 0 ? new OutsidePackageError([...new Set(refused.map((message) => String(message.detail)))]) : error;
  });
}

async function bundleOnce(entry: string, packageDir: string, commonJsNames: (file: string) => string[]): Promise<InstalledBundle> {
  const options: esbuild.BuildOptions = { ...COMMON, absWorkingDir: packageDir, plugins: [confineToPackage(packageDir)], outfile: 'out.js' };
  let result: esbuild.BuildResult = await esbuild.build({ ...options, entryPoints: [entry] });
  const exported = Object.values(result.metafile!.outputs)[0]?.exports ?? [];
  if (exported.length === 1 && exported[0] === 'default') {
    const names = commonJsNames(entry);
    if (names.length > 0) {
      const contents = `import module from ${JSON.stringify(entry)};\nexport default module;\nexport const { ${names.join(', ')} } = module;\n`;
      result = await esbuild.build({ ...options, stdin: { contents, resolveDir: path.dirname(entry), sourcefile: 'cdn-entry.js', loader: 'js' } });
    }
  }
  const imports = new Set<string>();
  for (const input of Object.values(result.metafile!.inputs)) {
    for (const record of input.imports) if (record.external && !/^(?:[a-z]+:|\/|\.)/.test(record.path)) imports.add(record.path);
  }
  const inputs = Object.keys(result.metafile!.inputs).filter((input) => input !== '<stdin>').map((input) => path.resolve(packageDir, input));
  return { code: result.outputFiles![0]!.contents, imports: [...imports].sort(), inputs };
}
