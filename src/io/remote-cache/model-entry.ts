// The workspace model in the team's remote cache (README "A team's remote cache"): the model CI
// read, with the hash of every source it was read from (manifests, tsconfig files, listings,
// files found absent), kept under a key known before any read (this service's version, the
// code that reads manifests, `core.json`'s content hash, the deep imports the read is given).
// The read is a pure function of those sources: when each hashes here as it did there, this
// machine's read would give this very model, so a fresh machine takes it instead of reading.
// The sources vouch for the read, not for the model's content (the directories and entries the
// service imports from): only a model signed by the team's key (`publicKey`) is asked for.
// Nothing else downloaded is trusted: every source is hashed here (on the second core where it can,
// `FileHashes.readAhead`), a listing by the rule the read lists by (links, confinement); any
// difference, any fault, is a miss, counted, and the workspace is read as on any start.
import type { KeyObject } from 'node:crypto';
import type { Fact } from '../../store/events.js';
import type { WorkspaceModel } from '../../workspace/model.js';
import { WORKSPACE_MANIFEST } from '../../workspace/read-workspace.js';
import { arePlainPaths, isReadLinks, isWorkspaceModel } from '../cache-index.js';
import { linksHold, type ReadLinks } from '../read-links.js';
import { absentFromRecordedListing, stampAsRead, type FileHashes } from '../file-hashes.js';
import type { FailureKind, RemoteClient } from './client.js';
import { isRecord, openEntry, REMOTE_FORMAT, sha256Hex, type EntryProblem } from './entries.js';
import { twoEnded } from './two-ended.js';

/**
 * What the model's key is made of besides `core.json`: the service's version and the reader's code
 * hash (`workspaceReaderCodeHash`, which covers the io/ rules its sources are listed and checked by).
 */
export interface ModelIdentity {
  service: string;
  reader: string;
}

/** The entry of a workspace model: the model, its `sources` the hash of each source it was read from. */
export interface ModelEntry {
  format: typeof REMOTE_FORMAT;
  kind: 'model';
  key: string;
  model: WorkspaceModel;
  /**
   * What the read asked of links besides the sources (`ReadLinks`): no hash shows where a link
   * leads, and the read follows it (a tsconfig's `extends` through a package link) or tells it.
   */
  links: ReadLinks;
}

/** `coreJson`: the content hash of `core.json`'s bytes; `deepImports`: those the read is given. */
export const modelKey = (identity: ModelIdentity, coreJson: string, deepImports: readonly string[]): string =>
  sha256Hex(JSON.stringify(['model', REMOTE_FORMAT, identity.service, identity.reader, coreJson, [...deepImports].sort()]));

export const isModelEntry = (value: unknown, key: string, coreJson: string): value is ModelEntry =>
  isRecord(value) && value.format === REMOTE_FORMAT && value.kind === 'model' && value.key === key && isWorkspaceModel(value.model) && arePlainPaths(value.model.sources) && value.model.sources[WORKSPACE_MANIFEST] === coreJson && isReadLinks(value.links);

/** Why the team's model was not taken: not there, no answer, not a valid entry, a source that differs here, a fault. */
export type ModelMiss = 'absent' | 'unanswered' | EntryProblem | 'stale' | 'fault';

export type TeamModelFact = Extract<Fact, { type: 'cache.remote.model' }>;

export interface TeamModelDeps {
  client: RemoteClient;
  /** Where the client asks, for the log. */
  url: string;
  identity: ModelIdentity;
  publicKey: KeyObject | null;
  hashes: FileHashes;
  now?(): number;
}

export interface TeamModel {
  /** Sends the question now (a start with no build cache asks while it boots, `restore` otherwise); later calls do nothing. */
  ask(): void;
  /**
   * The model's question's failure, by kind, as the start's restore counts failures
   * (`cache.remote.restored`). Its request and bytes are the client's to count (`RemoteClient.counts`).
   */
  failures(): Partial<Record<FailureKind, number>>;
  /**
   * The model when every source holds here, with the fact that counts the answer and, when taken,
   * the links its read asked (what the build cache saves it with); null when nothing is asked (no
   * public key, no `core.json`, deep imports).
   */
  restore(deepImports: readonly string[]): Promise<{ workspace: WorkspaceModel | null; fact: TeamModelFact; links?: ReadLinks }> | null;
}

/** The entry judged: its model and links, the check of its sources begun; or why it is not taken. */
type Judged = { model: WorkspaceModel; links: ReadLinks; check: SourceCheck } | ModelMiss;

