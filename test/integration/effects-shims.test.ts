// A Node global read where the import runs, after an import for effects of another module
// (README "Bundling real code", Shims): judged across the builds of both. When every module those
// imports run is a workspace module built that writes no such name, the read is a BUNDLE_ERROR in
// /state, the preview's entry.json, the module's addresses and `core dist`; an edit of the imported
// module alone (the shim added, then removed) changes the importer's verdict, with no build of it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ModuleReport } from '../../src/store/selectors.js';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { write } from '../helpers/edit.js';
import { restartFromCache } from '../helpers/cache-restart.js';
import { effectsShimsWorkspace, SETUP, SHIM } from '../helpers/effects-shims-workspace.js';

const byName = (modules: ModuleReport[]) => new Map(modules.map((module) => [module.specifier, module]));
const kinds = (diagnostics: readonly { kind: string }[] | undefined) => (diagnostics ?? []).map(({ kind }) => kind);

describe('a read taken as defined because of an import for effects, judged across modules', function () {
  this.timeout(120_000);
  const made: string[] = [];
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is a BUNDLE_ERROR in /state, entry.json and the addresses when the module imported writes no such name, and follows that module\'s edits with no build of the importer', async () => {
    const root = effectsShimsWorkspace();
    made.push(root);
    const service = await serve(root);
    try {
      const modules = byName((await service.report()).modules);
      const app = modules.get('@p/app/app')!;
      expect(app.status).to.equal('invalid');
      expect(app.diagnostics.map(({ kind, file, line }) => ({ kind, file, line }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/app.js', line: 2 }]);
      expect(app.diagnostics[0]!.message).to.include('no module it imports for its effects writes process').and.to.include('@p/lib/setup');
      // The warning it replaces is not told besides.
      expect(kinds(app.warnings)).to.deep.equal([]);
      for (const kept of ['@p/app/chained', '@p/app/installed', '@p/app/handed']) {
        expect(modules.get(kept)!.status, kept).to.equal('valid');
        expect((modules.get(kept)!.warnings ?? []).map(({ message }) => message).join(), kept).to.include('for its effects, which may write process');
      }
      const entry = (await service.get('/preview/entry.json?entry=@p/app/app')).json<{ diagnostics?: { kind: string; file?: string }[] }>();
      expect((entry.diagnostics ?? []).map(({ kind, file }) => ({ kind, file }))).to.deep.include({ kind: 'BUNDLE_ERROR', file: 'packages/app/app.js' });
      expect((await service.get('/m/@p/app@1.0.0/modules/app')).status).to.equal(422);

      const appBuilds = () => [...service.internals.log.events()].filter((event) => event.type === 'build.started' && event.modules.some(({ module }) => module === '@p/app/app')).length;
      const builtBefore = appBuilds();
      write(root, 'packages/lib/setup.js', SETUP + SHIM);
      await waitFor(async () => byName((await service.report()).modules).get('@p/app/app')!.status === 'valid', { what: '@p/app/app valid once @p/lib/setup writes process', timeout: 60_000 });
      const healed = byName((await service.report()).modules).get('@p/app/app')!;
      expect(healed.diagnostics).to.deep.equal([]);
      expect((healed.warnings ?? []).map(({ message }) => message).join()).to.include('first imports @p/lib/setup for its effects');
      expect((await service.get('/m/@p/app@1.0.0/modules/app')).status).to.equal(200);

      write(root, 'packages/lib/setup.js', SETUP);
      await waitFor(async () => byName((await service.report()).modules).get('@p/app/app')!.status === 'invalid', { what: '@p/app/app invalid again once @p/lib/setup no longer writes process', timeout: 60_000 });
      expect(kinds(byName((await service.report()).modules).get('@p/app/app')!.diagnostics)).to.deep.equal(['BUNDLE_ERROR']);
      expect(appBuilds()).to.equal(builtBefore);
    } finally {
      await service.close();
    }
  });

  it('judges a restart from the build cache the same, with no build', async () => {
    const root = effectsShimsWorkspace();
    made.push(root);
    const { before, after, started } = await restartFromCache(root, 8, made);
    expect(byName(before.modules).get('@p/app/app')!.status).to.equal('invalid');
    expect(started).to.deep.equal([]);
    expect(after).to.deep.equal(before);
  });

  it('makes core dist refuse the same importer, and write the others', async () => {
    const root = effectsShimsWorkspace();
    const out = path.join(root, 'out');
    made.push(root);
    const result = await distribute({ root, out });
    expect(result.invalid.map(({ module, diagnostics }) => [module.specifier, diagnostics.map(({ kind, file, line }) => ({ kind, file, line }))])).to.deep.equal([
      ['@p/app/app', [{ kind: 'BUNDLE_ERROR', file: 'packages/app/app.js', line: 2 }]],
    ]);
    const listed = result.manifest.outputs.filter((output) => output.kind === 'code').map((output) => output.module);
    expect(listed).to.include.members(['@p/app/chained', '@p/app/installed', '@p/app/handed', '@p/lib/setup']);
    expect(listed).not.to.include('@p/app/app');
  });
});
