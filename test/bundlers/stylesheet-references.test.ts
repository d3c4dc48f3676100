// A stylesheet's `@import` and `url()` that name no file (README "Workspaces"): esbuild
// keeps them as written, and the browser would ask for them at the sheet's own address, where
// nothing is served. Such a reference is a BUNDLE_ERROR at its place, whether the sheet was
// built with its module or rebuilt alone, and the file it would name is an input.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SHEET = 'app/main/main.css';
const hint = (last: BundleResult, changed: string[]) => ({ inputs: last.inputs, changed, code: last.code ? contentHash(last.code) : null });
const places = (result: BundleResult) => result.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }));

describe('stylesheet references that name no file', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const write = (relative: string, content: string) => fs.writeFileSync(path.join(root, relative), content);
  const MAIN = appTarget('main', { assets: ['icon.svg'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': "import './main.css';\nexport const main = 1;\n",
      [SHEET]: '.main { color: rgb(1, 2, 3); }\n',
      'app/main/theme.css': '.theme { color: rgb(9, 9, 9); }\n',
      'app/main/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`reports each @import and url() naming no file at its place, and none of those kept on purpose (${variant.env})`, async () => {
      write(
        SHEET,
        [
          '@import "theme.css";', // a file beside: relative, by the rules of CSS
          '@import "themes.css";', // a typo
          "@import '@p/lib/theme.css';", // another package's sheet
          '@import url("https://fonts.test/a.css");',
          '.main {',
          '  background: url(./icon.svg), url(icon.svg), url(  images/bg.png  );',
          '  mask: url(#fade); cursor: url(data:image/png;base64,AA==), auto;',
          '}',
          '',
        ].join('\n'),
      );
      const [result] = await engine.bundle([MAIN], variant);
      expect(places(result!)).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: SHEET, line: 2, column: 9 },
        { kind: 'BUNDLE_ERROR', file: SHEET, line: 3, column: 9 },
        { kind: 'BUNDLE_ERROR', file: SHEET, line: 6, column: 47 },
      ]);
      const [typo, bare, image] = result!.errors.map((error) => error.message);
      expect(typo).to.include('@import "themes.css"').and.to.include('the rules of CSS');
      expect(bare).to.include("import '@p/lib/theme.css'");
      expect(image).to.include('url(images/bg.png)').and.to.include('assets');
      // The files they would name, absent: making one builds the module again.
      expect(result!.inputs).to.include.members(['app/main/themes.css', 'app/main/@p/lib/theme.css', 'app/main/images/bg.png']);
      expect(result!.resolution).to.include.members(['app/main/themes.css', 'app/main/@p/lib/theme.css', 'app/main/images/bg.png']);
    });
  }

  it('builds the sheet once the file it names is made, and a declared asset named without "./" is that asset', async () => {
    write(SHEET, '@import "themes.css";\n.main { background: url(icon.svg); }\n');
    const [broken] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(places(broken!)).to.have.length(1);
    write('app/main/themes.css', '.themes { color: rgb(4, 4, 4); }\n');
    const [fixed] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(fixed!.errors).to.deep.equal([]);
    // A declared asset named as CSS names files (no "./") is that asset, at its address.
    expect(Buffer.from(fixed!.styles!).toString()).to.include('rgb(4, 4, 4)').and.to.include('url(../assets/main/icon.svg)');
  });

  it('refuses a file beside the sheet that is not a declared asset, named without "./" as with it', async () => {
    fs.writeFileSync(path.join(root, 'app/main/mark.png'), 'PNG');
    write(SHEET, '.main { background: url(mark.png); }\n');
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(places(result!)).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: SHEET, line: 1, column: 21 }]);
    expect(result!.errors[0]!.message).to.include('is not a declared asset');
  });

  it('reports one added by an edit of the sheet rebuilt alone, and drops it once the sheet is fixed', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    expect(first.errors).to.deep.equal([]);
    const edited = '@import "themes.css";\n.main { color: rgb(1, 2, 3); }\n';
    write(SHEET, edited);
    const broken = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(first, [SHEET]));
    expect(broken.code, 'rebuilt as a stylesheet alone').to.equal(first.code);
    expect(places(broken)).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: SHEET, line: 1, column: 9 }]);
    // Its place, read after the build, is judged against the build's read of the sheet (README "Code frames").
    expect(broken.placedFrom).to.deep.equal({ [SHEET]: contentHash(edited) });
    expect(broken.inputs).to.include('app/main/themes.css');
    write(SHEET, '@import "theme.css";\n.main { color: rgb(1, 2, 3); }\n');
    const fixed = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(broken, [SHEET]));
    expect(fixed.code, 'rebuilt as a stylesheet alone').to.equal(first.code);
    expect(fixed.errors).to.deep.equal([]);
    expect(Buffer.from(fixed.styles!).toString()).to.include('rgb(9, 9, 9)');
  });

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`reports an @import after a rule or inside a block, which esbuild keeps as written and a browser ignores, as an error at its place (${variant.env})`, async () => {
      write(SHEET, ['@layer base;', '@import "theme.css";', '.main { color: rgb(1, 2, 3); }', '@import "theme.css";', '@media print { @import url("https://fonts.test/a.css"); }', ''].join('\n'));
      const [result] = await engine.bundle([MAIN], variant);
      expect(places(result!)).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: SHEET, line: 4, column: 1 },
        { kind: 'BUNDLE_ERROR', file: SHEET, line: 5, column: 16 },
      ]);
      expect(result!.errors[0]!.message).to.match(/^All "@import" rules must come first: a browser ignores an @import that is not at the top of its sheet/);
      expect(result!.warnings ?? []).to.deep.equal([]);
    });
  }

  it('reports an @import moved after a rule by an edit, and drops it once it is back on top', async () => {
    write(SHEET, '@import "theme.css";\n.main { color: rgb(1, 2, 3); }\n');
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    expect(first.errors).to.deep.equal([]);
    write(SHEET, '.main { color: rgb(1, 2, 3); }\n@import "theme.css";\n');
    const broken = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(first, [SHEET]));
    expect(places(broken)).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: SHEET, line: 2, column: 1 }]);
    expect(broken.warnings ?? []).to.deep.equal([]);
    write(SHEET, '@import "theme.css";\n.main { color: rgb(1, 2, 3); }\n');
    const fixed = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(broken, [SHEET]));
    expect(fixed.errors).to.deep.equal([]);
    expect(Buffer.from(fixed.styles!).toString()).to.include('rgb(9, 9, 9)');
  });
});
