// The bundler interface: what a module named in a package's `bundlers` registry provides.
// A bundler module exports `createBundler(options)`; the service groups modules by bundler
// and variant, and hands each group to one `bundle()` call.
import type { ImportRecord } from '../workspace/checks.js';
import type { LinkNames } from '../workspace/link-names.js';
import type { ShimFacts } from '../workspace/shim-reads.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import type { Platform } from '../workspace/model.js';
import type { Variant } from '../workspace/variant.js';
import type { WorkspaceBoundaries } from '../workspace/boundaries.js';
import type { ModuleDeclaration } from '../workspace/shared-files.js';

// Defined beside the function that computes it (`workspace/` imports no bundler type).
export type { WorkspaceBoundaries };

export interface BundleTarget {
  /** The module's specifier (`@acme/app/main`). */
  specifier: string;
  subpath: string;
  /** The module's directory and entry file, relative to the workspace root. */
  dir: string;
  entry: string;
  /** Declared assets, relative to `dir`. */
  assets: string[];
  platforms: Platform[];
  /** Build-time constants (`core.define` of the package); every target of one bundle() call has the same. */
  define?: Record<string, string>;
  /**
   * The workspace's other public modules by entry file (workspace-relative) and the names of
   * its packages: a relative import (or a tsconfig `paths` mapping) reaching another module's
   * entry, and any bare import of a workspace package, stay external as bare imports.
   */
  workspace?: WorkspaceBoundaries;
  /** The module's package: its name and directory (workspace-relative), where its shared files are found. */
  package?: { name: string; dir: string };
  /**
   * Files of the package that other public modules reach too, by workspace-relative path, with
   * their internal specifiers (README "Shared files"): imported by those, never bundled.
   */
  shared?: Record<string, string>;
  /** The declarations of the package's modules: what a shared file's asset imports resolve by (README "Shared files"). */
  declarations?: readonly ModuleDeclaration[];
  /**
   * A shared file's only (README "Shared files"): the declarations its asset imports resolve by,
   * each file by the module declaring it whose directory is the nearest holding it
   * (`assetOwner`), whichever module found the shared file.
   */
  assetDeclarations?: readonly ModuleDeclaration[];
  /**
   * Development variants only: the content hash of each declared asset of the package
   * (workspace-relative path), written into each address of it as `?v=<hash>` (README "Preview and
   * stylesheet push"): an edited asset is then an edited output of every module naming it, and a
   * page's sheet names it anew. Absent in production, whose outputs never change with an asset.
   */
  assetVersions?: Readonly<Record<string, string>>;
  /**
   * The package's address from the origin's root, `/m/<package>@<version>/`, by which an asset's
   * address written as such is known to name a declared asset, given its version in development
   * and made relative in production (`writtenAssetAddress`), and any other address under `/m/`
   * judged (`rootAddressProblem`).
   */
  packageAddress?: string;
  /**
   * Whether the service serves the declared asset `file` (workspace-relative) of the workspace
   * package `packageName`: a regular file inside that package by its real path, as the router reads
   * it (README "Files that are not files"). Given by the service's builds, so that an address under
   * `/m/` naming another module's declared asset whose file is gone is judged a 404 (README
   * "Workspaces"); absent, such an address is taken as served.
   */
  assetServed?: (packageName: string, file: string) => boolean;
}

// Where a path leads (`<path> ->`): defined beside the workspace's paths, whose read records it too.
export { LINK_TARGET } from '../workspace/paths.js';

/** An import esbuild resolved through a tsconfig mapping (`paths`, `baseUrl`): by whom, as written, to which file (workspace-relative). */
export interface MappedImport {
  importer: string;
  specifier: string;
  resolved: string;
}

