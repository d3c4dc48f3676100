// tsconfig.json as tsc reads it, for what the workspace model needs of it: where a package's
// sources are (`outDir`, `rootDir`, `declarationDir`) and `paths`, through `extends` (a relative
// path, a package specifier resolved through node_modules, or an array). JSONC: comments and
// trailing commas. Pure over a reader of workspace-relative files; a broken file is a diagnostic.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { MAX_MANIFEST_DEPTH, parseJson, isObject } from './json.js';
import { dirOf, joinRelative, normalizeRelative } from './paths.js';

export interface TsconfigReader {
  /** The text of a workspace-relative file; null when absent. */
  read(file: string): string | null;
  /** The workspace-relative file a package specifier in `extends` names, looked up in node_modules from `fromDir`; null when none. */
  resolvePackage(specifier: string, fromDir: string): string | null;
}

export interface LoadedTsconfig {
  file: string;
  /** Every config file read: the found one first, then its `extends` chain. */
  files: string[];
  compilerOptions: Record<string, unknown>;
  /** The directory `paths` are relative to (`baseUrl`, else the config that declares `paths`); null without `paths`. */
  pathsBase: string | null;
  /** Directory options (`outDir`, `rootDir`, `declarationDir`, `baseUrl`) resolved against the config declaring them. */
  dirs: { outDir?: string; rootDir?: string; declarationDir?: string; baseUrl?: string };
  diagnostics: Diagnostic[];
}

const DIR_OPTIONS = ['outDir', 'rootDir', 'declarationDir', 'baseUrl'] as const;

/**
 * Where tsc looks for the tsconfig.json of a directory, nearest first: the directory, then each
 * one above up to `stopAt` (both workspace-relative). One rule for the builds (an input of each)
 * and for mapping a package's outputs to its sources (README "Exports and sources").
 */
export function tsconfigPlaces(dir: string, stopAt = '.'): string[] {
  const places: string[] = [];
  let current = normalizeRelative(dir) ?? '.';
  const stop = normalizeRelative(stopAt) ?? '.';
  for (;;) {
    places.push(joinRelative(current, 'tsconfig.json'));
    if (current === stop || current === '.') return places;
    current = dirOf(current);
  }
}

/**
 * Where a package.json that decides how esbuild resolves and keeps a directory's files could be
 * (`imports`, `browser`, `sideEffects`, `type`: README "Bundling real code", "The local CDN"),
 * nearest first: the places of `tsconfigPlaces`, so the root's is `package.json`. One rule for a
 * module's build inputs and an installed package's bundle inputs.
 */
export const packageJsonPlaces = (dir: string, stopAt = '.'): string[] => tsconfigPlaces(dir, stopAt).map((place) => joinRelative(dirOf(place), 'package.json'));

/** The nearest tsconfig.json from `dir` up to `stopAt` (both workspace-relative), or null. */
export function findTsconfig(dir: string, stopAt: string, exists: (file: string) => boolean): string | null {
  return tsconfigPlaces(dir, stopAt).find(exists) ?? null;
}

