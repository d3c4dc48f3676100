// A string of `image-set()` or `-webkit-image-set()` in a stylesheet is a URL relative to the
// sheet, as `url()` is (README "Workspaces"): esbuild printed it as written, so the browser asked
// the sheet's own address (a 404) while the module was valid. It is resolved in the sheet esbuild
// printed: a declared asset's address, or the error a `url()` of it gets, at its place.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { createContextPool } from '../../src/bundlers/context-pool.js';
import { createBatchBuilds } from '../../src/bundlers/esbuild-batch.js';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import { imageSetStrings, resolveImageSetStrings } from '../../src/bundlers/image-set-strings.js';
import type { PlacedReads } from '../../src/bundlers/placed-reads.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { createStylesheetRebuild, type LastBuild } from '../../src/bundlers/stylesheet-rebuild.js';
import type { BundleResult, BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant, type Variant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SHEET = 'app/main/main.css';
const unminified: Variant = { ...productionVariant('browser'), min: false };
const VARIANTS = [developmentVariant('browser'), unminified, productionVariant('browser')];
const named = (variant: Variant) => `${variant.env}${variant.min ? ', min' : ''}`;
const styles = (result: BundleResult) => Buffer.from(result.styles!).toString();
const places = (result: BundleResult) => result.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }));

describe('image-set() strings in a stylesheet', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const write = (relative: string, content: string) => fs.writeFileSync(path.join(root, relative), content);
  const MAIN = appTarget('main', { assets: ['icon.svg', 'b.svg', 'sub/b.svg'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': "import './main.css';\nexport const main = 1;\n",
      [SHEET]: '.main { color: rgb(1, 2, 3); }\n',
      'app/main/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"><rect id="frag"/></svg>',
      'app/main/b.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/main/sub/b.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/main/other.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of VARIANTS) {
    it(`gives each relative string of a declared asset its address, keeping what is no such string (${named(variant)})`, async () => {
      write(SHEET, ".x { background-image: image-set(\"./icon.svg\" 1x, 'icon.svg#frag' type(\"image/svg+xml\") 2x, url(icon.svg) 3x); }\n.y { background-image: -webkit-image-set(\"icon.svg?v=2\" 1x, \"https://example.com/a.png\" 2x, \"data:image/png;base64,AA==\" 3x); content: \"image-set('icon.svg')\"; }\n");
      const [result] = await engine.bundle([MAIN], variant);
      expect(result!.errors).to.deep.equal([]);
      const text = styles(result!).replace(/\s+/g, ' ');
      expect(text).to.match(/image-set\(url\(\.\.\/assets\/main\/icon\.svg\) 1x, ?url\(\.\.\/assets\/main\/icon\.svg#frag\) type\("image\/svg\+xml"\) 2x, ?url\(\.\.\/assets\/main\/icon\.svg\) 3x\)/);
      expect(text).to.match(/-webkit-image-set\(url\(\.\.\/assets\/main\/icon\.svg\?v=2\) 1x, ?"https:\/\/example\.com\/a\.png" 2x, ?"data:image\/png;base64,AA==" 3x\)/);
      expect(text).to.include(`"image-set('icon.svg')"`);
    });

    it(`resolves each string against the sheet that wrote it, sheets of two directories joined (${named(variant)})`, async () => {
      fs.mkdirSync(path.join(root, 'app/main/sub'), { recursive: true });
      write('app/main/sub/b.css', '.b { background-image: image-set("b.svg" 1x); }\n');
      write(SHEET, '@import "./sub/b.css";\n.m { background-image: image-set("b.svg" 1x); }\n');
      const [result] = await engine.bundle([MAIN], variant);
      expect(result!.errors).to.deep.equal([]);
      const text = styles(result!);
      const sub = text.indexOf('image-set(url(../assets/main/sub/b.svg) 1x)');
      const own = text.indexOf('image-set(url(../assets/main/b.svg) 1x)');
      expect(sub, text).to.be.greaterThan(-1);
      expect(own, text).to.be.greaterThan(sub);
    });
  }

  it('finds image-set() in any case, as CSS names functions', async () => {
    write(SHEET, '.x { background-image: IMAGE-Set("icon.svg" 1x); }\n');
    const [result] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    expect(styles(result!)).to.include('IMAGE-Set(url(../assets/main/icon.svg) 1x)');
  });

  it('refuses a string naming a file of the package that is not a declared asset, as url() does, at the string', async () => {
    write(SHEET, '.x { background-image: image-set("other.svg" 1x); }\n');
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(places(result!)).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: SHEET, line: 1, column: 34 }]);
    expect(result!.errors[0]!.message).to.include('"other.svg" in image-set() is not a declared asset').and.to.include('add "other.svg" to "assets"');
    expect(result!.inputs).to.include('app/main/other.svg');
  });

  it('reports a string naming no file beside the sheet, its file an input, and one leaving the workspace', async () => {
    write(SHEET, '.x {\n  background-image: image-set("missing.png" 1x, "../../../../outside.png" 2x);\n}\n');
    const [result] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(places(result!)).to.deep.equal([
      { kind: 'BUNDLE_ERROR', file: SHEET, line: 2, column: 31 },
      { kind: 'BUNDLE_ERROR', file: SHEET, line: 2, column: 49 },
    ]);
    expect(result!.errors[0]!.message).to.include('"missing.png" in image-set() names no file beside main.css').and.to.include('rules of CSS');
    expect(result!.errors[1]!.message).to.include('is outside the workspace, and is not read');
    expect(result!.inputs).to.include('app/main/missing.png');
    expect(result!.placedFrom).to.have.property(SHEET);
    // Made, the file is still no declared asset: the error says so now.
    write('app/main/missing.png', 'png');
    const [again] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(again!.errors[0]!.message).to.include('"missing.png" in image-set() is not a declared asset');
  });

  it('gives a string written by an edit of the sheet, rebuilt alone, its address too', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    expect(first.errors).to.deep.equal([]);
    write(SHEET, '.x { background-image: image-set("icon.svg" 1x); }\n');
    const edited = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, { inputs: first.inputs, changed: [SHEET], code: contentHash(first.code!) });
    expect(edited.errors).to.deep.equal([]);
    expect(styles(edited)).to.include('image-set(url(../assets/main/icon.svg) 1x)');
  });
});

