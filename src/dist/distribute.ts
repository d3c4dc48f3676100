// `core dist` as a function (README "Distribution: core dist"): reads the workspace, builds every public module
// in production, writes the valid ones and core-distribution.json into `out`, and reports
// each package as it completes. It reads manifests only; it never writes one.
import os from 'node:os';
import path from 'node:path';
import { createBundlerRegistry, type BundlerRegistry } from '../bundlers/registry.js';
import { resolveModule } from '../load-module.js';
import { createAssetFiles } from '../io/asset-files.js';
import { toBundleTarget } from '../io/build-runner.js';
import { createFileHashes } from '../io/file-hashes.js';
import { workspaceBoundaries } from '../workspace/boundaries.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';
import { readWorkspace, SELECTION_FILE } from '../workspace/read-workspace.js';
import type { ClientLimits } from '../io/remote-cache/client.js';
import type { RemoteRestored } from '../io/remote-cache/restore.js';
import type { RemoteCacheSettings } from '../io/remote-cache/settings.js';
import { readWithDeepImports } from './deep-imports.js';
import { buildDistribution } from './build-distribution.js';
import { remoteResults, type RemoteResults } from './remote-results.js';
import { distributionManifest, type DistributionManifest } from './distribution-manifest.js';
import { unlinkedModules, type ModuleOutcome, type WrittenModule } from './judge-module.js';
import { distributionPage, DISTRIBUTION_PAGE, type PageCdn } from './distribution-page.js';
import { relativeServedAddresses } from './served-addresses.js';
import { installedVersion } from '../io/installed-packages.js';
import semver from 'semver';
import { DISTRIBUTION_MANIFEST } from './output-paths.js';
import { planDistribution, type InvalidModule } from './plan-distribution.js';
import { runLimited } from '../io/run-limited.js';
import { describeOccupants, occupiedPlaces, readPreviousManifest, recordProblem, removeLeftoverTemporaries, writeFiles, writeManifest, writePage, writePendingRecord } from './write-distribution.js';
import { finishBeforeSignals } from './finish-before-signals.js';
import { listedOutputs } from './stale-outputs.js';
import { contentHash } from '../outputs/content-hash.js';

export interface DistributeOptions {
  /** The workspace directory (holding core.json). */
  root: string;
  /** The output directory; created when missing. */
  out: string;
  /** Builds running at once. Default: os.availableParallelism(). */
  parallelism?: number;
  onProgress?: (event: DistributionProgress) => void;
  /** The team's remote cache, asked for each module's production build before building it (README "A team's remote cache"). */
  remoteCache?: { settings: RemoteCacheSettings; limits?: ClientLimits } | null;
  /**
   * The CDN origin the page maps packages from outside the workspace to (`--cdn`,
   * `CORE_CDN_ORIGIN`); null, or `local` (the service itself, which no static file server
   * answers), maps none (README "Distribution: core dist").
   */
  cdnOrigin?: string | null;
}

export interface PackageSummary {
  name: string;
  version: string;
  written: number;
  invalid: number;
  files: number;
  bytes: number;
}

export type DistributionProgress =
  | { type: 'started'; modules: number; packages: number }
  | { type: 'module.done'; done: number; total: number; outcome: ModuleOutcome }
  /** A package's modules written and invalid: sent once every module is built and judged (a module may be taken back). */
  | { type: 'package.done'; summary: PackageSummary };

export interface DistributionResult {
  out: string;
  manifest: DistributionManifest;
  invalid: InvalidModule[];
  /** Problems of core.json or a package.json: their modules could not even be listed. */
  workspaceDiagnostics: Diagnostic[];
  /**
   * Problems of `.core/selection.json`: the selection is core run's choice of packages in
   * development, and every module is written whatever it says, so they stop nothing (the page is
   * ordered as with no selection).
   */
  selectionDiagnostics?: Diagnostic[];
  /** Paths a previous run wrote that this one removed. */
  removed: string[];
  /**
   * Files in the output directory at an output's place (the record's included) that no earlier
   * run's record lists with the bytes they have: nothing was written (README "Distribution: core dist").
   */
  occupied?: { paths: string[]; record?: string; directories?: string[]; unhashed?: string[] };
  /** Outputs not written: a link in the output directory leads their folder out of it. */
  outsideOut?: string[];
  /** Paths a previous run listed, no longer written, left: not the bytes it wrote, or not in the output directory by their real path. */
  leftChanged?: string[];
  /** Every module valid and every manifest readable. */
  ok: boolean;
  /** False when the workspace manifests declare no module at all: nothing was written, not even the output directory. */
  wrote: boolean;
  /** SIGINT or SIGTERM came while the files were written: they were all written first; the caller stops by it. */
  interrupted?: NodeJS.Signals;
  /** Temporary files a run stopped while writing left beside the outputs, removed. */
  removedTemporaries?: string[];
  /** What the team's remote cache gave, when one was asked. */
  remoteCache?: RemoteRestored;
  /** The page for the preview entry: written, or why not. */
  page: { written: true; path: string; entry: string } | { written: false; reason: string; unresolved?: string[]; unserved?: string[] };
}

