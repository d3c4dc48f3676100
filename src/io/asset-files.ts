// Declared assets, read from disk for serving. A declared name that is a symbolic link to
// somewhere outside its package is not served (SECURITY.md): the real path must stay inside,
// or inside a directory of the package the model knows is a link inside the workspace (its
// `linkedDirs`, README "Links and large trees"): a module directory reached through a link
// serves its assets as the same tree without the link does.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../regular-files.js';
import { createGranularity, isStillValid } from './file-hashes.js';
import { contentHash } from '../outputs/content-hash.js';

export interface AssetFiles {
  /**
   * The content of a workspace-relative file of the package in `packageDir`; null when absent or
   * outside it. `linkedDirs`: the workspace model's directories reached through a link inside it.
   */
  read(packageDir: string, file: string, linkedDirs?: Readonly<Record<string, string>>): { content: Buffer; hash: string } | null;
}

export function createAssetFiles(root: string, now: () => number = Date.now): AssetFiles {
  const granularity = createGranularity();
  const remembered = new Map<string, { ino: number; size: number; mtimeMs: number; ctimeMs: number; at: number; content: Buffer; hash: string }>();
  return {
    read(packageDir, file, linkedDirs = {}) {
      let real: string;
      let places: string[];
      try {
        real = fs.realpathSync(path.join(root, file));
        places = [fs.realpathSync(path.join(root, packageDir)), ...linkedPlaces(root, packageDir, file, linkedDirs)];
      } catch {
        return null;
      }
      if (!places.some((place) => real.startsWith(place + path.sep))) return null;
      const stats = fs.statSync(real, { throwIfNoEntry: false });
      if (!stats?.isFile()) return null;
      const known = remembered.get(real);
      // As for sources: a cached read is trusted only if the file was not modified around it
      // (ctime: nor its mode, so a file made unreadable is not served from memory).
      if (known && isStillValid(known, stats, granularity(stats))) return known;
      const at = now();
      let content: Buffer;
      try {
        content = readRegularFile(real).bytes; // Never waits on a FIFO (README "Files that are not files").
      } catch {
        remembered.delete(real);
        return null; // unreadable (EACCES), gone or no longer a regular file since the stat: as good as absent
      }
      const entry = { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, at, content, hash: contentHash(content) };
      remembered.set(real, entry);
      return entry;
    },
  };
}

// Where the linked directories of the package holding `file` really are, each confined to the
// workspace by its real path (the model's record is only which directories to look at).
function linkedPlaces(root: string, packageDir: string, file: string, linkedDirs: Readonly<Record<string, string>>): string[] {
  const inside = (dir: string, child: string) => dir === '.' || child.startsWith(`${dir}/`);
  const linked = Object.keys(linkedDirs).filter((dir) => dir !== packageDir && inside(packageDir, dir) && inside(dir, file));
  if (linked.length === 0) return [];
  const realRoot = fs.realpathSync(root);
  return linked.map((dir) => fs.realpathSync(path.join(root, dir))).filter((real) => real.startsWith(realRoot + path.sep));
}
