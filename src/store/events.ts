// Events: past-tense facts, the only way the service's state changes (README "The event log, replay and state subscription").
// Each carries what the reducer needs; `seq` and `time` are stamped by the store.
import type { Diagnostic } from '../workspace/diagnostics.js';
import type { ImportRecord } from '../workspace/checks.js';
import type { LinkNames } from '../workspace/link-names.js';
import type { ShimFacts } from '../workspace/shim-reads.js';
import type { WorkspaceModel } from '../workspace/model.js';

/**
 * The version of the event format a log is written in; `core replay` refuses others. 2: a build's
 * `resolution` (what it only depends on); a build of format 1 recorded none, and would be taken
 * as having read every input.
 */
export const EVENT_FORMAT = 2;

/** A compiled output, by content hash: the bytes live in the output cache, never in events. */
export interface OutputRef {
  hash: string;
  size: number;
}

export interface BuildOutputs {
  code: OutputRef;
  styles: OutputRef | null;
  /** The shared files the code imports, each built alone, by internal specifier (README "Shared files"); absent when none. */
  chunks?: Record<string, OutputRef>;
}

/** Content hashes of the files a build read; null: absent; '?': changed while it ran. */
export type InputHashes = Record<string, string | null>;

export const UNVERIFIED = '?';

export type BuildReason = 'startup' | 'change' | 'request';

/** What a build found besides its outputs, kept as it is by the state and the build cache. */
export interface BuildFindings {
  imports: ImportRecord[];
  inputs: InputHashes;
  /**
   * The inputs that are no file the build read (README "Shared files", "Bundling real code"):
   * where a link leads, paths tried before the file found, config places, the files another
   * module's entry re-exports from. Inputs like the rest (stamped, checked); never files read, so
   * never shared files. Sorted; absent when none.
   */
  resolution?: string[];
  /** Warnings of the build (README "Warnings"); absent when none. */
  warnings?: Diagnostic[];
  /** The shared files of its package it was asked to import (README "Shared files"); absent when none. */
  shared?: string[];
  /** The names its code imports from other modules and exports, judged across modules (README "Bundling real code"); absent when not read. */
  links?: LinkNames;
  /**
   * The link names of each shared file its code imports (`outputs.chunks`), by internal specifier
   * (README "Shared files"): a name another module reaches through one is judged by them; absent when none.
   */
  chunkLinks?: Record<string, LinkNames>;
  /**
   * Where its code imports each shared file of `outputs.chunks` (README "Shared files"), by internal
   * specifier, placed at the import as written; never among `imports`, whose checks are of bare
   * imports. A name missing through one is told at that place. Absent when none.
   */
  sharedImports?: ImportRecord[];
  /** What its code may write on the global object, and the modules it imports for their effects (README "Bundling real code", Shims): judged across modules; absent when not told. */
  shims?: ShimFacts;
}

/**
 * A build's findings alone, each optional member only when present: what the build cache, the team
 * cache and a restore copy of a record, so a member added to BuildFindings is copied by them all.
 */
export function findingsOf(record: BuildFindings): BuildFindings {
  const { imports, inputs, resolution, warnings, shared, links, chunkLinks, sharedImports, shims } = record;
  return { imports, inputs, ...(resolution ? { resolution } : {}), ...(warnings ? { warnings } : {}), ...(shared ? { shared } : {}), ...(links ? { links } : {}), ...(chunkLinks ? { chunkLinks } : {}), ...(sharedImports ? { sharedImports } : {}), ...(shims ? { shims } : {}) };
}

/** A build of an earlier run found still valid in the build cache (README "The build cache"). */
export interface RestoredBuild extends BuildFindings {
  module: string;
  variant: string;
  outputs: BuildOutputs;
}

