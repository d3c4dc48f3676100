// Whether one built module goes into the distribution: the bundler's errors, the dependency
// checks `/state` applies (README "Workspaces") and its declared assets decide. A valid module
// becomes its files, each with the content hash the service would send as its ETag.
import type { BundleResult } from '../bundlers/types.js';
import { contentHash } from '../outputs/content-hash.js';
import { checkImports, type ImportRecord } from '../workspace/checks.js';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';
import type { Target } from '../workspace/variant.js';
import { assetPath, codePath, stylesPath } from './output-paths.js';
import type { InvalidModule } from './plan-distribution.js';
import { linkedThroughSharedFiles, unlinkedDiagnostic, unlinkedNames, type LinkNames } from '../workspace/link-names.js';
import { effectsShimRead, judgeShimReads, type ShimFacts } from '../workspace/shim-reads.js';

/** What a file of the distribution holds (its addresses' kinds are `OutputKind` of src/http/address.ts). */
export type DistributedKind = 'code' | 'styles' | 'asset';

export interface DistributionFile {
  /** Relative to the output directory, forward slashes. */
  path: string;
  kind: DistributedKind;
  content: Uint8Array;
  hash: string;
  size: number;
}

/** A declared asset as read from disk; null when it is missing, no regular file, or leaves its package. */
export interface AssetContent {
  file: string;
  content: Uint8Array | null;
}

export interface WrittenModule {
  status: 'written';
  module: ModuleModel;
  target: Target;
  files: DistributionFile[];
  /** Bare imports kept in its code: what the import map must resolve. */
  imports: ImportRecord[];
  /** The shared files its code imports (README "Shared files"): internal specifier -> path of the file written. */
  chunks?: Record<string, string>;
  /** The names its code imports from other modules and exports, judged across the distribution's modules (`unlinkedModules`). */
  links?: LinkNames;
  /** The link names of each of its shared files, by internal specifier (README "Shared files"): names reached through one are judged by them. */
  chunkLinks?: Record<string, LinkNames>;
  /** Where its code imports each of its shared files (README "Shared files"): a name missing through one is told there. */
  sharedImports?: ImportRecord[];
  /** What its code may write on the global object, and the modules it imports for their effects (README "Bundling real code", Shims). */
  shims?: ShimFacts;
  /** Its reads of Node's globals (and uses of other names nothing binds) taken as defined because of imports for effects: judged across the distribution's modules (`unlinkedModules`). */
  shimReads?: Diagnostic[];
}

export type ModuleOutcome = WrittenModule | InvalidModule;

export function judgeModule(workspace: WorkspaceModel, module: ModuleModel, target: Target, result: BundleResult, assets: AssetContent[]): ModuleOutcome {
  const diagnostics: Diagnostic[] = [...result.errors, ...checkImports(module, result.imports, workspace)];
  if (result.errors.length === 0 && result.code === null) {
    diagnostics.push(diagnostic('BUNDLE_ERROR', `the bundler "${module.bundler.name}" produced no code for ${module.specifier}`, { file: module.entry ?? undefined }));
  }
  for (const asset of assets) {
    if (asset.content !== null) continue;
    // The service answers 404 for such an asset; a distribution without it would break the page.
    diagnostics.push(
      diagnostic('BUNDLE_ERROR', `${module.specifier} declares the asset "${asset.file}", but ${module.dir}/${asset.file} is missing, is no regular file (a FIFO, a socket, a device: README "Files that are not files") or is a link that leaves its package`, {
        file: `${module.dir}/${asset.file}`,
      }),
    );
  }
  if (diagnostics.length > 0) return { status: 'invalid', module, diagnostics };

  const files: DistributionFile[] = [fileOf(codePath(module), 'code', result.code!)];
  if (result.styles) files.push(fileOf(stylesPath(module), 'styles', result.styles));
  for (const asset of assets) files.push(fileOf(assetPath(module, asset.file), 'asset', asset.content!));
  // Each shared file once, at the path its address mirrors; every module importing it writes the same bytes.
  const chunks: Record<string, string> = {};
  for (const [specifier, code] of Object.entries(result.chunks ?? {})) {
    chunks[specifier] = codePath({ package: module.package, version: module.version, subpath: specifier.slice(module.package.length + 1) });
    files.push(fileOf(chunks[specifier], 'code', code));
  }
  const shimReads = (result.warnings ?? []).filter((warning) => effectsShimRead(warning) !== undefined);
  return { status: 'written', module, target, files, imports: result.imports, ...(result.shims ? { shims: result.shims } : {}), ...(shimReads.length > 0 ? { shimReads } : {}), ...(result.chunks ? { chunks } : {}), ...(result.links ? { links: result.links } : {}), ...(result.chunkLinks ? { chunkLinks: result.chunkLinks } : {}), ...(result.sharedImports ? { sharedImports: result.sharedImports } : {}) };
}

const fileOf = (path: string, kind: DistributedKind, content: Uint8Array): DistributionFile => ({
  path,
  kind,
  content,
  hash: contentHash(content),
  size: content.byteLength,
});

/**
 * The written modules whose code imports a name another module of the distribution does not
 * export, each made invalid with a diagnostic at its import (README "Bundling real code"): a
 * page links every static import first, so `core dist` judges as `/state` does, once every module
 * is built. So are those reading a Node global taken as defined because of imports for effects
 * that no module those imports run writes (README "Bundling real code", Shims). A module not
 * written (invalid) or not built here is not judged against.
 */
export function unlinkedModules(outcomes: readonly ModuleOutcome[]): Map<WrittenModule, InvalidModule> {
  const written = new Map<string, LinkNames>();
  const shimsOf = new Map<string, ShimFacts>();
  for (const outcome of outcomes) {
    if (outcome.status !== 'written') continue;
    if (outcome.shims) shimsOf.set(outcome.module.specifier, outcome.shims);
    if (outcome.links) written.set(outcome.module.specifier, outcome.links);
    // Its shared files, written once whoever imports them: the first module's names, as the import map maps the first's file.
    for (const [specifier, links] of Object.entries(outcome.chunkLinks ?? {})) if (!written.has(specifier)) written.set(specifier, links);
  }
  const invalid = new Map<WrittenModule, InvalidModule>();
  for (const outcome of outcomes) {
    if (outcome.status !== 'written') continue;
    const links = linkedThroughSharedFiles(outcome.links, outcome.chunkLinks);
    const { unlinked } = links?.imports ? unlinkedNames(links, (specifier) => written.get(specifier)) : { unlinked: [] };
    const unshimmed = judgeShimReads(outcome.shimReads, outcome.shims, (specifier) => shimsOf.get(specifier))?.errors ?? [];
    const diagnostics = [...unlinked.map((name) => unlinkedDiagnostic(name, [...outcome.imports, ...(outcome.sharedImports ?? [])])), ...unshimmed];
    if (diagnostics.length > 0) invalid.set(outcome, { status: 'invalid', module: outcome.module, diagnostics });
  }
  return invalid;
}
