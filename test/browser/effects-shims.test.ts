// A read of process.env.X where the import runs, after an import for effects of a workspace module
// (README "Bundling real code", Shims), in Chromium: the page throws exactly while /state calls the
// importer invalid, as the module imported writes process on the global object or not; the
// importer is never built again meanwhile. The page maps the imported module to its code as the
// service serves it, and runs the code esbuild writes for the importer (the service answers 422
// for that while it is invalid).
import { expect } from 'chai';
import { write } from '../helpers/edit.js';
import { effectsPageSuite } from '../helpers/effects-page.js';
import { effectsShimsWorkspace, SETUP, SHIM } from '../helpers/effects-shims-workspace.js';
import { waitFor } from '../helpers/wait-for.js';

describe('a read taken as defined because of an import for effects, in Chromium', function () {
  this.timeout(300_000);
  const suite = effectsPageSuite(effectsShimsWorkspace, 'http://shims.test');

  const statusOfApp = async () => (await suite.service.report()).modules.find((module) => module.specifier === '@p/app/app')!.status;

  const run = () => suite.run('app.js');

  it('throws while the importer is invalid, runs while it is valid, following the edits of the module imported', async function () {
    expect(await statusOfApp()).to.equal('invalid');
    const invalid = await run();
    expect(invalid.shown).to.equal(null);
    expect(invalid.errors.join(' | ')).to.include('process is not defined');

    const appBuilds = () => [...suite.service.internals.log.events()].filter((event) => event.type === 'build.started' && event.modules.some(({ module }) => module === '@p/app/app')).length;
    const builtBefore = appBuilds();
    write(suite.root, 'packages/lib/setup.js', SETUP + SHIM);
    await waitFor(async () => (await statusOfApp()) === 'valid', { what: '@p/app/app valid once @p/lib/setup writes process', timeout: 60_000 });
    const valid = await run();
    expect(valid).to.deep.equal({ shown: 'shimmed', errors: [] });

    write(suite.root, 'packages/lib/setup.js', SETUP);
    await waitFor(async () => (await statusOfApp()) === 'invalid', { what: '@p/app/app invalid again once @p/lib/setup no longer writes process', timeout: 60_000 });
    const again = await run();
    expect(again.shown).to.equal(null);
    expect(again.errors.join(' | ')).to.include('process is not defined');
    expect(appBuilds()).to.equal(builtBefore);
  });
});
