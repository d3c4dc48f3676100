// Hashes of the service's own code, parts of the build cache's keys (README "The build cache"):
// a change of how modules are compiled never restores outputs compiled the old way, and a change
// of how manifests are read (or their sources listed and checked) never restores a workspace model
// read the old way, even between two builds of one version.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FROM_SOURCES, packageFile } from './package-files.js';
import { createGranularity, RACY_MS } from './unchanged-stats.js';

const computed = new Map<string, string>();

// The compiled files, or the sources under test; never the command in one file (dist/core.cjs).
const CODE_BASE = packageFile(FROM_SOURCES ? 'src' : 'dist');
const MODULE_EXTENSION = FROM_SOURCES ? '.ts' : '.js';

/** What a hash covered: each folder listed and file read, with the size and time it had. */
type Covered = [relative: string, size: number, mtimeMs: number][];

/**
 * The hashes `npm run build` computed over the compiled files it wrote (dist/code-hashes.json,
 * `writeCodeHashes`), each with what it covered: a start then stats those files instead of reading
 * and hashing some hundred of them; one that moved since (a `tsc` run alone) is computed again.
 */
const PRECOMPUTED = 'code-hashes.json';
interface Precomputed {
  digest: string;
  covered: Covered;
  /** When the build began to look at what it covered. */
  at: number;
}
const precomputedOf = new Map<string, Record<string, Precomputed> | null>();

function precomputedDigest(base: string, key: string): string | undefined {
  let precomputed = precomputedOf.get(base);
  if (precomputed === undefined) {
    try {
      precomputed = JSON.parse(fs.readFileSync(path.join(base, PRECOMPUTED), 'utf8')) as Record<string, Precomputed>;
    } catch {
      precomputed = null;
    }
    precomputedOf.set(base, precomputed);
  }
  const known = precomputed?.[key];
  if (!known) return undefined;
  // As the file hashes judge a stat (README "Addresses"): a file changed within a clock tick of
  // the build's look at it may have changed again unseen.
  const holds = known.covered.every(([relative, size, mtimeMs]) => {
    const stats = fs.statSync(path.join(base, relative), { throwIfNoEntry: false });
    return stats !== undefined && stats.size === size && stats.mtimeMs === mtimeMs && known.at - Math.max(stats.mtimeMs, stats.ctimeMs) > RACY_MS + granularityOf(stats);
  });
  return holds ? known.digest : undefined;
}

const granularityOf = createGranularity();

// A relative import of a module (`from '../x.js'`, `import '../x.js'`, `import('../x.js')`), as tsc
// leaves it in the compiled files and as the sources write it.
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"\n]+?)\.js['"]/g;

/**
 * The code of these folders and modules (named without extension) of `base`, each file's name and
 * bytes, in order; with `following`, also every module of `base` those files import, however deep.
 */
function computeCodeHash(base: string, folders: readonly string[], modules: readonly string[], following: boolean): Precomputed {
  const at = Date.now();
  const hash = crypto.createHash('sha256');
  const covered: Covered = [];
  const hashed = new Set<string>();
  const pending: string[] = [];
  const cover = (relative: string) => {
    const stats = fs.statSync(path.join(base, relative));
    covered.push([relative, stats.size, stats.mtimeMs]);
  };
  const add = (module: string, file: string) => {
    const bytes = fs.readFileSync(path.join(base, file));
    cover(file);
    hashed.add(module);
    hash.update(module).update(bytes);
    if (following) for (const found of bytes.toString('latin1').matchAll(RELATIVE_IMPORT)) pending.push(path.posix.join(path.posix.dirname(module), found[1]!));
  };
  for (const folder of folders) {
    cover(folder);
    for (const name of fs.readdirSync(path.join(base, folder)).filter((file) => /\.[cm]?[jt]s$/.test(file) && !file.endsWith('.d.ts')).sort()) add(`${folder}/${name.replace(/\.[cm]?[jt]s$/, '')}`, `${folder}/${name}`);
  }
  for (const module of modules) add(module, `${module}${MODULE_EXTENSION}`);
  // Imported modules come after, in the order first met: the same code always gives the same order.
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    // A name in a comment or a string may look like an import of no module: nothing to hash.
    if (hashed.has(next) || next.startsWith('..') || !fs.existsSync(path.join(base, `${next}${MODULE_EXTENSION}`))) continue;
    add(next, `${next}${MODULE_EXTENSION}`);
  }
  return { digest: hash.digest('base64url').slice(0, 22), covered, at };
}