export type Fact =
  /** `localCdn`: `/preview/` serves packages through the service's own CDN, which runs a left-out package's production build (README "The local CDN"); absent with any other origin and in older logs. */
  | { type: 'service.started'; format: typeof EVENT_FORMAT; root: string; service: string; localCdn?: true }
  /** `restored`: the model of an earlier run, taken from the build cache as none of its sources changed. */
  | { type: 'workspace.read'; workspace: WorkspaceModel; restored?: true }
  | { type: 'workspace.unchanged'; sources: WorkspaceModel['sources'] }
  | { type: 'files.changed'; files: InputHashes; source: 'watcher' | 'check' }
  | { type: 'output.requested'; module: string; variant: string }
  | { type: 'build.started'; build: number; variant: string; bundler: string; reason: BuildReason; modules: { module: string; generation: number }[] }
  | ({ type: 'build.succeeded'; build: number; module: string; variant: string; outputs: BuildOutputs } & BuildFindings)
  | { type: 'build.failed'; build: number; module: string; variant: string; errors: Diagnostic[]; imports: ImportRecord[]; inputs: InputHashes }
  | { type: 'build.cancelled'; build: number; reason: string }
  /**
   * Builds that bundled a copy of a file other modules of the package reach too (README "Shared
   * files"): each builds again, importing it; or (`unshared`) that imported a file fewer than two
   * modules reach now: each builds again, bundling it.
   */
  | { type: 'copies.found'; copies: { module: string; variant: string; build: number; file: string; unshared?: true }[] }
  /** The build cache was read at start: `builds` still hold; `stale` entries did not; `ignored` says why none was read. */
  | { type: 'cache.restored'; dir: string; builds: RestoredBuild[]; stale?: number; ignored?: string }
  /**
   * The team's remote cache was asked at start (README "A team's remote cache") for the `asked`
   * module variants the local cache had no valid entry for: `builds` were taken (verified),
   * `misses` say why the rest were not, by kind; `failures` count requests that brought no answer.
   */
  | { type: 'cache.remote.restored'; url: string; asked: number; builds: RestoredBuild[]; misses: Partial<Record<string, number>>; failures: Partial<Record<string, number>>; requests: number; bytes: number; ms: number }
  /**
   * The team's remote cache was asked for the workspace model of a start without a build cache
   * (README "A team's remote cache"): `adopted` when every one of its `sources` held here, so the
   * workspace was not read; else `miss` says why, and it was read. `failure`: why the question
   * brought no answer (it counts toward the breaker of the questions after it).
   */
  | { type: 'cache.remote.model'; url: string; adopted: boolean; miss?: string; failure?: string; sources: number; ms: number }
  | { type: 'service.stopped' }
  /** An effect threw; it restarts after `retryInMs` (src/effects/supervisor.ts). `failures`: in a row. */
  | { type: 'effect.failed'; effect: string; message: string; failures: number; retryInMs: number }
  /** Every path the watcher cannot look at now (workspace-relative, `.` the root), with the error code that stopped it; the whole list each time. */
  | { type: 'watch.unwatched'; paths: Record<string, string> };

export type CoreEvent = Fact & { seq: number; time: string };

/** Facts dispatched together: reduced as one change of state (the results of one build). */
export type Facts = Fact | readonly Fact[];

export type EventType = CoreEvent['type'];
export type EventOf<T extends EventType> = Extract<CoreEvent, { type: T }>;

// Every event type, once: the compiler refuses this table when a type of the union is missing
// or unknown, so a new event cannot be forgotten by `core replay` (it refuses unknown types).
const EVENT_TYPE_TABLE = {
  'service.started': true,
  'workspace.read': true,
  'workspace.unchanged': true,
  'files.changed': true,
  'output.requested': true,
  'build.started': true,
  'build.succeeded': true,
  'build.failed': true,
  'build.cancelled': true,
  'copies.found': true,
  'cache.restored': true,
  'cache.remote.restored': true,
  'cache.remote.model': true,
  'service.stopped': true,
  'effect.failed': true,
  'watch.unwatched': true,
} as const satisfies Record<EventType, true>;

export const EVENT_TYPES = Object.keys(EVENT_TYPE_TABLE) as EventType[];

/** One line on a `cache.restored` event, for the terminal, the dashboard and `core replay`. */
export function describeRestored(event: Extract<Fact, { type: 'cache.restored' }>): string {
  if (event.ignored !== undefined) return `build cache not used: ${event.ignored}`;
  const builds = `${event.builds.length} build${event.builds.length === 1 ? '' : 's'} restored from the build cache`;
  return event.stale ? `${builds}; ${event.stale} no longer valid, built again` : builds;
}

/** What the team's remote cache gave, counted: from a `cache.remote.restored` event or the state's summary of it. */
export interface RemoteCacheCounts {
  asked: number;
  hits: number;
  misses: Partial<Record<string, number>>;
  failures: Partial<Record<string, number>>;
}

/** One line on what the team's remote cache gave: the terminal, the dashboard, `core dist` and `core replay`. */
export function describeRemoteRestored(event: RemoteCacheCounts): string {
  const taken = `${event.hits} of ${event.asked} build${event.asked === 1 ? '' : 's'} from the team cache`;
  const count = (kinds: Partial<Record<string, number>>) =>
    Object.entries(kinds)
      .map(([kind, times]) => `${times} ${kind}`)
      .join(', ');
  const misses = count(event.misses);
  const failures = count(event.failures);
  return `${taken}${misses ? `; misses: ${misses}` : ''}${failures ? `; failures: ${failures}` : ''}`;
}
