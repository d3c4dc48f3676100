// CSS module scripts (src/bundlers/plugins/css-module-scripts.ts): one of a sheet declared under
// `assets` stays an import of the asset's address; any other is refused by the plugin with its
// `detail`, which the build's diagnostics say as STYLESHEET_IMPORTED_AS_VALUE at the import.
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { tempWorkspace } from '../helpers/workspace.js';

const CARD: BundleTarget = { specifier: '@t/app/card', subpath: 'card', dir: 'app/card', entry: 'app/card/index.ts', assets: ['card.css'], platforms: ['web'] };
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : '');

describe('cssModuleScriptsPlugin', () => {
  let engine: ReturnType<typeof createEsbuildEngine> | null = null;
  afterEach(async () => {
    await engine?.dispose();
    engine = null;
  });

  async function build(entry: string, card = ':host { display: block; }\n', variant = developmentVariant('browser')) {
    const root = tempWorkspace({ 'app/card/index.ts': entry, 'app/card/card.css': card, 'app/card/other.css': '.other {}\n', 'app/card/plain.css': '.plain {}\n' });
    engine = createEsbuildEngine({ root });
    return (await engine.bundle([CARD], variant))[0]!;
  }

  it('keeps a CSS module script of a declared sheet at its asset address, and leaves a plain stylesheet import alone', async () => {
    const result = await build("import './plain.css';\nimport sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n");
    expect(result.errors).to.deep.equal([]);
    expect(text(result.code)).to.match(/from "\.\.\/assets\/card\/card\.css" with \{ type: "css" \}/);
    expect(text(result.styles)).to.include('.plain');
  });

  it('refuses one of an undeclared sheet, by path or by package, each at its import, as STYLESHEET_IMPORTED_AS_VALUE', async () => {
    const result = await build("import sheet from './other.css' with { type: 'css' };\nimport theme from '@t/kit/theme.css' with { type: 'css' };\nexport const sheets = [sheet, theme];\n");
    expect(text(result.code)).to.equal('');
    expect(result.errors.map((error) => [error.kind, error.file, error.line])).to.deep.equal([
      ['STYLESHEET_IMPORTED_AS_VALUE', 'app/card/index.ts', 1],
      ['STYLESHEET_IMPORTED_AS_VALUE', 'app/card/index.ts', 2],
    ]);
    expect(result.errors[0]!.message).to.include('needs its sheet declared under "assets"');
  });

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`reports each @import of a sheet imported as a CSS module script, which the browser drops, at its place, and the sheet is an input (${variant.env})`, async () => {
      const card = [
        '/* @import "./in-a-comment.css"; */',
        '@import "./plain.css";',
        ".card::after { content: '@import \"x.css\";'; background: url(https://x.test/a@import.png); }",
        '@media print {',
        '  @IMPORT url(./other.css) print;',
        '}',
        '',
      ].join('\n');
      const result = await build("import sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n", card, variant);
      expect(result.errors.map(({ kind, file, line, column }) => [kind, file, line, column])).to.deep.equal([
        ['BUNDLE_ERROR', 'app/card/card.css', 2, 1],
        ['BUNDLE_ERROR', 'app/card/card.css', 5, 3],
      ]);
      expect(result.errors[0]!.message).to.equal(
        '@import "./plain.css"; in card.css, a sheet imported as a CSS module script (with { type: \'css\' }): the browser ignores every @import of such a sheet, by the standard, so the page would miss the rules it names. Import that sheet as a CSS module script of its own (declared under "assets") and adopt both (adoptedStyleSheets = [imported, sheet]), or write its rules into card.css',
      );
      expect(result.inputs).to.include('app/card/card.css');
    });
  }

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`reports each url() of such a sheet that names a file the module does not declare, which the browser asks for beside the sheet (${variant.env})`, async () => {
      const card = [
        '.card { background: url(./bg.png); }',
        ".logo { background: image-set('logo.png' 1x, url(\"./logo@2x.png\") 2x); }",
        "@font-face { font-family: f; src: url('../card/f.woff2') format('woff2'); }",
        '.up { background: url(../../elsewhere.png); }',
        '.kept { background: url(data:image/png;base64,AA==), url(/images/x.png), url(https://x.test/y.png), url(#mask), url(card.css); }',
        '',
      ].join('\n');
      const result = await build("import sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n", card, variant);
      expect(result.errors.map(({ kind, file, line, column }) => [kind, file, line, column])).to.deep.equal([
        ['BUNDLE_ERROR', 'app/card/card.css', 1, 21],
        ['BUNDLE_ERROR', 'app/card/card.css', 2, 31],
        ['BUNDLE_ERROR', 'app/card/card.css', 2, 46],
        ['BUNDLE_ERROR', 'app/card/card.css', 3, 35],
        ['BUNDLE_ERROR', 'app/card/card.css', 4, 19],
      ]);
      expect(result.errors[0]!.message).to.equal(
        'url(./bg.png) in card.css, a sheet imported as a CSS module script (with { type: \'css\' }), names bg.png, which the module does not declare: the browser loads such a sheet as written and asks for it at the sheet\'s own address, where only the module\'s declared assets are served, so it answers 404. Declare "bg.png" under "assets" in the module.json beside the module\'s entry',
      );
      expect(result.errors[2]!.message).to.include('names logo@2x.png, which the module does not declare');
      expect(result.errors[3]!.message).to.include('names f.woff2, which');
      expect(result.errors[4]!.message).to.include('names a file outside the module\'s directory');
    });
  }

  it('finds nothing to report in a CSS module script without @import', async () => {
    const result = await build("import sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n", '.card { color: red; }\n', productionVariant('browser'));
    expect(result.errors).to.deep.equal([]);
    expect(result.inputs).to.include('app/card/card.css');
  });
});
