// Where each bare import a build found is written, for diagnostics to point there
// (`locateImports`, README "Workspaces"). esbuild reports which file imports what, not where:
// the place is found in the file's text, and kept by the file's content hash, so a build whose
// importing files did not change (a stylesheet edit) reads none of them again.
import { UNVERIFIED, type InputHashes } from '../store/events.js';
import { importPlace, type ImportRecord } from '../workspace/checks.js';
import type { FileHashes } from './file-hashes.js';

/** Files whose import places are kept at most: the least recently located go first. */
const KEPT_FILES = 20_000;

/** The records with their places; `inputs`: the build's input hashes, which tell a kept file unchanged. */
export type ImportLocator = (imports: readonly ImportRecord[], inputs: InputHashes) => ImportRecord[];

type Place = { line: number; column: number } | null;

export function createImportLocator(hashes: FileHashes): ImportLocator {
  const kept = new Map<string, { hash: string; places: Map<string, Place> }>();
  /** The file's text, read once per call and only when a place is not kept for its hash. */
  const reader = (inputs: InputHashes) => {
    const texts = new Map<string, string | null>();
    return (file: string): string | null => {
      if (texts.has(file)) return texts.get(file)!;
      const read = textOf(file, inputs[file]);
      texts.set(file, read?.text ?? null);
      if (read && kept.get(file)?.hash !== read.hash) keep(file, read.hash);
      return read?.text ?? null;
    };
  };
  // The bytes the build's inputs were just hashed from are at hand (`keptText`): neither read nor
  // stat'ed again; a file just edited is at hand as the watcher read it (`recall`).
  const textOf = (file: string, hash: string | null | undefined): { text: string; hash: string } | null => {
    const kept = hash && hash !== UNVERIFIED ? hashes.keptText?.(file, hash) : undefined;
    return kept !== undefined ? { text: kept, hash: hash! } : hashes.recallText(file);
  };
  const keep = (file: string, hash: string) => {
    kept.delete(file);
    kept.set(file, { hash, places: new Map() });
    if (kept.size > KEPT_FILES) kept.delete(kept.keys().next().value!);
  };
  return (imports, inputs) => {
    const read = reader(inputs);
    return imports.map((record) => {
      if (record.line !== undefined) return record;
      const hash = inputs[record.file];
      let known = kept.get(record.file);
      const written = record.written ?? record.specifier;
      let place = known && hash !== undefined && hash !== UNVERIFIED && known.hash === hash ? known.places.get(written) : undefined;
      if (place === undefined) {
        const text = read(record.file);
        if (text === null) return record;
        place = importPlace(text, written);
        known = kept.get(record.file);
        known?.places.set(written, place);
      }
      return place ? { ...record, ...place } : record;
    });
  };
}
