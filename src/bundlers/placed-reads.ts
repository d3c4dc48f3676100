// The one read of a source after its build, to place a diagnostic esbuild did not place (a
// stylesheet imported for a value, an @import or url() naming no file, a new URL of an undeclared
// file, Vite's import.meta members and query imports). The file may have been saved since esbuild
// read it: each read's hash is kept (`placedFrom` of the result), and the service keeps a place only
// if the build read the same bytes (ARCHITECTURE.md "The file system in `src/bundlers/`").
import path from 'node:path';
import { contentHash } from '../outputs/content-hash.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import { isInside } from '../workspace/paths.js';
import { isReallyInside, readRegularFile } from '../regular-files.js';

export interface PlacedReads {
  /** The file's text as read once for this result, or null if it is outside the workspace or cannot be read. */
  text(file: string): string | null;
  /**
   * The text of a config file the code's judgement reads (a tsconfig.json esbuild applied), or
   * null if it is absent, cannot be read, or its real path leads out of the workspace: no file
   * outside it is read (README "Bundling real code").
   */
  configText(file: string): string | null;
  /** The hash of each file read whose text placed one of `errors` (or warnings: `BundleResult.placedFrom`). */
  placedFrom(errors: readonly Diagnostic[]): Record<string, string>;
  /** The absolute path of a workspace path, null for one leading out: what `text` would read, for a reader of its own (`unchangedReads`). */
  absolute(file: string): string | null;
}

/** Where the first of `sources` (in their order) that `written` matches writes it: its first match's line and column. */
export function firstWrittenPlace(reads: PlacedReads, sources: readonly string[], written: RegExp): { file: string; line: number; column: number } | null {
  for (const file of sources) {
    const text = reads.text(file);
    const match = text === null ? null : written.exec(text);
    if (match) return { file, ...lineAndColumn(text!, match.index) };
  }
  return null;
}

/** A reader for one build result: each file read at most once, so every place of a file comes from the same bytes. */
export function placedReads(root: string): PlacedReads {
  const read = new Map<string, { text: string; hash: string } | null>();
  return {
    text(file) {
      if (!read.has(file)) read.set(file, readOnce(root, file));
      return read.get(file)?.text ?? null;
    },
    configText(file) {
      if (!read.has(file)) read.set(file, isInside(file) && isReallyInside(root, path.join(root, file)) ? readOnce(root, file) : null);
      return read.get(file)?.text ?? null;
    },
    absolute: (file) => (isInside(file) ? path.join(root, file) : null),
    placedFrom(errors) {
      const hashes: Record<string, string> = {};
      for (const { file, line } of errors) {
        const hash = file === undefined || line === undefined ? undefined : read.get(file)?.hash;
        if (hash !== undefined) hashes[file!] = hash;
      }
      return hashes;
    },
  };
}

function readOnce(root: string, file: string): { text: string; hash: string } | null {
  if (!isInside(file)) return null;
  try {
    // Never waits on a FIFO put where the source was (README "Files that are not files").
    const { bytes } = readRegularFile(path.join(root, file));
    return { text: bytes.toString('utf8'), hash: contentHash(bytes) };
  } catch {
    return null;
  }
}
