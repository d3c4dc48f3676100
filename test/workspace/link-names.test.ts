// The names a built module links by (README "Bundling real code"): read from esbuild's own
// output, in its development and minified forms (strings, templates, regular expressions and
// comments of bundled code never taken for a declaration), and judged across modules as a
// browser links them.
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { scanLinkNames, unlinkedNames, type LinkNames } from '../../src/workspace/link-names.js';

const LOCAL = [
  'export const local = /import { re } from "@p\\/re"}`/.test("x") ? `${`import { t } from "@p/t"; ${"}"}`}` : 2 / 1;',
  '// import { c } from "@p/comment";',
  'export function skipped() { if (local) { return /import { r } from "@p\\/r"/; } return { a: `}` }; }',
].join('\n');

const SOURCE = [
  "import { libv, missing } from '@p/a/lib';",
  "import def, { hello as h2 } from '@p/b/util';",
  "import * as ns from '@p/b/ns';",
  "import d2, * as ns2 from '@p/b/ns2';",
  "import '@p/side';",
  "import { local, skipped } from './local.js';",
  "export * from '@p/b/star';",
  "export * as starns from '@p/b/starns';",
  "export { foo, bar as baz, default as qux } from '@p/b/re';",
  "export type { T } from '@p/b/types';",
  "import { Shape, make } from '@t/t/types';",
  'export { Shape as S2, make as m2 };',
  'const text = \'import { q } from "@p/fake"\';',
  'export const own = libv + missing + def + h2 + ns.a + d2 + ns2.b + text + local + String(skipped);',
  'export default 5;',
].join('\n');

async function built(minify: boolean): Promise<{ code: string; exports: string[] }> {
  const result = await esbuild.build({
    stdin: { contents: SOURCE, loader: 'ts', resolveDir: '/', sourcefile: 'entry.ts' },
    bundle: true,
    format: 'esm',
    write: false,
    metafile: true,
    minify,
    outdir: '/out',
    plugins: [
      {
        name: 'local',
        setup(build) {
          build.onResolve({ filter: /^\.\/local\.js$/ }, () => ({ path: 'local', namespace: 'mem' }));
          // A bundled file's code comes before the entry's own imports in the output.
          build.onLoad({ filter: /.*/, namespace: 'mem' }, () => ({ contents: LOCAL, loader: 'ts' }));
        },
      },
    ],
    external: ['@p/*', '@t/*'],
  });
  return { code: result.outputFiles[0]!.text, exports: Object.values(result.metafile.outputs)[0]!.exports };
}

const EXPECTED: LinkNames = {
  exports: ['S2', 'baz', 'default', 'foo', 'm2', 'own', 'qux', 'starns'],
  stars: ['@p/b/star'],
  imports: [
    { specifier: '@p/a/lib', names: ['libv', 'missing'] },
    { specifier: '@p/b/util', names: ['default', 'hello'] },
    { specifier: '@p/b/ns2', names: ['default'] },
    { specifier: '@p/b/re', names: ['bar', 'default', 'foo'] },
    { specifier: '@t/t/types', names: ['Shape', 'make'] },
  ],
  reexports: [
    { name: 'S2', specifier: '@t/t/types', imported: 'Shape' },
    { name: 'baz', specifier: '@p/b/re', imported: 'bar' },
    { name: 'foo', specifier: '@p/b/re', imported: 'foo' },
    { name: 'm2', specifier: '@t/t/types', imported: 'make' },
    { name: 'qux', specifier: '@p/b/re', imported: 'default' },
  ],
  namespaces: [{ name: 'starns', specifier: '@p/b/starns' }],
};

describe('scanLinkNames', () => {
  for (const minify of [false, true]) {
    it(`reads the names imported from each bare specifier, the whole re-exports and the exports of esbuild's ${minify ? 'minified' : 'development'} output, not a string of the code`, async () => {
      const { code, exports } = await built(minify);
      expect(scanLinkNames(code, exports)).to.deep.equal(EXPECTED);
    });
  }

  it('reads quoted names and comments between, leaves imports with attributes, dynamic imports and import.meta unjudged, and finds a declaration after code', () => {
    const code = '/* banner */\nimport { "a-b" as c, d } from "x";\nimport sheet from "@p/a/s.css" with { type: "css" };\nimport.meta.url;\nconst lazy = import("z");\nvar q = 1;\nimport { late } from "y";\nexport { q };\n';
    expect(scanLinkNames(code, ['q'])).to.deep.equal({ exports: ['q'], imports: [{ specifier: 'x', names: ['a-b', 'd'] }, { specifier: 'y', names: ['late'] }] });
  });

  it("reads a namespace exported, as `export * as` or as esbuild writes it (`import * as ns` then `export { ns }`), apart from the names imported", () => {
    const code = 'import * as ns from "x";\nimport * as kept from "y";\nexport * as "w-s" from "w";\nexport { ns, ns as again };\nconsole.log(kept);\n';
    expect(scanLinkNames(code, ['again', 'ns', 'w-s'])).to.deep.equal({
      exports: ['again', 'ns', 'w-s'],
      namespaces: [
        { name: 'w-s', specifier: 'w' },
        { name: 'ns', specifier: 'x' },
        { name: 'again', specifier: 'x' },
      ],
    });
  });

  it('answers null for a head not of esbuild\'s form, so nothing is judged', () => {
    expect(scanLinkNames('import { a from "x";', [])).to.equal(null);
    expect(scanLinkNames('var a = 1;\nimport defer * as b from "x";', [])).to.equal(null);
  });
});

