// Names and values used where the import runs that surely throw in strict code
// (src/bundlers/unbound-names.ts, README "Bundling real code", names nothing binds): each module
// is built by esbuild and judged as a browser build is. Each throwing shape, and each kept one, was
// run in Chromium (test/browser/unbound-names.test.ts).
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
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
  // judge54: members of a value surely nullish on a page, and reads of names no page the service serves defines.
  hotAccept: 'import.meta.hot.accept();\nexport {};\n',
  hotHeld: 'const hot = import.meta.hot;\nhot.dispose(() => {});\nexport {};\n',
  'hotTyped.ts': 'import.meta.hot.accept();\nexport {};\n',
  hotInFunction: 'export function reload() {\n  import.meta.hot.invalidate();\n}\n',
  hotGuarded: 'if (import.meta.hot) {\n  import.meta.hot.accept();\n}\nimport.meta.hot?.dispose(() => {});\nexport function reload() {\n  import.meta.hot.invalidate();\n}\n',
  currentScript: 'export const base = document.currentScript.src;\n',
  'currentScriptTyped.ts': 'const script = document.currentScript as HTMLScriptElement;\nexport const base = script.src;\n',
  currentScriptOptional: 'export const base = document.currentScript?.src ?? import.meta.url;\n',
  'devConstant.ts': "declare const __DEV__: boolean;\nif (__DEV__) console.log('dev');\nexport {};\n",
  'devInFunction.ts': "declare const __DEV__: boolean;\nexport function log(): void {\n  if (__DEV__) console.log('dev');\n}\n",
  'devTested.ts': "declare const __DEV__: boolean;\nexport const dev = typeof __DEV__ !== 'undefined' && __DEV__;\n",
  pageCall: "gtag('js', new Date());\nexport {};\n",
  pageInFunction: 'export function track(event) {\n  dataLayer.push(event);\n}\n',
  pageDollar: "const shown = 1;\n$('#app').show(shown);\nexport {};\n",
  // judge55: a global a TypeScript source declares for its checker alone, with no build-time constant's name.
  'ambientConst.ts': 'declare const appConfig: { base: string };\nexport const base = appConfig.base;\n',
  'ambientGlobal.ts': "declare global {\n  var dataLayer: unknown[];\n}\ndataLayer.push('x');\nexport {};\n",
  'ambientInFunction.ts': "declare function gtag(...args: unknown[]): void;\nexport function track(): void {\n  gtag('event');\n}\n",
  'ambientTested.ts': "declare function gtag(...args: unknown[]): void;\nif (typeof gtag === 'function') gtag('js');\nexport {};\n",
  'ambientShimmed.ts': "declare const appConfig: { base: string };\n(globalThis as { appConfig?: object }).appConfig = { base: '/' };\nexport const base = appConfig.base;\n",
  // judge55: document.currentScript reached through the global object.
  windowCurrentScript: 'export const base = window.document.currentScript.src;\n',
  globalThisCurrentScript: 'const script = globalThis.document.currentScript;\nexport const base = script.src;\n',
  selfCurrentScript: 'export function base() {\n  return self.document.currentScript.src;\n}\n',
  windowCurrentScriptOptional: 'export const base = window.document.currentScript?.src ?? import.meta.url;\n',
  localWindowCurrentScript: "const window = { document: { currentScript: { src: 'x' } } };\nexport const base = window.document.currentScript.src;\n",
  // probe56: import.meta reached otherwise than as import.meta.hot, document held, a surely nullish value destructured.
  hotIndexed: "import.meta['hot'].accept();\nexport {};\n",
  hotFromMeta: 'const { hot } = import.meta;\nhot.accept();\nexport {};\n',
  hotMetaHeld: 'const meta = import.meta;\nmeta.hot.accept();\nexport {};\n',
  'hotMetaTyped.ts': 'const meta: any = import.meta;\nmeta.hot.data.count = 1;\nexport {};\n',
  hotDestructured: 'const { accept } = import.meta.hot;\nexport { accept };\n',
  currentScriptFromDocument: 'const { currentScript } = document;\nexport const base = currentScript.src;\n',
  currentScriptDestructured: 'const { src } = document.currentScript;\nexport { src };\n',
  currentScriptDocumentHeld: 'const doc = document;\nexport const base = doc.currentScript.src;\n',
  hotMetaGuarded: 'const meta = import.meta;\nif (meta.hot) meta.hot.accept();\nconst { hot } = import.meta;\nhot?.dispose(() => {});\nexport function later() {\n  if (hot) hot.invalidate();\n}\nexport const url = meta.url;\n',
  hotFromMetaInFunction: 'const { hot } = import.meta;\nexport function reload() {\n  hot.invalidate();\n}\n',
} as const;

