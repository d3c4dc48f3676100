// One read of the workspace's manifests, each file and listing read once (README "Workspaces").
// The pure read asks for the same listing again and again (a module's directory, to find its
// entry's source among several candidate names; the directory where a module.json is searched
// for) and for the same tsconfig of each module: on a 1,000-module workspace 2,200 listings of
// 1,200 directories and 2,000 reads of 1,600 files, each a readdir or a read. A read made through
// this reader answers each path once, as the disk held it then; the next read of the workspace,
// a new reader, reads everything again.
import type { SourceReader } from '../workspace/source-reader.js';

export function onePassReader(reader: SourceReader): SourceReader {
  const texts = new Map<string, ReturnType<SourceReader['readText']>>();
  const listings = new Map<string, ReturnType<SourceReader['listDir']>>();
  const once = <T>(known: Map<string, T>, path: string, read: (path: string) => T): T => {
    if (known.has(path)) return known.get(path)!;
    const found = read(path);
    known.set(path, found);
    return found;
  };
  return {
    readText: (path) => once(texts, path, (file) => reader.readText(file)),
    listDir: (path) => once(listings, path.replace(/\/+$/, '') || '.', (dir) => reader.listDir(dir)),
    ...(reader.leaves ? { leaves: (path: string) => reader.leaves!(path) } : {}),
    ...(reader.realPath ? { realPath: (path: string) => reader.realPath!(path) } : {}),
  };
}
