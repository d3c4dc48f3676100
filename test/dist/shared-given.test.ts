// `core dist` given a result of the team cache (README "A team's remote cache") that imports a file
// shared no more (README "Shared files"): its inputs hash the same whether the file is shared or
// not, so the result is built again, bundling the file, and what is written is what a run without
// the team cache writes.
import { expect } from 'chai';
import { createBundlerRegistry } from '../../src/bundlers/registry.js';
import { buildDistribution } from '../../src/dist/build-distribution.js';
import type { ModuleOutcome } from '../../src/dist/judge-module.js';
import { planDistribution } from '../../src/dist/plan-distribution.js';
import { createAssetFiles } from '../../src/io/asset-files.js';
import { toBundleTarget } from '../../src/io/build-runner.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { resolveModule } from '../../src/load-module.js';
import { workspaceBoundaries } from '../../src/workspace/boundaries.js';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { installedWorkspace } from './installed.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const REG = 'packages/lib/common/reg.ts';
const SPECIFIER = '@s/lib/.shared/common/reg.ts';

describe('core dist given a result importing a file shared no more', function () {
  this.timeout(60_000);

  it('builds it again, bundling the file: the same outcomes as without it', async () => {
    const root = installedWorkspace({
      'core.json': json({ packages: ['packages/lib'] }),
      'packages/lib/package.json': json({ name: '@s/lib', version: '1.0.0', exports: { './one': './one/index.ts', './two': './two/index.ts' }, core: { modules: '.' } }),
      [REG]: 'export const registry = new Map<string, number>();\n',
      'packages/lib/one/index.ts': "export * from '../common/reg.ts';\n",
      'packages/lib/two/index.ts': 'export const size = () => 0;\n',
    });
    const workspace = readWorkspace(createFileHashes(root));
    const registry = createBundlerRegistry(root, resolveModule);
    try {
      const plan = planDistribution(workspace, 1);
      const deps = { workspace, registry, assets: createAssetFiles(root), parallelism: 1 };
      const run = async (given?: Map<string, Awaited<ReturnType<typeof bundleOne>>>) => {
        const outcomes: ModuleOutcome[] = [];
        await buildDistribution(plan.jobs, deps, (outcome) => outcomes.push(outcome), given);
        return outcomes
          .map((outcome) => [outcome.module.specifier, outcome.status, outcome.status === 'written' ? outcome.files.map((file) => [file.path, Buffer.from(file.content).toString('utf8')]) : outcome.diagnostics])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      };
      // `one` as built while `two` imported the file too (what the team cache kept).
      const job = plan.jobs.find((candidate) => candidate.modules.some((module) => module.specifier === '@s/lib/one'))!;
      const one = job.modules.find((module) => module.specifier === '@s/lib/one')!;
      const bundleOne = async () => {
        const bundler = await registry.get(job.bundler);
        const target = toBundleTarget(one, workspaceBoundaries(workspace), 'packages/lib', { [REG]: SPECIFIER });
        return (await bundler.bundle([target], job.variant))[0]!;
      };
      const given = await bundleOne();
      expect(Object.keys(given.chunks ?? {})).to.deep.equal([SPECIFIER]);
      const withGiven = await run(new Map([['@s/lib/one', given]]));
      expect(JSON.stringify(withGiven)).to.not.include('.shared');
      expect(withGiven).to.deep.equal(await run());
    } finally {
      await registry.dispose();
    }
  });
});
