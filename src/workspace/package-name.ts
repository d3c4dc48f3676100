// Which strings name a package and an exact version (README "The local CDN"): a name is checked
// by npm's own rules before it is ever joined onto a path, so `.`, `..`, a separator, an
// encoded form or an uppercase name never reaches the file system.
import { builtinModules } from 'node:module';
import semver from 'semver';
import validatePackageName from 'validate-npm-package-name';

const BUILTINS = new Set(builtinModules);

/**
 * A name npm accepts for a new package, scoped `@scope/name` or not. npm warns of a name equal
 * to a Node.js built-in, yet browser packages of those names (`events`, `buffer`, `process`)
 * are published and installed, so that one warning alone is not a refusal.
 */
export function isPackageName(name: string): boolean {
  // npm's rules let a scope begin with a dot (`@../x`); no published scope does, and a path
  // segment that looks like a climb is refused before anyone has to think about it.
  if (name.startsWith('@.')) return false;
  const judged = validatePackageName(name);
  if (judged.validForNewPackages) return true;
  return judged.validForOldPackages && BUILTINS.has(name) && name === name.toLowerCase();
}

/** An exact version as npm writes it in a manifest (`1.2.3`, `1.0.0-rc.1`, `1.0.0+build`), no range, no `v`. */
export const isExactVersion = (version: string): boolean => version.length <= 256 && /^\d[\w.+-]*$/.test(version) && semver.parse(version)?.raw === version;
