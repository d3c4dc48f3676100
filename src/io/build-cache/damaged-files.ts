// What `core cache` names as damaged in the build cache (README "The build cache", "Damage"): the
// files a start would find damaged by what they are, told by their entries, never opened.
import fs from 'node:fs';
import path from 'node:path';
import { nonRegularKind } from '../../regular-files.js';
import { PACK_NAME } from '../cache-index.js';
import { INDEX, OUTPUTS } from './cache-files.js';

/**
 * The files of the cache at `dir` that a start would find damaged by what they are (`core
 * cache`), by their entries, never opened: the index, and the packs but a directory (left alone,
 * never written by a service, it is named by no index a service writes).
 */
export function damagedCacheFiles(dir: string): { file: string; kind: string }[] {
  const damaged: { file: string; kind: string }[] = [];
  const judge = (file: string) => {
    const stats = fs.lstatSync(path.join(dir, file), { throwIfNoEntry: false });
    const kind = stats && (stats.isSymbolicLink() ? 'a symbolic link' : nonRegularKind(stats));
    if (kind) damaged.push({ file, kind });
  };
  judge(INDEX);
  let packs: fs.Dirent[] = [];
  try {
    packs = fs.readdirSync(path.join(dir, OUTPUTS), { withFileTypes: true });
  } catch {
    // none yet, or `outputs` is no directory: a start writes its packs anew
  }
  for (const entry of packs) if (PACK_NAME.test(entry.name) && !entry.isFile() && !entry.isDirectory()) judge(`${OUTPUTS}/${entry.name}`);
  return damaged;
}
