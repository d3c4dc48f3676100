// Vite's `import.meta.env` in /state, on /m/ and in `core dist` (README "Bundling real code"): the
// five members Vite defines for every build are defined from the variant, so a branch on DEV is in
// the development output and gone from the production one; any other member read is invalid at
// the read, naming it and how to define it; a package that defines it in `core.define` is valid
// and serves the value.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';

const workspace = () =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/lib'] }),
    'packages/app/package.json': json({ name: '@v/app', version: '1.0.0', exports: { './main': './main/index.ts', './api': './api/index.ts' } }),
    'packages/app/main/index.ts': "export const mode = import.meta.env.MODE;\nif (import.meta.env.DEV) (globalThis as { devOnly?: string }).devOnly = 'dev-only-branch';\n",
    'packages/app/api/index.ts': 'export const api = import.meta.env.VITE_API;\n',
    'packages/lib/package.json': json({ name: '@v/lib', version: '1.0.0', exports: { '.': './index.ts' }, core: { define: { 'import.meta.env.VITE_API': '"https://api.test"' } } }),
    'packages/lib/index.ts': 'export const api = import.meta.env.VITE_API;\n',
  });

describe("Vite's import.meta.env, in /state, on /m/ and in core dist", () => {
  it('lists a module reading MODE and DEV valid, one reading another member invalid at the read, and one whose package defines it valid with the value', async () => {
    const service = await serve(workspace());
    try {
      const modules = new Map((await service.report()).modules.map((m) => [m.specifier, m]));
      expect(modules.get('@v/app/main')!.status).to.equal('valid');
      expect(modules.get('@v/app/api')!.status).to.equal('invalid');
      expect(modules.get('@v/app/api')!.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: 'packages/app/api/index.ts', line: 1, column: 20 },
      ]);
      expect(modules.get('@v/app/api')!.diagnostics[0]!.message).to.match(/^import\.meta\.env\.VITE_API is not defined/).and.to.include('core.define');
      expect(modules.get('@v/lib')!.status).to.equal('valid');
      expect((await service.get('/m/@v/lib@1.0.0/modules/@root')).text).to.include('https://api.test');

      const development = (await service.get('/m/@v/app@1.0.0/modules/main')).text;
      expect(development).to.include('"development"').and.to.include('dev-only-branch').and.not.to.include('import.meta.env');
      const production = (await service.get(`/m/@v/app@1.0.0/modules/main?${PRODUCTION}`)).text;
      expect(production).to.include('"production"').and.not.to.include('dev-only-branch').and.not.to.include('import.meta.env');
    } finally {
      await service.close();
    }
  });

  it('lists a module reading env from import.meta held by a binding or destructured invalid at the place it holds it, and one holding it for url valid', async () => {
    const root = workspace();
    fs.writeFileSync(path.join(root, 'packages/app/package.json'), json({ name: '@v/app', version: '1.0.0', exports: { './alias': './alias/index.ts', './destr': './destr/index.ts', './url': './url/index.ts' } }));
    for (const [name, text] of Object.entries({
      alias: '// held whole\nconst m = import.meta;\nexport const mode = String(m.env.MODE);\n',
      destr: 'const { env } = import.meta;\nexport const dev = String(env.DEV);\n',
      url: 'const m = import.meta;\nexport const here = m.url + import.meta.resolve("./x.js");\n',
    })) {
      fs.mkdirSync(path.join(root, `packages/app/${name}`), { recursive: true });
      fs.writeFileSync(path.join(root, `packages/app/${name}/index.ts`), text);
    }
    const service = await serve(root);
    try {
      const modules = new Map((await service.report()).modules.map((m) => [m.specifier, m]));
      expect(modules.get('@v/app/url')!.status).to.equal('valid');
      for (const [name, line, column] of [['alias', 2, 11], ['destr', 1, 17]] as const) {
        const module = modules.get(`@v/app/${name}`)!;
        expect(module.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column })), name).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: `packages/app/${name}/index.ts`, line, column }]);
        expect(module.diagnostics[0]!.message).to.match(/^import\.meta is held whole and env read from it/);
      }
    } finally {
      await service.close();
    }
  });

  it('writes the production values into core dist, the branch on DEV left out', async () => {
    const root = workspace();
    fs.rmSync(path.join(root, 'packages/app/api'), { recursive: true });
    fs.writeFileSync(path.join(root, 'packages/app/package.json'), json({ name: '@v/app', version: '1.0.0', exports: { './main': './main/index.ts' } }));
    const out = path.join(root, 'dist');
    const { manifest } = await distribute({ root, out });
    const main = manifest.outputs.find((output) => output.kind === 'code' && output.module === '@v/app/main');
    const code = fs.readFileSync(path.join(out, main!.path), 'utf8');
    expect(code).to.include('"production"').and.not.to.include('dev-only-branch').and.not.to.include('import.meta.env');
  });
});