export interface BundleResult {
  specifier: string;
  /** null when the build failed. */
  code: Uint8Array | null;
  styles: Uint8Array | null;
  /** Every input: the files the build read (or, when it failed, would need) and what it depended on (`resolution`), relative to the root; `dir/` for a directory. */
  inputs: string[];
  /**
   * The inputs that are no file read but what the build depended on (README "Links and large
   * trees", "Bundling real code"): where a link crossed leads (`LINK_TARGET`), the paths tried
   * before the file found, absent, another module's entry imported from TypeScript and the files
   * its names were learnt from, and (added by the service) the config files and places. Inputs
   * like the rest; never counted as files a module reached (`filesRead`, src/workspace/files-read.ts).
   */
  resolution?: string[];
  /** The imports esbuild resolved through a tsconfig mapping (`paths`, `baseUrl`): the service adds what their mapping tried before (README "Bundling real code"). */
  mapped?: MappedImport[];
  /** Bare imports found, kept external. */
  imports: ImportRecord[];
  /** Where the code imports each shared file of `chunks`, by internal specifier (README "Shared files"), left out of `imports`. Absent when none. */
  sharedImports?: ImportRecord[];
  /** The names its code imports from other modules and exports (README "Bundling real code"); absent when not read (another bundler's output, or not of esbuild's form). */
  links?: LinkNames;
  /** What its code may write on the global object, and the modules it imports for their effects (README "Bundling real code", Shims): judged across modules; absent when not told (no browser build, code not parsed). */
  shims?: ShimFacts;
  /** BUNDLE_ERROR diagnostics; empty when the build succeeded. */
  errors: Diagnostic[];
  /**
   * The files whose text, read after the build, placed `errors` or `warnings` (esbuild says which file imports
   * a stylesheet for a value, not where), each with that text's content hash: a place stands
   * only where the build's read of the file hashed the same (README "Code frames"). Absent when none.
   */
  placedFrom?: Record<string, string>;
  /** Warnings of a build that succeeded (esbuild's, MODULE_BOUNDARY_CROSSED, a Node global read inside a function); absent when none. */
  warnings?: Diagnostic[];
  /** The shared files the code imports, directly or through each other, each built alone: internal specifier -> code. Absent when none. */
  chunks?: Record<string, Uint8Array>;
  /** The link names of each of `chunks` (README "Shared files"): a name reached through one is judged as any module's. Absent when none was read. */
  chunkLinks?: Record<string, LinkNames>;
  /** The entry is a CommonJS file (esbuild's judgement): built alone it exports only `default`. */
  commonjs?: true;
  /** A shared file built alone: the declared assets it imports, workspace-relative (each module importing it declares them too, README "Shared files"). Absent when none. */
  declaredAssets?: string[];
}

export interface Bundler {
  /** Builds several modules in one pass; each still gets its own outputs. */
  bundle(targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]>;
  /**
   * Builds one module again, incrementally where the bundler can (an esbuild context).
   * `since` says what changed since its last result, for a bundler that can do less then.
   */
  rebuild(target: BundleTarget, variant: Variant, signal?: AbortSignal, since?: RebuildHint): Promise<BundleResult>;
  /**
   * Files just saved, with the bytes the service read, before it plans their builds: a bundler
   * may start on them at once (a `rebuild` given the same bytes then takes that work).
   */
  anticipate?(saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined): void;
  dispose(): Promise<void>;
}

/** What changed since the module's last build: its inputs then, and those changed since. */
export interface RebuildHint {
  /**
   * The inputs of the module's last build as the service recorded them: the bundler's own, and
   * the tsconfig files the service adds (README "tsconfig.json"), which are JSON files.
   */
  inputs: string[];
  /** Those whose content changed since. */
  changed: string[];
  /** The content hash of the code that build gave, as the service recorded it; null when it failed. */
  code: string | null;
  /**
   * The bytes of changed inputs as the service read them when it hashed them, for a bundler that
   * compiles a file from its bytes instead of reading it again (when the service still has them).
   */
  contents?: Readonly<Record<string, Uint8Array>>;
}

export interface BundlerOptions {
  /** The workspace root, absolute. */
  root: string;
  /** Form 2 of the registry (`processors`), as the manifest gives it. */
  processors?: Record<string, unknown>;
  /**
   * Whether the service's tree watcher vouches, now, that no symbolic link of the workspace leads
   * out of it (README "Links and large trees"): true only while it is authoritative and has seen
   * none. Absent, or false: a link leading out may be met anywhere.
   */
  noLinkLeadsOut?(): boolean;
  /** Whether that watcher, authoritative, has seen a link that may lead out of the workspace (false when it cannot tell). */
  linkLeadsOut?(): boolean;
}

export type CreateBundler = (options: BundlerOptions) => Bundler;

/** Thrown when a build was cancelled through its signal. */
export class BuildCancelled extends Error {
  constructor() {
    super('the build was cancelled');
    this.name = 'BuildCancelled';
  }
}

/** A bundler that cannot be loaded: a condition of the workspace, told as a diagnostic. */
/** esbuild's process died again and again (README "When esbuild's process dies"): no build runs until a file is saved. */
export class EngineUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineUnavailable';
  }
}

export class BundlerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundlerUnavailable';
  }
}