export async function distribute(options: DistributeOptions): Promise<DistributionResult> {
  const root = path.resolve(options.root);
  const out = path.resolve(options.out);
  const parallelism = options.parallelism ?? os.availableParallelism();
  const progress = options.onProgress ?? (() => {});
  const hashes = createFileHashes(root);
  const registry = createBundlerRegistry(root, resolveModule);
  let workspace: WorkspaceModel;
  try {
    workspace = await readWithDeepImports((deep) => readWorkspace(hashes, deep), (read, modules) => bareImportsOf(read, modules, registry, parallelism));
  } catch (error) {
    await registry.dispose();
    throw error;
  }
  const selectionDiagnostics = workspace.diagnostics.filter((problem) => problem.file === SELECTION_FILE);
  workspace = { ...workspace, diagnostics: workspace.diagnostics.filter((problem) => problem.file !== SELECTION_FILE) };
  if (workspace.modules.length === 0 && workspace.diagnostics.length > 0) {
    await registry.dispose();
    // core.json (or every package.json) is broken: there is nothing to write, and an empty
    // output directory or manifest would only hide the earlier run's good one.
    const manifest = distributionManifest(workspace, []);
    return { out, manifest, invalid: [], workspaceDiagnostics: workspace.diagnostics, removed: [], ok: false, wrote: false, page: { written: false, reason: 'the workspace manifests have problems' } };
  }
  // Before any build: a core-distribution.json of the user's would be replaced last, after every
  // output, so it is judged first, and no record means no file at an output's place may be replaced.
  const foreignRecord = recordProblem(out);
  if (foreignRecord !== null) {
    await registry.dispose();
    const manifest = distributionManifest(workspace, []);
    return { out, manifest, invalid: [], workspaceDiagnostics: workspace.diagnostics, removed: [], occupied: { paths: [DISTRIBUTION_MANIFEST], record: foreignRecord }, ok: false, wrote: false, page: { written: false, reason: foreignRecord } };
  }
  const previous = readPreviousManifest(out);
  const plan = planDistribution(workspace, parallelism);

  // Modules not built yet, by package; the packages whose modules are all built, in that order.
  const pending = new Map<string, number>(workspace.packages.map((pkg) => [pkg.name, 0]));
  for (const module of workspace.modules) pending.set(module.package, pending.get(module.package)! + 1);
  const built: string[] = [];
  const total = workspace.modules.length;
  progress({ type: 'started', modules: total, packages: pending.size });
  for (const pkg of workspace.packages) if (pending.get(pkg.name) === 0) progress({ type: 'package.done', summary: summarize(pkg, []) });

  // Nothing is written while modules build: every output's place is checked first (README
  // "Distribution: core dist"), and a module the link check takes back is never written at all.
  const outcomes: ModuleOutcome[] = [];
  const settle = (outcome: ModuleOutcome) => {
    outcomes.push(outcome);
    const left = pending.get(outcome.module.package)! - 1;
    pending.set(outcome.module.package, left);
    progress({ type: 'module.done', done: outcomes.length, total, outcome });
    if (left === 0) built.push(outcome.module.package);
  };

  plan.invalid.forEach(settle);
  const assets = createAssetFiles(root);
  let remote: RemoteResults | undefined;
  try {
    if (options.remoteCache) remote = await remoteResults(root, workspace, plan.jobs, { hashes, ...options.remoteCache });
    await buildDistribution(plan.jobs, { workspace, registry, assets, parallelism }, settle, remote?.results);
  } finally {
    await registry.dispose();
  }
  takeBackUnlinked(outcomes);
  // A package's line counts what stays written: only after the link check, which may take back a
  // module of any package once every module is built, and none when nothing is written (README
  // "Distribution: core dist").
  const reportPackages = () => {
    for (const name of built) {
      const pkg = workspace.packages.find((candidate) => candidate.name === name)!;
      progress({ type: 'package.done', summary: summarize(pkg, outcomes.filter((outcome) => outcome.module.package === name)) });
    }
  };
  const { result, signal } = await finishBeforeSignals(() => writeDistribution(out, workspace, outcomes, previous, reportPackages, pageCdn(root, workspace, options.cdnOrigin ?? null)));
  return { ...result, ...(signal ? { interrupted: signal } : {}), ...(remote ? { remoteCache: remote.restored } : {}), ...(selectionDiagnostics.length > 0 ? { selectionDiagnostics } : {}) };
}