export function loadTsconfig(file: string, reader: TsconfigReader): LoadedTsconfig {
  const loaded: LoadedTsconfig = { file, files: [], compilerOptions: {}, pathsBase: null, dirs: {}, diagnostics: [] };
  // Options of the config read last win: the chain is read from the base up, then applied down.
  const chain: { file: string; options: Record<string, unknown> }[] = [];
  const visit = (current: string, from: string | null) => {
    if (loaded.files.includes(current)) {
      loaded.diagnostics.push(manifestInvalid(from ?? current, `${from ?? current}: "extends" leads back to ${current}, a loop`));
      return;
    }
    // Each base is visited within the visit of the config extending it: a chain is bounded like a manifest's nesting.
    if (loaded.files.length >= MAX_MANIFEST_DEPTH) {
      loaded.diagnostics.push(manifestInvalid(from ?? current, `${from ?? current}: "extends" leads through more than ${MAX_MANIFEST_DEPTH} configs`));
      return;
    }
    const text = reader.read(current);
    if (text === null) {
      loaded.diagnostics.push(manifestInvalid(from ?? current, `${from ?? current}: the tsconfig ${current} does not exist`));
      return;
    }
    loaded.files.push(current);
    const parsed = parseJson(text, current, { comments: true });
    if (!parsed.ok) {
      loaded.diagnostics.push(parsed.diagnostic);
      return;
    }
    const json = parsed.value;
    if (!isObject(json)) {
      loaded.diagnostics.push(manifestInvalid(current, `${current} must hold an object`));
      return;
    }
    const bases = typeof json.extends === 'string' ? [json.extends] : Array.isArray(json.extends) ? json.extends.filter((e): e is string => typeof e === 'string') : [];
    for (const base of bases) {
      const target = base.startsWith('.') || base.startsWith('/') ? relativeConfig(dirOf(current), base) : reader.resolvePackage(base, dirOf(current));
      if (target === null) {
        loaded.diagnostics.push(manifestInvalid(current, `${current}: "extends": "${base}" names no file (looked in node_modules from ${dirOf(current)})`));
        continue;
      }
      visit(target, current);
    }
    const options = isObject(json.compilerOptions) ? { ...json.compilerOptions } : {};
    for (const option of DIR_OPTIONS) {
      if (typeof options[option] === 'string') options[option] = joinRelative(dirOf(current), normalizeRelative(options[option] as string) ?? (options[option] as string));
    }
    if (options.paths !== undefined && typeof options.baseUrl !== 'string') options.__pathsBase = dirOf(current);
    chain.push({ file: current, options });
  };
  visit(file, null);
  // Spread, not assigned: an own "__proto__" key stays a member (JSON.parse makes it one).
  for (const { options } of chain) loaded.compilerOptions = { ...loaded.compilerOptions, ...options };
  const pathsBase = loaded.compilerOptions.__pathsBase;
  delete loaded.compilerOptions.__pathsBase;
  for (const option of DIR_OPTIONS) {
    if (typeof loaded.compilerOptions[option] === 'string') loaded.dirs[option] = loaded.compilerOptions[option] as string;
  }
  if (isObject(loaded.compilerOptions.paths)) loaded.pathsBase = loaded.dirs.baseUrl ?? (typeof pathsBase === 'string' ? pathsBase : dirOf(file));
  return loaded;
}

function relativeConfig(dir: string, base: string): string | null {
  const relative = normalizeRelative(joinRelative(dir, base));
  if (relative === null) return null;
  return relative.endsWith('.json') ? relative : `${relative}.json`;
}

/** The targets `paths` gives for `specifier`, relative to the workspace, most specific pattern first. */
export function pathsTargets(config: LoadedTsconfig, specifier: string): string[] {
  const paths = config.compilerOptions.paths;
  if (!isObject(paths) || config.pathsBase === null) return [];
  let best: { prefixLength: number; targets: string[]; star: string } | null = null;
  for (const [pattern, targets] of Object.entries(paths)) {
    if (!Array.isArray(targets)) continue;
    const star = pattern.indexOf('*');
    let captured: string | null = null;
    if (star === -1) captured = pattern === specifier ? '' : null;
    else {
      const prefix = pattern.slice(0, star);
      const suffix = pattern.slice(star + 1);
      if (specifier.startsWith(prefix) && specifier.endsWith(suffix) && specifier.length >= prefix.length + suffix.length) captured = specifier.slice(prefix.length, specifier.length - suffix.length);
    }
    if (captured === null) continue;
    const prefixLength = star === -1 ? Infinity : star;
    if (best === null || prefixLength > best.prefixLength) best = { prefixLength, targets: targets.filter((t): t is string => typeof t === 'string'), star: captured };
  }
  if (best === null) return [];
  return best.targets.map((target) => joinRelative(config.pathsBase!, target.replace('*', best!.star)));
}
