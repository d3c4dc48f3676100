// `package.json`: identity, public modules by `exports`, dependencies, and the `core` and
// `bundlers` members (README "Workspaces").
import semver from 'semver';
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { validate as validatePackageSchema } from './generated/package-schema.js';
import { describeType, isObject, parseJson } from './json.js';
import { isRefused, isRefusedItself, schemaProblems, wordProblems, type MemberMessage, type SchemaValidator, type WordedProblem } from './schema-problems.js';
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
  /** The bare names the `browser` field maps to `false`: the builds make each an empty module (README "Bundling real code"). Empty when none. */
  browserDisabled: string[];
  /** `core.define`: build-time constants of the package's modules, with esbuild's `define` meaning. */
  define: Record<string, string>;
  /**
   * What is wrong with `core.define`, told on each module of the package rather than at the top
   * level alone: a module built without a constant it uses fails on the page (README "Bundling
   * real code"). Empty when nothing is.
   */
  defineProblems: Diagnostic[];
  /**
   * What is wrong with `core.bundler`, told on each module that would be built by it (one with no
   * `bundler` of its own): built by another bundler than the one asked for, it is not the module
   * its manifests describe (README "Workspaces"). Told at the top level when no module uses it.
   */
  bundlerProblems: Diagnostic[];
}

// npm's rules for names, scoped or not (lower case, URL-safe); schemas/package.schema.json states them too.
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

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
  const problems = packageManifestProblems(json);
  const worded = problems.map(({ path, message }) => manifestInvalid(file, path.length === 0 ? `${file} ${message}` : `${file}: ${message}`));
  const about = (member: string) => problems.map(({ path }) => path[0] === 'core' && path[1] === member);
  const aboutDefine = about('define');
  const aboutBundler = about('bundler');
  const diagnostics = worded.filter((_, index) => !aboutDefine[index] && !aboutBundler[index]);
  const defineProblems = worded.filter((_, index) => aboutDefine[index]);
  const bundlerProblems = worded.filter((_, index) => aboutBundler[index]);
  // Without its identity a package has no address: nothing else of it is read, or told.
  const identity = diagnostics.filter((_, index) => problems[index]!.path.length <= 1 && ['', 'name', 'version'].includes(problems[index]!.path[0] ?? ''));
  if (identity.length > 0 || !isObject(json)) return { value: null, diagnostics: identity };
  const value = readPackageManifest(json, (...path) => isRefused(problems, ...path), (...path) => isRefusedItself(problems, ...path));
  value.defineProblems = defineProblems;
  value.bundlerProblems = bundlerProblems;
  return { value, diagnostics };
}

/** The problems of a package.json, worded: the schema's, and the one rule it cannot state. */
function packageManifestProblems(json: unknown): WordedProblem[] {
  const problems = wordProblems(json, schemaProblems(validatePackageSchema as SchemaValidator, json), PACKAGE_MESSAGES);
  // A version the schema's pattern takes but semver cannot hold (a part beyond 2^53) has no one meaning.
  const version = isObject(json) ? json.version : undefined;
  if (typeof version === 'string' && !isRefused(problems, 'version') && semver.parse(version) === null) {
    problems.push({ path: ['version'], message: versionMessage(version) });
  }
  // A define value esbuild refuses would fail every build of the package at its entry, far from
  // the package.json holding it: judged here, by esbuild's rule (README "Bundling real code").
  const define = isObject(json) && isObject(json.core) ? json.core.define : undefined;
  if (isObject(define)) {
    for (const [name, value] of Object.entries(define)) {
      if (typeof value === 'string' && !isRefused(problems, 'core', 'define', name) && !isDefineValue(value)) {
        problems.push({ path: ['core', 'define', name], message: `core.define["${name}"] is ${JSON.stringify(value)}, which esbuild cannot substitute: give a JSON value ("\\"text\\"", 1, true, null, an array or object in JSON) or a name such as "globalThis.config", as a string` });
      }
    }
  }
  return problems;
}

const versionMessage = (version: unknown) => `"version" must be an exact version such as "1.0.0"; it is ${typeof version === 'string' ? `"${version}"` : describeType(version)}`;
const exportMessage = (key: string, target: unknown) =>
  `exports["${key}"] must be a path such as "./main/index.ts", an object of conditions, an array or null; it is ${describeType(target)}`;
