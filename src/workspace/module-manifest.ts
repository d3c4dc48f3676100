// `module.json`: platforms, entry, assets, subpath and bundler of one module (README "Workspaces").
import { manifestInvalid } from './diagnostics.js';
import { validate as validateModuleSchema } from './generated/module-schema.js';
import { describeType, isObject, parseJson } from './json.js';
import type { Platform } from './model.js';
import { normalizeRelative } from './paths.js';
import { isRefused, schemaProblems, wordProblems, type MemberMessage, type SchemaValidator } from './schema-problems.js';
import type { ManifestResult } from './workspace-manifest.js';

export interface ModuleManifest {
  platforms: Platform[] | null;
  entry: string | null;
  assets: string[];
  subpath: string | null;
  bundler: string | null;
}

// A subpath is what follows the package name in a specifier: plain segments only.
export { isSubpath } from './subpaths.js';

/** A manifest declaring nothing: what a module.json that cannot be read stands for. */
export const emptyManifest = (): ModuleManifest => ({ platforms: null, entry: null, assets: [], subpath: null, bundler: null });

/**
 * Always yields a value: a module.json with a broken member still declares a module,
 * which is then listed invalid with the diagnostic rather than silently dropped.
 */
export function parseModuleManifest(text: string, file: string): ManifestResult<ModuleManifest> {
  const value = emptyManifest();
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  const problems = wordProblems(json, schemaProblems(validateModuleSchema as SchemaValidator, json), MODULE_MESSAGES);
  const diagnostics = problems.map(({ path, message }) => manifestInvalid(file, path.length === 0 ? `${file} ${message}` : `${file}: ${message}`));
  if (!isObject(json)) return { value, diagnostics };
  const refused = (...path: string[]) => isRefused(problems, ...path);
  // Each kept once, in the order written; paths as the service compares them.
  const kept = <T extends string>(member: 'platforms' | 'assets', normalize: (item: string) => T): T[] =>
    Array.isArray(json[member]) ? [...new Set((json[member] as string[]).filter((_, index) => !refused(member, String(index))).map(normalize))] : [];
  const platforms = kept('platforms', (platform) => platform as Platform);
  if (platforms.length > 0) value.platforms = platforms;
  value.assets = kept('assets', (asset) => normalizeRelative(asset) ?? asset);
  if (json.entry !== undefined && !refused('entry')) value.entry = normalizeRelative(json.entry as string) ?? (json.entry as string);
  if (json.subpath !== undefined && !refused('subpath')) value.subpath = (json.subpath as string).replace(/^\.\//, '');
  if (json.bundler !== undefined && !refused('bundler')) value.bundler = json.bundler as string;
  return { value, diagnostics };
}

const describeString = (value: unknown) => (typeof value === 'string' ? `"${value}"` : describeType(value));

// The messages users see, by member; schemas/module.schema.json says what is refused.
const MODULE_MESSAGES: MemberMessage[] = [
  { at: '', message: (value) => `must hold an object; it holds ${describeType(value)}` },
  { at: '$schema', message: (value) => `"$schema" must be the address of a JSON Schema; it is ${describeType(value)}` },
  { at: 'platforms', message: (value) => `"platforms" must be a non-empty array of "web" and "node"; it is ${describeType(value)}` },
  { at: 'platforms/*', message: (platform) => `"platforms" may hold "web" and "node" only; it holds ${describeString(platform)}` },
  { at: 'entry', message: (entry) => `"entry" must be a file in the module's directory such as "index.ts"; it is ${describeType(entry)}${typeof entry === 'string' ? ` "${entry}"` : ''}` },
  { at: 'assets', message: (value) => `"assets" must be an array of file names; it is ${describeType(value)}` },
  { at: 'assets/*', message: (asset) => `"assets" must hold file names inside the module's directory; it holds ${describeString(asset)}` },
  { at: 'subpath', message: (subpath) => `"subpath" must be a subpath such as "widgets/badge"; it is ${describeString(subpath)}` },
  { at: 'bundler', message: (value) => `"bundler" must be a bundler name such as "ts"; it is ${describeType(value)}` },
];