describe('image-set() strings of a sheet transformed alone (createStylesheetRebuild)', () => {
  const KEY = '@t/app/plain\0browser';
  const PLAIN = 'app/plain/plain.css';
  const TARGET: BundleTarget = { ...appTarget('plain', { assets: ['icon.svg'] }) };
  let root: string;

  beforeEach(() => {
    root = tempWorkspace({ 'app/plain/index.ts': "import './plain.css';\n", [PLAIN]: '.p { color: red; }\n', 'app/plain/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>', 'app/plain/loose.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>' });
  });

  it("resolves them in the transform's output, no build, and places an undeclared one from one read", async () => {
    const transforms: string[] = [];
    const transform = (async (input: string | Uint8Array, options?: esbuild.TransformOptions) => {
      transforms.push(Buffer.from(input).toString());
      return esbuild.transform(input, options);
    }) as typeof esbuild.transform;
    const buildOptions = (targets: BundleTarget[], variant: Variant) => esbuildOptions(root, targets, variant);
    const contexts = createContextPool();
    const stylesheets = createStylesheetRebuild({ root, contexts, lastBuilds: new Map(), buildOptions, failedBuild: createBatchBuilds(root, buildOptions).failedBuild, transform });
    const last: LastBuild = {
      result: { specifier: TARGET.specifier, code: Buffer.from(''), styles: null, inputs: ['app/plain/index.ts', PLAIN], imports: [], errors: [] },
      codeHash: 'code',
      stylesheet: PLAIN,
      stylesheetAlone: true,
      codeInputs: ['app/plain/index.ts'],
      codeWarnings: [],
      stylesInputs: new Set([PLAIN]),
    };
    try {
      const good = await stylesheets.rebuild(KEY, 'signature', TARGET, developmentVariant('browser'), last, undefined, Buffer.from('.p { background: image-set("icon.svg" 1x); }\n'));
      expect(transforms, 'the transform alone, no build').to.have.length(1);
      expect(good.errors).to.deep.equal([]);
      expect(Buffer.from(good.styles!).toString()).to.include('image-set(url(../assets/plain/icon.svg) 1x)');
      const sheet = '.p {\n  background: image-set("loose.svg" 1x);\n}\n';
      fs.writeFileSync(path.join(root, PLAIN), sheet);
      const bad = await stylesheets.rebuild(KEY, 'signature', TARGET, developmentVariant('browser'), last, undefined, Buffer.from(sheet));
      expect(transforms).to.have.length(2);
      expect(places(bad)).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: PLAIN, line: 2, column: 25 }]);
      expect(bad.errors[0]!.message).to.include('"loose.svg" in image-set() is not a declared asset');
      expect(bad.inputs).to.include('app/plain/loose.svg');
      expect(bad.placedFrom).to.have.property(PLAIN);
    } finally {
      await contexts.dispose();
    }
  });
});

