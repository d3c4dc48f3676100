// One read of the workspace's manifests, each file and listing read once (README "Workspaces").
// The pure read asks for the same listing again and again (a module's directory, to find its
// entry's source among several candidate names; the directory where a module.json is searched
// for) and for the same tsconfig of each module: on a 1,000-module workspace 2,200 listings of
// 1,200 directories and 2,000 reads of 1,600 files, each a readdir or a read. A read made through
// this reader answers each path once, as the disk held it then; the next read of the workspace,
// a new reader, reads everything again.
// Most files the read asks for are absent (a module.json beside each entry, a tsconfig.json in
// each package and above): one whose directory this pass has listed, without a file of that name,
// is absent as the disk held it when listed, told without asking the disk again (a directory
// that could not be listed tells nothing: a file in it may still be readable).
import type { SourceReader } from '../workspace/source-reader.js';
import { foldedAsciiName } from './file-hashes.js';

type Text = ReturnType<SourceReader['readText']>;
type Listing = ReturnType<SourceReader['listDir']>;

export function onePassReader(reader: SourceReader): SourceReader {
  const texts = new Map<string, Text>();
  const listings = new Map<string, Listing>();
  const listDir = (path: string): Listing => {
    const dir = path.endsWith('/') ? path.replace(/\/+$/, '') || '.' : path || '.';
    let listing = listings.get(dir);
    if (listing === undefined) {
      listing = reader.listDir(dir);
      listings.set(dir, listing);
    }
    return listing;
  };
  const listedAbsent = (file: string): boolean => {
    const slash = file.lastIndexOf('/');
    const listing = listings.get(slash === -1 ? '.' : file.slice(0, slash));
    if (!listing) return false;
    const name = file.slice(slash + 1);
    // A file system that ignores case (or Unicode normalization) finds `Module.json` by that
    // name: an entry of the same name but for its case, or a name beyond ASCII, is asked for.
    const lower = foldedAsciiName(name);
    if (lower === null) return false;
    for (const entry of listing.entries) if (entry.name.length === name.length && entry.name.toLowerCase() === lower) return false;
    return true;
  };
  const readText = (path: string): Text => {
    let text = texts.get(path);
    if (text === undefined) {
      text = listedAbsent(path) ? null : reader.readText(path);
      texts.set(path, text);
    }
    return text;
  };
  return {
    readText,
    listDir,
    ...(reader.leaves ? { leaves: (path: string) => reader.leaves!(path) } : {}),
    ...(reader.realPath ? { realPath: (path: string) => reader.realPath!(path) } : {}),
  };
}