const entryOf = (name: string) => (name.endsWith('.ts') ? `app/${name.slice(0, -3)}/index.ts` : `app/${name}/index.js`);
async function collectOf(name: keyof typeof SOURCES) {
  const entry = entryOf(name);
  const target: BundleTarget = { specifier: `@t/${entry}`, subpath: 'index', dir: entry.slice(0, entry.lastIndexOf('/')), entry, assets: [], platforms: ['web'] };
  return collect(root, target, 0, await esbuildApi.build(esbuildOptions(root, [target], developmentVariant('browser'))), developmentVariant('browser'));
}

// Made before the tests, not when the file loads: the run removes temporary directories after each file's tests.
let root: string;

async function judged(name: keyof typeof SOURCES, variant = developmentVariant('browser'), told: 'errors' | 'warnings' = 'errors'): Promise<Array<{ kind: string; line?: number; says: string }>> {
  const entry = entryOf(name);
  const target: BundleTarget = { specifier: `@t/${entry}`, subpath: 'index', dir: entry.slice(0, entry.lastIndexOf('/')), entry, assets: [], platforms: ['web'] };
  const result = collect(root, target, 0, await esbuildApi.build(esbuildOptions(root, [target], variant)), variant);
  return (result[told] ?? []).map(({ kind, line, message }) => ({ kind, line, says: /ReferenceError: [\w$]+ is not defined|TypeError: [^"]+/.exec(message)?.[0] ?? message }));
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
      expect(await judged('topThis', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot set properties of undefined (setting 'version')" }]);
      expect(await judged('thisMember', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot set properties of undefined (setting 'version')" }]);
      expect(await judged('thisPassed', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 3, says: "TypeError: Cannot set properties of undefined (setting 'version')" }]);
    }
    expect(await judged('thisRead')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of undefined (reading 'version')" }]);
  });

  it('leaves a sloppy habit in a module written in TypeScript to its checker, and tells a member of its top-level this', async () => {
    expect(await judged('implicitTyped.ts')).to.deep.equal([]);
    expect(await judged('thisTyped.ts')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot set properties of undefined (setting 'version')" }]);
  });

  it("tells nothing of a window's name, a declared name, a use that may not run or may be defined, a capital name, a read the page may define", async () => {
    for (const name of ['windowNames', 'declared', 'inFunction', 'inBranch', 'shimmed', 'tested', 'capital', 'optionalThis', 'thisGiven', 'thisInFunction', 'blockUsedInside', 'argumentsInFunction'] as const) {
      expect(await judged(name), name).to.deep.equal([]);
    }
  });

  // judge54: Chromium threw each at import (test/browser/unbound-names.test.ts), where /state said valid.
  it('tells a member of import.meta.hot or document.currentScript read where the import runs, directly or held by a name, in both variants', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('hotAccept', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of undefined (reading 'accept')" }]);
      expect(await judged('hotTyped.ts', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of undefined (reading 'accept')" }]);
      expect(await judged('currentScript', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of null (reading 'src')" }]);
    }
    expect(await judged('hotHeld')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of undefined (reading 'dispose')" }]);
    expect(await judged('currentScriptTyped.ts')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of null (reading 'src')" }]);
  });

  it('warns of a member of import.meta.hot read in a function, and tells nothing where the code tests it or reads it optionally', async () => {
    expect(await judged('hotInFunction')).to.deep.equal([]);
    expect(await judged('hotInFunction', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 2, says: "TypeError: Cannot read properties of undefined (reading 'invalidate')" }]);
    for (const name of ['hotGuarded', 'currentScriptOptional'] as const) {
      expect(await judged(name), name).to.deep.equal([]);
      expect(await judged(name, developmentVariant('browser'), 'warnings'), name).to.deep.equal([]);
    }
  });

  it('tells a read of a name no page the service serves defines (a build-time constant, a page script\'s global) where the import runs, and warns of one in a function', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('devConstant.ts', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 2, says: 'ReferenceError: __DEV__ is not defined' }]);
      expect(await judged('pageCall', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: gtag is not defined' }]);
    }
    expect(await judged('pageRead')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 2, says: 'ReferenceError: dataLayer is not defined' }]);
    expect(await judged('pageDollar')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 2, says: 'ReferenceError: $ is not defined' }]);
    expect(await judged('devInFunction.ts')).to.deep.equal([]);
    expect(await judged('devInFunction.ts', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 3, says: 'ReferenceError: __DEV__ is not defined' }]);
    expect(await judged('pageInFunction', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 2, says: 'ReferenceError: dataLayer is not defined' }]);
    expect(await judged('devTested.ts')).to.deep.equal([]);
    expect(await judged('devTested.ts', developmentVariant('browser'), 'warnings')).to.deep.equal([]);
    const [told] = (await collectOf('devConstant.ts')).errors;
    expect(told!.message).to.include('"core.define"').and.include('import.meta.env.DEV');
  });

  // judge55: each threw in Chromium (test/browser/unbound-names.test.ts), where /state said valid.
  it('tells a read of a global a TypeScript source declares for its checker alone, with no build-time constant\'s name, as any other', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('ambient.ts', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 6, says: 'ReferenceError: gtag is not defined' }]);
      expect(await judged('ambientConst.ts', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 2, says: 'ReferenceError: appConfig is not defined' }]);
    }
    expect(await judged('ambientGlobal.ts')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 4, says: 'ReferenceError: dataLayer is not defined' }]);
    expect(await judged('ambientInFunction.ts')).to.deep.equal([]);
    expect(await judged('ambientInFunction.ts', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 3, says: 'ReferenceError: gtag is not defined' }]);
    for (const name of ['ambientTested.ts', 'ambientShimmed.ts'] as const) {
      expect(await judged(name), name).to.deep.equal([]);
      expect(await judged(name, developmentVariant('browser'), 'warnings'), name).to.deep.equal([]);
    }
    const [told] = (await collectOf('ambientConst.ts')).errors;
    expect(told!.message).to.include('"core.define"').and.include('declare it in the module');
  });

  // probe56: each threw in Chromium (test/browser/unbound-names.test.ts), where /state said valid.
  it('tells a member of import.meta.hot reached through import.meta indexed, held or destructured, and of document.currentScript through a name holding document', async () => {
    const reading = (key: string, holds = 'undefined') => `TypeError: Cannot read properties of ${holds} (reading '${key}')`;
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('hotIndexed', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: reading('accept') }]);
      expect(await judged('hotFromMeta', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: reading('accept') }]);
      expect(await judged('hotMetaHeld', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: reading('accept') }]);
    }
    expect(await judged('hotMetaTyped.ts')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: reading('data') }]);
    expect(await judged('currentScriptFromDocument')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 2, says: reading('src', 'null') }]);
    const [held] = await judged('currentScriptDocumentHeld');
    expect(held).to.include({ kind: 'BUNDLE_ERROR', says: reading('src', 'null') });
  });

  it('tells a destructuring of import.meta.hot or document.currentScript, which throws as a member read does', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('hotDestructured', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot destructure property 'accept' of import.meta.hot as it is undefined" }]);
    }
    expect(await judged('currentScriptDestructured')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot destructure property 'src' of document.currentScript as it is null" }]);
  });

  it('tells nothing where a name holding import.meta or its hot is tested or read optionally, and warns of one read in a function', async () => {
    expect(await judged('hotMetaGuarded')).to.deep.equal([]);
    expect(await judged('hotMetaGuarded', developmentVariant('browser'), 'warnings')).to.deep.equal([]);
    expect(await judged('hotFromMetaInFunction')).to.deep.equal([]);
    expect(await judged('hotFromMetaInFunction', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 1, says: "TypeError: Cannot read properties of undefined (reading 'invalidate')" }]);
  });

  it('tells a member of document.currentScript reached through the global object (window, globalThis, self), not of a local window', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await judged('windowCurrentScript', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of null (reading 'src')" }]);
    }
    expect(await judged('globalThisCurrentScript')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: "TypeError: Cannot read properties of null (reading 'src')" }]);
    expect(await judged('selfCurrentScript')).to.deep.equal([]);
    expect(await judged('selfCurrentScript', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 2, says: "TypeError: Cannot read properties of null (reading 'src')" }]);
    for (const name of ['windowCurrentScriptOptional', 'localWindowCurrentScript'] as const) {
      expect(await judged(name), name).to.deep.equal([]);
      expect(await judged(name, developmentVariant('browser'), 'warnings'), name).to.deep.equal([]);
    }
  });
});

