// The output directory on disk: every output's place checked first, then the files of the
// modules, the page, and core-distribution.json last, written whole and renamed into place, so a
// reader never finds a manifest listing files that are not there yet.
import fs from 'node:fs';
import path from 'node:path';
import type { DistributionManifest } from './distribution-manifest.js';
import type { DistributionFile } from './judge-module.js';
import { contentHash } from '../outputs/content-hash.js';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';
import { isDistributionRecord, listedOutputs, staleOutputs, type ListedOutput, type PendingOutput } from './stale-outputs.js';

/**
 * Writes `files` under `out`; returns the paths not written because a link in `out` leads their
 * folder out of it (README "Distribution: core dist"): a write never lands outside `out` by its
 * real path, and a file at an output's place (a link, a file with other hard links) is replaced,
 * never written through.
 */
export function writeFiles(out: string, files: readonly DistributionFile[]): string[] {
  const refused: string[] = [];
  fs.mkdirSync(out, { recursive: true });
  const realOut = fs.realpathSync(out);
  for (const file of files) {
    const target = path.join(out, ...file.path.split('/'));
    // Judged before a folder is made: `mkdir -p` through a link would make folders out there.
    const realParent = realFolderInside(realOut, path.dirname(target), out);
    if (realParent === null) {
      refused.push(file.path);
      continue;
    }
    // Written beside and renamed into place: a file there that is a link, or has other hard links
    // (`cp -al dist dist-prev`), is replaced, never written through.
    const placed = path.join(realParent, path.basename(target));
    const temporary = `${placed}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.content);
    fs.renameSync(temporary, placed);
  }
  return refused;
}

/**
 * `folder` (under `out`) made where missing, by its real path, or null when an existing part of it
 * leads out of `realOut`, the real path of `out`: nothing is made then.
 */
function realFolderInside(realOut: string, folder: string, out: string): string | null {
  const found = existingPartInside(realOut, folder, out);
  if (found === null) return null;
  const made = path.join(found.real, ...found.missing);
  fs.mkdirSync(made, { recursive: true });
  return made;
}

/** Whether the real path `real` is `realOut` or lies inside it. */
const isWithin = (realOut: string, real: string): boolean => real === realOut || real.startsWith(realOut + path.sep);

/** The real path of the existing part of `folder` and the names missing below it; null when that part leads out of `realOut`. */
function existingPartInside(realOut: string, folder: string, out: string): { real: string; missing: string[] } | null {
  const missing: string[] = [];
  let existing = folder;
  while (!fs.existsSync(existing) && existing !== out) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  const real = fs.realpathSync(existing);
  if (!isWithin(realOut, real)) return null;
  return { real, missing };
}

/**
 * The files at the places of `paths` (under `out`) this run may not replace: there, and not listed
 * by the earlier run's record `previous` with the size and hash they still have (README
 * "Distribution: core dist"). A place whose folder leads out of `out` is not one: writeFiles
 * refuses it. A file where a folder of the place should be is named by its own path.
 */
export function occupiedPlaces(out: string, paths: readonly string[], previous: unknown): string[] {
  if (!fs.existsSync(out)) return [];
  const realOut = fs.realpathSync(out);
  const listed = listedOutputs(previous);
  const occupied = new Set<string>();
  for (const relative of paths) {
    const target = path.join(out, ...relative.split('/'));
    const blocking = fileOnTheWay(out, relative);
    if (blocking !== null) {
      occupied.add(blocking);
      continue;
    }
    if (existingPartInside(realOut, path.dirname(target), out) === null) continue;
    if (fs.lstatSync(target, { throwIfNoEntry: false }) === undefined) continue; // a link there counts, even one leading nowhere
    const earlier = listed.get(relative);
    if (earlier === undefined || isStillWritten(out, target, earlier) !== 'written') occupied.add(relative);
  }
  return [...occupied].sort();
}

/**
 * Among `occupied` (from occupiedPlaces), the directories, and the files an earlier version's
 * record lists without their hash, which no run can tell from a file of the user's: each is told
 * as what it is (README "Distribution: core dist").
 */
export function describeOccupants(out: string, occupied: readonly string[], previous: unknown): { directories: string[]; unhashed: string[] } {
  const listed = listedOutputs(previous);
  const directories: string[] = [];
  const unhashed: string[] = [];
  for (const relative of occupied) {
    const stats = fs.lstatSync(path.join(out, ...relative.split('/')), { throwIfNoEntry: false });
    if (stats?.isDirectory()) directories.push(relative);
    else if (stats?.isFile() && listed.get(relative)?.versions.every((version) => version.hash === undefined)) unhashed.push(relative);
  }
  return { directories, unhashed };
}

// A folder of the place that is a file (or anything else than a folder): nothing can be written there.
function fileOnTheWay(out: string, relative: string): string | null {
  const parts = relative.split('/');
  for (let end = 1; end < parts.length; end += 1) {
    const stats = fs.statSync(path.join(out, ...parts.slice(0, end)), { throwIfNoEntry: false });
    if (stats === undefined) return null;
    if (!stats.isDirectory()) return parts.slice(0, end).join('/');
  }
  return null;
}

/**
 * Why the record in `out` may not be replaced, or null: a core-distribution.json there that is no
 * record of core dist (not a regular file, not JSON, not of this format) is a file of the user's.
 */
export function recordProblem(out: string): string | null {
  const file = path.join(out, DISTRIBUTION_MANIFEST);
  const stats = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return null;
  if (!stats.isFile()) return `${DISTRIBUTION_MANIFEST} is there and is no file core dist wrote`;
  return isDistributionRecord(readPreviousManifest(out)) ? null : `${DISTRIBUTION_MANIFEST} is there and is no record of core dist`;
}

/**
 * Removes what the previous manifest listed and this one does not, then writes the manifest;
 * returns the paths removed, and those left: no longer what that run wrote there.
 */
export function writeManifest(out: string, manifest: DistributionManifest, previous: unknown = readPreviousManifest(out)): { removed: string[]; left: string[] } {
  const removed: string[] = [];
  const left: string[] = [];
  for (const listed of staleOutputs(previous, manifest)) {
    const target = path.join(out, ...listed.path.split('/'));
    const still = isStillWritten(out, target, listed);
    if (still === 'gone') continue;
    if (still === 'changed') {
      left.push(listed.path);
      continue;
    }
    fs.rmSync(target, { force: true });
    removed.push(listed.path);
    removeEmptyParents(out, path.dirname(target));
  }
  replaceRecord(out, manifest);
  return { removed, left };
}

// The record is a file anyone may edit, and a merge or a copy may damage it: a listed file goes
// only when it is, by its real path, inside `out` (a link in `out` may lead anywhere), a
// regular file (a link there goes nowhere: no run writes one) and the very bytes that run wrote,
// by size and content hash (README "Distribution: core dist").
function isStillWritten(out: string, target: string, listed: ListedOutput): 'written' | 'changed' | 'gone' {
  let stats: fs.Stats | undefined;
  try {
    stats = fs.lstatSync(target, { throwIfNoEntry: false });
  } catch {
    return 'gone'; // a file on the way (ENOTDIR): nothing there to remove
  }
  if (!stats) return 'gone';
  const size = stats.size;
  const candidates = listed.versions.filter((version) => version.hash !== undefined && version.size === size);
  if (!stats.isFile() || candidates.length === 0) return 'changed';
  try {
    const realOut = fs.realpathSync(out);
    const realParent = fs.realpathSync(path.dirname(target));
    if (!isWithin(realOut, realParent)) return 'changed';
    const hash = contentHash(fs.readFileSync(path.join(realParent, path.basename(target))));
    return candidates.some((version) => version.hash === hash) ? 'written' : 'changed';
  } catch {
    return 'changed';
  }
}

/**
 * Written before the first rename, in the record's place: the earlier record `previous` as it is
 * (or an empty one), with the bytes this run is about to put at each place (README "Distribution:
 * core dist"). A run stopped among its renames (Ctrl-C, a crash) leaves places holding the old
 * bytes or the new, and this record lists both, so the next run replaces them as its own. An
 * earlier pending record's own pending bytes are kept: its run may have placed some of them.
 */
export function writePendingRecord(out: string, previous: unknown, empty: DistributionManifest, pending: readonly PendingOutput[], pendingPage: PendingOutput | null): void {
  const base = (isDistributionRecord(previous) ? previous : empty) as { pending?: unknown; pendingPages?: unknown };
  const earlier = (listed: unknown): unknown[] => (Array.isArray(listed) ? listed : []);
  replaceRecord(out, {
    ...base,
    pending: [...earlier(base.pending), ...pending],
    pendingPages: [...earlier(base.pendingPages), ...(pendingPage ? [pendingPage] : [])],
  });
}

function replaceRecord(out: string, record: unknown): void {
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, DISTRIBUTION_MANIFEST);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
  fs.renameSync(temporary, file);
}

/**
 * Removes the temporary files an earlier run stopped while writing left beside the places
 * `paths` (under `out`, the record's included): `<name>.<pid>.tmp`, the names writeFiles makes,
 * only regular files, only in a folder inside `out` by its real path, and not those of a process
 * still running (another core dist writing there now). Returns their paths, relative to `out`.
 */
export function removeLeftoverTemporaries(out: string, paths: Iterable<string>): string[] {
  if (!fs.existsSync(out)) return [];
  const realOut = fs.realpathSync(out);
  const byFolder = new Map<string, Set<string>>();
  for (const relative of paths) {
    const parts = relative.split('/');
    const folder = parts.slice(0, -1).join('/');
    if (!byFolder.has(folder)) byFolder.set(folder, new Set());
    byFolder.get(folder)!.add(parts[parts.length - 1]);
  }
  const removed: string[] = [];
  for (const [folder, names] of byFolder) {
    let realFolder: string;
    let entries: string[];
    try {
      realFolder = fs.realpathSync(path.join(out, ...folder.split('/').filter(Boolean)));
      if (!isWithin(realOut, realFolder)) continue;
      entries = fs.readdirSync(realFolder);
    } catch {
      continue; // no such folder (or a file on the way): nothing left there
    }
    for (const entry of entries) {
      const match = /^(.+)\.([1-9][0-9]*)\.tmp$/.exec(entry);
      if (match === null || !names.has(match[1]) || isOtherRunningProcess(Number(match[2]))) continue;
      const file = path.join(realFolder, entry);
      if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) continue;
      fs.rmSync(file, { force: true });
      removed.push(folder ? `${folder}/${entry}` : entry);
    }
  }
  return removed.sort();
}

function isOtherRunningProcess(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
 * Writes the page, unless a file of that name is there that no earlier run's record lists with the
 * bytes it still has (the directory's other files are never touched); removes the earlier run's
 * page, when still those bytes, if this run has none. Returns whether the page is in place.
 */
export function writePage(out: string, name: string, html: string | null, previous: unknown): boolean {
  const target = path.join(out, name);
  if (html === null) {
    const earlier = listedOutputs(previous).get(name);
    if (earlier !== undefined && isStillWritten(out, target, earlier) === 'written') fs.rmSync(target, { force: true });
    return false;
  }
  if (occupiedPlaces(out, [name], previous).length > 0) return false;
  fs.mkdirSync(out, { recursive: true });
  // Renamed into place, as every output is: a page with other hard links is replaced, never written through.
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, html);
  fs.renameSync(temporary, target);
  return true;
}
