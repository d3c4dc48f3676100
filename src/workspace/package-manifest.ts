// `package.json`: identity, public modules by `exports`, dependencies, and the `core` and
// `bundlers` members (README "Workspaces").
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
  /**
   * `"."` and `./<subpath>` keys (patterns with `*` too) to their targets, relative to the
   * package, in the order they are tried for a source (see EXPORT_CONDITIONS); an empty list:
   * excluded (`null`, as in Node). Without `exports`, `"."` lists `module`, `main`, `types`.
   */
  exports: Record<string, string[]>;
  /** The `exports` keys whose target has a `source` condition, for the advice of a diagnostic. */
  sourceKeys: string[];
  /** Without `exports`: the member each target of `"."` comes from (`module`, `main`...), for diagnostics; null with `exports`. */
  rootMembers: string[] | null;
  /** The tsconfig a `tsc -p <file>` (or `--project`, `-b`) in `scripts.build` names, relative to the package; null when none is plain to read. */
  buildTsconfig: string | null;
  /** `dependencies`, `peerDependencies` and `optionalDependencies` together; `dependencies` wins a name declared twice. */
  dependencies: Record<string, string>;
  modulesDir: string | null;
  defaultBundler: string | null;
  bundlers: Record<string, BundlerEntry>;
  /** `core.define`: build-time constants of the package's modules, with esbuild's `define` meaning. */
  define: Record<string, string>;
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

/** npm's rule a name breaks, for the diagnostic. */
export function whyNotAPackageName(name: string): string {
  if (name === '') return 'it is empty';
  if (name.length > 214) return `it is ${name.length} characters long; npm allows 214`;
  if (name !== name.toLowerCase()) return 'npm names are lower case';
  if (name.startsWith('@') && !/^@[^/]+\/[^/]+$/.test(name)) return 'a scoped name is "@scope/name", with one slash';
  const bare = name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
  if (/^[._]/.test(bare)) return 'a name cannot start with "." or "_"';
  const bad = /[^a-z0-9\-._~@/]/.exec(name);
  if (bad) return `"${bad[0]}" is not allowed: npm names hold only a-z, 0-9, "-", ".", "_" and "~" (they are parts of URLs)`;
  return 'it breaks npm\'s rules for names';
}

/**
 * The conditions of an `exports` target tried, in this order, for the module's one source
 * (README "Exports"): a target that is a source, or maps back to one, wins. Conditions not
 * listed are tried after these, in the order written.
 */
export const EXPORT_CONDITIONS = ['source', 'development', 'browser', 'import', 'module', 'default', 'production', 'node', 'types'] as const;

