// A bundler that cannot be loaded is a condition of the workspace: each module that selects it
// is invalid with one line naming the bundler, the package.json that selects it and what to do.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

describe('a bundler that cannot be resolved', function () {
  it('makes its modules invalid, naming the bundler and the manifest, in one line without a require stack', async function () {
    const root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@acme/app', version: '1.0.0', exports: { './main': './main/index.ts' }, core: { bundler: 'fancy' }, bundlers: { fancy: 'nope-bundler' } },
        files: { 'main/index.ts': 'export const x = 1;\n' },
      },
    });
    const service = await serve(root);
    try {
      const report = await service.report();
      const [module] = report.modules;
      expect(module!.status).to.equal('invalid');
      const [problem] = module!.diagnostics;
      expect(problem).to.include({ kind: 'BUNDLE_ERROR', file: 'packages/app/package.json' });
      expect(problem!.message).to.equal(
        `@acme/app/main cannot be built: the bundler "fancy" (nope-bundler) cannot be resolved from the workspace or from @core-js/packages (Cannot find module 'nope-bundler'); install it in the workspace, or correct "core.bundler" or "bundlers" in packages/app/package.json`,
      );
      expect(problem!.message).to.not.include('\n');
    } finally {
      await service.close();
    }
  });
});
