// Bare specifiers: which package an import names, and whether it is a Node.js built-in.
import { builtinModules } from 'node:module';

export interface BareSpecifier {
  packageName: string;
  /** What follows the package name, without the slash; '' for the package root. */
  subpath: string;
}

const BUILTINS = new Set(builtinModules);

/** `fs`, `node:fs`, `fs/promises`, `node:test`: modules of the server runtime. */
export const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || BUILTINS.has(specifier);

/** A specifier that names a package (not a relative path, an absolute path or a URL). */
export function isBare(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
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
