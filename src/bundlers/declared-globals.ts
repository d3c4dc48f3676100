// The globals a module's TypeScript config declares for the checker alone in its declaration files
// (README "Bundling real code", names nothing binds): `globals.d.ts` holding `declare function
// gtag(...)` or `declare global { var dataLayer: ... }`. esbuild never reads a `.d.ts`, so the
// checker is content while a page throws `ReferenceError` at the read; a module whose code names
// one of these is parsed for the reads of names nothing binds, as one whose source declares it.
// Which files count: the `.d.ts` files the nearest `tsconfig.json` (else `jsconfig.json`) of the
// module's entry folder includes (`files`, `include`, `exclude` through its `extends` chain inside
// the workspace; without `files` and `include`, every file below the config), each read only
// inside the workspace's real path and again only when it changed (`unchangedReads`), the listings
// of the included folders once per turn of the event loop while their modification times hold.
import fs from 'node:fs';
import path from 'node:path';
import { isReallyInside, unchangedReads } from '../regular-files.js';
import { createGranularity, isStillValid, type ReadStamp } from '../unchanged-stats.js';
import { isObject, parseJson } from '../workspace/json.js';
import { dirOf, isSkippedDirectory, joinRelative, normalizeRelative, isInside } from '../workspace/paths.js';
import { loadTsconfig, tsconfigPlaces } from '../workspace/tsconfig.js';

