// The names of a folder of the workspace as the disk holds them, for the errors of an import
// whose case differs from a file's or a folder's (README "Bundling real code"): esbuild finds a
// file by a case-blind listing and says nothing of a folder's case, so which names the disk
// holds is only told by listing the folder.
import fs from 'node:fs';
import path from 'node:path';
import { isReallyInside } from '../regular-files.js';

export interface FolderEntry {
  name: string;
  /** A directory, or a link to one inside the workspace. */
  directory: boolean;
}

/** The entries of the workspace-relative folder `dir`; null when it cannot be listed or really lies outside the workspace. */
export function folderEntries(root: string, dir: string): FolderEntry[] | null {
  const folder = path.join(root, dir);
  if (!isReallyInside(root, folder)) return null;
  try {
    return fs.readdirSync(folder, { withFileTypes: true }).map((entry) => ({
      name: entry.name,
      directory: entry.isDirectory() || (entry.isSymbolicLink() && isReallyInside(root, path.join(folder, entry.name)) && fs.statSync(path.join(folder, entry.name)).isDirectory()),
    }));
  } catch {
    return null;
  }
}
