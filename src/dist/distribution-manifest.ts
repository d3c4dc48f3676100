// `core-distribution.json` (README "Distribution: core dist"): every output written, with its content hash and
// size, the import map of the browser modules, the packages from outside the workspace that
// the outputs still import by bare specifier, and the modules left out. Pure and ordered, so
// the same workspace always yields the same file.
import type { Diagnostic } from '../workspace/diagnostics.js';
import { moduleNames, type ModuleNames, type Platform, type WorkspaceModel } from '../workspace/model.js';
import { isBuiltin, parseBareSpecifier } from '../workspace/specifiers.js';
import type { Target } from '../workspace/variant.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import type { ModuleOutcome, DistributedKind, WrittenModule } from './judge-module.js';
import { codePath, importMapAddress } from './output-paths.js';

export const DISTRIBUTION_FORMAT = 1;

export interface DistributionOutput {
  /** Relative to the output directory. */
  path: string;
  kind: DistributedKind;
  /** The module's specifier. */
  module: string;
  /** contentHash(): the first 128 bits of SHA-256, base64url; the service's ETag of the same output. */
  hash: string;
  size: number;
}

export interface DistributedModule extends ModuleNames {
  platforms: Platform[];
  target: Target;
}

export interface ExternalImport {
  /** The bare specifier, verbatim as the code imports it. */
  specifier: string;
  package: string;
  /** The range in `dependencies` of the importing package. */
  range: string;
  /** The modules whose code imports it. */
  importedBy: string[];
}

export interface DistributionManifest {
  format: typeof DISTRIBUTION_FORMAT;
  /** A `<script type="importmap">` for a page at the root of the output directory. */
  importMap: { imports: Record<string, string> };
  modules: DistributedModule[];
  outputs: DistributionOutput[];
  /** Bare imports the import map cannot resolve: a page maps them itself (a CDN, for instance). */
  external: ExternalImport[];
  /** Modules not written, with the reasons. */
  invalid: { specifier: string; diagnostics: Diagnostic[] }[];
  /**
   * The page written for the preview entry (README "Distribution: core dist"), or null: with its
   * content hash and size, as every output, so the next run replaces it only while it is these bytes.
   */
  page: { path: string; entry: string; hash: string; size: number } | null;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function distributionManifest(workspace: WorkspaceModel, outcomes: readonly ModuleOutcome[], page: DistributionManifest['page'] = null): DistributionManifest {
  const written = outcomes.filter((outcome): outcome is WrittenModule => outcome.status === 'written');
  written.sort((a, b) => byString(a.module.specifier, b.module.specifier));

  const imports: Record<string, string> = {};
  // Import maps are a browser feature: node-only modules are written and listed, not mapped.
  for (const { module, target, chunks } of written) {
    if (target !== 'browser') continue;
    imports[module.specifier] = importMapAddress(codePath(module));
    for (const [specifier, path] of Object.entries(chunks ?? {})) imports[specifier] = importMapAddress(path);
  }
  // A shared file is written once, listed with the first module that imports it.
  const listed = new Set<string>();

  return {
    format: DISTRIBUTION_FORMAT,
    importMap: { imports },
    modules: written.map(({ module, target }) => ({
      ...moduleNames(module),
      platforms: module.platforms,
      target,
    })),
    outputs: written
      .flatMap(({ module, files }) => files.map((file) => ({ path: file.path, kind: file.kind, module: module.specifier, hash: file.hash, size: file.size })))
      .filter((output) => {
        if (listed.has(output.path)) return false;
        listed.add(output.path);
        return true;
      })
      .sort((a, b) => byString(a.path, b.path)),
    external: externalImports(workspace, written),
    invalid: outcomes
      .filter((outcome) => outcome.status === 'invalid')
      .map((outcome) => ({ specifier: outcome.module.specifier, diagnostics: outcome.diagnostics }))
      .sort((a, b) => byString(a.specifier, b.specifier)),
    page,
  };
}

// Packages from outside the workspace stay bare imports (README "Addresses"); built-ins need no map.
function externalImports(workspace: WorkspaceModel, written: readonly WrittenModule[]): ExternalImport[] {
  const index = indexWorkspace(workspace);
  const found = new Map<string, ExternalImport>();
  for (const { module, imports } of written) {
    for (const { specifier } of imports) {
      const bare = parseBareSpecifier(specifier);
      // A package whose package.json is broken is the workspace's, not one for a CDN (README "Workspaces").
      if (!bare || isBuiltin(specifier) || index.packageTable.ofImport(module.package, specifier)?.kind !== 'outside') continue;
      const range = index.packages.get(module.package)?.dependencies[bare.packageName] ?? '';
      const key = `${specifier}\0${range}`;
      let entry = found.get(key);
      if (!entry) found.set(key, (entry = { specifier, package: bare.packageName, range, importedBy: [] }));
      if (!entry.importedBy.includes(module.specifier)) entry.importedBy.push(module.specifier);
    }
  }
  return [...found.values()]
    .map((entry) => ({ ...entry, importedBy: entry.importedBy.sort(byString) }))
    .sort((a, b) => byString(a.specifier, b.specifier) || byString(a.range, b.range));
}
