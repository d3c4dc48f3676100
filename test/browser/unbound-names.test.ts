// Names and values used where the import runs that surely throw, in Chromium (README "Bundling real
// code", names nothing binds): the code esbuild writes for a module writing an implicit global,
// calling a function declared only in a block, reading arguments at the top level, calling
// setImmediate, using a member of `this` at the top level (held by a name, passed to a function
// called at once), of `import.meta.hot` (also through `import.meta` indexed, held or destructured)
// or of `document.currentScript` (also as `window.document.currentScript`, or of a name holding
// `document`), destructuring either, or reading a name no page the service serves defines
// (`__DEV__`, a page script's `gtag`, declared in TypeScript for its checker alone or not) throws on the page, and /state
// lists each invalid, as core dist does; a module writing a name of Chromium's window, a name it
// declares, one it writes on the global object first, or one in a function it does not call, one
// reading `this`, `import.meta.hot` or `document.currentScript` optionally or where it tests them,
// one testing `__DEV__` (or a declared `gtag`) with typeof, one writing the declared name on the
// global object first, and one whose package defines the name read (`core.define`),
// is valid and runs on the preview.
// The names of Chromium's window that start lowercase are those src/bundlers/window-names.ts lists.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { WINDOW_NAMES } from '../../src/bundlers/window-names.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { itJudgesAsChromiumRuns } from '../helpers/judged-pages.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SHOW = (value: string) => `document.body.insertAdjacentHTML('beforeend', '<p id="shown">' + ${value} + '</p>');\n`;

const THROWING = {
  implicit: { text: `cache = {};\ncache.a = 1;\n${SHOW('cache.a')}`, thrown: 'cache is not defined' },
  blockFunction: { text: `if (true) {\n  function helper() { return 1; }\n}\nconst h = helper();\n${SHOW('h')}`, thrown: 'helper is not defined' },
  topArguments: { text: `const n = arguments.length;\n${SHOW('n')}`, thrown: 'arguments is not defined' },
  immediate: { text: `setImmediate(() => {});\n${SHOW("'immediate'")}`, thrown: 'setImmediate is not defined' },
  topThis: { text: `var root = this;\nroot.version = '1.0';\n${SHOW('root.version')}`, thrown: 'Cannot set properties of undefined' },
  thisPassed: { text: `(function (root) {\n  root.version = '1.0';\n})(this);\n${SHOW("'passed'")}`, thrown: 'Cannot set properties of undefined' },
  // judge54: a member of import.meta.hot or of document.currentScript, a read of a name no page the service serves defines.
  hotAccept: { text: `import.meta.hot.accept();\n${SHOW("'hot'")}`, thrown: "Cannot read properties of undefined (reading 'accept')" },
  currentScript: { text: `const base = document.currentScript.src;\n${SHOW('base')}`, thrown: "Cannot read properties of null (reading 'src')" },
  devConstant: { file: 'index.ts', text: `declare const __DEV__: boolean;\nif (__DEV__) console.log('dev');\n${SHOW("'dev'")}`, thrown: '__DEV__ is not defined' },
  pageCall: { text: `gtag('js', new Date());\n${SHOW("'tracked'")}`, thrown: 'gtag is not defined' },
  // judge55: a global a TypeScript source declares for its checker alone; document.currentScript through the global object.
  ambientCall: { file: 'index.ts', text: `declare function gtag(...args: unknown[]): void;\ngtag('js');\n${SHOW("'tracked'")}`, thrown: 'gtag is not defined' },
  ambientConst: { file: 'index.ts', text: `declare const appConfig: { base: string };\nconst base = appConfig.base;\n${SHOW('base')}`, thrown: 'appConfig is not defined' },
  ambientGlobal: { file: 'index.ts', text: `declare global {\n  var dataLayer: unknown[];\n}\ndataLayer.push('x');\n${SHOW("'pushed'")}`, thrown: 'dataLayer is not defined' },
  windowCurrentScript: { text: `const base = window.document.currentScript.src;\n${SHOW('base')}`, thrown: "Cannot read properties of null (reading 'src')" },
  globalThisCurrentScript: { text: `const script = globalThis.document.currentScript;\n${SHOW('script.src')}`, thrown: "Cannot read properties of null (reading 'src')" },
  selfCurrentScript: { text: `const base = self.document.currentScript.src;\n${SHOW('base')}`, thrown: "Cannot read properties of null (reading 'src')" },
  // probe56: import.meta reached otherwise than as import.meta.hot, document held, a surely nullish value destructured.
  hotIndexed: { text: `import.meta['hot'].accept();\n${SHOW("'hot'")}`, thrown: "Cannot read properties of undefined (reading 'accept')" },
  hotFromMeta: { text: `const { hot } = import.meta;\nhot.accept();\n${SHOW("'hot'")}`, thrown: "Cannot read properties of undefined (reading 'accept')" },
  hotMetaHeld: { text: `const meta = import.meta;\nmeta.hot.accept();\n${SHOW("'hot'")}`, thrown: "Cannot read properties of undefined (reading 'accept')" },
  hotDestructured: { text: `const { accept } = import.meta.hot;\n${SHOW('typeof accept')}`, thrown: "Cannot destructure property 'accept'" },
  currentScriptFromDocument: { text: `const { currentScript } = document;\n${SHOW('currentScript.src')}`, thrown: "Cannot read properties of null (reading 'src')" },
  currentScriptDocumentHeld: { text: `const doc = document;\n${SHOW('doc.currentScript.src')}`, thrown: "Cannot read properties of null (reading 'src')" },
} as const;

