// The service's reads of files, by path, for tests that count them: a read opens the file first
// (src/regular-files.ts: without blocking, then asks the descriptor what it is) and reads the
// descriptor, so both `fs.openSync` and `fs.readFileSync` of a path are noted, never a descriptor.
import fs from 'node:fs';

/** Calls `note` with the path of every sync open or read of a file until the returned function is called. */
export function spyOnFileReads(note: (file: string) => void): () => void {
  const { readFileSync, openSync } = fs;
  fs.readFileSync = ((file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof file !== 'number') note(String(file));
    return (readFileSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.readFileSync;
  fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    note(String(file));
    return (openSync as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync;
  return () => Object.assign(fs, { readFileSync, openSync });
}
