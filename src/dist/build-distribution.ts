// Runs the jobs of a distribution plan: each through one `bundle()` call of its bundler, at
// most `parallelism` at once, then reads the declared assets of each built module and judges
// it. Each module's outcome is handed on as soon as it is known, for progress and writing.
import type { BundlerRegistry } from '../bundlers/registry.js';
import { filesRead } from '../workspace/files-read.js';
import type { BundleResult } from '../bundlers/types.js';
import type { AssetFiles } from '../io/asset-files.js';
import { servedAssets, toBundleTarget } from '../io/build-runner.js';
import { workspaceBoundaries } from '../workspace/boundaries.js';
import { locateImports } from '../workspace/checks.js';
import { bundlerFailed } from '../workspace/diagnostics.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';
import { judgeModule, type AssetContent, type ModuleOutcome } from './judge-module.js';
import type { DistributionJob } from './plan-distribution.js';
import { runLimited } from '../io/run-limited.js';
import { findSharedFiles, isCodeFile, packageDeclarations, type SharedFiles } from '../workspace/shared-files.js';

export interface BuildDistributionDeps {
  workspace: WorkspaceModel;
  registry: BundlerRegistry;
  assets: AssetFiles;
  parallelism: number;
}

/** `given`: results already known (the team's remote cache, README "A team's remote cache"), judged as if built here. */
export async function buildDistribution(jobs: readonly DistributionJob[], deps: BuildDistributionDeps, onOutcome: (outcome: ModuleOutcome) => void, given: ReadonlyMap<string, BundleResult> = new Map()): Promise<void> {
  const boundaries = workspaceBoundaries(deps.workspace);
  const built: { job: DistributionJob; module: ModuleModel; result: BundleResult }[] = [];
  const run = (job: DistributionJob, shared: SharedFiles) =>
    runBundle(job, deps, boundaries, shared, onOutcome).then((results) => results && job.modules.map((module, index) => ({ job, module, result: results[index]! })));
  const entries = new Set(deps.workspace.modules.map((module) => module.entry));
  await runLimited(jobs, deps.parallelism, async (job) => {
    const known = job.modules.filter((module) => given.has(module.specifier)).map((module) => ({ job, module, result: given.get(module.specifier)! }));
    const rest = { ...job, modules: job.modules.filter((module) => !given.has(module.specifier)) };
    const fresh = rest.modules.length > 0 ? ((await run(rest, new Map()))?.map((entry) => ({ ...entry, job })) ?? []) : [];
    for (const entry of [...known, ...fresh]) {
      // A module that reads no file besides entries holds no copy of one: judged at once.
      if (entry.result.code === null || !filesRead(entry.result).some((file) => isCodeFile(file) && !entries.has(file))) judge(deps, job, entry.module, entry.result, onOutcome);
      else built.push(entry);
    }
  });
  // A file modules of one package built in different jobs reach: those that copied it are built
  // again, importing it (README "Shared files"), before they are judged; and a result of the team
  // cache importing a file that is shared no more here is built again, bundling it.
  const results = new Map(built.map(({ module, result }) => [module.specifier, result]));
  const shared = findSharedFiles(deps.workspace, (specifier) => (results.get(specifier)?.code ? filesRead(results.get(specifier)!) : undefined));
  const again = built.filter(({ module, result }) => {
    const files = shared.get(module.package);
    const specifiers = new Set(Object.values(files ?? {}));
    if (Object.keys(result.chunks ?? {}).some((specifier) => !specifiers.has(specifier))) return true;
    return files !== undefined && filesRead(result).some((file) => files[file] !== undefined && !result.chunks?.[files[file]!]);
  });
  const rebuilt = new Map<string, BundleResult>();
  await runLimited(regroup(again), deps.parallelism, async (job) => {
    for (const entry of (await run(job, shared)) ?? []) rebuilt.set(entry.module.specifier, entry.result);
  });
  for (const { job, module, result } of built) judge(deps, job, module, rebuilt.get(module.specifier) ?? result, onOutcome);
}

// The jobs of the modules built again: one per job they came from.
function regroup(entries: readonly { job: DistributionJob; module: ModuleModel }[]): DistributionJob[] {
  const jobs = new Map<DistributionJob, DistributionJob>();
  for (const { job, module } of entries) {
    const again = jobs.get(job) ?? { ...job, modules: [] };
    again.modules.push(module);
    jobs.set(job, again);
  }
  return [...jobs.values()];
}

// One `bundle()` call; null when the bundler could not run at all (every module of the job then says why).
async function runBundle(job: DistributionJob, deps: BuildDistributionDeps, boundaries: ReturnType<typeof workspaceBoundaries>, shared: SharedFiles, onOutcome: (outcome: ModuleOutcome) => void): Promise<BundleResult[] | null> {
  try {
    const bundler = await deps.registry.get(job.bundler);
    const dirOf = (name: string) => deps.workspace.packages.find((p) => p.name === name)?.dir;
    // Another module's declared asset named by its address is judged by the reader that writes the assets, as `core run` judges it by the router's.
    const assetServed = servedAssets(deps.assets, boundaries);
    const targetOf = (module: ModuleModel) => toBundleTarget(module, boundaries, dirOf(module.package), shared.get(module.package), packageDeclarations(deps.workspace).get(module.package));
    return await bundler.bundle(job.modules.map((module) => (assetServed ? { ...targetOf(module), assetServed } : targetOf(module))), job.variant);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    for (const module of job.modules) onOutcome({ status: 'invalid', module, diagnostics: [bundlerFailed(job.bundler.name, message, module.entry)] });
    return null;
  }
}

function judge(deps: BuildDistributionDeps, job: DistributionJob, module: ModuleModel, located: BundleResult, onOutcome: (outcome: ModuleOutcome) => void): void {
  // Read through the asset reader: a file of the module's own package, never through a link that leaves it.
  const packageDir = deps.workspace.packages.find((p) => p.name === module.package)?.dir ?? module.dir;
  const read = (file: string) => deps.assets.read(packageDir, file, deps.workspace.linkedDirs)?.content.toString('utf8') ?? null;
  const result = { ...located, imports: locateImports(located.imports, read), ...(located.sharedImports ? { sharedImports: locateImports(located.sharedImports, read) } : {}) };
  const assets = result.code === null ? [] : readAssets(deps, module);
  onOutcome(judgeModule(deps.workspace, module, job.variant.target, result, assets));
}

// Through the same reader the service serves assets with: a link leaving the package reads as null.
function readAssets(deps: BuildDistributionDeps, module: ModuleModel): AssetContent[] {
  const packageDir = deps.workspace.packages.find((p) => p.name === module.package)?.dir ?? module.dir;
  return module.assets.map((file) => ({ file, content: deps.assets.read(packageDir, `${module.dir}/${file}`, deps.workspace.linkedDirs)?.content ?? null }));
}
