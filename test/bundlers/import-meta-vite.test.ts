// Vite's own `import.meta` members (README "Bundling real code"): `import.meta.env` and
// `import.meta.glob` are defined by no browser, no Node and no esbuild build, so the page threw
// ("Cannot read properties of undefined", "import.meta.glob is not a function") while /state said
// valid. Each is a BUNDLE_ERROR at its place unless the package defines it (`core.define`); a
// mention in a string or a comment, `import.meta.url` and `import.meta.hot` (undefined: guarded
// by whoever reads it) are not.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const places = (result: BundleResult) => result.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }));
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

describe("Vite's import.meta members in a module", () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const write = (relative: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), content);
  };

  beforeEach(() => {
    root = tempWorkspace({});
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`reports import.meta.env and import.meta.glob at their places, and nothing else (${variant.env})`, async () => {
      write(
        'app/main/index.ts',
        [
          "import { api } from './config.ts';",
          "export const said = 'write import.meta.env.DEV in a Vite app'; // import.meta.env in a comment",
          'export const where = [api, import.meta.url, import.meta.hot ? 1 : 0];',
          "export const pages = import.meta.glob('./pages/*.ts');",
          '',
        ].join('\n'),
      );
      write('app/main/config.ts', 'export const api = import.meta.env.VITE_API;\n');
      const [result] = await engine.bundle([appTarget('main')], variant);
      expect(places(result!)).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: 'app/main/config.ts', line: 1, column: 20 },
        { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 4, column: 22 },
      ]);
      const [env, glob] = result!.errors.map((error) => error.message);
      expect(env).to.include('import.meta.env').and.to.include('core.define').and.to.include('process.env.NODE_ENV');
      expect(glob).to.include('import.meta.glob');
    });
  }

  it('takes what the package defines: no error, and the value in the code', async () => {
    write('app/main/index.ts', 'export const api = import.meta.env.VITE_API;\nexport const all = import.meta.env;\n');
    const [whole] = await engine.bundle([appTarget('main', { define: { 'import.meta.env': '{"VITE_API":"https://api.test"}' } })], developmentVariant('browser'));
    expect(whole!.errors).to.deep.equal([]);
    expect(text(whole!.code)).to.include('https://api.test');
    const [member] = await engine.bundle([appTarget('main', { define: { 'import.meta.env.VITE_API': '"https://api.test"' } })], developmentVariant('browser'));
    // One member defined: the other read of import.meta.env still throws on the page.
    expect(places(member!)).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 2, column: 20 }]);
  });

  // The five members every Vite build defines (README "Bundling real code"), replaced at build
  // time from the variant: a branch on DEV is dead code in production.
  const READS_ENV = [
    "if (import.meta.env.DEV) (globalThis as { devOnly?: string }).devOnly = 'only in development';",
    'export const env = [import.meta.env.MODE, import.meta.env.DEV, import.meta.env.PROD, import.meta.env.SSR, import.meta.env.BASE_URL];',
    '',
  ].join('\n');
  const envOf = async (code: Uint8Array | null): Promise<unknown> => {
    const file = path.join(root, `env-${Math.random().toString(36).slice(2)}.mjs`);
    fs.writeFileSync(file, Buffer.from(code!));
    return ((await import(file)) as { env: unknown }).env;
  };

  for (const [variant, expected] of [
    [developmentVariant('browser'), ['development', true, false, false, '/']],
    [productionVariant('browser'), ['production', false, true, false, '/']],
    [productionVariant('node'), ['production', false, true, true, '/']],
  ] as const) {
    it(`defines import.meta.env.MODE, DEV, PROD, SSR and BASE_URL as Vite does (${variant.target}, ${variant.env})`, async () => {
      write('app/main/index.ts', READS_ENV);
      const [result] = await engine.bundle([appTarget('main')], variant);
      expect(result!.errors).to.deep.equal([]);
      expect(await envOf(result!.code)).to.deep.equal(expected);
      const code = text(result!.code)!;
      expect(code).not.to.include('import.meta.env').and.not.to.include('__core');
      if (variant.env === 'production') expect(code, 'the branch on DEV, dead in production').not.to.include('only in development');
      else expect(code).to.include('only in development');
    });
  }

  it("takes the package's own core.define over the built-in members, a member or the whole object", async () => {
    write('app/main/index.ts', READS_ENV);
    const [member] = await engine.bundle([appTarget('main', { define: { 'import.meta.env.MODE': '"staging"' } })], productionVariant('browser'));
    expect(member!.errors).to.deep.equal([]);
    expect(await envOf(member!.code)).to.deep.equal(['staging', false, true, false, '/']);
    const [whole] = await engine.bundle([appTarget('main', { define: { 'import.meta.env': '{"MODE":"test","DEV":true,"PROD":false,"SSR":false,"BASE_URL":"/app/"}' } })], productionVariant('browser'));
    expect(whole!.errors).to.deep.equal([]);
    expect(await envOf(whole!.code)).to.deep.equal(['test', true, false, false, '/app/']);
  });

  it('reports every other member of import.meta.env by its name, and the object read whole, each at its place, saying how to define it', async () => {
    write('app/main/index.ts', ['export const dev = import.meta.env.DEV;', 'export const api = import.meta.env.VITE_API;', 'const key = "VITE_KEY";', 'export const keyed = import.meta.env[key];', 'export const title = import.meta.env.VITE_TITLE;', ''].join('\n'));
    const [result] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
    expect(places(result!)).to.deep.equal([
      { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 2, column: 20 },
      { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 4, column: 22 },
      { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 5, column: 22 },
    ]);
    const [api, whole, title] = result!.errors.map((error) => error.message);
    expect(api).to.match(/^import\.meta\.env\.VITE_API is not defined/).and.to.include('{"import.meta.env.VITE_API": "\\"...\\""}').and.to.include('core.define').and.to.include('.env file');
    expect(title).to.match(/^import\.meta\.env\.VITE_TITLE is not defined/);
    expect(whole).to.match(/^import\.meta\.env is read as a whole object/).and.to.include('core.define');
  });

  it('leaves a module that reads neither byte for byte as before', async () => {
    write('app/main/index.ts', 'export const where = import.meta.url;\n');
    const [result] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    expect(text(result!.code)).to.include('import.meta.url').and.not.to.include('__core');
  });
});
