// A name nothing binds (not Node's) written or read where the import runs, after an import for
// effects of a workspace module (README "Bundling real code", names nothing binds and Shims), in
// Chromium: each importer's page throws exactly while /state calls it invalid, as the module
// imported writes the name on the global object or not; no importer is built again meanwhile. The
// page maps the imported module to its code as the service serves it, and runs the code esbuild
// writes for the importer (the service answers 422 for that while it is invalid).
import { expect } from 'chai';
import { write } from '../helpers/edit.js';
import { effectsPageSuite } from '../helpers/effects-page.js';
import { effectsUnboundWorkspace, IMPORTERS, SETUP, SHIM } from '../helpers/effects-unbound-workspace.js';
import { waitFor } from '../helpers/wait-for.js';

type Importer = keyof typeof IMPORTERS;

describe('a name nothing binds used after an import for effects, in Chromium', function () {
  this.timeout(300_000);
  const suite = effectsPageSuite(effectsUnboundWorkspace, 'http://unbound-shims.test');

  const statuses = async () => {
    const modules = (await suite.service.report()).modules;
    return Object.keys(IMPORTERS).map((name) => modules.find((module) => module.specifier === `@p/app/${name}`)!.status);
  };

  const run = (name: Importer) => suite.run(IMPORTERS[name].file);

  const THROWN: Record<Importer, string> = { written: 'cache is not defined', called: 'gtag is not defined', typed: 'gtag is not defined' };

  async function expectEachThrows(): Promise<void> {
    for (const name of Object.keys(IMPORTERS) as Importer[]) {
      const ran = await run(name);
      expect(ran.shown, name).to.equal(null);
      expect(ran.errors.join(' | '), name).to.include(THROWN[name]);
    }
  }

  it('throws while each importer is invalid, runs while it is valid, following the edits of the module imported', async function () {
    expect(await statuses()).to.deep.equal(['invalid', 'invalid', 'invalid']);
    await expectEachThrows();

    const importerBuilds = () => [...suite.service.internals.log.events()].filter((event) => event.type === 'build.started' && event.modules.some(({ module }) => module.startsWith('@p/app/'))).length;
    const builtBefore = importerBuilds();
    write(suite.root, 'packages/lib/setup.js', SETUP + SHIM);
    await waitFor(async () => (await statuses()).every((status) => status === 'valid'), { what: 'the importers valid once @p/lib/setup writes cache and gtag', timeout: 60_000 });
    for (const name of Object.keys(IMPORTERS) as Importer[]) expect(await run(name), name).to.deep.equal({ shown: IMPORTERS[name].shown, errors: [] });

    write(suite.root, 'packages/lib/setup.js', SETUP);
    await waitFor(async () => (await statuses()).every((status) => status === 'invalid'), { what: 'the importers invalid again once @p/lib/setup writes neither', timeout: 60_000 });
    await expectEachThrows();
    expect(importerBuilds()).to.equal(builtBefore);
  });
});