/** A declaration file's global for the checker alone: `declare function gtag(`, `declare const __APP__`, `declare namespace google`, `declare global {`; not `export declare`, a module's own (a build's emitted declarations). */
const AMBIENT_DECLARATION = /(?<![\w$.])(?<!\bexport\s+)declare\s+(?:(?:function|const|let|var|namespace)\s+([\w$]+)|global\s*\{)/g;

/** A name declared inside `declare global { ... }`: read to the file's end, which may name more than the block (a parse at most), never fewer. */
const BLOCK_MEMBER = /(?<![\w$.])(?:function|const|let|var|namespace)\s+([\w$]+)/g;

const DECLARATION_FILE = /\.d\.[cm]?ts$/;

/** At most this many folders are listed for one config's `include`. */
const MAX_LISTED = 2_000;

/** At most this many listings are kept, the oldest forgotten first. */
const MAX_KEPT = 1_000;

/**
 * The global names the declaration files the module's config includes declare, for a workspace
 * `root` (absolute) and the module's `entry` (workspace-relative): empty when the config includes
 * none, or no config is found.
 */
export function declarationFileGlobals(root: string, entry: string): ReadonlySet<string> {
  const turn = thisTurn();
  const config = nearestConfig(root, dirOf(entry), turn);
  if (config === null) return NONE;
  const key = path.join(root, config);
  let names = turn.names.get(key);
  if (names === undefined) {
    names = new Set();
    for (const file of includedDeclarationFiles(root, config, turn)) for (const name of globalsOfDeclarationFile(path.join(root, file)) ?? []) names.add(name);
    turn.names.set(key, names);
  }
  return names;
}

const NONE: ReadonlySet<string> = new Set();

/** The names a declaration file declares as globals, read again only when it changed. */
const globalsOfDeclarationFile = unchangedReads((bytes): string[] => {
  const text = bytes.toString('utf8');
  if (!text.includes('declare')) return [];
  const names = new Set<string>();
  for (const match of text.matchAll(AMBIENT_DECLARATION)) {
    if (match[1] !== undefined) names.add(match[1]);
    else for (const [, name] of text.slice(match.index).matchAll(BLOCK_MEMBER)) names.add(name!);
  }
  return [...names];
});

/** A config's text, read where its real path is inside the workspace, again only when it changed. */
const configBytes = unchangedReads((bytes) => bytes.toString('utf8'));
function configText(root: string, file: string): string | null {
  if (!isInside(file)) return null;
  const text = configBytes(path.join(root, file));
  return text !== null && isReallyInside(root, path.join(root, file)) ? text : null;
}

/**
 * What one turn of the event loop has found: a module's build results are judged in one turn, and
 * the next turn (a file saved since) looks again. Never a time: a save is noticed in a later turn.
 */
interface Turn {
  configs: Map<string, string | null>;
  names: Map<string, Set<string>>;
  checked: Set<string>;
}
let current: Turn | null = null;
function thisTurn(): Turn {
  if (current === null) {
    current = { configs: new Map(), names: new Map(), checked: new Set() };
    setImmediate(() => (current = null));
  }
  return current;
}

function nearestConfig(root: string, dir: string, turn: Turn): string | null {
  const key = path.join(root, dir);
  let found = turn.configs.get(key);
  if (found === undefined) {
    found = null;
    for (const place of tsconfigPlaces(dir)) {
      found = [place, joinRelative(dirOf(place), 'jsconfig.json')].find((file) => configText(root, file) !== null) ?? null;
      if (found !== null) break;
    }
    turn.configs.set(key, found);
  }
  return found;
}

interface IncludeSpec {
  /** Workspace-relative files named by `files`. */
  files: string[];
  /** Each include pattern's folder to list (workspace-relative) and what a file's path must match. */
  include: { base: string; pattern: RegExp }[];
  exclude: RegExp[];
}

/** The declaration files `config` includes, workspace-relative, each inside the workspace. */
function includedDeclarationFiles(root: string, config: string, turn: Turn): string[] {
  const spec = includeSpec(root, config);
  const found = new Set(spec.files.filter((file) => DECLARATION_FILE.test(file) && isInside(file) && isReallyInside(root, path.join(root, file))));
  for (const base of new Set(spec.include.map((entry) => entry.base))) {
    if (!isInside(base)) continue;
    for (const file of listedDeclarationFiles(root, base, turn)) {
      if (spec.include.some(({ pattern }) => pattern.test(file)) && !spec.exclude.some((pattern) => pattern.test(file))) found.add(file);
    }
  }
  return [...found];
}

/** `files`, `include` and `exclude` as tsc reads them: each from the nearest config of the chain that sets it, relative to that config. */
function includeSpec(root: string, config: string): IncludeSpec {
  const loaded = loadTsconfig(config, { read: (file) => configText(root, file), resolvePackage: () => null });
  const options: Partial<Record<'files' | 'include' | 'exclude', { dir: string; values: string[] }>> = {};
  for (const file of loaded.files) {
    const parsed = parseJson(configText(root, file) ?? '', file, { comments: true });
    if (!parsed.ok || !isObject(parsed.value)) continue;
    for (const key of ['files', 'include', 'exclude'] as const) {
      const value = parsed.value[key];
      if (options[key] === undefined && Array.isArray(value)) options[key] = { dir: dirOf(file), values: value.filter((item): item is string => typeof item === 'string') };
    }
  }
  const files = (options.files?.values ?? []).map((file) => joinRelative(options.files!.dir, file));
  const include = options.include ?? (options.files === undefined ? { dir: dirOf(config), values: ['**/*'] } : { dir: '.', values: [] });
  // tsc leaves out the outputs' folders unless told otherwise (a build's emitted declarations).
  const outputs = [loaded.dirs.outDir, loaded.dirs.declarationDir].filter((dir): dir is string => dir !== undefined);
  const exclude = options.exclude ? options.exclude.values.map((pattern) => joinRelative(options.exclude!.dir, pattern)) : outputs;
  return {
    files,
    include: include.values.flatMap((pattern) => {
      const glob = globOf(joinRelative(include.dir, pattern), true);
      return glob === null ? [] : [{ base: glob.base, pattern: new RegExp(`^${glob.source}$`) }];
    }),
    // A pattern excludes what it names and all below it (a folder).
    exclude: exclude.flatMap((pattern) => {
      const glob = globOf(pattern, false);
      return glob === null ? [] : [new RegExp(`^${glob.source}(?:/.*)?$`)];
    }),
  };
}

/**
 * A tsconfig `include` (or `exclude`) pattern, workspace-relative, as the folder to list and the
 * source of a pattern of workspace-relative paths: `*` any characters but `/`, `?` one, `**` any
 * folders; in `include`, a last segment with neither a wildcard nor an extension names a folder,
 * all below it included. Null for one leading out of the workspace.
 */
function globOf(joined: string, folderMeansBelow: boolean): { base: string; source: string } | null {
  const normal = normalizeRelative(joined.replace(/\/+$/, ''));
  if (normal === null || !isInside(normal)) return null;
  const segments = normal === '.' ? [] : normal.split('/');
  const last = segments.at(-1) ?? '';
  if (folderMeansBelow && (segments.length === 0 || (!/[*?]/.test(last) && !last.includes('.')))) segments.push('**', '*');
  const wild = segments.findIndex((segment) => /[*?]/.test(segment));
  const base = (wild === -1 ? segments.slice(0, -1) : segments.slice(0, wild)).join('/') || '.';
  const source = segments.map((segment) => (segment === '**' ? '(?:[^/]+/)*' : `${segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}/`)).join('');
  return { base, source: source.replace(/\/$/, '') };
}

/**
 * A folder's listing below it, kept while each folder's stat proves it unchanged by the file
 * hashes' rules (`isStillValid` of unchanged-stats.ts: a file made or removed changes its folder's
 * times, and a listing taken within the timestamp granularity of that change proves nothing), as
 * `unchangedReads` keeps a file's.
 */
const listings = new Map<string, { folders: Map<string, { dev: number; read: ReadStamp }>; files: string[] }>();
const folderGranularity = createGranularity();

const folderHolds = (at: string, known: { dev: number; read: ReadStamp }): boolean => {
  let stats: fs.Stats | undefined;
  try {
    stats = fs.statSync(at, { throwIfNoEntry: false });
  } catch {
    // A folder replaced by a file (ENOTDIR on a path through it): the listing no longer holds.
    return false;
  }
  return stats !== undefined && stats.dev === known.dev && isStillValid(known.read, stats, folderGranularity(stats));
};

/** The declaration files below `base` (workspace-relative), not in `node_modules`, dot-folders or through a link; checked once per turn. */
function listedDeclarationFiles(root: string, base: string, turn: Turn): string[] {
  const key = path.join(root, base);
  const known = listings.get(key);
  if (known !== undefined && (turn.checked.has(key) || [...known.folders].every(([folder, stamp]) => folderHolds(path.join(root, folder), stamp)))) {
    turn.checked.add(key);
    return known.files;
  }
  const listed = { folders: new Map<string, { dev: number; read: ReadStamp }>(), files: [] as string[] };
  if (isReallyInside(root, path.join(root, base))) {
    const pending = [base];
    while (pending.length > 0 && listed.folders.size < MAX_LISTED) {
      const folder = pending.pop()!;
      const at = path.join(root, folder);
      try {
        // Stamped before the stat: a change after it moves the folder's times, or falls within the racy window.
        const stampedAt = Date.now();
        const stats = fs.statSync(at);
        listed.folders.set(folder, { dev: stats.dev, read: { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, at: stampedAt } });
        for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
          const file = joinRelative(folder, entry.name);
          if (entry.isDirectory() && !isSkippedDirectory(entry.name)) pending.push(file);
          else if (entry.isFile() && DECLARATION_FILE.test(entry.name)) listed.files.push(file);
        }
      } catch {
        continue;
      }
    }
  }
  // Kept only when settled: a file made within the clock's step of the listing leaves its folder's times as they were.
  const settled = [...listed.folders].every(([folder, stamp]) => folderHolds(path.join(root, folder), stamp));
  if (listings.size >= MAX_KEPT) listings.delete(listings.keys().next().value!);
  if (settled) listings.set(key, listed);
  else listings.delete(key);
  turn.checked.add(key);
  return listed.files;
}
