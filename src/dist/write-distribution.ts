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
export function writeManifest(out: string, manifest: DistributionManifest, previous: unknown = readPreviousManifest(out)): string[] {
  const file = path.join(out, DISTRIBUTION_MANIFEST);
  const removed = staleOutputs(previous, manifest);
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

/** The manifest an earlier run left in `out`, parsed, of any shape; null when there is none. */
export function readPreviousManifest(out: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(path.join(out, DISTRIBUTION_MANIFEST), 'utf8'));
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

/**
 * Writes the page, unless a file of that name is there that no earlier run wrote (the
 * directory's other files are never touched); removes the earlier run's page when this run
 * has none. Returns whether the page is in place.
 */
export function writePage(out: string, name: string, html: string | null, previous: unknown): boolean {
  const target = path.join(out, name);
  const ours = (previous as { page?: { path?: unknown } | null } | null)?.page?.path === name;
  if (html === null) {
    if (ours) fs.rmSync(target, { force: true });
    return false;
  }
  if (!ours && fs.existsSync(target)) return false;
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(target, html);
  return true;
}
