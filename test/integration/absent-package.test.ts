// A package directory core.json lists that has no package.json for a while (README
// "Workspaces"): moved away by a checkout half-way, emptied, or its package.json deleted. Its
// name stays the workspace's: the name it had at the last read of this run, else in the build
// cache's saved model, else in npm's lockfile. An import of it is never mapped to the CDN;
// `/state` names it in the importer's `invalidImports`; `core dist` does not list it as
// external; the directory back heals all of it without a restart.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const CDN = 'https://cdn.test';
const LIB = 'packages/lib';
const QUERY = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';

function workspace(): string {
  const root = inlineWorkspace({
    'packages/app': {
      manifest: { name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '1.0.0', lit: '3.1.0' }, core: { modules: '.' } },
      files: { 'main/index.ts': "import { a } from '@p/lib/util';\nimport { html } from 'lit';\ndocument.body.dataset.ok = a + typeof html;\n" },
    },
    [LIB]: { manifest: { name: '@p/lib', version: '1.0.0', exports: { './util': './util/index.ts' }, core: { modules: '.' } }, files: { 'util/index.ts': "export const a = 'mine';\n" } },
  });
  fs.writeFileSync(path.join(root, 'core.json'), JSON.stringify({ packages: ['packages/app', LIB], preview: '@p/app/main' }));
  return root;
}

// Each shape puts the directory away and gives back a function that restores it.
const shapes: { label: string; away: (root: string) => () => void }[] = [
  {
    label: 'moved away',
    away: (root) => {
      fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
      return () => fs.renameSync(path.join(root, 'lib-away'), path.join(root, LIB));
    },
  },
  {
    label: 'emptied',
    away: (root) => {
      fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
      fs.mkdirSync(path.join(root, LIB));
      return () => {
        fs.rmdirSync(path.join(root, LIB));
        fs.renameSync(path.join(root, 'lib-away'), path.join(root, LIB));
      };
    },
  },
  {
    label: 'without its package.json',
    away: (root) => {
      const file = path.join(root, LIB, 'package.json');
      const text = fs.readFileSync(file, 'utf8');
      fs.rmSync(file);
      return () => fs.writeFileSync(file, text);
    },
  },
];

const entryOf = async (service: Awaited<ReturnType<typeof serve>>) => (await service.get('/preview/entry.json')).json();