// judge56: a global declared only in a declaration file the module's config includes, and a write
// of a name TypeScript declares for its checker alone; each threw in Chromium
// (test/browser/unbound-names.test.ts), where /state said valid.
describe('globals a declaration file declares, and writes of declared names', () => {
  const TYPED = {
    'typed/tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src', 'types/*.d.ts'], exclude: ['src/legacy'] }),
    'typed/types/globals.d.ts': 'declare function gtag(...args: unknown[]): void;\ndeclare let counter: number;\n',
    'typed/src/page-globals.d.ts': 'export {};\ndeclare global {\n  var dataLayer: unknown[];\n}\n',
    'typed/outside.d.ts': 'declare const notIncluded: string;\n',
    'typed/src/legacy/old.d.ts': 'declare const legacyName: string;\n',
    'typed/src/call/index.ts': "gtag('js');\nexport {};\n",
    'typed/src/push/index.ts': "dataLayer.push('x');\nexport {};\n",
    'typed/src/writeDeclared/index.ts': 'counter = 1;\nexport {};\n',
    'typed/src/writeOwn/index.ts': 'declare let ownCounter: number;\nownCounter = 1;\nexport {};\n',
    'typed/src/tested/index.ts': "if (typeof gtag === 'function') gtag('js');\nexport {};\n",
    'typed/src/inFunction/index.ts': "export function track(): void {\n  gtag('event');\n}\n",
    'typed/src/writeInFunction/index.ts': 'declare let ownCounter: number;\nexport function reset(): void {\n  ownCounter = 0;\n}\n',
    'typed/src/notIncluded/index.ts': 'export const value = notIncluded;\n',
    'typed/src/excluded/index.ts': 'export const value = legacyName;\n',
  };
  let typedRoot: string;
  const told = async (name: string, variant = developmentVariant('browser'), kind: 'errors' | 'warnings' = 'errors') => {
    const entry = `typed/src/${name}/index.ts`;
    const target: BundleTarget = { specifier: `@t/${name}`, subpath: 'index', dir: `typed/src/${name}`, entry, assets: [], platforms: ['web'] };
    const result = collect(typedRoot, target, 0, await esbuildApi.build(esbuildOptions(typedRoot, [target], variant)), variant);
    return (result[kind] ?? []).map(({ kind: code, line, message }) => ({ kind: code, line, says: /ReferenceError: [\w$]+ is not defined/.exec(message)?.[0] ?? message }));
  };
  before(() => {
    typedRoot = tempWorkspace(TYPED);
  });

  it('tells a read of a global only a declaration file of the config declares, as a declare in a source, in both variants', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await told('call', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: gtag is not defined' }]);
      expect(await told('push', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: dataLayer is not defined' }]);
    }
    expect(await told('inFunction')).to.deep.equal([]);
    expect(await told('inFunction', developmentVariant('browser'), 'warnings')).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 2, says: 'ReferenceError: gtag is not defined' }]);
    expect(await told('tested')).to.deep.equal([]);
    expect(await told('tested', developmentVariant('browser'), 'warnings')).to.deep.equal([]);
  });

  it('reads only the declaration files the config includes: not one outside its include, nor one it excludes', async () => {
    // The checker refuses these reads itself ("Cannot find name"): the code is not parsed for them.
    expect(await told('notIncluded')).to.deep.equal([]);
    expect(await told('excluded')).to.deep.equal([]);
  });

  it('tells a write of a name TypeScript declares for its checker alone where the import runs, declared in the source or a declaration file', async () => {
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      expect(await told('writeOwn', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 2, says: 'ReferenceError: ownCounter is not defined' }]);
      expect(await told('writeDeclared', variant), variant.env).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: counter is not defined' }]);
    }
    expect(await told('writeInFunction')).to.deep.equal([]);
  });

  it('tells a declaration file added to the included folder at the next build', async () => {
    fs.writeFileSync(path.join(typedRoot, 'typed/src/more.d.ts'), 'declare const laterName: string;\n');
    fs.mkdirSync(path.join(typedRoot, 'typed/src/later'));
    fs.writeFileSync(path.join(typedRoot, 'typed/src/later/index.ts'), 'export const value = laterName;\n');
    // A new turn of the event loop: what one turn listed is looked at again in the next.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await told('later')).to.deep.equal([{ kind: 'BUNDLE_ERROR', line: 1, says: 'ReferenceError: laterName is not defined' }]);
  });
});