/** The first read's model from the team's cache: asked once, for the start's first read only. */
export function teamModel(deps: TeamModelDeps): TeamModel {
  const now = deps.now ?? Date.now;
  let failure: FailureKind | undefined;
  let asked: { judged: Promise<Judged>; started: number } | null | undefined;
  const ask = () => {
    if (asked !== undefined) return;
    // Only a signed model is taken (README "A team's remote cache"): its paths are what the
    // service imports and reads, and no source hashed here vouches for them. No key, no question.
    if (deps.publicKey === null) {
      asked = null;
      return;
    }
    // The key's one read of the disk: `core.json`, hashed (and remembered) as the read would.
    const coreJson = deps.hashes.stamp(WORKSPACE_MANIFEST).hash;
    if (coreJson === null) {
      asked = null;
      return;
    }
    const key = modelKey(deps.identity, coreJson, []);
    const answer = deps.client.get('ac', key).then((found): Buffer | ModelMiss => {
      if ('failed' in found) failure = found.failed;
      return 'found' in found ? found.found : 'missing' in found ? 'absent' : 'unanswered';
    });
    // Judged as soon as it comes, and its sources sent to the worker then: the worker lists them
    // while this thread still sets the service up, before the first read asks for the model.
    const judged = answer
      .then((bytes): Judged => {
        if (typeof bytes === 'string') return bytes;
        const opened = openEntry(bytes, deps.publicKey);
        if ('problem' in opened) return opened.problem;
        if (!isModelEntry(opened.payload, key, coreJson)) return 'wrong-shape';
        const { model, links } = opened.payload;
        return { model, links, check: checkSources(model.sources, deps.hashes) };
      })
      .catch((): Judged => 'fault');
    asked = { judged, started: now() };
  };
  return {
    ask,
    failures: () => (failure ? { [failure]: 1 } : {}),
    restore(deepImports) {
      // A start reads with the deep imports of none of its builds yet: the key asked for.
      if (deepImports.length > 0) return null;
      ask();
      if (!asked) return null;
      const { judged, started } = asked;
      const fact = (workspace: WorkspaceModel | null, miss?: ModelMiss, sources = 0) => ({
        workspace,
        fact: { type: 'cache.remote.model', url: deps.url, adopted: workspace !== null, ...(miss ? { miss } : {}), ...(failure ? { failure } : {}), sources, ms: Math.round(now() - started) } satisfies TeamModelFact,
      });
      return judged
        .then(async (found) => {
          if (typeof found === 'string') return fact(null, found);
          const { model, links, check } = found;
          const count = Object.keys(model.sources).length;
          return (await check.holds()) && linksHold(links, deps.hashes) ? { ...fact(model, undefined, count), links } : fact(null, 'stale', count);
        })
        .catch(() => fact(null, 'fault'));
    },
  };
}

/** A check of sources begun: the worker reads them from the moment it is made. */
export interface SourceCheck {
  /** Whether every source hashes here as recorded (`holdsHere`). */
  holds(): Promise<boolean>;
}

/** Whether every source hashes here as recorded (`checkSources`, then `holds`). */
export const holdsHere = (sources: Readonly<Record<string, string | null>>, hashes: FileHashes): Promise<boolean> => checkSources(sources, hashes).holds();

/**
 * Begins the check of every source: listings first, then files, each read on the worker (batches
 * sent at once, a couple at a time, while nothing takes them yet) and taken as read there
 * (`takeAhead`; a listing with a stat, `stamp`), or read here; a file recorded absent is proved absent by its directory's listing
 * just taken (the read's own rule, README "Workspaces"), else by a stat.
 */
export function checkSources(sources: Readonly<Record<string, string | null>>, hashes: FileHashes): SourceCheck {
  const present = Object.keys(sources).filter((source) => sources[source] !== null);
  const ordered = [...present.filter((source) => source.endsWith('/')), ...present.filter((source) => !source.endsWith('/'))];
  const holds = (source: string) => hashes.stamp(source).hash === sources[source];
  // A file the worker read is taken with the stat it was read under: the first check before any
  // answer stats every source again (README "Addresses"); a listing is stamped here.
  const holdsAsRead = (source: string) => stampAsRead(hashes, source) === sources[source];
  // From the front on the worker, from the back here (`twoEnded`): neither waits for the other
  // (a listing costs the worker more than taking it costs this thread).
  const readAhead = hashes.readAhead?.bind(hashes);
  const checking = twoEnded(ordered, readAhead);
  return {
    async holds() {
      return (await checking.check((source, asRead) => (asRead ? holdsAsRead(source) : holds(source)))) && absentHold(sources, hashes);
    },
  };
}

function absentHold(sources: Readonly<Record<string, string | null>>, hashes: FileHashes): boolean {
  for (const source of Object.keys(sources)) {
    if (sources[source] !== null) continue;
    if (absentFromRecordedListing(sources, source, hashes)) continue;
    if (hashes.stamp(source).hash !== null) return false;
  }
  return true;
}
