// A batch's shared files (README "Shared files"): the modules built again with a shared file
// imported are those whose build read it, not those that only depend on it.
import { expect } from 'chai';
import { createBatchBuilds } from '../../src/bundlers/esbuild-batch.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import { shareWithinBatch } from '../../src/bundlers/esbuild-shared-files.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const entries = { 'app/one/index.ts': '@t/app/one', 'app/plain/index.ts': '@t/app/plain', 'app/main/index.ts': '@t/app/main' };

const target = (name: string): BundleTarget => appTarget(name, { package: { name: '@t/app', dir: 'app' }, workspace: { key: 'k', packages: ['@t/app'], entries } });

describe('shareWithinBatch', () => {
  it('builds again only the modules that read a shared file, not a TypeScript module whose entry import re-exports from it', async () => {
    const root = tempWorkspace({
      'app/lib/part.ts': 'export const part = (n: number) => n + 1;\n',
      'app/one/index.ts': "import { part } from '../lib/part.ts';\nexport const one = part(1);\n",
      'app/plain/index.ts': "export * from '../lib/part.ts';\nexport const plain = 1;\n",
      'app/main/index.ts': "export { part, plain } from '../plain/index.js';\n",
    });
    const { bundleOnce } = createBatchBuilds(root, (targets, variant, plugins) => esbuildOptions(root, targets, variant, undefined, plugins));
    const built: string[][] = [];
    const counted: typeof bundleOnce = (targets, variant, signal) => (built.push(targets.map((one) => one.specifier)), bundleOnce(targets, variant, signal));
    const targets = ['one', 'plain', 'main'].map(target);
    const variant = developmentVariant('browser');
    const first = await counted(targets, variant);
    // `main` took the file `plain` re-exports from as an input it only depends on.
    expect(first[2]!.errors).to.deep.equal([]);
    expect(first[2]!.inputs).to.include('app/lib/part.ts');
    expect(first[2]!.resolution).to.include('app/lib/part.ts');
    await shareWithinBatch(counted, targets, first, variant);
    expect(built).to.deep.equal([
      ['@t/app/one', '@t/app/plain', '@t/app/main'],
      ['@t/app/one', '@t/app/plain', '@t/app/.shared/lib/part.ts'],
    ]);
  });
});
