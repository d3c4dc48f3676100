// The workspace as the service understands it: what the manifests declare, resolved.
// Plain JSON data, so it can travel inside events and be folded by the reducer.
import type { Diagnostic } from './diagnostics.js';

export type Platform = 'web' | 'node';

export interface BundlerRef {
  /** The name a manifest selects (`ts`, `esbuild`, or one of the package's `bundlers`). */
  name: string;
  /** The module that implements it, loaded by specifier. */
  specifier: string;
  /** Form 2 of the registry: options handed to the bundler. */
  processors?: Record<string, unknown>;
}

/** One bundler instance per key: the same module with the same processors is the same bundler. */
export const bundlerKey = (bundler: Pick<BundlerRef, 'specifier' | 'processors'>): string => JSON.stringify([bundler.specifier, bundler.processors ?? null]);

export interface PackageModel {
  name: string;
  version: string;
  /** Directory relative to the workspace. */
  dir: string;
  dependencies: Record<string, string>;
  /**
   * No `exports`: Node lets any file of the package be imported (`pkg/button/filled-button.js`),
   * so a deep import of it publishes that file once a workspace module imports it (README "Exports and sources").
   */
  withoutExports?: true;
  /** The bare names its package.json's `browser` field maps (README "Bundling real code"); absent when none. */
  browserDisabled?: string[];
  /**
   * Exact `exports` keys whose target is neither code nor a stylesheet (`"./data": "./data/d.json"`,
   * `"./package.json"`), subpath to target: Node resolves them, this service publishes no module
   * for them, and an importer is told so (README "Exports and sources"). Absent when none.
   */
  dataExports?: Record<string, string>;
  /** Of `dataExports`, the names a `*` pattern key maps (`"./*.json": "./cfg/*.json"`), subpath to that key. Absent when none. */
  dataExportKeys?: Record<string, string>;
}

/**
 * A package core.json lists whose package.json could not be taken (README "Workspaces"): its
 * name, when the file writes one before it breaks, and version, else null; or one whose
 * package.json is not there at all (`absent`).
 */
export interface UnreadPackage {
  /** Directory relative to the workspace. */
  dir: string;
  /** Its package.json, relative to the workspace: the `file` of its MANIFEST_INVALID (`absent`: core.json's, naming `dir`). */
  file: string;
  name: string | null;
  version: string | null;
  /**
   * The directory has no package.json to read (moved away, emptied, not a file, or leaving the
   * workspace): `name` and `version` are those known of it elsewhere (`knownIdentity`), else null.
   */
  absent?: true;
  /**
   * A package.json that cannot be taken and writes no name before its first error: the name of
   * its last good read, which it still contests (README "Workspaces") and passes on to the next read.
   */
  lastReadName?: string;
}

/** The names of a module, as the state, the /state report, the preview and a distribution all carry them. */
export interface ModuleNames {
  /** `<package>/<subpath>`: the bare specifier other modules import it by. */
  specifier: string;
  package: string;
  version: string;
  subpath: string;
}

/** A module's names alone, to carry where the rest of its model does not go. */
export const moduleNames = (module: ModuleNames): ModuleNames => ({ specifier: module.specifier, package: module.package, version: module.version, subpath: module.subpath });

export interface ModuleModel extends ModuleNames {
  /** The module's directory, relative to the workspace. */
  dir: string;
  /** The entry file, relative to the workspace; null when no manifest names one. */
  entry: string | null;
  platforms: Platform[];
  bundler: BundlerRef;
  /** Declared assets: file names relative to `dir`. */
  assets: string[];
  /** Problems of the manifests that declare it (MANIFEST_INVALID). */
  diagnostics: Diagnostic[];
  /** The package's `core.define`; absent when it defines nothing. */
  define?: Record<string, string>;
}

export interface WorkspaceModel {
  /** Hints about the workspace that make nothing invalid (a package without a module); absent when none. */
  warnings?: Diagnostic[];
  /** `core.json` `preview`: the specifier the preview opens by default. */
  preview: string | null;
  packages: PackageModel[];
  /** In the order of `packages`, then by subpath. */
  modules: ModuleModel[];
  /** Packages selected for development (`.core/selection.json`); null: every package. */
  selection: string[] | null;
  /**
   * Listed packages whose package.json could not be taken: an import of one of their names is
   * never sent to a CDN (the package table of `indexWorkspace`); absent when none.
   */
  unreadPackages?: UnreadPackage[];
  /** Workspace-level problems: an unreadable `core.json` or `package.json`. */
  diagnostics: Diagnostic[];
  /**
   * The directories of packages and modules reached through a symbolic link inside the
   * workspace, each with where it really is (workspace-relative); absent when none. The
   * bundlers name what esbuild reads there by the path the manifests name (README "Links and large trees").
   */
  linkedDirs?: Record<string, string>;
  /**
   * Every file and directory the model was derived from, with the content hash it had
   * (null: absent). The check before answering compares them with the disk.
   */
  sources: Record<string, string | null>;
}

export const emptyWorkspace = (): WorkspaceModel => ({
  preview: null,
  packages: [],
  modules: [],
  selection: null,
  diagnostics: [],
  sources: {},
});
