// A declared asset is its own module's (README "Shared files"): imported through a helper the
// module bundles (a copy), another module's asset is refused, however the builds were grouped.
// Before, it resolved when the declaring module was built in the same esbuild build (the plugin
// knew every declaration of the build) and was "not a declared asset" when the importer was built
// alone: the report depended on grouping. Every grouping is tried: a first start (both modules in
// one build), an edit rebuilding the importer alone, a restart from the build cache, `core dist`.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';
import type { Diagnostic } from '../../src/workspace/diagnostics.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/other'] }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'packages/app/main/module.json': json({ assets: ['logo.svg'] }),
    'packages/app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'packages/app/main/helper.ts': "import logo from './logo.svg';\nexport const logoUrl = logo;\n",
    'packages/app/main/index.ts': "import { logoUrl } from './helper.ts';\nexport const main = logoUrl;\n",
    'packages/other/package.json': json({ name: '@p/other', version: '1.0.0', exports: { './view': './view/index.ts' } }),
    'packages/other/view/index.ts': "import { logoUrl } from '../../app/main/helper.ts';\nexport const view = logoUrl;\n",
  });
}

const described = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => `${d.kind} ${d.file}:${d.line}:${d.column} ${d.message}`);
/** Each module's status and its diagnostics (warnings, such as the copy's HELPER_SHARED, are apart). */
const outcome = (report: Report) => report.modules.map((m) => [m.specifier, m.status, described(m.diagnostics)] as const);


describe("another module's declared asset imported through a copied helper", function () {
  it('is refused the same way whatever the grouping: a first start, a restart from the build cache, an edit, core dist', async function () {
    const root = workspace();
    const cache = path.join(root, '.core-test-cache');
    const first = await serve(root, { cache });
    let started: ReturnType<typeof outcome>;
    try {
      started = outcome(await first.report());
    } finally {
      await first.close();
    }
    // Both modules in one build: the importer is refused as it is built alone.
    expect(started.map(([specifier, status]) => [specifier, status])).to.deep.equal([
      ['@p/app/main', 'valid'],
      ['@p/other/view', 'invalid'],
    ]);
    expect(started[1]![2]).to.deep.equal([
      'BUNDLE_ERROR packages/app/main/helper.ts:1:18 "./logo.svg" is not a declared asset of the module importing it: a module imports only the assets it declares itself; add "logo.svg" to "assets" in the module.json beside it if it is this module\'s, or import the code using it through the public module that declares it',
    ]);

    // A restart: every build restored from the build cache.
    const again = await serve(root, { cache });
    try {
      expect(outcome(await again.report()), 'restored from the build cache').to.deep.equal(started);
      // The importer built alone: an edit makes it valid, the next imports the helper again.
      const entry = path.join(root, 'packages/other/view/index.ts');
      const text = fs.readFileSync(entry, 'utf8');
      const viewStatus = async (status: string) =>
        waitFor(async () => {
          const report = (await again.get('/state')).json<Report>();
          return report.modules.find((m) => m.specifier === '@p/other/view')!.status === status && report;
        });
      fs.writeFileSync(entry, 'export const view = 1;\n');
      await viewStatus('valid');
      fs.writeFileSync(entry, text);
      expect(outcome(await viewStatus('invalid')), 'the importer rebuilt alone').to.deep.equal(started);
    } finally {
      await again.close();
    }

    // core dist: its own builds, production variant.
    const result = await distribute({ root, out: path.join(root, 'dist-out'), parallelism: 1 });
    expect(result.invalid.map((m) => m.module.specifier)).to.deep.equal(['@p/other/view']);
    expect(described(result.invalid[0]!.diagnostics)).to.deep.equal(started[1]![2]);
  });
});
