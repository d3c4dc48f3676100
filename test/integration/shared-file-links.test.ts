// Names reached through shared files (README "Shared files", "Bundling real code"): a public module
// re-exporting a private file that another module of its package imports too (`export * from
// './x'`, x built alone at `<package>/.shared/<path>`) gives its importers the file's names, which
// `/state` judges as any module's: valid when the file exports the name, invalid at the import when
// not, never pending for ever; the same after a restart from the build cache, and on the page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { sharedBetweenWorkspace, sharedLinksWorkspace } from '../helpers/shared-links-workspace.js';
import { writeFile } from '../helpers/workspace.js';

const DEV = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';
const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';

const statuses = (report: { modules: { specifier: string; status: string }[] }) => Object.fromEntries(report.modules.map((module) => [module.specifier, module.status]));
const ALL_VALID = { '@s/lib/deep': 'valid', '@s/lib/inner': 'valid', '@s/lib/named': 'valid', '@s/lib/namespace': 'valid', '@s/lib/star': 'valid', '@s/lib/user': 'valid', '@s/app/main': 'valid', '@s/base/m': 'valid' };

describe('names reached through shared files', function () {
  this.timeout(60_000);

  it('are judged: every importer valid, its page mapped (the shared files included), its addresses answered', async () => {
    const service = await serve(sharedLinksWorkspace());
    try {
      expect(statuses(await service.report())).to.deep.equal(ALL_VALID);
      expect((await service.get(`/m/@s/lib@1.0.0/modules/star?${DEV}`)).text).to.include('export * from "@s/lib/.shared/src/x.ts"');
      const entry = (await service.get('/preview/entry.json?entry=@s/app/main')).json<{ diagnostics: unknown[]; imports: Record<string, string> }>();
      expect(entry.diagnostics).to.deep.equal([]);
      expect(Object.keys(entry.imports)).to.include.members(['@s/app/main', '@s/lib/star', '@s/lib/deep', '@s/lib/.shared/src/x.ts', '@s/lib/.shared/src/mid.ts', '@s/lib/.shared/src/leaf.ts', '@s/base/m']);
      for (const query of [DEV, PRODUCTION]) expect((await service.get(`/m/@s/app@1.0.0/modules/main?${query}`)).status, query).to.equal(200);
    } finally {
      await service.close();
    }
  });

  it('list an importer of a name the shared file does not give invalid at its import, in a running service and after a restart from the build cache', async () => {
    const root = sharedLinksWorkspace();
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    try {
      const first = await serve(root, { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
      expect(statuses(await first.report())).to.deep.equal(ALL_VALID);
      writeFile(root, 'packages/app/main.ts', "import { x, missing } from '@s/lib/star';\nimport { gone } from '@s/lib/deep';\ndocument.body.dataset.result = [x, missing, gone].join(',');\n");
      const running = await first.report();
      const main = running.modules.find((module) => module.specifier === '@s/app/main')!;
      expect(main.status).to.equal('invalid');
      expect(main.diagnostics.map(({ kind, file, line, message }) => ({ kind, file, line, names: message.split(' (')[0] }))).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: 'packages/app/main.ts', line: 1, names: '@s/lib/star does not export "missing"' },
        { kind: 'BUNDLE_ERROR', file: 'packages/app/main.ts', line: 2, names: '@s/lib/deep does not export "gone"' },
      ]);
      expect((await first.get(`/m/@s/app@1.0.0/modules/main?${DEV}`)).status).to.equal(422);
      const written = () => JSON.parse(fs.readFileSync(path.join(cache, 'builds.json'), 'utf8')) as { entries: { module: string; record: { links?: object } }[] };
      const mainKept = () => written().entries.find((entry) => entry.module === '@s/app/main')?.record.links;
      await waitFor(() => fs.existsSync(path.join(cache, 'builds.json')) && written().entries.length === 8 && JSON.stringify(mainKept()).includes('"missing"'), { what: 'the edited build kept in the cache' });
      await first.close();

      const second = await serve(root, { cache });
      const restarted = await second.report();
      expect(second.internals.log.events().filter((event) => event.type === 'build.started')).to.deep.equal([]);
      expect(restarted.modules).to.deep.equal(running.modules);
      await second.close();
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it('list an importer of a name a shared file stopped exporting (an edit of it) invalid, and valid again once it exports it', async () => {
    const root = sharedLinksWorkspace();
    const service = await serve(root);
    try {
      expect(statuses(await service.report())).to.deep.equal(ALL_VALID);
      writeFile(root, 'packages/lib/src/x.ts', "export const renamed = 'X';\nexport const y = 'Y';\nexport * from '@s/base/m';\n");
      const edited = await service.report();
      const invalid = edited.modules.filter((module) => module.status !== 'valid');
      const told = (one: { message: string; file?: string; line?: number; column?: number }) => `${one.file}:${one.line}:${one.column} ${one.message.split(' (')[0]}`;
      expect(invalid.map((module) => [module.specifier, module.status, module.diagnostics.map(told)])).to.deep.equal([
        ['@s/lib/inner', 'invalid', ['packages/lib/src/inner.ts:1:29 @s/lib/star does not export "x"']],
        // Its own import of the file, which esbuild no longer checks once the file is built alone:
        // told at that import, as written (`'./x'`), as any other missing name is at its import.
        ['@s/lib/user', 'invalid', ['packages/lib/src/user.ts:2:19 src/x.ts, a file several modules of @s/lib import']],
        ['@s/app/main', 'invalid', ['packages/app/main.ts:1:29 @s/lib/star does not export "x"']],
      ]);
      writeFile(root, 'packages/lib/src/x.ts', "export const x = 'X';\nexport const y = 'Y';\nexport * from '@s/base/m';\n");
      expect(statuses(await service.report())).to.deep.equal(ALL_VALID);
    } finally {
      await service.close();
    }
  });

  // Built alone, a shared file importing another is never looked into by esbuild either: a name
  // missing between the two fails every importer's page as one missing from its own import does.
  it('list the importers of a shared file that imports a name another shared file stopped exporting invalid, at that import, and valid again once it exports it', async () => {
    const root = sharedBetweenWorkspace();
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(statuses(report)).to.deep.equal({ '@b/lib/one': 'valid', '@b/lib/two': 'valid' });
      writeFile(root, 'packages/lib/src/b.ts', 'export const registry: string[] = [];\n');
      const edited = await service.report();
      const told = (one: { kind: string; message: string; file?: string; line?: number; column?: number }) => `${one.kind} ${one.file}:${one.line}:${one.column} ${one.message.split(' (')[0]}`;
      const expected = ['BUNDLE_ERROR packages/lib/src/a.ts:1:33 src/b.ts, a file several modules of @b/lib import'];
      expect(edited.modules.map((module) => [module.specifier, module.status, module.diagnostics.map(told)])).to.deep.equal([
        ['@b/lib/one', 'invalid', expected],
        ['@b/lib/two', 'invalid', expected],
      ]);
      expect(edited.modules[0]!.diagnostics[0]!.message).to.include('does not export "extra"');
      expect((await service.get(`/m/@b/lib@1.0.0/modules/one?${DEV}`)).status).to.equal(422);
      writeFile(root, 'packages/lib/src/b.ts', "export const registry: string[] = [];\nexport const extra = 'E';\n");
      expect(statuses(await service.report())).to.deep.equal({ '@b/lib/one': 'valid', '@b/lib/two': 'valid' });
    } finally {
      await service.close();
    }
  });

  it('list the importers of a shared file that imports a name a public module stopped exporting invalid, at that import in the shared file', async () => {
    const root = sharedBetweenWorkspace();
    writeFile(root, 'core.json', JSON.stringify({ packages: ['packages/lib', 'packages/other'] }));
    writeFile(root, 'packages/other/package.json', JSON.stringify({ name: '@b/other', version: '1.0.0', exports: { './m': './m.ts' } }));
    writeFile(root, 'packages/other/m.ts', 'export const k = 1;\n');
    writeFile(root, 'packages/lib/package.json', JSON.stringify({ name: '@b/lib', version: '1.0.0', dependencies: { '@b/other': '1.0.0' }, exports: { './one': './src/one.ts', './two': './src/two.ts' } }));
    writeFile(root, 'packages/lib/src/a.ts', "import { registry, extra } from './b.ts';\nimport { k } from '@b/other/m';\nexport const a = `${registry.length}${extra}${k}`;\n");
    const service = await serve(root);
    try {
      expect(statuses(await service.report())).to.deep.equal({ '@b/lib/one': 'valid', '@b/lib/two': 'valid', '@b/other/m': 'valid' });
      writeFile(root, 'packages/other/m.ts', 'export const renamed = 1;\n');
      const told = (one: { kind: string; message: string; file?: string; line?: number; column?: number }) => `${one.kind} ${one.file}:${one.line}:${one.column} ${one.message.split(' (')[0]}`;
      const expected = ['BUNDLE_ERROR packages/lib/src/a.ts:2:19 @b/other/m does not export "k"'];
      expect((await service.report()).modules.map((module) => [module.specifier, module.status, module.diagnostics.map(told)])).to.deep.equal([
        ['@b/lib/one', 'invalid', expected],
        ['@b/lib/two', 'invalid', expected],
        ['@b/other/m', 'valid', []],
      ]);
    } finally {
      await service.close();
    }
  });

  it('keep the place of an import of a shared file across a restart from the build cache', async () => {
    const root = sharedLinksWorkspace();
    writeFile(root, 'packages/lib/src/user.ts', "import { leaf } from './mid';\nimport { x, gone } from './x';\nexport const user = leaf + x + gone;\n");
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    const placeOf = (report: { modules: { specifier: string; diagnostics: { file?: string; line?: number; column?: number }[] }[] }) =>
      report.modules.find((module) => module.specifier === '@s/lib/user')!.diagnostics.map(({ file, line, column }) => `${file}:${line}:${column}`);
    try {
      const first = await serve(root, { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
      expect(placeOf(await first.report())).to.deep.equal(['packages/lib/src/user.ts:2:25']);
      await waitFor(() => fs.existsSync(path.join(cache, 'builds.json')) && fs.readFileSync(path.join(cache, 'builds.json'), 'utf8').includes('"sharedImports"'), { what: 'the builds kept in the cache' });
      await first.close();
      const second = await serve(root, { cache });
      expect(second.internals.log.events().filter((event) => event.type === 'build.started')).to.deep.equal([]);
      expect(placeOf(await second.report())).to.deep.equal(['packages/lib/src/user.ts:2:25']);
      await second.close();
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
