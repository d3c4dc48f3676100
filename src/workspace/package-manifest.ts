// `package.json`: identity, public modules by `exports`, dependencies, and the `core` and
// `bundlers` members (service.md, contract §4).
import semver from 'semver';
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { describeType, isObject, parseJson } from './json.js';
import type { ManifestResult } from './workspace-manifest.js';

export interface BundlerEntry {
  specifier: string;
  processors?: Record<string, unknown>;
}

export interface PackageManifest {
  name: string;
  version: string;
  /** `./<subpath>` keys to a target file, relative to the package. */
  exports: Record<string, string>;
  dependencies: Record<string, string>;
  modulesDir: string | null;
  defaultBundler: string | null;
  bundlers: Record<string, BundlerEntry>;
}

// npm's rules for names, scoped or not (lower case, URL-safe).
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
// Exactly as written, build metadata allowed: semver alone would also take ` v1.0.0 `,
// and addresses carry the string as it is.
const isExactVersion = (version: string): boolean => /^\d/.test(version) && version === version.trim() && semver.parse(version) !== null;

// Tables keyed by names from the manifest: without a prototype, `__proto__` or `constructor`
// are names like any other, never members of Object.prototype.
const table = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

export const isPackageName = (name: string): boolean => name.length <= 214 && PACKAGE_NAME.test(name);

// Conditions looked at, in order, when an `exports` target is an object of conditions.
const SOURCE_CONDITIONS = ['source', 'development', 'import', 'browser', 'default'];

export function parsePackageManifest(text: string, file: string): ManifestResult<PackageManifest> {
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value: null, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  if (!isObject(json)) return { value: null, diagnostics: [manifestInvalid(file, `${file} must hold an object; it holds ${describeType(json)}`)] };
  const diagnostics: Diagnostic[] = [];
  const problem = (message: string) => diagnostics.push(manifestInvalid(file, `${file}: ${message}`));

  if (typeof json.name !== 'string' || !isPackageName(json.name)) {
    problem(`"name" must be a package name such as "@acme/app"; it is ${typeof json.name === 'string' ? `"${json.name}"` : describeType(json.name)}`);
  }
  if (typeof json.version !== 'string' || !isExactVersion(json.version)) {
    problem(`"version" must be an exact version such as "1.0.0"; it is ${typeof json.version === 'string' ? `"${json.version}"` : describeType(json.version)}`);
  }
  if (diagnostics.length > 0) return { value: null, diagnostics };

  // `$schema` points editors at schemas/package.schema.json; the service only checks its type.
  if (json.$schema !== undefined && typeof json.$schema !== 'string') problem(`"$schema" must be the address of a JSON Schema; it is ${describeType(json.$schema)}`);
  for (const member of ['private'] as const) {
    if (json[member] !== undefined && typeof json[member] !== 'boolean') problem(`"${member}" must be a boolean; it is ${describeType(json[member])}`);
  }
  if (json.description !== undefined && typeof json.description !== 'string') problem(`"description" must be a string; it is ${describeType(json.description)}`);

  const exports: Record<string, string> = table();
  if (json.exports !== undefined) {
    if (!isObject(json.exports)) {
      problem(`"exports" must be an object of "./<subpath>" keys; it is ${describeType(json.exports)}`);
    } else {
      for (const [key, target] of Object.entries(json.exports)) {
        // Conditions without a source condition, fallback arrays and null are valid
        // packaging that publishes no module here; only other types are mistakes.
        const chosen = typeof target === 'string' ? target : isObject(target) ? pickCondition(target) : undefined;
        if (chosen === undefined) {
          if (target !== null && !isObject(target) && !Array.isArray(target)) problem(`exports["${key}"] must be a path such as "./main/index.ts"; it is ${describeType(target)}`);
          continue;
        }
        exports[key] = chosen;
      }
    }
  }

  const dependencies: Record<string, string> = table();
  if (json.dependencies !== undefined) {
    if (!isObject(json.dependencies)) {
      problem(`"dependencies" must be an object of package names to version ranges; it is ${describeType(json.dependencies)}`);
    } else {
      for (const [name, range] of Object.entries(json.dependencies)) {
        if (typeof range === 'string') dependencies[name] = range;
        else problem(`dependencies["${name}"] must be a version range string; it is ${describeType(range)}`);
      }
    }
  }

  let modulesDir: string | null = null;
  let defaultBundler: string | null = null;
  if (json.core !== undefined) {
    if (!isObject(json.core)) {
      problem(`"core" must be an object with "modules" and "bundler"; it is ${describeType(json.core)}`);
    } else {
      if (json.core.modules !== undefined) {
        if (typeof json.core.modules === 'string' && json.core.modules !== '') modulesDir = json.core.modules;
        else problem(`core.modules must be a directory of the package ("." for the package itself); it is ${describeType(json.core.modules)}`);
      }
      if (json.core.bundler !== undefined) {
        if (typeof json.core.bundler === 'string' && json.core.bundler !== '') defaultBundler = json.core.bundler;
        else problem(`core.bundler must be a bundler name such as "ts"; it is ${describeType(json.core.bundler)}`);
      }
    }
  }

  const bundlers: Record<string, BundlerEntry> = table();
  if (json.bundlers !== undefined) {
    if (!isObject(json.bundlers)) {
      problem(`"bundlers" must be an object of bundler names; it is ${describeType(json.bundlers)}`);
    } else {
      for (const [name, entry] of Object.entries(json.bundlers)) {
        const parsedEntry = parseBundlerEntry(name, entry);
        if (typeof parsedEntry === 'string') problem(parsedEntry);
        else bundlers[name] = parsedEntry;
      }
    }
  }

  return {
    value: { name: json.name as string, version: json.version as string, exports, dependencies, modulesDir, defaultBundler, bundlers },
    diagnostics,
  };
}

function pickCondition(conditions: Record<string, unknown>): string | undefined {
  for (const condition of SOURCE_CONDITIONS) {
    const value = conditions[condition];
    if (typeof value === 'string') return value;
    if (isObject(value)) {
      const nested = pickCondition(value);
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}

// Form 1: a specifier string. Form 2: { specifier, processors: { bundle: { compiler } } }.
function parseBundlerEntry(name: string, entry: unknown): BundlerEntry | string {
  if (typeof entry === 'string') {
    return entry === '' ? `bundlers["${name}"] must name a module specifier` : { specifier: entry };
  }
  if (!isObject(entry)) return `bundlers["${name}"] must be a specifier string or an object with "specifier"; it is ${describeType(entry)}`;
  if (typeof entry.specifier !== 'string' || entry.specifier === '') {
    return `bundlers["${name}"].specifier must be a module specifier such as "@core-js/packages/bundlers/esbuild"; it is ${describeType(entry.specifier)}`;
  }
  if (entry.processors === undefined) return { specifier: entry.specifier };
  if (!isObject(entry.processors)) return `bundlers["${name}"].processors must be an object; it is ${describeType(entry.processors)}`;
  const bundle = entry.processors.bundle;
  if (bundle !== undefined && (!isObject(bundle) || (bundle.compiler !== undefined && typeof bundle.compiler !== 'string'))) {
    return `bundlers["${name}"].processors.bundle must be an object whose "compiler" is a string such as "esbuild"`;
  }
  return { specifier: entry.specifier, processors: entry.processors };
}
