// A name nothing binds (not Node's) written or read where the import runs, after an import for
// effects of another module (README "Bundling real code", names nothing binds and Shims): judged
// across the builds of both, as a Node global's read is (test/integration/effects-shims.test.ts).
// While the module imported writes neither name, each use is a BUNDLE_ERROR in /state and `core
// dist`; an edit of that module alone (the shim added, then removed) changes the importers'
// verdicts, with no build of them. One after a module handing the global object on stays a warning.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ModuleReport } from '../../src/store/selectors.js';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { write } from '../helpers/edit.js';
import { restartFromCache } from '../helpers/cache-restart.js';
import { effectsUnboundWorkspace, IMPORTERS, SETUP, SHIM } from '../helpers/effects-unbound-workspace.js';

const byName = (modules: ModuleReport[]) => new Map(modules.map((module) => [module.specifier, module]));
const IMPORTER_NAMES = Object.keys(IMPORTERS).map((name) => `@p/app/${name}`);

describe('a name nothing binds used after an import for effects, judged across modules', function () {
  this.timeout(120_000);
  const made: string[] = [];
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is a BUNDLE_ERROR while the module imported writes no such name, and follows that module\'s edits with no build of the importers', async () => {
    const root = effectsUnboundWorkspace();
    made.push(root);
    const service = await serve(root);
    try {
      const statuses = async () => {
        const now = byName((await service.report()).modules);
        return IMPORTER_NAMES.map((name) => now.get(name)!.status);
      };
      const modules = byName((await service.report()).modules);
      const told = (name: string) => modules.get(name)!.diagnostics.map(({ kind, file, line }) => ({ kind, file, line }));
      expect(told('@p/app/written')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/written.js', line: 2 }]);
      expect(told('@p/app/called')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/called.js', line: 2 }]);
      expect(told('@p/app/typed')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/typed.ts', line: 3 }]);
      expect(modules.get('@p/app/written')!.diagnostics[0]!.message).to.include('no module it imports for its effects writes cache').and.to.include('@p/lib/setup').and.to.include('ReferenceError: cache is not defined');
      expect(modules.get('@p/app/written')!.warnings ?? []).to.deep.equal([]);
      const handed = modules.get('@p/app/handed')!;
      expect(handed.status).to.equal('valid');
      expect((handed.warnings ?? []).map(({ message }) => message).join()).to.include('first imports @p/lib/handed for its effects, which may write cache');

      const importerBuilds = () => [...service.internals.log.events()].filter((event) => event.type === 'build.started' && event.modules.some(({ module }) => IMPORTER_NAMES.includes(module))).length;
      const builtBefore = importerBuilds();
      write(root, 'packages/lib/setup.js', SETUP + SHIM);
      await waitFor(async () => (await statuses()).every((status) => status === 'valid'), { what: 'the importers valid once @p/lib/setup writes cache and gtag', timeout: 60_000 });
      expect((await service.get('/m/@p/app@1.0.0/modules/written')).status).to.equal(200);

      write(root, 'packages/lib/setup.js', SETUP);
      await waitFor(async () => (await statuses()).every((status) => status === 'invalid'), { what: 'the importers invalid again once @p/lib/setup writes neither', timeout: 60_000 });
      expect((await service.get('/m/@p/app@1.0.0/modules/written')).status).to.equal(422);
      expect(importerBuilds()).to.equal(builtBefore);
    } finally {
      await service.close();
    }
  });

  it('judges a restart from the build cache the same, with no build', async () => {
    const root = effectsUnboundWorkspace();
    made.push(root);
    const { before, after, started } = await restartFromCache(root, 6, made);
    expect(IMPORTER_NAMES.map((name) => byName(before.modules).get(name)!.status)).to.deep.equal(['invalid', 'invalid', 'invalid']);
    expect(started).to.deep.equal([]);
    expect(after).to.deep.equal(before);
  });

  it('makes core dist refuse the same importers, and write the others', async () => {
    const root = effectsUnboundWorkspace();
    const out = path.join(root, 'out');
    made.push(root);
    const result = await distribute({ root, out });
    expect(result.invalid.map(({ module }) => module.specifier).sort()).to.deep.equal([...IMPORTER_NAMES].sort());
    const listed = result.manifest.outputs.filter((output) => output.kind === 'code').map((output) => output.module);
    expect(listed).to.include.members(['@p/app/handed', '@p/lib/setup', '@p/lib/handed']);
  });
});