describe('an import of a listed workspace package whose directory has no package.json', () => {
  for (const shape of shapes) {
    describe(`the directory ${shape.label} while the service runs`, () => {
      let service: Awaited<ReturnType<typeof serve>>;
      let root: string;
      let restore: () => void;

      before(async () => {
        root = workspace();
        service = await serve(root, { cdnOrigin: CDN });
        expect((await service.report()).modules.map((module) => module.status)).to.deep.equal(['valid', 'valid']);
        restore = shape.away(root);
      });
      after(() => service?.close());

      it('maps it to an address of the service by the name and version of the last read, never to the CDN; lit keeps its CDN address', async () => {
        const entry = await entryOf(service);
        expect(entry.imports['@p/lib/util']).to.equal(`/m/@p/lib@1.0.0/modules/util?${QUERY}`);
        expect(entry.imports.lit).to.equal(`${CDN}/lit@3.1.0`);
        expect(entry.diagnostics.map((problem: { kind: string; message: string }) => `${problem.kind} ${problem.message}`)).to.deep.equal([`MANIFEST_INVALID core.json lists the package directory "${LIB}", which has no package.json`]);
      });

      it('answers that address with the missing manifest', async () => {
        const answer = await service.get((await entryOf(service)).imports['@p/lib/util']);
        expect(answer.status).to.equal(422);
        const body = answer.json();
        expect(body.code).to.equal('BUILD_FAILED');
        expect(body.message).to.include(`the workspace package of ${LIB}`).and.include('never sent to a CDN');
        expect(body.diagnostics.map((problem: { kind: string; file: string }) => `${problem.kind} ${problem.file}`)).to.deep.equal(['MANIFEST_INVALID core.json']);
      });

      it("lists the import in the importer's invalidImports on /state", async () => {
        const main = (await service.report()).modules.find((module) => module.specifier === '@p/app/main')!;
        expect(main.status).to.equal('valid');
        expect(main.invalidImports).to.deep.equal(['@p/lib/util']);
      });

      it('heals once the directory is back, without a restart', async () => {
        restore();
        const report = await service.report();
        expect(report.modules.map((module) => [module.specifier, module.status, module.invalidImports])).to.deep.equal([
          ['@p/app/main', 'valid', undefined],
          ['@p/lib/util', 'valid', undefined],
        ]);
        const entry = await entryOf(service);
        expect(entry.imports['@p/lib/util']).to.match(/^\/m\/@p\/lib@1\.0\.0\/modules\/util\?.*&v=/);
        expect((await service.get(entry.imports['@p/lib/util'])).status).to.equal(200);
      });
    });
  }

  it('knows its name at a restart from the model the build cache saved, though that model no longer holds', async () => {
    const root = workspace();
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    try {
      const first = await serve(root, { cdnOrigin: CDN, cache: cacheDir, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
      await first.report();
      const index = path.join(cacheDir, 'builds.json');
      await waitFor(() => fs.existsSync(index) && 'workspace' in JSON.parse(fs.readFileSync(index, 'utf8')), { what: 'the saved workspace model' });
      await first.close();
      fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
      const second = await serve(root, { cdnOrigin: CDN, cache: cacheDir });
      try {
        const entry = await entryOf(second);
        expect(entry.imports['@p/lib/util']).to.equal(`/m/@p/lib@1.0.0/modules/util?${QUERY}`);
        // Named, so a package outside the workspace is still the CDN's.
        expect(entry.imports.lit).to.equal(`${CDN}/lit@3.1.0`);
        expect((await second.report()).modules.find((module) => module.specifier === '@p/app/main')?.invalidImports).to.deep.equal(['@p/lib/util']);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('at a first start with no name known, sends no import outside the workspace to the CDN', async () => {
    const root = workspace();
    fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
    const service = await serve(root, { cdnOrigin: CDN });
    try {
      const entry = await entryOf(service);
      expect(entry.imports['@p/lib/util']).to.equal(`/m/@p/lib@unread/modules/util?${QUERY}`);
      expect(entry.imports.lit).to.equal(`/m/lit@unread/modules/@root?${QUERY}`);
      const answer = (await service.get(entry.imports.lit)).json();
      expect(answer.code).to.equal('OUTPUT_NOT_AVAILABLE');
      expect(answer.message).to.include(`core.json lists ${LIB}, which has no package.json now and whose name is not known`);
      // /state (and the terminal, which prints the same problem) says why every outside import is held, and what to do.
      const report = await service.report();
      expect(report.modules.find((module) => module.specifier === '@p/app/main')?.invalidImports).to.deep.equal(['@p/lib/util', 'lit']);
      expect(report.diagnostics.map((problem) => problem.message)).to.deep.equal([
        `core.json lists the package directory "${LIB}", which has no package.json; no name of it is known (no earlier read, build cache or npm lockfile names it), so any import of a package outside the workspace may be of it and is held back, never sent to a CDN: put ${LIB}/package.json back, or remove "${LIB}" from core.json's "packages"`,
      ]);
    } finally {
      await service.close();
    }
  });

  describe('core dist', () => {
    it("lists neither it nor, without a name known, any import as external, and writes no page that loads it", async () => {
      const root = workspace();
      fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
      const result = await distribute({ root, out: path.join(root, 'dist'), parallelism: 1 });
      expect(result.ok).to.equal(false);
      expect(result.manifest.external.map((external) => external.specifier)).to.deep.equal([]);
      expect(result.page.written).to.equal(false);
      expect(result.page.written ? null : result.page.reason).to.include('@p/lib/util').and.include(LIB);
      expect(fs.existsSync(path.join(root, 'dist', 'index.html'))).to.equal(false);
    });

    it("knows its name from npm's lockfile: lit is external, @p/lib is not", async () => {
      const root = workspace();
      fs.writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { workspaces: ['packages/*'] }, 'node_modules/@p/lib': { resolved: LIB, link: true }, [LIB]: { name: '@p/lib', version: '1.0.0' } } }));
      fs.renameSync(path.join(root, LIB), path.join(root, 'lib-away'));
      const result = await distribute({ root, out: path.join(root, 'dist'), parallelism: 1 });
      expect(result.ok).to.equal(false);
      expect(result.manifest.external.map((external) => external.specifier)).to.deep.equal(['lit']);
      expect(result.page.written).to.equal(false);
      expect(result.page.written ? null : result.page.reason).to.include(`the workspace package of ${LIB}`);
    });
  });
});