describe('unlinkedNames', () => {
  const modules: Record<string, LinkNames | null> = {
    '@p/a/lib': { exports: ['libv'] },
    '@p/b/util': { exports: ['hello', 'shared'] },
    '@p/b/x': { exports: ['shared'] },
    '@p/b/same': { exports: [], stars: ['@p/b/x'] },
    '@p/a/star': { exports: ['own'], stars: ['@p/b/util', '@p/b/x'] },
    '@p/a/diamond': { exports: [], stars: ['@p/b/x', '@p/b/same'] },
    '@p/a/loop1': { exports: [], stars: ['@p/a/loop2'] },
    '@p/a/loop2': { exports: ['two'], stars: ['@p/a/loop1'] },
    '@p/a/withdefault': { exports: ['default'] },
    '@p/a/redefault': { exports: [], stars: ['@p/a/withdefault'] },
    '@p/a/pending': null,
    '@p/c/origin': { exports: ['a'] },
    '@p/c/left': { exports: ['a'], reexports: [{ name: 'a', specifier: '@p/c/origin', imported: 'a' }] },
    '@p/c/right': { exports: ['a', 'b'], reexports: [{ name: 'a', specifier: '@p/c/origin', imported: 'a' }, { name: 'b', specifier: 'cdn-package', imported: 'b' }] },
    '@p/c/other': { exports: ['b'], reexports: [{ name: 'b', specifier: 'cdn-package', imported: 'b' }] },
    '@p/c/both': { exports: [], stars: ['@p/c/left', '@p/c/right', '@p/c/other'] },
    '@p/a/starpending': { exports: [], stars: ['@p/a/pending'] },
    '@p/d/left': { exports: ['ns'], namespaces: [{ name: 'ns', specifier: '@p/c/origin' }] },
    '@p/d/right': { exports: ['ns'], namespaces: [{ name: 'ns', specifier: '@p/c/origin' }] },
    '@p/d/other': { exports: ['ns'], namespaces: [{ name: 'ns', specifier: '@p/c/left' }] },
    '@p/d/own': { exports: ['ns'] },
    '@p/d/same': { exports: [], stars: ['@p/d/left', '@p/d/right'] },
    '@p/d/different': { exports: [], stars: ['@p/d/left', '@p/d/other'] },
    '@p/d/mixed': { exports: [], stars: ['@p/d/left', '@p/d/own'] },
  };
  const judge = (imports: LinkNames['imports']) => unlinkedNames({ exports: [], imports }, (specifier) => modules[specifier]);

  it('finds a name the module does not export, and a default it does not have', () => {
    expect(judge([{ specifier: '@p/a/lib', names: ['libv', 'missing'] }, { specifier: '@p/b/util', names: ['default', 'hello'] }])).to.deep.equal({
      unlinked: [
        { specifier: '@p/a/lib', name: 'missing', ambiguous: false },
        { specifier: '@p/b/util', name: 'default', ambiguous: false },
      ],
      unknown: [],
    });
  });

  it('resolves whole re-exports transitively: a name two give is ambiguous, one both reach from one module is not, its own export wins, a cycle gives nothing, default never passes', () => {
    expect(judge([{ specifier: '@p/a/star', names: ['hello', 'shared', 'own', 'none'] }]).unlinked).to.deep.equal([
      { specifier: '@p/a/star', name: 'shared', ambiguous: true },
      { specifier: '@p/a/star', name: 'none', ambiguous: false },
    ]);
    expect(judge([{ specifier: '@p/a/diamond', names: ['shared'] }]).unlinked).to.deep.equal([]);
    expect(judge([{ specifier: '@p/a/loop1', names: ['two', 'three'] }]).unlinked).to.deep.equal([{ specifier: '@p/a/loop1', name: 'three', ambiguous: false }]);
    // Two whole re-exports of one binding that each import and export by name: the same binding, as a browser resolves it.
    expect(judge([{ specifier: '@p/c/both', names: ['a', 'b'] }]).unlinked).to.deep.equal([]);
    // One module's namespace exported by two whole re-exports: one binding; another module's, or an own export of the name: two.
    expect(judge([{ specifier: '@p/d/same', names: ['ns'] }]).unlinked).to.deep.equal([]);
    expect(judge([{ specifier: '@p/d/different', names: ['ns'] }, { specifier: '@p/d/mixed', names: ['ns'] }]).unlinked).to.deep.equal([
      { specifier: '@p/d/different', name: 'ns', ambiguous: true },
      { specifier: '@p/d/mixed', name: 'ns', ambiguous: true },
    ]);
    expect(judge([{ specifier: '@p/a/redefault', names: ['default'] }]).unlinked).to.deep.equal([{ specifier: '@p/a/redefault', name: 'default', ambiguous: false }]);
  });

  it('says what is not known yet (a module not built, directly or through a whole re-export) and judges nothing it cannot (a package the CDN serves)', () => {
    expect(judge([{ specifier: '@p/a/pending', names: ['a'] }, { specifier: '@p/a/starpending', names: ['b'] }, { specifier: 'lit', names: ['html'] }])).to.deep.equal({
      unlinked: [],
      unknown: ['@p/a/pending', '@p/a/starpending'],
    });
  });
});
