// The tsconfig files that decide how a module compiles are inputs of its build (README
// "tsconfig.json"): the nearest one above its entry with its `extends` chain, and every place a
// nearer one could appear, so that an edit, an addition or a removal builds it again. The
// places are stamped, not read (an unchanged file is known by its stat), and a chain is read
// again only when one of its files changed: a stylesheet edit reads no tsconfig. A place the
// watcher has named in no notice since its last stamp is not stamped again (its silence as proof,
// the rule of the check before an answer, README "Addresses"): an edit of a source stats no
// absent place.
import { loadTsconfig, tsconfigPlaces } from '../workspace/tsconfig.js';
import { dirOf } from '../workspace/paths.js';
import type { FileHashes } from './file-hashes.js';
import type { WatchProof } from './freshness.js';

/** The tsconfig files of a module whose entry is `entry`: the places up to the nearest, then its chain. */
export type TsconfigInputs = (entry: string) => string[];

export function createTsconfigInputs(hashes: FileHashes, quiet?: () => WatchProof | null): TsconfigInputs {
  // The places only: a chain's files are stamped still, since a change of one may alter the list.
  const placeHash = quiet ? vouchedHash(hashes, quiet) : hashes.hash;
  /**
   * By nearest config: the files its chain read, and every path the reading looked at with the
   * hash it had (null: absent), a missing base or package config included, so that one appearing
   * later reads the chain again.
   */
  const chains = new Map<string, { files: string[]; looked: Map<string, string | null> }>();
  const chainOf = (nearest: string): string[] => {
    const known = chains.get(nearest);
    if (known && [...known.looked].every(([file, hash]) => hashes.hash(file) === hash)) return known.files;
    const looked = new Map<string, string | null>();
    const look = (file: string) => {
      const hash = hashes.hash(file);
      looked.set(file, hash);
      return hash;
    };
    const { files } = loadTsconfig(nearest, {
      read: (file) => (look(file) === null ? null : textOf(hashes, file)),
      resolvePackage: (specifier, from) => resolveConfigPackage(hashes, look, specifier, from),
    });
    chains.set(nearest, { files, looked });
    return files;
  };
  // The places above an entry's directory are a function of its path: made once per entry.
  const placesOf = new Map<string, string[]>();
  return (entry) => {
    let places = placesOf.get(entry);
    if (!places) placesOf.set(entry, (places = tsconfigPlaces(dirOf(entry))));
    const found = places.findIndex((file) => placeHash(file) !== null);
    if (found === -1) return places;
    return [...places.slice(0, found + 1), ...chainOf(places[found]!)];
  };
}

/**
 * A path's hash as its last stamp confirmed it, while the watcher proves it unchanged since that
 * stamp began; else stamped now. The list of places it decides is recorded with hashes the runner
 * takes again (`hashInputs`), so a place changed under a build is still caught there or by the
 * check before the next answer.
 */
function vouchedHash(hashes: FileHashes, quiet: () => WatchProof | null): (relative: string) => string | null {
  return (relative) => {
    const proof = quiet();
    const confirmed = proof ? hashes.confirmed(relative) : undefined;
    return confirmed && proof!.unchangedSince(relative, confirmed.seq) ? confirmed.hash : hashes.hash(relative);
  };
}

/** A config's text, from the bytes its stamp just read when they are kept. */
const textOf = (hashes: FileHashes, file: string): string | null => hashes.recallText(file)?.text ?? null;

/** The config a package specifier in `extends` names, looked up in node_modules from `from` up. */
function resolveConfigPackage(hashes: FileHashes, look: (file: string) => string | null, specifier: string, from: string): string | null {
  for (let at = from; ; at = dirOf(at)) {
    const base = at === '.' ? `node_modules/${specifier}` : `${at}/node_modules/${specifier}`;
    for (const file of [base, `${base}.json`, `${base}/tsconfig.json`]) if (look(file) !== null) return hashes.realPath(file) ?? file;
    if (at === '.') return null;
  }
}
