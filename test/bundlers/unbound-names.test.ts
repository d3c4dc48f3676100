// Names and values used where the import runs that surely throw in strict code
// (src/bundlers/unbound-names.ts, README "Bundling real code", names nothing binds): each module
// is built by esbuild and judged as a browser build is. Each throwing shape, and each kept one, was
// run in Chromium (test/browser/unbound-names.test.ts).
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import { collect } from '../../src/bundlers/build-results.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SOURCES = {
  // probe53 P3
  implicit: 'cache = {};\ncache.a = 1;\nexport const c = cache;\n',
  blockFunction: 'if (true) {\n  function helper() { return 1; }\n}\nexport const h = helper();\n',
  topArguments: 'export const n = arguments.length;\n',
  immediate: 'setImmediate(() => {});\nexport {};\n',
  // probe53 P2
  topThis: "var root = this;\nroot.version = '1.0';\nexport const version = root.version;\n",
  thisMember: "this.version = '1.0';\nexport {};\n",
  thisPassed: "(function (root) {\n  root.version = '1.0';\n})(this);\nexport {};\n",
  thisRead: 'export const version = this.version;\n',
  // Kept: each ran in Chromium.
  windowNames: 'onload = () => {};\nname = "page";\nstatus = "";\nexport {};\n',
  declared: 'let cache;\ncache = {};\nexport const c = cache;\n',
  inFunction: 'export function reset() {\n  cache = {};\n}\n',
  inBranch: 'if (globalThis.ready) cache = {};\nexport {};\n',
  shimmed: 'globalThis.cache = {};\ncache = { a: 1 };\nexport {};\n',
  tested: "if (typeof cache === 'undefined') globalThis.cache = {};\ncache = { a: 1 };\nexport {};\n",
  capital: 'MyLib = {};\nexport {};\n',
  pageRead: 'export const jq = typeof jQuery;\nexport const version = dataLayer?.length;\n',
  optionalThis: 'var root = this;\nexport const version = root?.version;\n',
  thisGiven: "(function (root) {\n  root.version = '1.0';\n})(globalThis);\nexport {};\n",
  thisInFunction: 'var root = this;\nexport function version() {\n  return root.version;\n}\n',
  blockUsedInside: 'if (true) {\n  function helper() { return 1; }\n  helper();\n}\nexport {};\n',
  argumentsInFunction: 'export function count() {\n  return arguments.length;\n}\n',
  // TypeScript's declaration of a page's global, beside a function in a block: bound nowhere in the code.
  // In TypeScript the checker refuses a sloppy script's habits; a top-level this is still told.
  'implicitTyped.ts': 'cache = {};\nexport {};\n',
  'thisTyped.ts': "var root = this;\nroot.version = '1.0';\nexport {};\n",
  'ambient.ts': "declare function gtag(...args: unknown[]): void;\nif (globalThis.ready) {\n  function later() {}\n  later();\n}\ngtag('js');\nexport {};\n",
} as const;

const entryOf = (name: string) => (name.endsWith('.ts') ? `app/${name.slice(0, -3)}/index.ts` : `app/${name}/index.js`);
// Made before the tests, not when the file loads: the run removes temporary directories after each file's tests.
let root: string;

async function judged(name: keyof typeof SOURCES, variant = developmentVariant('browser')): Promise<Array<{ kind: string; line?: number; says: string }>> {
  const entry = entryOf(name);
  const target: BundleTarget = { specifier: `@t/${entry}`, subpath: 'index', dir: entry.slice(0, entry.lastIndexOf('/')), entry, assets: [], platforms: ['web'] };
  const result = collect(root, target, 0, await esbuildApi.build(esbuildOptions(root, [target], variant)), variant);
  return result.errors.map(({ kind, line, message }) => ({ kind, line, says: /ReferenceError: [\w$]+ is not defined|TypeError: [^"]+/.exec(message)?.[0] ?? message }));
}

describe('names and values that surely throw where the import runs', () => {
  before(() => {
    root = tempWorkspace(Object.fromEntries(Object.entries(SOURCES).map(([name, text]) => [entryOf(name), text])));
  });

  it('tells a write of a name nothing binds and Chromium does not define, in both variants', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('implicit', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: cache is not defined' }]);
    }
  });

  it('tells a read of a function declared only in a block, and of arguments outside every function', async () => {
    expect(await judged('blockFunction')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 4, says: 'ReferenceError: helper is not defined' }]);
    expect(await judged('topArguments')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: arguments is not defined' }]);
  });

  it("tells Node's setImmediate called where the import runs", async () => {
    expect(await judged('immediate')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: setImmediate is not defined' }]);
  });

  it('tells each in the minified production build too, once', async () => {
    for (const name of ['implicit', 'blockFunction', 'topArguments', 'immediate', 'topThis', 'thisMember', 'thisPassed'] as const) {
      expect((await judged(name, productionVariant('browser'))).map(({ kind }) => kind), name).to.deep.equal(['BUNDLE_ERROR']);
    }
  });

  it('tells a member of this at the top level, held by a name or a parameter, read or written', async () => {
    // Placed where the source writes `this`, in both variants: a minified build renamed `root`.
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('topThis', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'TypeError: Cannot set properties of undefined' }]);
      expect(await judged('thisMember', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'TypeError: Cannot set properties of undefined' }]);
      expect(await judged('thisPassed', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 3, says: 'TypeError: Cannot set properties of undefined' }]);
    }
    expect(await judged('thisRead')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'TypeError: Cannot read properties of undefined' }]);
  });

  it('leaves a sloppy habit in a module written in TypeScript to its checker, and tells a member of its top-level this', async () => {
    expect(await judged('implicitTyped.ts')).to.deep.equal([]);
    expect(await judged('thisTyped.ts')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'TypeError: Cannot set properties of undefined' }]);
  });

  it("tells nothing of a window's name, a declared name, a use that may not run or may be defined, a capital name, a read the page may define", async () => {
    for (const name of ['windowNames', 'declared', 'inFunction', 'inBranch', 'shimmed', 'tested', 'capital', 'pageRead', 'optionalThis', 'thisGiven', 'thisInFunction', 'blockUsedInside', 'argumentsInFunction', 'ambient.ts'] as const) {
      expect(await judged(name), name).to.deep.equal([]);
    }
  });
});