export function parsePackageManifest(text: string, file: string): ManifestResult<PackageManifest> {
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value: null, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  if (!isObject(json)) return { value: null, diagnostics: [manifestInvalid(file, `${file} must hold an object; it holds ${describeType(json)}`)] };
  const diagnostics: Diagnostic[] = [];
  const problem = (message: string) => diagnostics.push(manifestInvalid(file, `${file}: ${message}`));

  if (typeof json.name !== 'string' || !isPackageName(json.name)) {
    problem(`"name" must be a package name such as "@acme/app"; it is ${typeof json.name === 'string' ? `"${json.name}": ${whyNotAPackageName(json.name)}` : describeType(json.name)}`);
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

  const exports: Record<string, string[]> = table();
  const sourceKeys: string[] = [];
  let rootMembers: string[] | null = json.exports !== undefined && json.exports !== null ? null : [];
  if (json.exports !== undefined && json.exports !== null) {
    // The forms Node accepts: a string or an array (the root alone), an object of conditions
    // (the root alone), or an object of "." and "./<subpath>" keys.
    const keyed = isObject(json.exports) && Object.keys(json.exports).some((key) => key.startsWith('.'));
    const entries: [string, unknown][] = keyed ? Object.entries(json.exports as Record<string, unknown>) : [['.', json.exports]];
    if (keyed && Object.keys(json.exports as object).some((key) => !key.startsWith('.'))) {
      problem(`"exports" mixes "./<subpath>" keys with conditions; Node refuses that: put the conditions under "."`);
    }
    for (const [key, target] of entries) {
      if (!key.startsWith('.')) continue;
      const targets = exportTargets(target);
      if (targets === null) {
        problem(`exports["${key}"] must be a path such as "./main/index.ts", an object of conditions, an array or null; it is ${describeType(target)}`);
        continue;
      }
      exports[key] = targets;
      if (hasSourceCondition(target)) sourceKeys.push(key);
    }
  } else {
    // No `exports`: the package root, from the first of these that is or maps to a source.
    const members = (['module', 'main', 'types', 'typings'] as const).filter((member) => typeof json[member] === 'string' && json[member] !== '');
    if (members.length > 0) {
      exports['.'] = members.map((member) => json[member] as string).map((target) => (target.startsWith('./') ? target : `./${target}`));
      rootMembers = [...members];
    }
  }

  // `peerDependencies` (a plugin's host) and `optionalDependencies` declare a package as surely
  // as `dependencies` (README "Workspaces"): one table, `dependencies` written last so its range
  // is the one checked when a name is in several.
  const dependencies: Record<string, string> = table();
  for (const member of ['optionalDependencies', 'peerDependencies', 'dependencies'] as const) {
    const declared = json[member];
    if (declared === undefined) continue;
    if (!isObject(declared)) {
      problem(`"${member}" must be an object of package names to version ranges; it is ${describeType(declared)}`);
      continue;
    }
    for (const [name, range] of Object.entries(declared)) {
      if (typeof range === 'string') dependencies[name] = range;
      else problem(`${member}["${name}"] must be a version range string; it is ${describeType(range)}`);
    }
  }

  let modulesDir: string | null = null;
  let defaultBundler: string | null = null;
  const define: Record<string, string> = table();
  if (json.core !== undefined) {
    if (!isObject(json.core)) {
      problem(`"core" must be an object with "modules" and "bundler"; it is ${describeType(json.core)}`);
    } else {
      if (json.core.modules !== undefined) {
        if (typeof json.core.modules === 'string' && json.core.modules !== '') modulesDir = json.core.modules;
        else problem(`core.modules must be a directory of the package ("." for the package itself); it is ${describeType(json.core.modules)}`);
      }
      if (json.core.define !== undefined) {
        if (!isObject(json.core.define)) problem(`core.define must be an object of names to JavaScript expressions, such as {"__LIB_VERSION__": "\\"1.2.3\\""}; it is ${describeType(json.core.define)}`);
        else {
          for (const [name, value] of Object.entries(json.core.define)) {
            if (typeof value === 'string' && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(name)) define[name] = value;
            else problem(`core.define["${name}"] must name an identifier (or a dotted one) and give a JavaScript expression as a string`);
          }
        }
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
    value: { name: json.name as string, version: json.version as string, exports, sourceKeys, rootMembers, buildTsconfig: buildTsconfig(json.scripts), dependencies, modulesDir, defaultBundler, bundlers, define },
    diagnostics,
  };
}

/**
 * The project of `tsc -p tsconfig.build.json` (`--project`, `-b`, `--build`) in `scripts.build`:
 * where that package's `outDir` is declared (README "Exports and sources"). A script that
 * computes its arguments is not read.
 */
function buildTsconfig(scripts: unknown): string | null {
  if (!isObject(scripts) || typeof scripts.build !== 'string') return null;
  const named = /(?:^|[\s;&|(])tsc\s+(?:[^;&|]*?\s)?(?:-p|--project|-b|--build)\s+([^\s;&|$`'"]+)/.exec(scripts.build);
  return named ? named[1]! : null;
}

const hasSourceCondition = (target: unknown): boolean =>
  Array.isArray(target) ? target.some(hasSourceCondition) : isObject(target) && (Object.hasOwn(target, 'source') || Object.values(target).some(hasSourceCondition));

/** Every path of an `exports` target, in the order tried; null when it is of no valid type. */
function exportTargets(target: unknown): string[] | null {
  if (target === null) return [];
  if (typeof target === 'string') return [target];
  if (Array.isArray(target)) {
    const all: string[] = [];
    for (const item of target) all.push(...(exportTargets(item) ?? []));
    return all;
  }
  if (!isObject(target)) return null;
  const all: string[] = [];
  const known = EXPORT_CONDITIONS as readonly string[];
  const conditions = [...EXPORT_CONDITIONS.filter((c) => Object.hasOwn(target, c)), ...Object.keys(target).filter((c) => !known.includes(c))];
  for (const condition of conditions) all.push(...(exportTargets(target[condition]) ?? []));
  return all;
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
