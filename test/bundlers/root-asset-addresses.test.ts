// Addresses under `/m/` written in a module's sheet and code (README "Workspaces"): the module's
// own declared asset is made relative to the output in production, since `core dist` writes no
// `/m/` (its files are served from any origin and folder); an address the service knows answers
// 404 (an undeclared asset of the package, a version that is not the package's current one, a
// package that is not the workspace's) is a BUNDLE_ERROR at its place, in every variant.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('addresses under /m/ written in sheets and code', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const versions = { 'app/main/bg.svg': 'BGVERSION', 'app/main/worker.js': 'WORKERVERSION' };
  const workspace = { key: 'k', entries: {}, packages: ['@t/app', '@t/lib'], versions: { '@t/app': '1.0.0', '@t/lib': '2.0.0' } };
  const declarations = [
    { dir: 'app/main', subpath: 'main', assets: ['bg.svg', 'worker.js'] },
    { dir: 'app/other', subpath: 'other', assets: ['a.svg'] },
  ];
  // As the service and `core dist` give it (`toBundleTarget`): the package's address in every variant.
  const PRODUCTION: BundleTarget = appTarget('main', { assets: ['bg.svg', 'worker.js'], packageAddress: '/m/@t/app@1.0.0/', workspace, declarations });
  const DEVELOPMENT: BundleTarget = { ...PRODUCTION, assetVersions: versions };
  const write = (file: string, text: string) => fs.writeFileSync(path.join(root, file), text);
  const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes!).toString();

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': "import './main.css';\nexport const main = 1;\n",
      'app/main/main.css': '.main { color: red; }\n',
      'app/main/bg.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/main/worker.js': 'self.onmessage = () => {};\n',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  it("writes the module's own declared asset by its address from the origin's root as the address relative to the output in production", async () => {
    write('app/main/main.css', '.main { background: url(/m/@t/app@1.0.0/assets/main/bg.svg), url("/m/@t/app@1.0.0/assets/main/bg.svg?x=1#i"); border-image: image-set("/m/@t/app@1.0.0/assets/main/bg.svg#j" 1x); }\n');
    write('app/main/index.ts', "import './main.css';\nexport const main = [new URL('/m/@t/app@1.0.0/assets/main/worker.js?q', import.meta.url), new URL('/m/@t/app@1.0.0/assets/main/bg.svg', import.meta.url)];\n");
    const [production] = await engine.bundle([PRODUCTION], productionVariant('browser'));
    expect(production!.errors).to.deep.equal([]);
    const styles = text(production!.styles);
    expect(styles).to.include('url(../assets/main/bg.svg)').and.include('url(../assets/main/bg.svg?x=1#i)').and.include('"../assets/main/bg.svg#j"');
    expect(styles).to.not.include('/m/');
    const code = text(production!.code);
    expect(code).to.include('new URL("../assets/main/worker.js?q",import.meta.url)').and.include('new URL("../assets/main/bg.svg",import.meta.url)');
    expect(code).to.not.include('/m/');
    // Development keeps the address as written, with the asset's version (README "Preview and stylesheet push").
    const [development] = await engine.bundle([DEVELOPMENT], developmentVariant('browser'));
    expect(development!.errors).to.deep.equal([]);
    expect(text(development!.styles)).to.include('url(/m/@t/app@1.0.0/assets/main/bg.svg?v=BGVERSION)');
    expect(text(development!.code)).to.include('new URL("/m/@t/app@1.0.0/assets/main/worker.js?v=WORKERVERSION&q", import.meta.url)');
    // A sheet rebuilt alone writes the same as a whole build.
    const first = await engine.rebuild(PRODUCTION, productionVariant('browser'));
    write('app/main/main.css', '.main { color: blue; background: url(/m/@t/app@1.0.0/assets/main/bg.svg); }\n');
    const next = await engine.rebuild(PRODUCTION, productionVariant('browser'), undefined, { inputs: first.inputs, changed: ['app/main/main.css'], code: contentHash(first.code!) });
    expect(next.errors).to.deep.equal([]);
    expect(text(next.styles)).to.include('url(../assets/main/bg.svg)').and.not.include('/m/');
  });

  it('keeps as written another module’s declared asset, an asset of a subpath no module has, another workspace package’s address at its version, and an address outside /m/', async () => {
    write('app/main/main.css', '.main { background: url(/m/@t/app@1.0.0/assets/other/a.svg), url(/m/@t/app@1.0.0/assets/gone/z.svg), url(/m/@t/lib@2.0.0/assets/x/y.svg), url(/fonts/a.woff2), url(//cdn.example/b.png); }\n');
    for (const [target, variant] of [[PRODUCTION, productionVariant('browser')], [DEVELOPMENT, developmentVariant('browser')]] as const) {
      const [result] = await engine.bundle([target], variant);
      expect(result!.errors).to.deep.equal([]);
      expect(text(result!.styles)).to.include('url(/m/@t/app@1.0.0/assets/other/a.svg)').and.include('url(/m/@t/app@1.0.0/assets/gone/z.svg)').and.include('url(/m/@t/lib@2.0.0/assets/x/y.svg)').and.include('url(/fonts/a.woff2)').and.include('url(//cdn.example/b.png)');
    }
  });

  describe('a declared file whose name holds a space or parentheses, or a scope written encoded', () => {
    const assets = ['bg.svg', 'img/a b.svg', 'img/bg(1).svg'];
    const withNames = [{ dir: 'app/main', subpath: 'main', assets }, declarations[1]!];
    const NAMED: BundleTarget = appTarget('main', { assets, packageAddress: '/m/@t/app@1.0.0/', workspace, declarations: withNames });
    const NAMED_DEVELOPMENT: BundleTarget = { ...NAMED, assetVersions: { 'app/main/img/a b.svg': 'SPACEVERSION', 'app/main/img/bg(1).svg': 'PARENVERSION', 'app/main/bg.svg': 'BGVERSION' } };
    beforeEach(() => {
      fs.mkdirSync(path.join(root, 'app/main/img'));
      write('app/main/img/a b.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
      write('app/main/img/bg(1).svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    });

    it('recognises every spelling of the address and writes the relative address as a URL a sheet and a static server read (the encoding as written, quoted where needed)', async () => {
      write('app/main/main.css', [
        '.a { background: url("/m/@t/app@1.0.0/assets/main/img/a%20b.svg"); }',
        '.b { background: url("/m/@t/app@1.0.0/assets/main/img/a b.svg"); }',
        '.c { background: url("/m/@t/app@1.0.0/assets/main/img/bg%281%29.svg"); }',
        '.d { background: url("/m/@t/app@1.0.0/assets/main/img/bg(1).svg"); }',
        '.e { background: url(/m/%40t/app@1.0.0/assets/main/bg.svg); }',
        '.f { border-image: image-set("/m/@t/app@1.0.0/assets/main/img/a b.svg" 1x, "/m/%40t/app@1.0.0/assets/main/img/bg(1).svg" 2x); }',
        '',
      ].join('\n'));
      write('app/main/index.ts', "import './main.css';\nexport const main = [new URL('/m/@t/app@1.0.0/assets/main/img/a b.svg', import.meta.url), new URL('/m/%40t/app@1.0.0/assets/main/img/bg%281%29.svg', import.meta.url)];\n");
      const [production] = await engine.bundle([NAMED], productionVariant('browser'));
      expect(production!.errors).to.deep.equal([]);
      const styles = text(production!.styles);
      expect(styles).to.not.include('/m/');
      expect(styles.match(/url\(\.\.\/assets\/main\/img\/a%20b\.svg\)/g)).to.have.length(2);
      expect(styles).to.include('url(../assets/main/img/bg%281%29.svg)').and.include('url("../assets/main/img/bg(1).svg")').and.include('url(../assets/main/bg.svg)');
      expect(styles).to.include('"../assets/main/img/a%20b.svg" 1x').and.include('"../assets/main/img/bg(1).svg" 2x');
      const code = text(production!.code);
      expect(code).to.not.include('/m/');
      expect(code).to.include('new URL("../assets/main/img/a%20b.svg",import.meta.url)').and.include('new URL("../assets/main/img/bg%281%29.svg",import.meta.url)');
      // Development names each with its asset's version, a raw space or parenthesis quoted.
      const [development] = await engine.bundle([NAMED_DEVELOPMENT], developmentVariant('browser'));
      expect(development!.errors).to.deep.equal([]);
      const developed = text(development!.styles);
      expect(developed).to.include('url(/m/@t/app@1.0.0/assets/main/img/a%20b.svg?v=SPACEVERSION)').and.include('url("/m/@t/app@1.0.0/assets/main/img/a b.svg?v=SPACEVERSION")');
      expect(developed).to.include('url("/m/@t/app@1.0.0/assets/main/img/bg(1).svg?v=PARENVERSION")').and.include('url(/m/%40t/app@1.0.0/assets/main/bg.svg?v=BGVERSION)');
    });

    it('judges an address with its path decoded once, as the router does: an encoded scope names the package, an undeclared name stays an error, a hidden separator is one', async () => {
      write('app/main/main.css', '.a { background: url(/m/%40t/app@1.0.0/assets/main/img/bg%281%29.svg), url(/m/%40t/app@1.0.0/assets/other/a.svg); }\n.b { background: url(/m/%40t/app@1.0.0/assets/main/c%20d.svg); }\n.c { background: url(/m/%40t/app@1.0.0/assets/main/img%2Fa%20b.svg); }\n');
      for (const [target, variant] of [[NAMED, productionVariant('browser')], [NAMED_DEVELOPMENT, developmentVariant('browser')]] as const) {
        const [result] = await engine.bundle([target], variant);
        expect(result!.errors.map((error) => [error.kind, error.line])).to.deep.equal([['BUNDLE_ERROR', 2], ['BUNDLE_ERROR', 3]]);
        expect(result!.errors[0]!.message).to.include('names /m/@t/app@1.0.0/assets/main/c d.svg, which is not a declared asset of @t/app/main');
        expect(result!.errors[1]!.message).to.include('an encoded separator, which the service never serves');
        expect(text(result!.styles)).to.include('url(/m/%40t/app@1.0.0/assets/other/a.svg)');
      }
    });
  });

  describe('an address the router answers 404 for though its package, version and subpath are known (probe51b F7)', () => {
    const lib = { ...workspace, manifests: { '@t/app': 'app/package.json', '@t/lib': 'lib/package.json' }, declarations: { '@t/lib': [{ dir: 'lib/x', subpath: 'x', assets: ['y.svg'] }] } };
    const WITH_LIB: BundleTarget = { ...PRODUCTION, workspace: lib };

    it('is a BUNDLE_ERROR for a directory, a doubled slash, an undeclared file in a folder of the module’s assets and another package’s undeclared asset, in every variant; its cause’s manifest an input', async () => {
      write('app/main/main.css', '.a { background: url(/m/@t/app@1.0.0/assets/main/); }\n.b { background: url(/m/@t/app@1.0.0/assets/main//bg.svg); }\n.c { background: url(/m/@t/app@1.0.0/assets/main/img/x.svg); }\n.d { background: url(/m/@t/lib@2.0.0/assets/x/nope.svg), url(/m/@t/lib@2.0.0/assets/x/y.svg); }\n');
      // A `new URL` of a directory is a base for others, never fetched: kept.
      write('app/main/index.ts', "import './main.css';\nexport const base = new URL('/m/@t/app@1.0.0/assets/main/', import.meta.url);\n");
      for (const [target, variant] of [[WITH_LIB, productionVariant('browser')], [{ ...WITH_LIB, assetVersions: versions }, developmentVariant('browser')]] as const) {
        const [result] = await engine.bundle([target], variant);
        expect(result!.errors.map((error) => [error.kind, error.file, error.line])).to.deep.equal([
          ['BUNDLE_ERROR', 'app/main/main.css', 1],
          ['BUNDLE_ERROR', 'app/main/main.css', 2],
          ['BUNDLE_ERROR', 'app/main/main.css', 3],
          ['BUNDLE_ERROR', 'app/main/main.css', 4],
        ]);
        const [directory, doubled, folder, other] = result!.errors.map((error) => error.message);
        expect(directory).to.include('url(/m/@t/app@1.0.0/assets/main/) names /m/@t/app@1.0.0/assets/main/, a path with an empty segment').and.include('never a directory, so the browser gets a 404');
        expect(doubled).to.include('names /m/@t/app@1.0.0/assets/main//bg.svg, a path with an empty segment');
        expect(folder).to.include('which is not a declared asset of @t/app/main: the browser gets a 404. Declare "img/x.svg" under "assets"');
        expect(other).to.include('names /m/@t/lib@2.0.0/assets/x/nope.svg, which is not a declared asset of @t/lib/x: the browser gets a 404. Name a declared asset of @t/lib/x (y.svg)');
        // Declaring it in lib's module.json makes the address answer: that edit judges the module again.
        expect(result!.inputs).to.include('lib/x/module.json').and.include('lib/package.json');
        // A module made in the folder would take the address, as the router takes the longest subpath.
        expect(result!.inputs).to.include('app/main/img/module.json');
      }
    });

    it("follows the file of another module's declared asset: gone, an error naming it, its file an input; there, valid", async () => {
      write('app/main/main.css', '.main {\n  background: url(/m/@t/app@1.0.0/assets/other/a.svg), url(/m/@t/lib@2.0.0/assets/x/y.svg);\n}\n');
      const asked: string[] = [];
      for (const there of [false, true]) {
        const target: BundleTarget = { ...WITH_LIB, assetServed: (packageName, file) => (asked.push(`${packageName} ${file}`), there) };
        for (const [withVariant, variant] of [[target, productionVariant('browser')], [{ ...target, assetVersions: versions }, developmentVariant('browser')]] as const) {
          const [result] = await engine.bundle([withVariant], variant);
          expect(result!.inputs).to.include('app/other/a.svg').and.include('lib/x/y.svg');
          if (there) {
            expect(result!.errors).to.deep.equal([]);
            continue;
          }
          expect(result!.errors.map((error) => [error.kind, error.file, error.line, error.column])).to.deep.equal([
            ['BUNDLE_ERROR', 'app/main/main.css', 2, 15],
            ['BUNDLE_ERROR', 'app/main/main.css', 2, 56],
          ]);
          expect(result!.errors[0]!.message).to.include('the declared asset "a.svg" of @t/app/other, but app/other/a.svg is missing, is no regular file or leaves its package');
          expect(result!.errors[1]!.message).to.include('the declared asset "y.svg" of @t/lib/x, but lib/x/y.svg is missing');
        }
      }
      expect([...new Set(asked)].sort()).to.deep.equal(['@t/app app/other/a.svg', '@t/lib lib/x/y.svg']);
    });
  });

  describe("an @import from the origin's root (probe51b F18)", () => {
    beforeEach(() => write('app/main/extra.css', '.extra { color: blue; }\n'));
    const ASSETS = ['bg.svg', 'worker.js', 'extra.css'];
    const withCss = [{ dir: 'app/main', subpath: 'main', assets: ASSETS }, declarations[1]!];
    const IMPORTING: BundleTarget = appTarget('main', { assets: ASSETS, packageAddress: '/m/@t/app@1.0.0/', workspace, declarations: withCss });

    it("is kept as written, the module's own declared sheet versioned in development and relative in production", async () => {
      write('app/main/main.css', "@import url(/m/@t/app@1.0.0/styles/other);\n@import '/m/@t/app@1.0.0/assets/main/extra.css';\n.main { color: red; }\n");
      const [production] = await engine.bundle([IMPORTING], productionVariant('browser'));
      expect(production!.errors).to.deep.equal([]);
      expect(text(production!.styles)).to.include('@import"/m/@t/app@1.0.0/styles/other";').and.include('@import "../assets/main/extra.css";');
      const [development] = await engine.bundle([{ ...IMPORTING, assetVersions: { 'app/main/extra.css': 'CSSVERSION' } }], developmentVariant('browser'));
      expect(development!.errors).to.deep.equal([]);
      expect(text(development!.styles)).to.include('@import "/m/@t/app@1.0.0/styles/other";').and.include('@import "/m/@t/app@1.0.0/assets/main/extra.css?v=CSSVERSION";');
      expect(development!.inputs).to.include('app/main/extra.css');
    });

    it('is a BUNDLE_ERROR at its place when the service knows it answers 404, as a url() is', async () => {
      write('app/main/main.css', '@import url(/m/@t/app@1.0.0/assets/main/nope.css);\n@import "/m/@t/app@0.9.0/styles/other";\n.main { color: red; }\n');
      for (const [target, variant] of [[IMPORTING, productionVariant('browser')], [{ ...IMPORTING, assetVersions: {} }, developmentVariant('browser')]] as const) {
        const [result] = await engine.bundle([target], variant);
        expect(result!.errors.map((error) => [error.kind, error.file, error.line, error.column])).to.deep.equal([
          ['BUNDLE_ERROR', 'app/main/main.css', 1, 9],
          ['BUNDLE_ERROR', 'app/main/main.css', 2, 9],
        ]);
        expect(result!.errors[0]!.message).to.include('@import "/m/@t/app@1.0.0/assets/main/nope.css" names /m/@t/app@1.0.0/assets/main/nope.css, which is not a declared asset of @t/app/main');
        expect(result!.errors[1]!.message).to.include('names @t/app@0.9.0, but @t/app is at version 1.0.0');
      }
    });
  });

  const cases: [string, string, RegExp][] = [
    ['an undeclared asset of the module (a typo)', '/m/@t/app@1.0.0/assets/main/bgg.svg', /names \/m\/@t\/app@1\.0\.0\/assets\/main\/bgg\.svg, which is not a declared asset of @t\/app\/main: the browser gets a 404\. Declare "bgg\.svg" under "assets"/],
    ['an undeclared asset of another module of the package', '/m/@t/app@1.0.0/assets/other/b.svg', /which is not a declared asset of @t\/app\/other: the browser gets a 404\. Name a declared asset of @t\/app\/other \(a\.svg\)/],
    ["the package's former version", '/m/@t/app@0.9.0/assets/main/bg.svg', /names @t\/app@0\.9\.0, but @t\/app is at version 1\.0\.0: .*Write \/m\/@t\/app@1\.0\.0\/assets\/main\/bg\.svg/],
    ["another package's former version", '/m/@t/lib@1.0.0/assets/x/y.svg', /names @t\/lib@1\.0\.0, but @t\/lib is at version 2\.0\.0/],
    ['a package that is not the workspace’s', '/m/@t/nope@1.0.0/assets/x/y.svg', /but no package of the workspace is named @t\/nope/],
    ['no package at all', '/m/assets/x/y.svg', /names \/m\/assets\/x\/y\.svg, where nothing is served/],
    // The router serves modules/, styles/ and assets/ after a package's address, nothing else (README "Addresses").
    ['a path after the package that is none of modules/, styles/, assets/', '/m/@t/app@1.0.0/files/main/bg.svg', /names \/m\/@t\/app@1\.0\.0\/files\/main\/bg\.svg, where nothing is served: after @t\/app@1\.0\.0\/ come modules\/, styles\/ or assets\/ and a subpath/],
    // A shared file's address answers only while modules of its package import it (README "Shared files").
    ['a file of the package shared by no module built here', '/m/@t/app@1.0.0/modules/.shared/src/x.ts', /names \/m\/@t\/app@1\.0\.0\/modules\/\.shared\/src\/x\.ts, the address of @t\/app's shared file src\/x\.ts.*this module does not import it/],
    ["another package's shared file", '/m/@t/lib@2.0.0/modules/.shared/x.ts', /the address of @t\/lib's shared file x\.ts/],
  ];
  // The module importing the shared file: it answers whenever the module is valid, since the
  // router answers a shared file named by a valid module's build (README "Shared files").
  it("keeps a shared file's address that the module's own code imports, in every variant", async () => {
    fs.mkdirSync(path.join(root, 'app/src'));
    write('app/src/x.ts', 'export const x = 1;\n');
    write('app/main/index.ts', "import { x } from '../src/x';\nexport const main = [x, new URL('/m/@t/app@1.0.0/modules/.shared/src/x.ts', import.meta.url)];\n");
    const shared = { shared: { 'app/src/x.ts': '@t/app/.shared/src/x.ts' }, package: { name: '@t/app', dir: 'app' } };
    for (const [target, variant] of [[{ ...PRODUCTION, ...shared }, productionVariant('browser')], [{ ...DEVELOPMENT, ...shared }, developmentVariant('browser')]] as const) {
      const [result] = await engine.bundle([target], variant);
      expect(result!.errors).to.deep.equal([]);
      expect(text(result!.code)).to.include('/m/@t/app@1.0.0/modules/.shared/src/x.ts');
    }
  });

  for (const [what, address, message] of cases) {
    it(`is a BUNDLE_ERROR at its place for ${what}, in a url(), an image-set() string and a new URL, in every variant`, async () => {
      write('app/main/main.css', `.main {\n  background: url(${address});\n  border-image: image-set("${address}" 1x);\n}\n`);
      write('app/main/index.ts', `import './main.css';\nexport const main = new URL('${address}', import.meta.url);\n`);
      for (const [target, variant] of [[PRODUCTION, productionVariant('browser')], [DEVELOPMENT, developmentVariant('browser')]] as const) {
        const [result] = await engine.bundle([target], variant);
        const places = result!.errors.map((error) => [error.kind, error.file, error.line, error.column]);
        expect(places).to.deep.equal([
          ['BUNDLE_ERROR', 'app/main/main.css', 2, 15],
          ['BUNDLE_ERROR', 'app/main/main.css', 3, 27],
          ['BUNDLE_ERROR', 'app/main/index.ts', 2, 21],
        ]);
        for (const error of result!.errors) expect(error.message).to.match(message);
        expect(result!.errors.map((error) => error.message.slice(0, 12))).to.deep.equal([`url(${address}`.slice(0, 12), `"${address}`.slice(0, 12), 'new URL(\'/m/']);
      }
    });
  }
});
