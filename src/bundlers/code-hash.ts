// A hash of the built-in bundlers' own code (this folder and its plugins): part of the build
// cache's key (README "The build cache"), so that a change of how modules are compiled never
// restores outputs compiled the old way, even between two builds of one version.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FROM_SOURCES, packageFile } from '../package-files.js';

let computed: string | null = null;

export function bundlersCodeHash(): string {
  if (computed !== null) return computed;
  const hash = crypto.createHash('sha256');
  // The compiled files, or the sources under test; never the command in one file (dist/core.js).
  const here = packageFile(FROM_SOURCES ? 'src' : 'dist', 'bundlers');
  for (const dir of [here, path.join(here, 'plugins')]) {
    for (const name of fs.readdirSync(dir).filter((file) => /\.[cm]?[jt]s$/.test(file) && !file.endsWith('.d.ts')).sort()) {
      hash.update(name).update(fs.readFileSync(path.join(dir, name)));
    }
  }
  return (computed = hash.digest('base64url').slice(0, 22));
}