// esbuild's rule for a define value: an entity name (an identifier not a reserved word, `this`
// and `import.meta` aside, then dotted names), or a literal as JSON writes it, which esbuild also
// takes with 'single quotes', a trailing comma and a bigint (`2n`). Held equal to esbuild's own
// check by test/workspace/package-manifest.test.ts.
const RESERVED = new Set('break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch throw true try typeof var void while with'.split(' '));
const NAME = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;
// One token of a literal, spaces before it skipped: a string, a number, a bigint, a word, a mark.
const LITERAL_TOKEN = /[ \t\n\r]*(?:"(?:[^"\\\n]|\\(?:["\\/bfnrt]|u[\da-fA-F]{4}))*"|'(?:[^'\\\n]|\\(?:["\\/bfnrt]|u[\da-fA-F]{4}))*'|(?:0|[1-9]\d*)n|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[[\]{},:])/y;

function isEntityName(value: string): boolean {
  const [first, ...rest] = value.split('.');
  if (!NAME.test(first!) || !rest.every((part) => NAME.test(part))) return false;
  if (first === 'import') return rest[0] === 'meta';
  return !RESERVED.has(first!) || (rest.length === 0 && ['true', 'false', 'null'].includes(first!));
}

/** Whether `value` is one literal: a scalar, or an array or object of literals (keys strings). */
function isLiteral(value: string): boolean {
  let at = 0;
  const next = (): string | null => {
    LITERAL_TOKEN.lastIndex = at;
    const match = LITERAL_TOKEN.exec(value);
    if (!match) return null;
    at = LITERAL_TOKEN.lastIndex;
    return match[0].trimStart();
  };
  const literal = (token: string | null): boolean => {
    if (token === null || token === ',' || token === ':' || token === ']' || token === '}') return false;
    if (token !== '[' && token !== '{') return true;
    const close = token === '[' ? ']' : '}';
    for (let item = next(); item !== close; item = next()) {
      if (token === '{' && (item === null || !/^["']/.test(item) || next() !== ':')) return false;
      if (!literal(token === '{' ? next() : item)) return false;
      const after = next();
      if (after === close) return true;
      if (after !== ',') return false;
    }
    return true;
  };
  return literal(next()) && /^[ \t\n\r]*$/.test(value.slice(at));
}

/** Whether esbuild takes `value` as a define's replacement. */
export const isDefineValue = (value: string): boolean => isEntityName(value) || isLiteral(value);

const defineMessage = (name: string) => `core.define["${name}"] must name an identifier (or a dotted one) and give a JavaScript expression as a string`;
const dependencyMessages = (member: string): MemberMessage[] => [
  { at: member, message: (value) => `"${member}" must be an object of package names to version ranges; it is ${describeType(value)}` },
  { at: `${member}/*`, message: (value, [name]) => `${member}["${name}"] must be a version range string; it is ${describeType(value)}` },
];

// The messages users see, by member; schemas/package.schema.json says what is refused.
const PACKAGE_MESSAGES: MemberMessage[] = [
  { at: '', message: (value) => `must hold an object; it holds ${describeType(value)}` },
  { at: 'name', message: (name) => `"name" must be a package name such as "@acme/app"; it is ${typeof name === 'string' ? `"${name}": ${whyNotAPackageName(name)}` : describeType(name)}` },
  { at: 'version', message: versionMessage },
  { at: '$schema', message: (value) => `"$schema" must be the address of a JSON Schema; it is ${describeType(value)}` },
  { at: 'private', message: (value) => `"private" must be a boolean; it is ${describeType(value)}` },
  { at: 'description', message: (value) => `"description" must be a string; it is ${describeType(value)}` },
  { at: 'exports', keyword: 'type', message: (value) => exportMessage('.', value) },
  { at: 'exports', keyword: 'anyOf', message: () => `"exports" mixes "./<subpath>" keys with conditions; Node refuses that: put the conditions under "."` },
  { at: 'exports/*', message: (value, [key]) => exportMessage(key!, value) },
  ...dependencyMessages('dependencies'),
  ...dependencyMessages('peerDependencies'),
  ...dependencyMessages('optionalDependencies'),
  { at: 'core', message: (value) => `"core" must be an object with "modules" and "bundler"; it is ${describeType(value)}` },
  { at: 'core/modules', message: (value) => `core.modules must be a directory of the package ("." for the package itself); it is ${describeType(value)}` },
  { at: 'core/define', message: (value) => `core.define must be an object of names to JavaScript expressions, such as {"__LIB_VERSION__": "\\"1.2.3\\""}; it is ${describeType(value)}` },
  { at: 'core/define/*', message: (_, [name]) => defineMessage(name!) },
  { at: 'core/bundler', message: (value) => `core.bundler must be a bundler name such as "ts"; it is ${describeType(value)}` },
  { at: 'bundlers', message: (value) => `"bundlers" must be an object of bundler names; it is ${describeType(value)}` },
  { at: 'bundlers/*', message: (value, [name]) => `bundlers["${name}"] must be a specifier string or an object with "specifier"; it is ${describeType(value)}` },
  { at: 'bundlers/*', keyword: 'minLength', message: (_, [name]) => `bundlers["${name}"] must name a module specifier` },
  { at: 'bundlers/*/specifier', message: (value, [name]) => `bundlers["${name}"].specifier must be a module specifier such as "@core-js/packages/bundlers/esbuild"; it is ${describeType(value)}` },
  { at: 'bundlers/*/processors', message: (value, [name]) => `bundlers["${name}"].processors must be an object; it is ${describeType(value)}` },
  { at: 'bundlers/*/processors/bundle', message: (_, [name]) => `bundlers["${name}"].processors.bundle must be an object whose "compiler" is a string such as "esbuild"` },
];

type Refused = (...path: string[]) => boolean;

/** The manifest of a package.json whose identity the schema took; members it refused are left out. */
function readPackageManifest(json: Record<string, unknown>, refused: Refused, refusedItself: Refused): PackageManifest {
  // Each member of "core" is judged on its own: a bad define name leaves `modules` and `bundler`.
  const core = isObject(json.core) && !refusedItself('core') ? json.core : {};
  const define: Record<string, string> = table();
  if (isObject(core.define)) {
    for (const [name, value] of Object.entries(core.define)) if (!refused('core', 'define', name)) define[name] = value as string;
  }
  return {
    name: json.name as string,
    version: json.version as string,
    ...packageExports(json, refused),
    buildTsconfig: buildTsconfig(json.scripts),
    dependencies: declaredDependencies(json, refused),
    modulesDir: core.modules !== undefined && !refused('core', 'modules') ? (core.modules as string) : null,
    defaultBundler: core.bundler !== undefined && !refused('core', 'bundler') ? (core.bundler as string) : null,
    bundlers: declaredBundlers(json.bundlers, refused),
    browserDisabled: browserDisabledNames(json),
    define,
    defineProblems: [],
    bundlerProblems: [],
  };
}

function packageExports(json: Record<string, unknown>, refused: Refused): Pick<PackageManifest, 'exports' | 'sourceKeys' | 'rootMembers'> {
  const exports: Record<string, string[]> = table();
  if (json.exports === undefined || json.exports === null) {
    // No `exports`: the package root, from the first of these that is or maps to a source.
    const members = (['module', 'main', 'types', 'typings'] as const).filter((member) => typeof json[member] === 'string' && json[member] !== '');
    if (members.length > 0) exports['.'] = members.map((member) => json[member] as string).map((target) => (target.startsWith('./') ? target : `./${target}`));
    return { exports, sourceKeys: [], rootMembers: [...members] };
  }
  // The forms Node accepts: a string or an array (the root alone), an object of conditions
  // (the root alone), or an object of "." and "./<subpath>" keys.
  const keyed = isObject(json.exports) && Object.keys(json.exports).some((key) => key.startsWith('.'));
  const entries: [string, unknown][] = keyed ? Object.entries(json.exports as Record<string, unknown>) : [['.', json.exports]];
  const sourceKeys: string[] = [];
  for (const [key, target] of entries) {
    if (!key.startsWith('.') || (keyed ? refused('exports', key) : refused('exports'))) continue;
    exports[key] = exportTargets(target);
    if (hasSourceCondition(target)) sourceKeys.push(key);
  }
  return { exports, sourceKeys, rootMembers: null };
}

// `peerDependencies` (a plugin's host) and `optionalDependencies` declare a package as surely
// as `dependencies` (README "Workspaces"): one table, `dependencies` written last so its range
// is the one checked when a name is in several.
function declaredDependencies(json: Record<string, unknown>, refused: Refused): Record<string, string> {
  const dependencies: Record<string, string> = table();
  for (const member of ['optionalDependencies', 'peerDependencies', 'dependencies'] as const) {
    const declared = json[member];
    if (!isObject(declared)) continue;
    for (const [name, range] of Object.entries(declared)) if (!refused(member, name)) dependencies[name] = range as string;
  }
  return dependencies;
}

// Form 1: a specifier string. Form 2: { specifier, processors: { bundle: { compiler } } }.
function declaredBundlers(declared: unknown, refused: Refused): Record<string, BundlerEntry> {
  const bundlers: Record<string, BundlerEntry> = table();
  if (!isObject(declared)) return bundlers;
  for (const [name, entry] of Object.entries(declared)) {
    if (refused('bundlers', name)) continue;
    if (typeof entry === 'string') bundlers[name] = { specifier: entry };
    else if (isObject(entry)) bundlers[name] = { specifier: entry.specifier as string, ...(isObject(entry.processors) ? { processors: entry.processors } : {}) };
  }
  return bundlers;
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

/** Every path of an `exports` target, in the order tried; a target of no valid type has none. */
function exportTargets(target: unknown): string[] {
  if (typeof target === 'string') return [target];
  if (Array.isArray(target)) return target.flatMap(exportTargets);
  if (!isObject(target)) return [];
  const known = EXPORT_CONDITIONS as readonly string[];
  const conditions = [...EXPORT_CONDITIONS.filter((c) => Object.hasOwn(target, c)), ...Object.keys(target).filter((c) => !known.includes(c))];
  return conditions.flatMap((condition) => exportTargets(target[condition]));
}

const isBareName = (key: string) => key !== '' && !key.startsWith('.') && !key.startsWith('/');

/**
 * The bare names a package.json's `browser` field maps to `false`, sorted; empty when none. (A
 * bare name mapped to another name or a file esbuild applies itself, bare imports external or not.)
 */
export function browserDisabledNames(json: unknown): string[] {
  const browser = json !== null && typeof json === 'object' ? (json as { browser?: unknown }).browser : undefined;
  if (browser === null || typeof browser !== 'object' || Array.isArray(browser)) return [];
  return Object.entries(browser as Record<string, unknown>)
    .filter(([key, value]) => isBareName(key) && value === false)
    .map(([key]) => key)
    .sort();
}
