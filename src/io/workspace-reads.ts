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
import { absentFromFoldedListing, foldedListing } from './file-hashes.js';

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
  const folded = new Map<string, ReadonlySet<string> | null>();
  // By the stamps' rule (`foldedListing`): a file system that ignores case or Unicode
  // normalization finds `Module.json` by another spelling.
  const listedAbsent = (file: string): boolean => {
    const slash = file.lastIndexOf('/');
    const dir = slash === -1 ? '.' : file.slice(0, slash);
    const listing = listings.get(dir);
    if (!listing) return false;
    let names = folded.get(dir);
    if (names === undefined) folded.set(dir, (names = foldedListing(listing.entries.map((entry) => entry.name))));
    return absentFromFoldedListing(names, file.slice(slash + 1));
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
    ...(reader.linkHash ? { linkHash: (path: string) => reader.linkHash!(path) } : {}),
  };
}