describe('resolveImageSetStrings: what it reads', () => {
  const target = appTarget('m', { assets: ['i.svg'] });
  // A reader of sources that counts what is asked of it and has every sheet writing image-set("i.svg").
  const counted = () => {
    const asked: string[] = [];
    const reads: PlacedReads = { text: (file) => (asked.push(file), '.s { background: image-set("i.svg" 1x); }\n'), configText: () => null, placedFrom: () => ({}), absolute: () => null };
    return { asked, reads };
  };

  it('reads no source for a minified sheet of sheets in one directory, nor for a sheet without image-set()', () => {
    const { asked, reads } = counted();
    const joined = resolveImageSetStrings(Buffer.from('.a{background:image-set("i.svg" 1x)}.b{color:red}'), ['app/m/a.css', 'app/m/b.css'], target, reads, '/nowhere');
    expect(Buffer.from(joined.styles!).toString()).to.equal('.a{background:image-set(url(__core_asset_climb__/assets/m/i.svg) 1x)}.b{color:red}');
    const plain = Buffer.from('.a{background:url(x.svg);width:calc(1px + 2px)}');
    expect(resolveImageSetStrings(plain, ['app/m/a.css', 'app/m/b.css'], target, reads, '/nowhere').styles).to.equal(plain);
    expect(asked).to.deep.equal([]);
  });

  it('reads the sources to tell a minified sheet of sheets in several directories apart', () => {
    const { asked, reads } = counted();
    // The first sheet in esbuild's order wrote the one string: resolved from its directory, no declared asset there.
    const joined = resolveImageSetStrings(Buffer.from('.a{background:image-set("i.svg" 1x)}'), ['app/m/sub/a.css', 'app/m/b.css'], target, reads, '/nowhere');
    expect(joined.errors.map(({ file, line, column }) => ({ file, line, column }))).to.deep.equal([{ file: 'app/m/sub/a.css', line: 1, column: 28 }]);
    expect(joined.named).to.deep.equal(['app/m/sub/i.svg']);
    expect([...new Set(asked)]).to.deep.equal(['app/m/sub/a.css', 'app/m/b.css']);
  });
});

describe('imageSetStrings', () => {
  it('finds the strings directly inside image-set() and nothing else, with the file esbuild marks above them', () => {
    const css = [
      '/* a.css */',
      '/* image-set("a.png" 1x) */',
      '.a { content: "image-set(\\"b.png\\" 1x)"; background: image-set("c.png" type("image/avif") 1x, url(d.png) 2x, \'e\\2e png\' 2x); }',
      '.b { background: -WEBKIT-image-set("f.png" 1x); font-family: "g"; }',
      '.c { background: my-image-set("h.png"); }',
      '/* b.css */',
      '.d { background: image-set(url(data:image/png;base64,AA==) 1x, "i.png" 2x); }',
    ].join('\n');
    expect(imageSetStrings(css, new Set(['a.css', 'b.css'])).map(({ value, marked }) => `${marked} ${value}`)).to.deep.equal(['a.css c.png', 'a.css e.png', 'a.css f.png', 'b.css i.png']);
  });
});
