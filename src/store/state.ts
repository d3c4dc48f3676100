// The shape of the service's state: the fold of every event since `service.started`.
import type { Diagnostic } from '../workspace/diagnostics.js';
import { emptyWorkspace, type WorkspaceModel } from '../workspace/model.js';
import type { PackageNamesSeen } from '../workspace/former-names.js';
import type { BuildFindings, BuildOutputs, InputHashes, RemoteCacheCounts } from './events.js';

/** What a finished build of one module variant left behind. */
export interface BuildRecord extends BuildFindings {
  /** The build that made it; 0: restored from the build cache (README "The build cache"). */
  build: number;
  /** null when the build failed. */
  outputs: BuildOutputs | null;
  /** Errors of the bundler itself (BUNDLE_ERROR); dependency checks are derived, not stored. */
  errors: Diagnostic[];
}

export type VariantStatus =
  /** Sources changed since `last` (or it was never built): it needs a build. */
  | 'pending'
  /** A build of the current sources is running. */
  | 'building'
  /** `last` was built from the current sources. */
  | 'done';

export interface VariantState {
  /** Goes up each time the sources are known to have changed; a result of an older one is stale. */
  generation: number;
  status: VariantStatus;
  /** Rebuilt as soon as it goes stale (the default variant); others wait for a request. */
  eager: boolean;
  /** A request is waiting for it: it goes first. */
  requested: boolean;
  /** The build in flight for the current generation. */
  build: number | null;
  last: BuildRecord | null;
  /**
   * Inputs reported changed since `last` was built, with their newest hashes: the same
   * content reported again (the watcher and the check both saw one save) restarts nothing.
   */
  seen: InputHashes | null;
  /**
   * Made by a read of the workspace after a manifest or a searched directory changed (a broken
   * package.json fixed, a module declared or redeclared): its first build is told as a change,
   * not as the startup (README "The build dashboard"). Absent otherwise.
   */
  afterChange?: true;
  /**
   * The outputs of the variant's earlier successful builds in this run, newest first, at most
   * EARLIER_OUTPUTS_KEPT: besides `last`'s, the only bytes a `v=<hash>` address of the module
   * may still name (README "Addresses"). Absent before a second build made other outputs.
   */
  earlier?: BuildOutputs[];
}

/** The newest hash the state knows of an input of `variant`: reported since its last build, else recorded by it. */
export const knownInputHash = (variant: VariantState, path: string): string | null | undefined =>
  variant.seen && path in variant.seen ? variant.seen[path] : variant.last?.inputs[path];

export interface ModuleBuilds {
  /** What the build depends on in the module's declaration; a change restarts its variants. */
  fingerprint: string;
  variants: Record<string, VariantState>;
  /**
   * By variant key, the outputs its builds made before the module's declaration made it
   * unbuildable (a manifest problem): a `v=<hash>` address answered then still answers them
   * (README "Addresses"). A buildable module keeps them in its variants' `earlier`. Absent
   * when there are none.
   */
  earlier?: Record<string, BuildOutputs[]>;
}

export interface ServiceState {
  seq: number;
  time: string | null;
  root: string | null;
  workspace: WorkspaceModel;
  /** A manifest or a searched directory changed since `workspace` was read. */
  workspaceStale: boolean;
  /** Has the workspace been read at least once since the service started? */
  workspaceRead: boolean;
  /** Every name each package directory's package.json has given it since the service started: a renamed package's old name is known (README "Workspaces"); absent in states of older logs. */
  packageNamesSeen?: PackageNamesSeen;
  /** By module specifier. */
  builds: Record<string, ModuleBuilds>;
  /**
   * Deep imports of packages without `exports` that builds found (`pkg/button/filled-button.js`),
   * in the order found: the workspace is read with them, so each becomes a module (README "Exports and sources").
   */
  deepImports?: string[];
  /** Effects that failed, by name: the last failure and how many in a row. */
  effects: Record<string, EffectFault>;
  /** Paths the watcher cannot look at, with the error code (README "Links and large trees"); absent in states of older logs. */
  unwatched?: Record<string, string>;
  /** The preview runs a left-out package's production build through the local CDN (README "The local CDN"): its failure fails the importers' pages; absent with any other CDN origin. */
  localCdn?: true;
  /** What the team's remote cache gave at start (README "A team's remote cache"); absent when none was asked. */
  remoteCache?: RemoteCacheSummary;
}

export interface RemoteCacheSummary extends RemoteCacheCounts {
  url: string;
  requests: number;
  bytes: number;
  ms: number;
}

export interface EffectFault {
  message: string;
  failures: number;
  /** The most failures in a row this session: past the bound, the fault stays reported. */
  worst: number;
}

export const initialState = (): ServiceState => ({
  seq: 0,
  time: null,
  root: null,
  workspace: emptyWorkspace(),
  workspaceStale: false,
  workspaceRead: false,
  builds: {},
  effects: {},
});
