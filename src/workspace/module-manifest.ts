// `module.json`: platforms, entry, assets, subpath and bundler of one module (README "Workspaces").
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { describeType, isObject, parseJson } from './json.js';
import type { Platform } from './model.js';
import { isInside, normalizeRelative } from './paths.js';
import type { ManifestResult } from './workspace-manifest.js';

export interface ModuleManifest {
  platforms: Platform[] | null;
  entry: string | null;
  assets: string[];
  subpath: string | null;
  bundler: string | null;
}

const PLATFORMS: readonly Platform[] = ['web', 'node'];
// A subpath is what follows the package name in a specifier: plain segments only.
const SUBPATH = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;
export const isSubpath = (subpath: string): boolean => SUBPATH.test(subpath) && !subpath.split('/').some((s) => s === '.' || s === '..');

/**
 * Always yields a value: a module.json with a broken member still declares a module,
 * which is then listed invalid with the diagnostic rather than silently dropped.
 */
export function parseModuleManifest(text: string, file: string): ManifestResult<ModuleManifest> {
  const value: ModuleManifest = { platforms: null, entry: null, assets: [], subpath: null, bundler: null };
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  if (!isObject(json)) return { value, diagnostics: [manifestInvalid(file, `${file} must hold an object; it holds ${describeType(json)}`)] };
  const diagnostics: Diagnostic[] = [];
  const problem = (message: string) => diagnostics.push(manifestInvalid(file, `${file}: ${message}`));

  // `$schema` points editors at schemas/module.schema.json; the service only checks its type.
  if (json.$schema !== undefined && typeof json.$schema !== 'string') problem(`"$schema" must be the address of a JSON Schema; it is ${describeType(json.$schema)}`);

  if (json.platforms !== undefined) {
    if (!Array.isArray(json.platforms) || json.platforms.length === 0) {
      problem(`"platforms" must be a non-empty array of "web" and "node"; it is ${describeType(json.platforms)}`);
    } else {
      const platforms: Platform[] = [];
      for (const platform of json.platforms) {
        if (typeof platform === 'string' && (PLATFORMS as readonly string[]).includes(platform)) {
          if (!platforms.includes(platform as Platform)) platforms.push(platform as Platform);
        } else {
          problem(`"platforms" may hold "web" and "node" only; it holds ${typeof platform === 'string' ? `"${platform}"` : describeType(platform)}`);
        }
      }
      if (platforms.length > 0) value.platforms = platforms;
    }
  }

  if (json.entry !== undefined) {
    const entry = typeof json.entry === 'string' ? normalizeRelative(json.entry) : null;
    if (entry === null || !isInside(entry) || entry === '.') problem(`"entry" must be a file in the module's directory such as "index.ts"; it is ${describeType(json.entry)}${typeof json.entry === 'string' ? ` "${json.entry}"` : ''}`);
    else value.entry = entry;
  }

  if (json.assets !== undefined) {
    if (!Array.isArray(json.assets)) {
      problem(`"assets" must be an array of file names; it is ${describeType(json.assets)}`);
    } else {
      for (const asset of json.assets) {
        const name = typeof asset === 'string' ? normalizeRelative(asset) : null;
        if (name === null || !isInside(name) || name === '.') {
          problem(`"assets" must hold file names inside the module's directory; it holds ${typeof asset === 'string' ? `"${asset}"` : describeType(asset)}`);
        } else if (!value.assets.includes(name)) {
          value.assets.push(name);
        }
      }
    }
  }

  if (json.subpath !== undefined) {
    const subpath = typeof json.subpath === 'string' ? json.subpath.replace(/^\.\//, '') : null;
    if (subpath === null || !isSubpath(subpath)) problem(`"subpath" must be a subpath such as "widgets/badge"; it is ${typeof json.subpath === 'string' ? `"${json.subpath}"` : describeType(json.subpath)}`);
    else value.subpath = subpath;
  }

  if (json.bundler !== undefined) {
    if (typeof json.bundler === 'string' && json.bundler !== '') value.bundler = json.bundler;
    else problem(`"bundler" must be a bundler name such as "ts"; it is ${describeType(json.bundler)}`);
  }

  return { value, diagnostics };
}
