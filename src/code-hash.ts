// Hashes of the service's own code, parts of the build cache's keys (README "The build cache"):
// a change of how modules are compiled never restores outputs compiled the old way, and a change
// of how manifests are read never restores a workspace model read the old way, even between two
// builds of one version.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FROM_SOURCES, packageFile } from './package-files.js';

const computed = new Map<string, string>();

/** The code of these folders of src/ (or dist/), each file's name and bytes, in order. */
function codeHash(folders: readonly string[]): string {
  const key = folders.join('\0');
  const known = computed.get(key);
  if (known !== undefined) return known;
  const hash = crypto.createHash('sha256');
  // The compiled files, or the sources under test; never the command in one file (dist/core.cjs).
  for (const folder of folders) {
    const dir = packageFile(FROM_SOURCES ? 'src' : 'dist', folder);
    for (const name of fs.readdirSync(dir).filter((file) => /\.[cm]?[jt]s$/.test(file) && !file.endsWith('.d.ts')).sort()) {
      hash.update(`${folder}/${name}`).update(fs.readFileSync(path.join(dir, name)));
    }
  }
  const digest = hash.digest('base64url').slice(0, 22);
  computed.set(key, digest);
  return digest;
}

/** The built-in bundlers (src/bundlers/ and its plugins): how they call esbuild. */
export const bundlersCodeHash = (): string => codeHash(['bundlers', 'bundlers/plugins']);

/** The workspace model (src/workspace/): how manifests are read into it. */
export const workspaceReaderCodeHash = (): string => codeHash(['workspace']);
