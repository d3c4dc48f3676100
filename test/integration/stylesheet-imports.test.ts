// A stylesheet imported for a value (README "Stylesheet modules"): a default or namespace import
// of a plain `.css` file, `?inline`, or a CSS module script (`with { type: 'css' }`) of a sheet
// not declared under `assets` is the diagnostic STYLESHEET_IMPORTED_AS_VALUE at the import,
// naming what to write instead; a side effect import, a CSS module's class names and a CSS
// module script of a declared sheet (kept with its attribute, at the asset's address) are valid.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

interface StateModule {
  specifier: string;
  status: string;
  diagnostics: { kind: string; message: string; file?: string; line?: number; column?: number }[];
}

describe('stylesheets imported for a value', () => {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['app'] }),
      'app/package.json': json({
        name: '@kit/app',
        version: '1.0.0',
        exports: { './plain': './plain.ts', './default': './default.ts', './namespace': './namespace.ts', './inline': './inline.ts', './script': './script.ts', './classes': './classes.ts', './card': './card/index.ts', './x.css': './x.css' },
      }),
      'app/card/module.json': json({ assets: ['card.css'] }),
      'app/card/card.css': ':host { display: block; }\n',
      'app/card/index.ts': "import sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n",
      'app/x.css': '.x { color: red; }\n',
      'app/x.module.css': '.title { color: blue; }\n',
      'app/plain.ts': "import './x.css';\nexport const plain = 1;\n",
      'app/default.ts': "import './x.css';\nimport sheet from './x.css';\nexport const value = sheet;\n",
      'app/namespace.ts': "export const before = 1;\nimport * as sheet from './x.css';\nexport const value = sheet;\n",
      'app/inline.ts': "import text from './x.css?inline';\nexport const value = text;\n",
      'app/script.ts': "import sheet from './x.css' with { type: 'css' };\nexport const value = sheet;\n",
      'app/classes.ts': "import classes from './x.module.css';\nexport const title = classes.title;\n",
    });
    service = await serve(root);
  });
  after(async () => {
    await service?.close();
  });

  const modules = async () => new Map((await service.get('/state')).json<{ modules: StateModule[] }>().modules.map((m) => [m.specifier.replace('@kit/app/', ''), m]));

  it('keeps a side effect import and a CSS module import valid', async () => {
    const state = await modules();
    expect(state.get('plain')).to.include({ status: 'valid' });
    expect(state.get('classes')).to.include({ status: 'valid' });
  });

  it('keeps a published sheet imported by relative path in the importer\'s own styles, without a warning', async () => {
    const state = await modules();
    expect(state.get('x.css')).to.include({ status: 'valid' });
    expect(state.get('plain')).to.not.have.property('warnings');
    const code = (await service.get('/m/@kit/app@1.0.0/modules/plain?sourcemap=none')).text;
    expect(code).to.not.include('x.css');
    expect((await service.get('/m/@kit/app@1.0.0/styles/plain?sourcemap=none')).text).to.include('color: red');
  });

  it('reports a default or namespace import and ?inline at the import, naming both ways to write it', async () => {
    const state = await modules();
    const places = ['default', 'namespace', 'inline'].map((name) => {
      const module = state.get(name)!;
      expect(module.status).to.equal('invalid');
      expect(module.diagnostics).to.have.length(1);
      const [problem] = module.diagnostics;
      expect(problem!.message).to.include("import './x.css'").and.include("with { type: 'css' }").and.include('assets');
      return [problem!.kind, problem!.file, problem!.line, problem!.column];
    });
    expect(places).to.deep.equal([
      ['STYLESHEET_IMPORTED_AS_VALUE', 'app/default.ts', 2, 1],
      ['STYLESHEET_IMPORTED_AS_VALUE', 'app/namespace.ts', 2, 1],
      ['STYLESHEET_IMPORTED_AS_VALUE', 'app/inline.ts', 1, 1],
    ]);
  });

  it('reports a CSS module script of a sheet not declared under assets, at the import', async () => {
    const [problem, ...more] = (await modules()).get('script')!.diagnostics;
    expect(more).to.deep.equal([]);
    expect(problem).to.include({ kind: 'STYLESHEET_IMPORTED_AS_VALUE', file: 'app/script.ts', line: 1 });
    expect(problem!.message).to.include('needs its sheet declared under "assets"').and.include("import './x.css'");
  });

  it('keeps a CSS module script of a declared sheet, with its attribute, at the address that serves it as text/css', async () => {
    expect((await modules()).get('card')).to.include({ status: 'valid' });
    const code = (await service.get('/m/@kit/app@1.0.0/modules/card?sourcemap=none')).text;
    expect(code).to.match(/import sheet from "\.\.\/assets\/card\/card\.css" with \{ type: "css" \}/);
    const sheet = await service.get('/m/@kit/app@1.0.0/assets/card/card.css');
    expect(sheet.status).to.equal(200);
    expect(sheet.headers['content-type']).to.match(/^text\/css/);
  });
});
