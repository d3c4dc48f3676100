// The tsconfig files that decide how a module compiles are inputs of its build (README
// "Bundling real code"): esbuild applies to each source the nearest config above that source
// (a `tsconfig.json`, else a `jsconfig.json` in the same directory), so for the entry and every
// source of the workspace the build read, the nearest one with its `extends` chain, and every
// place a nearer one could appear, so that an edit, an addition or a removal builds it again. The
// places are stamped, not read (an unchanged file is known by its stat), and a chain is read
// again only when one of its files changed: a stylesheet edit reads no tsconfig. A place the
// watcher has named in no notice since its last stamp is not stamped again (its silence as proof,
// the rule of the check before an answer, README "Addresses"): an edit of a source stats no
// absent place. The nearest `package.json` above each source decides how esbuild resolves and
// keeps it (`imports`, `browser`, `sideEffects`, `type`): it and the places a nearer one could
// appear are inputs the same way.
import { loadTsconfig, packageJsonPlaces, pathsTargets, tsconfigPlaces, type LoadedTsconfig } from '../workspace/tsconfig.js';
import { dirOf, joinRelative } from '../workspace/paths.js';
import { triedThrough } from '../workspace/resolution.js';
import type { MappedImport } from '../bundlers/types.js';
import type { FileHashes } from './file-hashes.js';
import type { WatchProof } from './freshness.js';

/**
 * The config files of a module whose entry is `entry` and whose build read `sources`: each one's
 * places up to the nearest, then its chain; and, for each `mapped` import, the paths its mapping
 * tries before the file found (absent: a file made there builds the module again).
 */
export type TsconfigInputs = (entry: string, sources?: readonly string[], mapped?: readonly MappedImport[]) => string[];

export function createTsconfigInputs(hashes: FileHashes, quiet?: () => WatchProof | null): TsconfigInputs {
  // The places only: a chain's files are stamped still, since a change of one may alter the list.
  const placeHash = quiet ? vouchedHash(hashes, quiet) : hashes.hash;
  /**
   * By nearest config: the config, the files its chain read, and every path the reading looked
   * at with the hash it had (null: absent), a missing base or package config included, so that
   * one appearing later reads the chain again.
   */
  const chains = new Map<string, { config: LoadedTsconfig; looked: Map<string, string | null> }>();
  const loaded = (nearest: string): LoadedTsconfig => {
    const known = chains.get(nearest);
    if (known && [...known.looked].every(([file, hash]) => hashes.hash(file) === hash)) return known.config;
    const looked = new Map<string, string | null>();
    const look = (file: string) => {
      const hash = hashes.hash(file);
      looked.set(file, hash);
      return hash;
    };
    const config = loadTsconfig(nearest, {
      read: (file) => (look(file) === null ? null : textOf(hashes, file)),
      resolvePackage: (specifier, from) => resolveConfigPackage(hashes, look, specifier, from),
    });
    chains.set(nearest, { config, looked });
    return config;
  };
  const placesAbove = oncePerDirectory(tsconfigPlaces);
  const manifestsAbove = oncePerDirectory(packageJsonPlaces);
  /** The places from `dir` up to its nearest config (a tsconfig.json, else a jsconfig.json beside it), and that config; a walk stops at a directory `walked` holds. */
  const nearestFrom = (dir: string, walked = new Set<string>()): { places: string[]; nearest: string | null } => {
    const places: string[] = [];
    for (const place of placesAbove(dir)) {
      const placeDir = dirOf(place);
      if (walked.has(placeDir)) break;
      walked.add(placeDir);
      const jsconfig = joinRelative(placeDir, 'jsconfig.json');
      places.push(place);
      if (placeHash(place) !== null) return { places, nearest: place };
      places.push(jsconfig);
      if (placeHash(jsconfig) !== null) return { places, nearest: jsconfig };
    }
    return { places, nearest: null };
  };
  return (entry, sources = [], mapped = []) => {
    const dirs = new Set([dirOf(entry), ...sources.filter(isConfiguredSource).map(dirOf)]);
    const configs = new Set(nearestManifests(dirs, manifestsAbove, placeHash));
    // A directory walked once per call: the places above it were added by the first walk through it.
    const walked = new Set<string>();
    for (const dir of dirs) {
      const { places, nearest } = nearestFrom(dir, walked);
      for (const place of places) configs.add(place);
      if (nearest !== null) for (const file of loaded(nearest).files) configs.add(file);
    }
    for (const { importer, specifier, resolved } of mapped) {
      const { nearest } = nearestFrom(dirOf(importer));
      if (nearest === null) continue;
      const config = loaded(nearest);
      const targets = pathsTargets(config, specifier);
      const through = targets.length > 0 ? targets : config.dirs.baseUrl !== undefined ? [joinRelative(config.dirs.baseUrl, specifier)] : [];
      for (const file of triedThrough(through, resolved)) configs.add(file);
    }
    return [...configs];
  };
}

/** `placesOf` made once per directory: the places above one are a function of its path. */
function oncePerDirectory(placesOf: (dir: string) => string[]): (dir: string) => string[] {
  const made = new Map<string, string[]>();
  return (dir) => {
    let places = made.get(dir);
    if (!places) made.set(dir, (places = placesOf(dir)));
    return places;
  };
}

/** The nearest package.json above each directory, and the places a nearer one could appear. */
function nearestManifests(dirs: ReadonlySet<string>, manifestsAbove: (dir: string) => string[], placeHash: (relative: string) => string | null): Set<string> {
  const manifests = new Set<string>();
  for (const dir of dirs) {
    for (const manifest of manifestsAbove(dir)) {
      if (manifests.has(manifest)) break;
      manifests.add(manifest);
      if (placeHash(manifest) !== null) break;
    }
  }
  return manifests;
}

/** A source esbuild compiles under a config: a file (not a listing) of the workspace, outside installed packages (esbuild applies none there), not one of its own `<...>` paths. */
const isConfiguredSource = (source: string): boolean => !source.endsWith('/') && !source.startsWith('<') && !source.split('/').includes('node_modules');

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
