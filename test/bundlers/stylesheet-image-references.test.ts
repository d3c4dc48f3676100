// A stylesheet's references to declared assets keep what follows the file (README "Workspaces"):
// `url(sprite.svg#icon)` lost its fragment (a sprite or mask broke), and an `image-set()` string
// stayed as written (the browser asked for it at the sheet's address, a 404, the module valid).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { imageSetStringsAsUrls } from '../../src/bundlers/plugins/image-set.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { developmentVariant, productionVariant, type Variant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SHEET = 'app/main/main.css';
const hint = (last: BundleResult, changed: string[]) => ({ inputs: last.inputs, changed, code: last.code ? contentHash(last.code) : null });
const unminified: Variant = { ...productionVariant('browser'), min: false };

describe('stylesheet references to declared assets: fragments, queries, image-set()', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const write = (relative: string, content: string) => fs.writeFileSync(path.join(root, relative), content);
  const MAIN = appTarget('main', { assets: ['icon.svg'] });
  const styles = (result: BundleResult) => Buffer.from(result.styles!).toString();

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': "import './main.css';\nexport const main = 1;\n",
      [SHEET]: '.main { color: rgb(1, 2, 3); }\n',
      'app/main/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"><rect id="frag"/></svg>',
      'app/main/other.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), unminified, productionVariant('browser')]) {
    it(`keeps the fragment and the query of a declared asset's url(), and gives image-set() strings its address (${variant.env}${variant.min ? ', min' : ''})`, async () => {
      write(SHEET, '.main { mask: url("icon.svg#frag"); background: url(./icon.svg?v=2#frag); }\n.x { background-image: image-set("./icon.svg" 1x, \'icon.svg#frag\' 2x); }\n.y { background-image: -webkit-image-set("icon.svg" 1x); }\n');
      const [result] = await engine.bundle([MAIN], variant);
      expect(result!.errors).to.deep.equal([]);
      const text = styles(result!);
      expect(text).to.include('url(../assets/main/icon.svg#frag)');
      expect(text).to.include('url(../assets/main/icon.svg?v=2#frag)');
      expect(text).to.match(/image-set\(url\(\.\.\/assets\/main\/icon\.svg\) 1x, ?url\(\.\.\/assets\/main\/icon\.svg#frag\) 2x\)/);
      expect(text).to.match(/-webkit-image-set\(url\(\.\.\/assets\/main\/icon\.svg\) 1x\)/);
      expect(text).not.to.include('"./icon.svg"');
    });
  }

  it('refuses an image-set() string naming a file that is not a declared asset, as url() does', async () => {
    write(SHEET, '.x { background-image: image-set("other.svg" 1x); }\n');
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(result!.errors.map((error) => error.kind)).to.deep.equal(['BUNDLE_ERROR']);
    expect(result!.errors[0]!.message).to.include('is not a declared asset');
    // esbuild places it in the url() the string became, four columns right of its quote: inside the string as written.
    const { file, line, column } = result!.errors[0]!;
    expect({ file, line }).to.deep.equal({ file: SHEET, line: 1 });
    expect(column).to.be.within(34, 34 + '"other.svg"'.length - 1);
  });

  it('reports an image-set() string naming no file beside the sheet, as url() does', async () => {
    write(SHEET, '.x { background-image: image-set("missing.png" 1x); }\n');
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(result!.errors.map((error) => error.kind)).to.deep.equal(['BUNDLE_ERROR']);
    expect(result!.errors[0]!.message).to.include('missing.png').and.to.include('rules of CSS');
    // At the string as written, not where the url() it became would be.
    expect(result!.errors.map(({ file, line, column }) => ({ file, line, column }))).to.deep.equal([{ file: SHEET, line: 1, column: 34 }]);
    expect(result!.inputs).to.include('app/main/missing.png');
  });

  it('gives an image-set() string written by an edit of the sheet, rebuilt alone, its address too', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    expect(first.errors).to.deep.equal([]);
    write(SHEET, '.x { background-image: image-set("icon.svg" 1x); }\n');
    const edited = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(first, [SHEET]));
    expect(edited.code, 'rebuilt as a stylesheet alone').to.equal(first.code);
    expect(edited.errors).to.deep.equal([]);
    expect(styles(edited)).to.include('image-set(url(../assets/main/icon.svg) 1x)');
  });
});

describe('imageSetStringsAsUrls', () => {
  it('wraps the strings directly inside image-set() and nothing else', () => {
    const css = [
      '/* image-set("a.png" 1x) */',
      '.a { content: "image-set(\\"b.png\\" 1x)"; background: image-set("c.png" type("image/avif") 1x, url(d.png) 2x, \'e.png\' 2x); }',
      '.b { background: -WEBKIT-image-set("f.png" 1x); font-family: "g"; }',
      '.c { background: my-image-set("h.png"); }',
      '.d { background: image-set(url(data:image/png;base64,AA==) 1x, "i.png" 2x); }',
    ].join('\n');
    expect(imageSetStringsAsUrls(css)).to.equal(
      [
        '/* image-set("a.png" 1x) */',
        '.a { content: "image-set(\\"b.png\\" 1x)"; background: image-set(url("c.png") type("image/avif") 1x, url(d.png) 2x, url(\'e.png\') 2x); }',
        '.b { background: -WEBKIT-image-set(url("f.png") 1x); font-family: "g"; }',
        '.c { background: my-image-set("h.png"); }',
        '.d { background: image-set(url(data:image/png;base64,AA==) 1x, url("i.png") 2x); }',
      ].join('\n'),
    );
  });
});
