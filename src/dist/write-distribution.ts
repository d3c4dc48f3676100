// The output directory on disk: the files of each module as soon as it is judged, then
// core-distribution.json last, written whole and renamed into place, so a reader never
// finds a manifest listing files that are not there yet.
import fs from 'node:fs';
import path from 'node:path';
import type { DistributionManifest } from './distribution-manifest.js';
import type { DistributionFile } from './judge-module.js';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';
import { staleOutputs } from './stale-outputs.js';

export function writeFiles(out: string, files: readonly DistributionFile[]): void {
  for (const file of files) {
    const target = path.join(out, ...file.path.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
  }
}

/** Removes what the previous manifest listed and this one does not, then writes the manifest; returns the paths removed. */
export function writeManifest(out: string, manifest: DistributionManifest): string[] {
  const file = path.join(out, DISTRIBUTION_MANIFEST);
  const removed = staleOutputs(readPrevious(file), manifest);
  for (const relative of removed) {
    const target = path.join(out, ...relative.split('/'));
    fs.rmSync(target, { force: true });
    removeEmptyParents(out, path.dirname(target));
  }
  fs.mkdirSync(out, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(temporary, file);
  return removed;
}

function readPrevious(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null; // none yet, or not ours: nothing is removed
  }
}

function removeEmptyParents(out: string, dir: string): void {
  const root = path.resolve(out);
  for (let current = path.resolve(dir); current.startsWith(root + path.sep); current = path.dirname(current)) {
    try {
      fs.rmdirSync(current); // fails when not empty, which ends the climb
    } catch {
      return;
    }
  }
}
