// A declared `.js` asset the code names by `new URL` (a module worker) is served as written, so
// the browser fetches what it imports: an undeclared sibling answers 404 and a bare specifier has
// no import map in a worker. Each is a warning ASSET_IMPORT_UNSERVED at the import (README
// "Bundling real code"); the module stays valid, and the assets read are inputs of its build.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import type { Platform } from '../../src/workspace/model.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const unserved = (result: BundleResult) =>
  (result.warnings ?? []).filter((w) => w.kind === 'ASSET_IMPORT_UNSERVED').map(({ file, line, column, message }) => ({ file, line, column, message }));

describe('the imports of a declared script asset named by new URL (a worker)', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const MAIN = appTarget('main', { assets: ['w1.js', 'w2.js', 'w3.js', 'helper2.js', 'unnamed.js', 'broken.js', 'w/deep.mjs'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': [
        "for (const url of [new URL('./w1.js', import.meta.url), new URL('./w2.js', import.meta.url), new URL('./w3.js', import.meta.url),",
        "  new URL('./broken.js', import.meta.url), new URL('./w/deep.mjs', import.meta.url)]) new Worker(url, { type: 'module' });",
        '',
      ].join('\n'),
      // An undeclared sibling: served nowhere.
      'app/main/w1.js': "import { h } from './helper1.js';\npostMessage(h);\n",
      'app/main/helper1.js': "export const h = 'h1';\n",
      // A declared sibling is served; what it imports in turn is judged too.
      'app/main/w2.js': "import { h } from './helper2.js';\npostMessage(h);\n",
      'app/main/helper2.js': "export { h } from 'some-package';\n",
      // A bare specifier: a worker has no import map.
      'app/main/w3.js': "// a worker\nimport { a } from '@p/lib/util';\npostMessage(a);\n",
      // Declared but named by no code: not judged.
      'app/main/unnamed.js': "import 'anything';\n",
      // Does not parse: the browser says why, not this check.
      'app/main/broken.js': "import { from './x.js';\n",
      // Climbing back to a declared asset, from the origin's root, with a scheme: none is judged wrong.
      'app/main/w/deep.mjs': "import '../helper2.js';\nimport '/elsewhere.js';\nimport 'https://cdn.test/x.js';\n",
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`warns at each import the browser cannot load, and the module stays valid (${variant.env})`, async () => {
      const [result] = await engine.bundle([MAIN], variant);
      expect(result!.errors).to.deep.equal([]);
      expect(result!.code).to.not.equal(null);
      const found = unserved(result!);
      expect(found.map(({ file, line, column }) => ({ file, line, column }))).to.deep.equal([
        { file: 'app/main/w1.js', line: 1, column: 19 },
        { file: 'app/main/w3.js', line: 2, column: 19 },
        { file: 'app/main/helper2.js', line: 1, column: 19 },
      ]);
      expect(found[0]!.message).to.contain('imports "./helper1.js" (app/main/helper1.js), which is no declared asset of @t/app/main').and.to.contain('declare "helper1.js" under "assets" too');
      expect(found[1]!.message).to.contain('imports "@p/lib/util" by a bare specifier: a worker has no import map');
      expect(found[2]!.message).to.contain('app/main/helper2.js is a declared asset').and.to.contain('"some-package"');
      // Each asset read is an input: an edit of the helper a worker imports judges it again.
      expect(result!.inputs).to.include.members(['app/main/w1.js', 'app/main/w2.js', 'app/main/helper2.js', 'app/main/w/deep.mjs']);
      expect(result!.inputs).to.not.include('app/main/unnamed.js');
    });
  }

  it('says nothing once the sibling is declared and the bare import is a relative one', async () => {
    fs.writeFileSync(path.join(root, 'app/main/w3.js'), "import { h } from './helper2.js';\npostMessage(h);\n");
    fs.writeFileSync(path.join(root, 'app/main/helper2.js'), "export const h = 'h2';\n");
    const [result] = await engine.bundle([{ ...MAIN, assets: [...MAIN.assets, 'helper1.js'] }], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    expect(unserved(result!)).to.deep.equal([]);
  });

  it("judges how the code starts a worker whose file name holds '%' or '#', by its percent-encoded address", async () => {
    fs.writeFileSync(path.join(root, 'app/main/index.ts'), "new Worker(new URL('./w%1.js', import.meta.url));\nnew Worker(new URL('./w%231.js', import.meta.url));\n");
    fs.writeFileSync(path.join(root, 'app/main/w%1.js'), "import './w%231.js';\npostMessage(1);\n");
    fs.writeFileSync(path.join(root, 'app/main/w%231.js'), "export {};\n");
    const [result] = await engine.bundle([appTarget('main', { assets: ['w%1.js', 'w%231.js'] })], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    expect((result!.warnings ?? []).filter((w) => w.kind === 'WORKER_TYPE_MISMATCH').map(({ file, line }) => ({ file, line }))).to.deep.equal([
      { file: 'app/main/w%1.js', line: 1 },
      { file: 'app/main/w%231.js', line: 1 },
    ]);
  });
});

// How the code starts a worker decides what its script may write (README "Bundling real code"):
// a classic worker (no `{ type: 'module' }`) throws a SyntaxError at `import`, `export` or
// `import.meta`, a module worker a TypeError at `importScripts`; `importScripts` and `import()`
// of a literal load what a static import does, each by its own rule. Each found by Chromium in
// /tmp/workers51 first (test/browser/worker-loads.test.ts proves two of them).
const said = (result: BundleResult, kinds = ['ASSET_IMPORT_UNSERVED', 'WORKER_TYPE_MISMATCH', 'WORKER_ADDRESS_FROM_PAGE']) =>
  (result.warnings ?? []).filter((w) => kinds.includes(w.kind)).map(({ kind, file, line, column, message }) => ({ kind, file, line, column, message }));
const placesOf = (found: ReturnType<typeof said>) => found.map(({ kind, file, line, column }) => `${kind} ${file}:${line}:${column}`);

describe('what a worker loads, as the code starts it', () => {
  let engine: ReturnType<typeof createEsbuildEngine> | null = null;
  afterEach(() => engine?.dispose());

  async function built(files: Record<string, string>, assets: string[], variant = developmentVariant('browser'), platforms: Platform[] = ['web']): Promise<BundleResult> {
    const root = tempWorkspace(files);
    engine = createEsbuildEngine({ root });
    const [result] = await engine.bundle([appTarget('main', { assets, platforms })], variant);
    expect(result!.errors).to.deep.equal([]);
    expect(result!.code).to.not.equal(null);
    return result!;
  }

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`a classic worker's import, export and import.meta, and a module worker's importScripts, are each a WORKER_TYPE_MISMATCH (${variant.env})`, async () => {
      const result = await built({
        'app/main/index.ts': [
          "new Worker(new URL('./classic-import.js', import.meta.url));",
          "new Worker(new URL('./classic-meta.js', import.meta.url), { name: 'meta' });",
          "new SharedWorker(new URL('./classic-export.js', import.meta.url), 'shared');",
          "navigator.serviceWorker.register(new URL('./sw.js', import.meta.url));",
          "new Worker(new URL('./module-scripts.js', import.meta.url), { type: 'module' });",
          // The same script started both ways: each way judged.
          "new Worker(new URL('./both.js', import.meta.url), { type: 'module' });",
          "new Worker(new URL('./both.js', import.meta.url).href);",
          '',
        ].join('\n'),
        'app/main/classic-import.js': "// a worker\nimport { h } from './h.js';\npostMessage(h);\n",
        'app/main/classic-meta.js': 'postMessage(import.meta.url);\n',
        'app/main/classic-export.js': 'onconnect = () => {};\nexport {};\n',
        'app/main/sw.js': "self.addEventListener('install', () => {});\nexport const version = 1;\n",
        'app/main/module-scripts.js': "const ready = 1;\nself.importScripts('./h.js');\n",
        'app/main/both.js': "import './h.js';\n",
        'app/main/h.js': 'export const h = 1;\n',
      }, ['classic-import.js', 'classic-meta.js', 'classic-export.js', 'sw.js', 'module-scripts.js', 'both.js', 'h.js'], variant);
      const found = said(result);
      expect(placesOf(found).sort()).to.deep.equal([
        'WORKER_TYPE_MISMATCH app/main/both.js:1:1',
        'WORKER_TYPE_MISMATCH app/main/classic-export.js:2:1',
        'WORKER_TYPE_MISMATCH app/main/classic-import.js:2:1',
        'WORKER_TYPE_MISMATCH app/main/classic-meta.js:1:13',
        'WORKER_TYPE_MISMATCH app/main/module-scripts.js:2:1',
        'WORKER_TYPE_MISMATCH app/main/sw.js:2:1',
      ]);
      const byFile = (file: string) => found.find((w) => w.file === `app/main/${file}`)!.message;
      expect(byFile('classic-import.js')).to.contain("is run as a classic script (the module's code starts it without { type: 'module' }), and writes a static import").and.to.contain('SyntaxError');
      expect(byFile('classic-meta.js')).to.contain('writes import.meta');
      expect(byFile('classic-export.js')).to.contain('writes an export');
      expect(byFile('module-scripts.js')).to.contain('is run as a module').and.to.contain('calls importScripts()').and.to.contain('TypeError');
      // The scripts read are inputs: an edit of one judges it again.
      expect(result.inputs).to.include.members(['app/main/classic-import.js', 'app/main/module-scripts.js', 'app/main/both.js']);
    });
  }

  it("a worker started by its asset's address written as such (../assets/<subpath>/w.js, without a version: as in production) is judged too", async () => {
    const result = await built({
      'app/main/index.ts': "new Worker(new URL('../assets/main/w.js', import.meta.url));\nnew Worker(new URL('../assets/main/m.js', import.meta.url), { type: 'module' });\n",
      'app/main/w.js': "import './h.js';\n",
      'app/main/m.js': "import './h.js';\n",
      'app/main/h.js': '',
    }, ['w.js', 'm.js', 'h.js']);
    expect(placesOf(said(result))).to.deep.equal(['WORKER_TYPE_MISMATCH app/main/w.js:1:1']);
  });

  it('says nothing of a classic worker that loads by importScripts nor of a module worker that imports', async () => {
    const result = await built({
      'app/main/index.ts': [
        "new Worker(new URL('./classic.js', import.meta.url));",
        "new Worker(new URL('./module.js', import.meta.url), { type: 'module' });",
        "new SharedWorker(new URL('./shared.js', import.meta.url), { type: 'module', name: 's' });",
        '',
      ].join('\n'),
      'app/main/classic.js': "importScripts('./helper.js', 'other.js');\nimport('./lib.js').then(({ h }) => postMessage(h));\n",
      'app/main/helper.js': 'self.ready = true;\n',
      'app/main/other.js': 'self.other = true;\n',
      'app/main/module.js': "import { h } from './lib.js';\nconst more = await import('./lib.js');\npostMessage(h + more.h + import.meta.url);\n",
      'app/main/shared.js': "export {};\nonconnect = (event) => event.ports[0].postMessage(import.meta.url);\n",
      'app/main/lib.js': 'export const h = 1;\n',
    }, ['classic.js', 'helper.js', 'other.js', 'module.js', 'shared.js', 'lib.js']);
    expect(said(result)).to.deep.equal([]);
    expect(result.inputs).to.include.members(['app/main/classic.js', 'app/main/helper.js', 'app/main/other.js', 'app/main/lib.js']);
  });

  it("importScripts of an undeclared file or a package's name is ASSET_IMPORT_UNSERVED, and a script it loads is judged as classic", async () => {
    const result = await built({
      'app/main/index.ts': "new Worker(new URL('../assets/main/w.js', import.meta.url));\n",
      'app/main/w.js': "importScripts('./declared.js');\nimportScripts('missing.js', 'lodash');\nimportScripts('https://cdn.test/x.js', '/root.js');\n",
      'app/main/declared.js': "self.x = 1;\nimport.meta;\nimportScripts('../main/deeper.js');\n",
      'app/main/missing.js': '',
    }, ['w.js', 'declared.js']);
    const found = said(result);
    expect(placesOf(found)).to.deep.equal([
      'ASSET_IMPORT_UNSERVED app/main/w.js:2:15',
      'ASSET_IMPORT_UNSERVED app/main/w.js:2:29',
      'WORKER_TYPE_MISMATCH app/main/declared.js:2:1',
      'ASSET_IMPORT_UNSERVED app/main/declared.js:3:15',
    ]);
    expect(found[0]!.message).to.contain('calls importScripts("missing.js"), which loads app/main/missing.js, no declared asset of @t/app/main').and.to.contain('NetworkError').and.to.contain('declare "missing.js" under "assets" too');
    expect(found[1]!.message).to.contain('importScripts takes an address, not a package name: "lodash" names a file beside the asset');
    expect(found[2]!.message).to.contain('is run as a classic script (app/main/w.js loads it by importScripts)');
    expect(found[3]!.message).to.contain('app/main/deeper.js');
  });

  it('import() of a literal in a worker follows the rules of a static import', async () => {
    const result = await built({
      'app/main/index.ts': "new Worker(new URL('./w.js', import.meta.url), { type: 'module' });\n",
      'app/main/w.js': "const a = await import('some-package');\nconst b = await import(`./undeclared.js`);\nconst c = await import('./declared.js');\nconst d = await import(name);\n",
      'app/main/declared.js': "export default await import('@p/lib/util');\n",
      'app/main/undeclared.js': '',
    }, ['w.js', 'declared.js']);
    const found = said(result);
    expect(placesOf(found)).to.deep.equal([
      'ASSET_IMPORT_UNSERVED app/main/w.js:1:24',
      'ASSET_IMPORT_UNSERVED app/main/w.js:2:24',
      'ASSET_IMPORT_UNSERVED app/main/declared.js:1:29',
    ]);
    expect(found[0]!.message).to.contain('calls import("some-package") with a bare specifier: a worker has no import map').and.to.contain('the import() rejects');
    expect(found[1]!.message).to.contain('calls import("./undeclared.js") (app/main/undeclared.js), which is no declared asset of @t/app/main: its address answers 404');
  });

  it("an asset's address passed on (.href, a variable) is judged by the rules every worker shares, never by its type", async () => {
    const result = await built({
      'app/main/index.ts': [
        "const href = new URL('./passed.js', import.meta.url).href;",
        'globalThis.start?.(href);',
        "new Worker(new URL('./href.js', import.meta.url).href, { type: 'module' });",
        '',
      ].join('\n'),
      // Either way it may be run: no mismatch; what it loads is judged.
      'app/main/passed.js': "import './nowhere.js';\nimportScripts('gone.js');\n",
      'app/main/href.js': "import { h } from './h.js';\n",
      'app/main/h.js': 'export const h = 1;\n',
    }, ['passed.js', 'href.js', 'h.js']);
    expect(placesOf(said(result))).to.deep.equal(['ASSET_IMPORT_UNSERVED app/main/passed.js:1:8', 'ASSET_IMPORT_UNSERVED app/main/passed.js:2:15']);
  });

  it("new Worker('<relative>') resolves against the page: a WORKER_ADDRESS_FROM_PAGE at the constructor, saying where", async () => {
    const result = await built({
      'app/main/index.ts': [
        'export const start = () => [',
        "  new Worker('./w.js', { type: 'module' }),",
        "  new SharedWorker(`workers/s.js`),",
        "  new Worker('/root.js'),",
        "  new Worker('https://cdn.test/w.js'),",
        "  new Worker(new URL('./w.js', import.meta.url)),",
        '];',
        '',
      ].join('\n'),
      'app/main/w.js': "postMessage('w');\n",
    }, ['w.js']);
    const found = said(result);
    expect(placesOf(found)).to.deep.equal(['WORKER_ADDRESS_FROM_PAGE app/main/index.ts:2:3', 'WORKER_ADDRESS_FROM_PAGE app/main/index.ts:3:3']);
    expect(found[0]!.message).to.contain("new Worker('./w.js') resolves \"./w.js\" against the page's address, not the module's: on the service's preview pages it is /preview/w.js and /preview/bundled/w.js, where nothing is served");
    expect(found[0]!.message).to.contain("write new Worker(new URL('./w.js', import.meta.url))");
    expect(found[1]!.message).to.contain('/preview/workers/s.js');
  });

  // Chromium runs each of these module workers to its end (probe51b F9; the try form in
  // test/browser/worker-loads.test.ts): only a call that surely runs at the start throws.
  it("a module worker's importScripts that may not run at its start (in a try, behind a test, in a function not called there, a bound name) is no WORKER_TYPE_MISMATCH", async () => {
    const workers = ['try.js', 'guard.js', 'later.js', 'bound.js', 'called.js'];
    const result = await built({
      'app/main/index.ts': workers.map((file) => `new Worker(new URL('./${file}', import.meta.url), { type: 'module' });\n`).join(''),
      'app/main/try.js': "try { importScripts('./h.js'); } catch {}\npostMessage('ok');\n",
      'app/main/guard.js': "if (typeof WorkerGlobalScope === 'undefined') importScripts('./h.js');\npostMessage('ok');\n",
      'app/main/later.js': "export function legacy() { importScripts('./h.js'); }\nself.onmessage = () => self.importScripts('./h.js');\n",
      'app/main/bound.js': "const importScripts = (...urls) => urls;\nimportScripts('./h.js');\n",
      // A function the top level calls runs at the start: told, at the call.
      'app/main/called.js': "function load() { globalThis.importScripts('./h.js'); }\nload();\n",
      'app/main/h.js': 'self.h = 1;\n',
    }, [...workers, 'h.js']);
    const found = said(result);
    expect(placesOf(found)).to.deep.equal(['WORKER_TYPE_MISMATCH app/main/called.js:1:19']);
    expect(found[0]!.message).to.contain('calls importScripts() where the worker starts');
  });

  // Only the browser's Worker resolves a string against the page (probe51b F15a): a Worker the
  // code binds (an import of its own class, a parameter, a local class) is another's.
  it("new Worker('<relative>') of a bound Worker is no WORKER_ADDRESS_FROM_PAGE; the global's still is", async () => {
    const imported = await built({
      'app/main/index.ts': [
        "import { Worker } from './pool';",
        "export const pooled = new Worker('./task.js');",
        "export const real = () => new SharedWorker('./real.js');",
        '',
      ].join('\n'),
      'app/main/pool.ts': 'export class Worker { constructor(readonly name: string) {} }\n',
    }, []);
    const found = said(imported);
    expect(placesOf(found)).to.deep.equal(['WORKER_ADDRESS_FROM_PAGE app/main/index.ts:3:27']);
    expect(found[0]!.message).to.contain("new SharedWorker('./real.js')");
    // esbuild renames a name shadowing a global the bundle reads: these keep theirs only alone.
    const shadowing = await built({
      'app/main/index.ts': [
        "export function make(Worker: any) { return new Worker('./param.js'); }",
        "export function local() { class SharedWorker { constructor(readonly name: string) {} } return new SharedWorker('./local.js'); }",
        '',
      ].join('\n'),
    }, []);
    expect(placesOf(said(shadowing))).to.deep.equal([]);
  });

  // The global object's member and a name given the global are the browser's Worker too
  // (probe52 P4: Chromium answers 404 for each, resolved against the page).
  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`new window.Worker, globalThis.Worker, self.SharedWorker and a const holding Worker, given '<relative>': WORKER_ADDRESS_FROM_PAGE; a window bound otherwise is not (${variant.env})`, async () => {
      const result = await built({
        'app/main/index.ts': [
          'const W = Worker;',
          'export const start = () => [',
          "  new window.Worker('./a.js'),",
          "  new globalThis.Worker('./b.js'),",
          "  new self.SharedWorker('./c.js'),",
          "  new W('./d.js'),",
          '];',
          '',
        ].join('\n'),
      }, [], variant);
      const found = said(result);
      expect(placesOf(found)).to.deep.equal([
        'WORKER_ADDRESS_FROM_PAGE app/main/index.ts:3:3',
        'WORKER_ADDRESS_FROM_PAGE app/main/index.ts:4:3',
        'WORKER_ADDRESS_FROM_PAGE app/main/index.ts:5:3',
        // The minifier renames the const: no source writes the name it prints, so the place is the entry.
        variant.env === 'production' ? 'WORKER_ADDRESS_FROM_PAGE app/main/index.ts:undefined:undefined' : 'WORKER_ADDRESS_FROM_PAGE app/main/index.ts:6:3',
      ]);
      expect(found[3]!.message).to.match(variant.env === 'production' ? /^new Worker\('\.\/d\.js'\)/ : /^new W\('\.\/d\.js'\)/);
      expect(found[0]!.message).to.contain("new window.Worker('./a.js') resolves \"./a.js\" against the page's address").and.to.contain("write new window.Worker(new URL('./a.js', import.meta.url))");
      expect(found[2]!.message).to.contain("new self.SharedWorker('./c.js')");
      const bound = await built({
        'app/main/index.ts': "export function make(window: any) { return [new window.Worker('./param.js'), new window.Pool('./pool.js')]; }\n",
      }, [], variant);
      expect(placesOf(said(bound))).to.deep.equal([]);
    });
  }

  it('a module worker started by new window.Worker or a const holding Worker is judged by its options: classic, it may not import (WORKER_TYPE_MISMATCH)', async () => {
    const result = await built({
      'app/main/index.ts': [
        "new window.Worker(new URL('./classic.js', import.meta.url));",
        'const W = globalThis.Worker;',
        "new W(new URL('./aliased.js', import.meta.url));",
        "new self.Worker(new URL('./module.js', import.meta.url), { type: 'module' });",
        '',
      ].join('\n'),
      'app/main/classic.js': "import './h.js';\n",
      'app/main/aliased.js': "import './h.js';\n",
      'app/main/module.js': "import './h.js';\n",
      'app/main/h.js': 'self.h = 1;\n',
    }, ['classic.js', 'aliased.js', 'module.js', 'h.js']);
    expect(placesOf(said(result, ['WORKER_TYPE_MISMATCH']))).to.deep.equal(['WORKER_TYPE_MISMATCH app/main/aliased.js:1:1', 'WORKER_TYPE_MISMATCH app/main/classic.js:1:1']);
  });

  // The constructor under another name: `let` and `var` as `const`, and a name taken from the global
  // object by destructuring (the code as esbuild prints it keeps the pattern, minified too); a name
  // written again, or given a default, follows nothing.
  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`a worker constructor held by let, var or destructured from the global object is followed as a const holding it (${variant.env})`, async () => {
      const started = (declaration: string) => ({
        'app/main/index.ts': `${declaration}\nnew W(new URL('./classic.js', import.meta.url));\nexport const start = () => new W('./page.js');\n`,
        'app/main/classic.js': "import './h.js';\n",
        'app/main/h.js': 'self.h = 1;\n',
      });
      const followed = ['let W = Worker;', 'var W = Worker;', 'const { Worker: W } = globalThis;', 'const { Worker: W } = window;', 'const { SharedWorker: S, Worker: W } = self;', 'const { Worker } = globalThis; const W = Worker;'];
      for (const declaration of followed) {
        const found = placesOf(said(await built(started(declaration), ['classic.js', 'h.js'], variant))).map((place) => place.replace(/:\w+:\w+$/, ''));
        expect(found, declaration).to.deep.equal(['WORKER_ADDRESS_FROM_PAGE app/main/index.ts', 'WORKER_TYPE_MISMATCH app/main/classic.js']);
      }
      for (const declaration of ['let W = Worker; W = Pool;', 'let { Worker: W } = globalThis; W = Pool;', 'const { Worker: W = Pool } = globalThis;']) {
        expect(placesOf(said(await built(started(declaration), ['classic.js', 'h.js'], variant))), declaration).to.deep.equal([]);
      }
    });
  }

  it("a module that runs on Node only gets no WORKER_ADDRESS_FROM_PAGE: no page starts it", async () => {
    const files = { 'app/main/index.ts': "export const start = () => new Worker('./w.js');\n" };
    expect(placesOf(said(await built(files, [], developmentVariant('node'), ['node'])))).to.deep.equal([]);
    // The same code where a browser runs it is told.
    expect(placesOf(said(await built(files, [], developmentVariant('browser'), ['web', 'node'])))).to.deep.equal(['WORKER_ADDRESS_FROM_PAGE app/main/index.ts:1:28']);
  });

  // A Node worker (worker_threads) resolves a bare import as Node resolves any; an undeclared
  // sibling is neither served nor written beside the asset, where it runs either way. The asset
  // is named by its address written as such, the form judged in a node-only module's code.
  it('a module that runs on Node only: a bare import of its worker is not told, an undeclared sibling still is', async () => {
    const files = {
      'app/main/index.ts': "import { Worker } from 'node:worker_threads';\nexport const start = () => new Worker(new URL('../assets/main/w.js', import.meta.url));\n",
      'app/main/w.js': "import { parentPort } from 'node:worker_threads';\nimport { a } from 'some-package';\nimport { h } from './helper.js';\nparentPort.postMessage(a + h);\n",
      'app/main/helper.js': "export const h = 'h';\n",
    };
    const nodeOnly = said(await built(files, ['w.js'], developmentVariant('node'), ['node']));
    expect(placesOf(nodeOnly)).to.deep.equal(['ASSET_IMPORT_UNSERVED app/main/w.js:3:19']);
    expect(nodeOnly[0]!.message).to.contain('imports "./helper.js" (app/main/helper.js), which is no declared asset of @t/app/main');
    // Where a browser may run it, the bare imports are told (a worker has no import map).
    const both = said(await built(files, ['w.js'], developmentVariant('browser'), ['web', 'node']));
    expect(placesOf(both)).to.deep.equal(['ASSET_IMPORT_UNSERVED app/main/w.js:1:28', 'ASSET_IMPORT_UNSERVED app/main/w.js:2:19', 'ASSET_IMPORT_UNSERVED app/main/w.js:3:19']);
  });
});