const RUNNING = {
  windowNames: { text: `onload = () => {};\nname = 'page';\n${SHOW("'window ' + name")}`, shown: 'window page' },
  declared: { text: `let cache;\ncache = { a: 1 };\n${SHOW("'declared ' + cache.a")}`, shown: 'declared 1' },
  shimmed: { text: `globalThis.cache = {};\ncache = { a: 1 };\n${SHOW("'shimmed ' + cache.a")}`, shown: 'shimmed 1' },
  inFunction: { text: `export function reset() {\n  cache = {};\n}\n${SHOW("'later'")}`, shown: 'later' },
  optionalThis: { text: `var root = this;\n${SHOW("'optional ' + root?.version")}`, shown: 'optional undefined' },
  blockUsedInside: { text: `let h = 0;\nif (true) {\n  function helper() { return 1; }\n  h = helper();\n}\n${SHOW("'inside ' + h")}`, shown: 'inside 1' },
  hotGuarded: { text: `if (import.meta.hot) {\n  import.meta.hot.accept();\n}\nimport.meta.hot?.dispose(() => {});\n${SHOW("'hot ' + typeof import.meta.hot")}`, shown: 'hot undefined' },
  currentScriptOptional: { text: `const base = document.currentScript?.src ?? 'module';\n${SHOW("'script ' + base")}`, shown: 'script module' },
  devTested: { file: 'index.ts', text: `declare const __DEV__: boolean;\nconst dev = typeof __DEV__ !== 'undefined' && __DEV__;\n${SHOW("'dev ' + dev")}`, shown: 'dev false' },
  // The package defines it (core.define), as README's hint says.
  devDefined: { file: 'index.ts', text: `declare const __APP_VERSION__: string;\n${SHOW("'version ' + __APP_VERSION__")}`, shown: 'version 1.2.3' },
  devInFunction: { text: `export function log() {\n  if (__DEV__) console.log('dev');\n}\n${SHOW("'later'")}`, shown: 'later' },
  ambientTested: { file: 'index.ts', text: `declare function gtag(...args: unknown[]): void;\nif (typeof gtag === 'function') gtag('js');\n${SHOW("'tracked ' + typeof gtag")}`, shown: 'tracked undefined' },
  ambientShimmed: { file: 'index.ts', text: `declare const appConfig: { base: string };\n(globalThis as { appConfig?: object }).appConfig = { base: 'set' };\n${SHOW("'config ' + appConfig.base")}`, shown: 'config set' },
  windowCurrentScriptOptional: { text: `const base = window.document.currentScript?.src ?? 'module';\n${SHOW("'script ' + base")}`, shown: 'script module' },
  hotMetaGuarded: { text: `const meta = import.meta;\nif (meta.hot) meta.hot.accept();\nconst { hot } = import.meta;\nhot?.dispose(() => {});\n${SHOW("'meta ' + typeof meta.hot + ' ' + typeof hot")}`, shown: 'meta undefined undefined' },
} as const;

const fileOf = (name: string): string => {
  const found: { file?: string } = { ...THROWING, ...RUNNING }[name as keyof typeof THROWING & keyof typeof RUNNING];
  return found.file ?? 'index.js';
};

function workspace(): string {
  const cases = { ...THROWING, ...RUNNING };
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'] }),
    'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: Object.fromEntries(Object.keys(cases).map((name) => [`./${name}`, `./${name}/${fileOf(name)}`])), core: { define: { __APP_VERSION__: '"1.2.3"' } } }),
    ...Object.fromEntries(Object.entries(cases).map(([name, { text }]) => [`packages/app/${name}/${fileOf(name)}`, `${text}export {};\n`])),
  });
}

describe('names and values that surely throw where the import runs, in Chromium', function () {
  this.timeout(300_000);
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  itJudgesAsChromiumRuns({ browser: () => browser, service: () => service, root: () => root, throwing: THROWING, running: RUNNING, entryOf: fileOf });

  it("lists every name of Chromium's window (a secure context's) that starts with a lowercase letter, _ or $", async function () {
    const watched = await openPage(browser);
    try {
      const blank = new URL('/blank-page-for-names', service.url).href;
      await watched.page.route(blank, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html><body></body></html>' }));
      await watched.page.goto(blank, { waitUntil: 'load' });
      const names = await watched.page.evaluate(() => {
        const found = new Set<string>();
        for (let object: object | null = window; object !== null; object = Object.getPrototypeOf(object)) for (const name of Object.getOwnPropertyNames(object)) found.add(name);
        return [...found];
      });
      // The page's own helper (see test/helpers/chromium.ts) is no name of Chromium's.
      const judged = names.filter((name) => /^[a-z_$]/.test(name) && name !== '__name');
      expect(judged.length).to.be.greaterThan(200);
      expect(judged.filter((name) => !WINDOW_NAMES.has(name))).to.deep.equal([]);
    } finally {
      await watched.page.close();
    }
  });
});