/**
 * Every module's files, the page and the record written into `out`, once every output's place is
 * checked (README "Distribution: core dist"): nothing at all when one holds a file no earlier run's
 * record `previous` lists with the bytes it has.
 */
function writeDistribution(out: string, workspace: WorkspaceModel, built: readonly ModuleOutcome[], previous: unknown, reportPackages: () => void, cdn: PageCdn | null): DistributionResult {
  // The layout has no `/m/`: a sheet's address of another written output is made relative to it.
  const { outcomes, unserved } = relativeServedAddresses(built);
  // In the workspace's order, not the order builds finished in (or the team cache gave them): the page is the same bytes every run.
  const order = new Map(workspace.modules.map((module, index) => [module.specifier, index]));
  const written = outcomes.filter((outcome): outcome is WrittenModule => outcome.status === 'written').sort((a, b) => order.get(a.module.specifier)! - order.get(b.module.specifier)!);
  const draft = distributionPage(workspace, written, distributionManifest(workspace, outcomes).importMap, cdn, unserved);
  const invalid = outcomes.filter((outcome): outcome is InvalidModule => outcome.status === 'invalid');
  invalid.sort((a, b) => (a.module.specifier < b.module.specifier ? -1 : a.module.specifier > b.module.specifier ? 1 : 0));
  // A shared file is in the files of every module importing it: written once.
  const files = [...new Map(written.flatMap((module) => module.files).map((file) => [file.path, file])).values()];
  const occupied = occupiedPlaces(out, files.map((file) => file.path), previous);
  if (occupied.length > 0) {
    const { directories, unhashed } = describeOccupants(out, occupied, previous);
    const kinds = { ...(directories.length > 0 ? { directories } : {}), ...(unhashed.length > 0 ? { unhashed } : {}) };
    return { out, manifest: distributionManifest(workspace, outcomes), invalid, workspaceDiagnostics: workspace.diagnostics, removed: [], occupied: { paths: occupied, ...kinds }, ok: false, wrote: false, page: { written: false, reason: 'nothing was written' } };
  }
  reportPackages();
  const pageOccupied = occupiedPlaces(out, [DISTRIBUTION_PAGE], previous);
  const html = draft.ok && pageOccupied.length === 0 ? draft.html : null;
  const removedTemporaries = removeLeftoverTemporaries(out, [...listedOutputs(previous).keys(), ...files.map((file) => file.path), DISTRIBUTION_PAGE, DISTRIBUTION_MANIFEST]);
  // Before the first rename: a run stopped among them leaves a record listing each place's old
  // bytes and new, which the next run accepts (README "Distribution: core dist").
  writePendingRecord(
    out,
    previous,
    distributionManifest(workspace, []),
    files.map((file) => ({ path: file.path, hash: file.hash, size: file.size })),
    html === null ? null : { path: DISTRIBUTION_PAGE, hash: contentHash(html), size: Buffer.byteLength(html) },
  );
  const outsideOut = writeFiles(out, files);
  const pageWritten = writePage(out, DISTRIBUTION_PAGE, draft.ok ? draft.html : null, previous);
  const page: DistributionResult['page'] = !draft.ok
    ? { written: false, reason: draft.reason, ...(draft.unresolved ? { unresolved: draft.unresolved } : {}), ...(draft.unserved ? { unserved: draft.unserved } : {}) }
    : pageWritten
      ? { written: true, path: DISTRIBUTION_PAGE, entry: draft.entry }
      : { written: false, reason: pageOccupiedReason(describeOccupants(out, pageOccupied, previous)) };
  const manifest = distributionManifest(workspace, outcomes, page.written && draft.ok ? { path: DISTRIBUTION_PAGE, entry: draft.entry, hash: contentHash(draft.html), size: Buffer.byteLength(draft.html) } : null);
  const { removed, left } = writeManifest(out, manifest, previous);
  return { out, manifest, invalid, workspaceDiagnostics: workspace.diagnostics, removed, ...(removedTemporaries.length > 0 ? { removedTemporaries } : {}), ...(left.length > 0 ? { leftChanged: left } : {}), ...(outsideOut.length > 0 ? { outsideOut } : {}), ok: invalid.length === 0 && workspace.diagnostics.length === 0 && outsideOut.length === 0, wrote: true, page };
}

