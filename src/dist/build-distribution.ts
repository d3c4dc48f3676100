// Runs the jobs of a distribution plan: each through one `bundle()` call of its bundler, at
// most `parallelism` at once, then reads the declared assets of each built module and judges
// it. Each module's outcome is handed on as soon as it is known, for progress and writing.
import type { BundlerRegistry } from '../bundlers/registry.js';
import type { BundleResult } from '../bundlers/types.js';
import type { AssetFiles } from '../streams/asset-files.js';
import { toBundleTarget } from '../streams/build-runner.js';
import { workspaceBoundaries } from '../workspace/boundaries.js';
import { locateImports } from '../workspace/checks.js';
import { bundlerFailed } from '../workspace/diagnostics.js';
import type { ModuleModel, WorkspaceModel } from '../workspace/model.js';
import { judgeModule, type AssetContent, type ModuleOutcome } from './judge-module.js';
import type { DistributionJob } from './plan-distribution.js';
import { runLimited } from './run-limited.js';

export interface BuildDistributionDeps {
  workspace: WorkspaceModel;
  registry: BundlerRegistry;
  assets: AssetFiles;
  parallelism: number;
}

export async function buildDistribution(jobs: readonly DistributionJob[], deps: BuildDistributionDeps, onOutcome: (outcome: ModuleOutcome) => void): Promise<void> {
  await runLimited(jobs, deps.parallelism, async (job) => {
    let results: BundleResult[];
    try {
      const bundler = await deps.registry.get(job.bundler);
      const boundaries = workspaceBoundaries(deps.workspace);
      results = await bundler.bundle(job.modules.map((module) => toBundleTarget(module, boundaries)), job.variant);
    } catch (error) {
      // The bundler could not run at all (not loadable, or it threw): every module of the job says why.
      const message = error instanceof Error ? error.message : String(error);
      for (const module of job.modules) {
        onOutcome({
          status: 'invalid',
          module,
          diagnostics: [bundlerFailed(job.bundler.name, message, module.entry)],
        });
      }
      return;
    }
    job.modules.forEach((module, index) => {
      const located = results[index]!;
      // Read through the asset reader: a file of the module's own package, never through a link that leaves it.
      const packageDir = deps.workspace.packages.find((p) => p.name === module.package)?.dir ?? module.dir;
      const result = { ...located, imports: locateImports(located.imports, (file) => deps.assets.read(packageDir, file)?.content.toString('utf8') ?? null) };
      const assets = result.code === null ? [] : readAssets(deps, module);
      onOutcome(judgeModule(deps.workspace, module, job.variant.target, result, assets));
    });
  });
}

// Through the same reader the service serves assets with: a link leaving the package reads as null.
export function readAssets(deps: Pick<BuildDistributionDeps, 'workspace' | 'assets'>, module: ModuleModel): AssetContent[] {
  const packageDir = deps.workspace.packages.find((p) => p.name === module.package)?.dir ?? module.dir;
  return module.assets.map((file) => ({ file, content: deps.assets.read(packageDir, `${module.dir}/${file}`)?.content ?? null }));
}
