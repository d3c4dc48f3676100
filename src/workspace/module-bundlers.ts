// The bundler of each module: by name through its package's registry (`bundlers`), then the
// built-in ones (README "Workspaces").
import { manifestInvalid } from './diagnostics.js';
import type { BundlerRef, ModuleModel } from './model.js';
import type { PackageManifest } from './package-manifest.js';

export const BUILTIN_BUNDLERS: Readonly<Record<string, string>> = {
  ts: '@core-js/packages/bundlers/ts',
  esbuild: '@core-js/packages/bundlers/esbuild',
};

/**
 * Sets each module's bundler: the one its module.json names (`declared`), else the package's
 * `core.bundler`, else `ts`; a name registered nowhere makes the module invalid, told in `file`,
 * and so does a `core.bundler` the schema refused, on the modules it would build. Returns whether
 * any module takes the package's `core.bundler`.
 */
export function assignBundlers(pkg: PackageManifest, packageFile: string, modules: ModuleModel[], declared: (module: ModuleModel) => { file: string; bundler: string | null } | undefined): boolean {
  let packageBundlerUsed = false;
  for (const module of modules) {
    const file = declared(module)?.file ?? packageFile;
    const own = declared(module)?.bundler ?? null;
    if (own === null) {
      packageBundlerUsed = true;
      module.diagnostics.push(...pkg.bundlerProblems);
    }
    const name = own ?? pkg.defaultBundler ?? 'ts';
    const resolved = resolveBundler(pkg, name);
    if (resolved) module.bundler = resolved;
    else {
      module.bundler = { name, specifier: '' };
      module.diagnostics.push(manifestInvalid(file, `${file}: the bundler "${name}" is not registered: add it to "bundlers" in ${packageFile} or use "ts" or "esbuild"`));
    }
  }
  return packageBundlerUsed;
}

function resolveBundler(pkg: PackageManifest, name: string): BundlerRef | null {
  // Own members only: a bundler named `constructor` or `toString` is not registered by Object.prototype.
  const registered = Object.hasOwn(pkg.bundlers, name) ? pkg.bundlers[name] : undefined;
  if (registered) {
    return registered.processors ? { name, specifier: registered.specifier, processors: registered.processors } : { name, specifier: registered.specifier };
  }
  const builtin = Object.hasOwn(BUILTIN_BUNDLERS, name) ? BUILTIN_BUNDLERS[name] : undefined;
  return builtin ? { name, specifier: builtin } : null;
}
