// Bare specifiers: which package an import names, and whether it is a Node.js built-in.
import { builtinModules } from 'node:module';
import type { PackageModel } from './model.js';

export interface BareSpecifier {
  packageName: string;
  /** What follows the package name, without the slash; '' for the package root. */
  subpath: string;
}

const BUILTINS = new Set(builtinModules);

/** `fs`, `node:fs`, `fs/promises`, `node:test`: modules of the server runtime. */
export const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || BUILTINS.has(specifier);

/**
 * esbuild's own paths (`<runtime>` for its helpers of lowered decorators, `<stdin>`,
 * `<define:...>`): never an import of a package (README "Bundling real code").
 */
export const isBundlerInternal = (specifier: string): boolean => /^<[^<>]+>$/.test(specifier);

/** A specifier that names a package (not a relative path, an absolute path, a URL or one of esbuild's own paths). */
export function isBare(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  if (isBundlerInternal(specifier)) return false;
  return specifier !== '' && !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.startsWith('#') && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(specifier);
}

export function parseBareSpecifier(specifier: string): BareSpecifier | null {
  if (!isBare(specifier)) return null;
  const parts = specifier.split('/');
  const take = specifier.startsWith('@') ? 2 : 1;
  // `@/x` is a path alias of some tools, not a scope.
  if (parts.length < take || parts.slice(0, take).some((p) => p === '') || parts[0] === '@') return null;
  return { packageName: parts.slice(0, take).join('/'), subpath: parts.slice(take).join('/') };
}

/** `events`, `buffer`, `util`... declared in `dependencies` are the npm packages of that name (browser polyfills). */
export function declaredPackage(own: Pick<PackageModel, 'dependencies'>, specifier: string): boolean {
  if (specifier.startsWith('node:')) return false;
  const bare = parseBareSpecifier(specifier);
  // Own members only: a package named `constructor` or `toString` is no member of Object.prototype.
  return bare !== null && Object.hasOwn(own.dependencies, bare.packageName);
}

/**
 * The subpath of a package's root module (`exports["."]`): its public specifier is the
 * package name alone, and its addresses use this segment (`/m/lit@3.3.2/modules/@root`).
 * No `exports` key or module.json subpath can be it (a segment starting with `@` is refused).
 */
export const ROOT_SUBPATH = '@root';

/** The public specifier of a package's module: the package name for the root. */
export const moduleSpecifier = (packageName: string, subpath: string): string => (subpath === ROOT_SUBPATH || subpath === '' ? packageName : `${packageName}/${subpath}`);
