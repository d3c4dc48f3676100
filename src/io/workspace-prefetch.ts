// The workspace's first read with its manifests and listings read ahead in parallel
// (ARCHITECTURE.md "Reads taken ahead"): the pure read runs over what was read ahead so far,
// each path it asks for and finds missing is read ahead, all of them together, and so on until it
// misses none; then the real read runs over the file hashes, which take those reads. What a dry
// run answers is never kept: only the last, real read makes the model.
import type { SourceReader } from '../workspace/source-reader.js';
import type { FileHashes } from './file-hashes.js';
import { entryIdentity } from './file-reads.js';
import { listingName, type ReadAhead } from './file-prefetch.js';

/** Passes of the dry run at most: each goes one directory deeper; what is left is read as before. */
const MAX_PASSES = 24;

const compareNames = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The reads taken ahead as a reader, noting into `missing` what none was taken for. */
function dryReader(peek: (relative: string) => ReadAhead | undefined, missing: Set<string>): SourceReader {
  const taken = (relative: string) => {
    const read = peek(relative);
    if (!read) missing.add(relative);
    return read && !read.leaves ? read : undefined;
  };
  return {
    readText(relative) {
      const bytes = taken(relative)?.bytes;
      return bytes ? { text: bytes.toString('utf8'), hash: '' } : null;
    },
    listDir(relative) {
      const read = taken(listingName(relative));
      if (!read?.dirents || !read.stats) return null;
      // A link is followed by the real read only: here it is not a directory.
      const entries = read.dirents.map((entry) => ({ name: entry.name, directory: entry.isDirectory() })).sort(compareNames);
      return { entries, hash: '', id: entryIdentity(read.stats) };
    },
    leaves: () => false,
    realPath: (relative) => relative,
  };
}

/** `read`: the pure read of the model over a reader; its answer over `hashes`, with what it reads read ahead. */
export async function readAhead<T>(hashes: FileHashes, read: (reader: SourceReader) => T): Promise<T> {
  const ahead = hashes.ahead;
  if (!ahead) return read(hashes);
  try {
    for (let pass = 0; pass < MAX_PASSES; pass += 1) {
      const missing = new Set<string>();
      try {
        read(dryReader(ahead.peek, missing));
      } catch {
        break; // the real read says what went wrong
      }
      if (missing.size === 0) break;
      await ahead.prefetch([...missing]);
    }
    return read(hashes);
  } finally {
    ahead.clear();
  }
}