/** `computeCodeHash`, once per process, from the build's precomputed hashes where they still hold. */
function codeHash(base: string, folders: readonly string[], modules: readonly string[] = [], following = false): string {
  const key = [...folders, '', ...modules, String(following)].join('\0');
  const known = computed.get(`${base}\0${key}`) ?? precomputedDigest(base, key);
  if (known !== undefined) {
    computed.set(`${base}\0${key}`, known);
    return known;
  }
  const digest = computeCodeHash(base, folders, modules, following).digest;
  computed.set(`${base}\0${key}`, digest);
  return digest;
}

/**
 * The modules outside bundlers/ whose rules decide which paths a build records (the names tried
 * before a file found, config places, the files read apart from those depended on) and how it
 * judges them when recorded: an output restored with inputs recorded under other rules would be
 * checked against the wrong paths, and a change there seen by nobody, so a change of them is a
 * change of the bundlers.
 */
const RECORDING_RULES = ['workspace/resolution', 'workspace/files-read', 'workspace/tsconfig', 'io/build-inputs', 'io/tsconfig-inputs', 'io/build-facts'];

/**
 * The built-in bundlers (src/bundlers/ and its plugins: how they call esbuild), the rules their
 * inputs are recorded by, and every module they import, however deep: a build's diagnostics are
 * worded, placed and judged there too (workspace/diagnostics.ts, the shared files' and shims'
 * rules), and an output restored with a verdict another code made would tell the old one.
 * `base`: tests only.
 */
export const bundlersCodeHash = (base = CODE_BASE): string => codeHash(base, ...HASHES.bundlers!);

/**
 * The modules of io/ whose rules a model's sources are listed, hashed and proved absent by, and
 * its links followed by: a model read under other rules is checked by these against sources
 * recorded under those, so a change of them is a change of the reader.
 */
const LISTING_RULES = ['io/file-reads', 'io/file-hashes', 'io/confined-paths', 'io/read-ahead', 'io/read-links', 'io/workspace-reads'];

/**
 * The workspace model (src/workspace/, its manifest validators in generated/, compiled from
 * schemas/, and io/'s listing rules): how manifests are read into it. `base`: tests only.
 */
export const workspaceReaderCodeHash = (base = CODE_BASE): string => codeHash(base, ...HASHES.workspaceReader!);

/**
 * The development extension (src/development/): how the bundled preview plans and joins a page.
 * Part of the saved joined pages' identity (README "The build cache"), which the bundlers' hash
 * alone left blind to a change of the planning: a page joined the old way was served as current.
 */
export const joinedPagesCodeHash = (base = CODE_BASE): string => codeHash(base, ...HASHES.joinedPages!);

/** The arguments of each hash above, by name: what `writeCodeHashes` computes at build time. */
const HASHES: Record<string, [folders: string[], modules: string[], following: boolean]> = {
  bundlers: [['bundlers', 'bundlers/plugins'], RECORDING_RULES, true],
  workspaceReader: [['workspace', 'workspace/generated'], LISTING_RULES, false],
  joinedPages: [['development'], [], false],
};

/** Writes dist/code-hashes.json: each hash of the compiled code with what it covered (run by `npm run build`, after tsc). */
export function writeCodeHashes(base = CODE_BASE): void {
  const written: Record<string, Precomputed> = {};
  for (const [folders, modules, following] of Object.values(HASHES)) written[[...folders, '', ...modules, String(following)].join('\0')] = computeCodeHash(base, folders, modules, following);
  fs.writeFileSync(path.join(base, PRECOMPUTED), `${JSON.stringify(written)}\n`);
}