/**
 * The page's CDN (README "Distribution: core dist"), as the preview maps a package from outside
 * the workspace: at its importer's exact `dependencies` entry, else the copy installed where the
 * importer loads it. None for `local`, the service itself, which no static file server answers.
 */
function pageCdn(root: string, workspace: WorkspaceModel, origin: string | null): PageCdn | null {
  if (origin === null || origin === LOCAL_CDN) return null;
  return {
    origin: origin.replace(/\/+$/, ''),
    versionOf(importerPackage, packageName) {
      const owner = workspace.packages.find((pkg) => pkg.name === importerPackage);
      if (!owner) return null;
      const declared = owner.dependencies[packageName];
      const exact = declared === undefined ? null : semver.valid(declared.replace(/^=/, ''));
      if (exact) return exact;
      const installed = installedVersion(packageName, path.join(root, owner.dir));
      return installed && semver.valid(installed) ? installed : null;
    },
  };
}

/** The CDN origin that names the service itself (README "The local CDN"). */
export const LOCAL_CDN = 'local';

// Why the page's place is not written (README "Distribution: core dist"): a page an earlier
// version wrote, whose record lists it without its hash, is told so, and a directory as one.
function pageOccupiedReason({ directories, unhashed }: { directories: string[]; unhashed: string[] }): string {
  if (directories.length > 0) return `${DISTRIBUTION_PAGE} is there and is a directory`;
  if (unhashed.length > 0) return `${DISTRIBUTION_PAGE} is there, listed by an earlier version's record without its hash, so it cannot be told from a file of yours: remove it once, and the next run writes it`;
  return `${DISTRIBUTION_PAGE} is there and no earlier core dist wrote it, or it changed since`;
}

// The bare imports of the modules' production builds; a build that fails says why in the distribution itself.
async function bareImportsOf(workspace: WorkspaceModel, modules: ModuleModel[], registry: BundlerRegistry, parallelism: number): Promise<string[]> {
  const found: string[] = [];
  const boundaries = workspaceBoundaries(workspace);
  await runLimited(planDistribution({ ...workspace, modules }, parallelism).jobs, parallelism, async (job) => {
    try {
      const bundler = await registry.get(job.bundler);
      for (const result of await bundler.bundle(job.modules.map((module) => toBundleTarget(module, boundaries)), job.variant)) found.push(...result.imports.map((record) => record.specifier));
    } catch {
      // Built again by the distribution, which reports the failure.
    }
  });
  return found;
}

// A name one module imports that another's code does not export fails the page's linking
// (README "Bundling real code"): judged once every module is built, each such module's own files
// taken back before anything is written: its files are not, and a shared file another module's
// code imports is written with that module's.
function takeBackUnlinked(outcomes: ModuleOutcome[]): void {
  for (const [written, invalid] of unlinkedModules(outcomes)) outcomes[outcomes.indexOf(written)] = invalid;
}

/** A package's line: its modules written (their files and bytes) and those invalid, among `outcomes` (its own). */
function summarize(pkg: { name: string; version: string }, outcomes: readonly ModuleOutcome[]): PackageSummary {
  const summary: PackageSummary = { name: pkg.name, version: pkg.version, written: 0, invalid: 0, files: 0, bytes: 0 };
  for (const outcome of outcomes) {
    if (outcome.status !== 'written') {
      summary.invalid += 1;
      continue;
    }
    summary.written += 1;
    summary.files += outcome.files.length;
    summary.bytes += outcome.files.reduce((sum, file) => sum + file.size, 0);
  }
  return summary;
}
