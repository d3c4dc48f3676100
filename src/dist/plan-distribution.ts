// What `core dist` builds, and how: every buildable module once, in production (README
// "Distribution: core dist"), batched per bundler and variant so one `bundle()` call compiles many modules, each
// batch split so the builds can use every core. Pure: the caller runs the jobs.
import { bundlerKey } from '../workspace/model.js';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import type { BundlerRef, ModuleModel, WorkspaceModel } from '../workspace/model.js';
import { productionVariant, variantKey, type Target, type Variant } from '../workspace/variant.js';

export interface DistributionJob {
  bundler: BundlerRef;
  variant: Variant;
  modules: ModuleModel[];
}

/** A module that is not written, and why. */
export interface InvalidModule {
  status: 'invalid';
  module: ModuleModel;
  diagnostics: Diagnostic[];
}

export interface DistributionPlan {
  jobs: DistributionJob[];
  /** Modules whose manifests already rule them out: nothing to build. */
  invalid: InvalidModule[];
}

/** Browser output for anything that runs on the web, Node.js output for node-only modules. */
export const distributionTarget = (module: Pick<ModuleModel, 'platforms'>): Target => (module.platforms.includes('web') ? 'browser' : 'node');

export function planDistribution(workspace: WorkspaceModel, parallelism: number): DistributionPlan {
  const invalid: InvalidModule[] = [];
  const groups = new Map<string, DistributionJob>();
  for (const module of workspace.modules) {
    const problems = unbuildable(module);
    if (problems.length > 0) {
      invalid.push({ status: 'invalid', module, diagnostics: problems });
      continue;
    }
    const variant = productionVariant(distributionTarget(module));
    const key = `${bundlerKey(module.bundler)}\0${variantKey(variant)}\0${JSON.stringify(module.define ?? null)}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { bundler: module.bundler, variant, modules: [] }));
    group.modules.push(module);
  }
  const jobs = [...groups.values()].flatMap((group) => splitJob(group, Math.max(1, Math.floor(parallelism))));
  return { jobs, invalid };
}

// The reader reports every reason a module cannot build; the last two cannot happen without
// one of them, but a module that slipped through would otherwise crash the build.
function unbuildable(module: ModuleModel): Diagnostic[] {
  if (module.diagnostics.length > 0) return module.diagnostics;
  if (module.entry === null) return [diagnostic('MANIFEST_INVALID', `${module.specifier} names no entry file`, { file: `${module.dir}/module.json` })];
  if (module.bundler.specifier === '') return [diagnostic('MANIFEST_INVALID', `${module.specifier}: the bundler "${module.bundler.name}" is not registered`)];
  return [];
}

/** Up to `chunks` jobs of nearly equal size, in the order of the modules. */
function splitJob(job: DistributionJob, chunks: number): DistributionJob[] {
  const count = Math.min(chunks, job.modules.length);
  const jobs: DistributionJob[] = [];
  let start = 0;
  for (let index = 0; index < count; index += 1) {
    const end = start + Math.ceil((job.modules.length - start) / (count - index));
    jobs.push({ ...job, modules: job.modules.slice(start, end) });
    start = end;
  }
  return jobs;
}
