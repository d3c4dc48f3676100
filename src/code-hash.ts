// Hashes of the service's own code, parts of the build cache's keys (README "The build cache"):
// a change of how modules are compiled never restores outputs compiled the old way, and a change
// of how manifests are read (or their sources listed and checked) never restores a workspace model
// read the old way, even between two builds of one version.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FROM_SOURCES, packageFile } from './package-files.js';

const computed = new Map<string, string>();

// The compiled files, or the sources under test; never the command in one file (dist/core.cjs).
const CODE_BASE = packageFile(FROM_SOURCES ? 'src' : 'dist');
const MODULE_EXTENSION = FROM_SOURCES ? '.ts' : '.js';

/** The code of these folders and modules (named without extension) of `base`, each file's name and bytes, in order. */
function codeHash(base: string, folders: readonly string[], modules: readonly string[] = []): string {
  const key = [base, ...folders, '', ...modules].join('\0');
  const known = computed.get(key);
  if (known !== undefined) return known;
  const hash = crypto.createHash('sha256');
  for (const folder of folders) {
    const dir = path.join(base, folder);
    for (const name of fs.readdirSync(dir).filter((file) => /\.[cm]?[jt]s$/.test(file) && !file.endsWith('.d.ts')).sort()) {
      hash.update(`${folder}/${name}`).update(fs.readFileSync(path.join(dir, name)));
    }
  }
  for (const module of modules) hash.update(module).update(fs.readFileSync(path.join(base, `${module}${MODULE_EXTENSION}`)));
  const digest = hash.digest('base64url').slice(0, 22);
  computed.set(key, digest);
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

/** The built-in bundlers (src/bundlers/ and its plugins: how they call esbuild) and the rules their inputs are recorded by. `base`: tests only. */
export const bundlersCodeHash = (base = CODE_BASE): string => codeHash(base, ['bundlers', 'bundlers/plugins'], RECORDING_RULES);

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
export const workspaceReaderCodeHash = (base = CODE_BASE): string => codeHash(base, ['workspace', 'workspace/generated'], LISTING_RULES);

/**
 * The development extension (src/development/): how the bundled preview plans and joins a page.
 * Part of the saved joined pages' identity (README "The build cache"), which the bundlers' hash
 * alone left blind to a change of the planning: a page joined the old way was served as current.
 */
export const joinedPagesCodeHash = (base = CODE_BASE): string => codeHash(base, ['development']);
