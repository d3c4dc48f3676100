// Declared assets, read from disk for serving. A declared name that is a symbolic link to
// somewhere outside its package is not served (SECURITY.md): the real path must stay inside.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../regular-files.js';
import { createGranularity, isStillValid } from './file-hashes.js';
import { contentHash } from '../outputs/content-hash.js';

export interface AssetFiles {
  /** The content of a workspace-relative file of the package in `packageDir`; null when absent or outside it. */
  read(packageDir: string, file: string): { content: Buffer; hash: string } | null;
}

export function createAssetFiles(root: string, now: () => number = Date.now): AssetFiles {
  const granularity = createGranularity();
  const remembered = new Map<string, { ino: number; size: number; mtimeMs: number; ctimeMs: number; at: number; content: Buffer; hash: string }>();
  return {
    read(packageDir, file) {
      let real: string;
      let realPackage: string;
      try {
        real = fs.realpathSync(path.join(root, file));
        realPackage = fs.realpathSync(path.join(root, packageDir));
      } catch {
        return null;
      }
      if (!real.startsWith(realPackage + path.sep)) return null;
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
