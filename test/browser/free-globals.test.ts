// Names no browser defines, in Chromium (README "Bundling real code"): the code esbuild writes for
// a module reading process.env.API_URL when imported (at the top level, in an arrow called at
// once or by its name at the top level, through `(0, f)()`, a bound copy, Reflect.apply or a
// template tag, in a class constructed, in a static field, after a typeof guard of other
// code, after a shim written only in an exported function or after a return, in the `init` a
// base class's constructor calls that the constructed subclass has, in a private method, static
// or not, in a method given its own instance by `.call`, in the `init` an ordinary method calls
// through `this` where the import calls that method), one reading Node's global, JSX with no
// tsconfig `jsx`, with a tsconfig `jsxFactory` left unbound and with `jsx: preserve`, throws on
// the page ("is not defined"), and /state lists each invalid; a module guarding process
// with typeof, `globalThis.process`, `in` or an early return, JSX compiled by tsconfig's
// `jsx: react-jsx` against an installed react, a tsconfig's factory imported, and a module whose
// shim file writes process on the global object first, and one whose read is a parameter's
// default never taken (its argument given), one whose read follows a return, one importing a
// polyfill module of the workspace for its effects first, one whose base class's `init` reads
// process but the subclass constructed has its own, one calling a private method after an
// optional link a nullish value ends, are valid and run on the preview.
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import type { Browser } from 'playwright-core';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { launchChromium, openPage, until } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SHOW = (value: string) => `document.body.insertAdjacentHTML('beforeend', '<p id="shown">' + ${value} + '</p>');\n`;

const THROWING = {
  env: { entry: 'env/index.ts', text: `const url = process.env.API_URL;\n${SHOW('url')}`, thrown: 'process is not defined' },
  global: { entry: 'global/index.ts', text: `const name = global.name;\n${SHOW('name')}`, thrown: 'global is not defined' },
  jsx: { entry: 'jsx/index.tsx', text: `const view = () => <b>hi</b>;\n${SHOW('String(view())')}`, thrown: 'React is not defined' },
  // Run where written: an arrow called at once, a static field's initializer.
  called: { entry: 'called/index.ts', text: `const url = (() => process.env.API_URL)();\n${SHOW('url')}`, thrown: 'process is not defined' },
  static: { entry: 'static/index.ts', text: `class Config { static version = process.version; }\n${SHOW('Config.version')}`, thrown: 'process is not defined' },
  // A function called by its name where the import runs.
  named: { entry: 'named/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nconst url = apiUrl();\n${SHOW('url')}`, thrown: 'process is not defined' },
  // A function called where the import runs through a member, another name, `.call`, or an array literal's forEach.
  member: { entry: 'member/index.ts', text: `const config = {\n  apiUrl() {\n    return process.env.API_URL;\n  },\n};\nconst url = config.apiUrl();\n${SHOW('url')}`, thrown: 'process is not defined' },
  alias: { entry: 'alias/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nconst read = apiUrl;\nconst url = read.call(null);\n${SHOW('url')}`, thrown: 'process is not defined' },
  each: { entry: 'each/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nlet url = '';\n[apiUrl].forEach((read) => {\n  url = read();\n});\n${SHOW('url')}`, thrown: 'process is not defined' },
  // probe51b F4: through a comma expression (TypeScript's and esbuild's CommonJS output), a class constructed, a bound copy, Reflect.apply, a template tag.
  comma: { entry: 'comma/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nconst url = (0, apiUrl)();\n${SHOW('url')}`, thrown: 'process is not defined' },
  constructed: { entry: 'constructed/index.ts', text: `class Config {\n  url: string;\n  constructor() {\n    this.url = process.env.API_URL as string;\n  }\n}\nconst config = new Config();\n${SHOW('config.url')}`, thrown: 'process is not defined' },
  bound: { entry: 'bound/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nconst url = apiUrl.bind(null)();\n${SHOW('url')}`, thrown: 'process is not defined' },
  // A bound copy a name holds, called where the import runs (judge52's note).
  boundAlias: { entry: 'boundAlias/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nconst read = apiUrl.bind(null);\nconst url = read();\n${SHOW('url')}`, thrown: 'process is not defined' },
  reflected: { entry: 'reflected/index.ts', text: `function apiUrl() {\n  return process.env.API_URL;\n}\nconst url = Reflect.apply(apiUrl, null, []);\n${SHOW('url')}`, thrown: 'process is not defined' },
  tagged: { entry: 'tagged/index.ts', text: `function apiUrl(_strings: TemplateStringsArray) {\n  return process.env.API_URL;\n}\nconst url = apiUrl\`/v1\`;\n${SHOW('url')}`, thrown: 'process is not defined' },
  // A shim written only in a function nothing calls at import defines nothing for the read the import makes.
  uncalled: { entry: 'uncalled/index.ts', text: `export function install(): void {\n  Object.assign(globalThis, { process: { env: { API_URL: 'shim' } } });\n}\nconst url = process.env.API_URL;\n${SHOW('url')}`, thrown: 'process is not defined' },
  // A class written where it is constructed (probe52 P3).
  classExpression: { entry: 'classExpression/index.ts', text: `const config = new (class {\n  url = process.env.API_URL;\n})();\n${SHOW('config.url')}`, thrown: 'process is not defined' },
  // judge53: the `init` a base class's constructor calls is the constructed subclass's; a private
  // method, static or not, its class calls; a method given its own instance by `.call`.
  thisInit: { entry: 'thisInit/index.ts', text: `class Base {\n  url = '';\n  constructor() {\n    this.init();\n  }\n  init(): void {\n    this.url = 'base';\n  }\n}\nclass Api extends Base {\n  init(): void {\n    this.url = process.env.API_URL as string;\n  }\n}\nconst api = new Api();\n${SHOW('api.url')}`, thrown: 'process is not defined' },
  privateMethod: { entry: 'privateMethod/index.ts', text: `class Config {\n  url: string;\n  #read(): string {\n    return process.env.API_URL as string;\n  }\n  constructor() {\n    this.url = this.#read();\n  }\n}\nconst config = new Config();\n${SHOW('config.url')}`, thrown: 'process is not defined' },
  staticPrivate: { entry: 'staticPrivate/index.ts', text: `class Config {\n  static url = '';\n  static #read(): string {\n    return process.env.API_URL as string;\n  }\n  static {\n    Config.url = Config.#read();\n  }\n}\n${SHOW('Config.url')}`, thrown: 'process is not defined' },
  ownCall: { entry: 'ownCall/index.ts', text: `class Config {\n  apiUrl(): string {\n    return process.env.API_URL as string;\n  }\n}\nconst config = new Config();\nconst url = config.apiUrl.call(config);\n${SHOW('url')}`, thrown: 'process is not defined' },
  // judge54: `this.init()` in an ordinary method called where the import runs.
  thisStart: { entry: 'thisStart/index.ts', text: `class Api {\n  url = '';\n  start(): void {\n    this.init();\n  }\n  init(): void {\n    this.url = process.env.API_URL as string;\n  }\n}\nconst api = new Api();\napi.start();\n${SHOW('api.url')}`, thrown: 'process is not defined' },
  // A shim written after a `return` never runs (judge53).
  deadShim: { entry: 'deadShim/index.ts', text: `function install(): void {\n  return;\n  Object.assign(globalThis, { process: { env: { API_URL: 'shim' } } });\n}\ninstall();\nconst url = process.env.API_URL;\n${SHOW('url')}`, thrown: 'process is not defined' },
  // A typeof guard before guards nothing after it.
  after: { entry: 'after/index.ts', text: `if (typeof process !== 'undefined') console.log('node');\nconst url = process.env.API_URL;\n${SHOW('url')}`, thrown: 'process is not defined' },
} as const;

/** JSX compiled by a package's tsconfig (its own package): a factory and fragment left unbound, and `jsx: preserve`, which esbuild compiles as classic JSX. */
const THROWING_JSX = {
  h: { tsconfig: { jsx: 'react', jsxFactory: 'h', jsxFragmentFactory: 'Fragment' }, text: `const view = () => <b>hi</b>;\n${SHOW('String(view())')}`, thrown: 'h is not defined' },
  preserve: { tsconfig: { jsx: 'preserve' }, text: `const view = () => <b>hi</b>;\n${SHOW('String(view())')}`, thrown: 'React is not defined' },
} as const;

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/ui', ...Object.keys(THROWING_JSX).map((name) => `packages/${name}`), 'packages/hbound'] }),
    'packages/app/package.json': json({
      name: '@g/app',
      version: '1.0.0',
      exports: { ...Object.fromEntries(Object.entries(THROWING).map(([name, { entry }]) => [`./${name}`, `./${entry}`])), './guarded': './guarded/index.ts', './guards': './guards/index.ts', './held': './held/index.ts', './shimmed': './shimmed/index.ts', './given': './given/index.ts', './unreachable': './unreachable/index.ts', './polyfill': './polyfill/index.ts', './polyfilled': './polyfilled/index.ts', './overridden': './overridden/index.ts', './optional': './optional/index.ts' },
    }),
    ...Object.fromEntries(
      Object.entries(THROWING_JSX).flatMap(([name, { tsconfig, text }]) => [
        [`packages/${name}/package.json`, json({ name: `@g/${name}`, version: '1.0.0', exports: { './view': './view/index.tsx' } })],
        [`packages/${name}/tsconfig.json`, json({ compilerOptions: tsconfig })],
        [`packages/${name}/view/index.tsx`, text],
      ]),
    ),
    // Each read reached only when its guard holds: none runs on a page.
    'packages/app/guards/index.ts': [
      "if (globalThis.process) console.log(process.env.API_URL);",
      "const inNode = 'process' in globalThis && process.env.API_URL;",
      "(function () { if (typeof process === 'undefined') return; console.log(process.env.API_URL); })();",
      '(async () => process.env.API_URL)().catch(() => {});',
      `${SHOW("'guards ' + String(inNode)")}`,
    ].join('\n'),
    'packages/hbound/package.json': json({ name: '@g/hbound', version: '1.0.0', exports: { './view': './view/index.tsx' } }),
    'packages/hbound/tsconfig.json': json({ compilerOptions: { jsx: 'react', jsxFactory: 'h', jsxFragmentFactory: 'Fragment' } }),
    'packages/hbound/view/dom.ts': 'export const Fragment = "";\nexport function h(type: string, _props: unknown, ...children: string[]) {\n  return type ? `<${type}>${children.join("")}</${type}>` : children.join("");\n}\n',
    'packages/hbound/view/index.tsx': `import { h, Fragment } from './dom.ts';\nconst view = <><i>bound</i></>;\n${SHOW("'h ' + view")}`,
    ...Object.fromEntries(Object.values(THROWING).map(({ entry, text }) => [`packages/app/${entry}`, text])),
    // A guard held in a variable, and a method replaced before its call: both run on a page.
    'packages/app/held/index.ts': [
      'const isNode = !!globalThis.process;',
      'const config = { apiUrl: () => process.env.API_URL };',
      "config.apiUrl = () => 'replaced';",
      "const url = isNode ? process.env.API_URL : config.apiUrl();",
      `${SHOW("'held ' + url")}`,
    ].join('\n'),
    // A shim file imported first writes process on the global object: the read after it runs on a page.
    'packages/app/shimmed/shim.ts': "Object.assign(globalThis, { process: { env: { API_URL: 'shim' } } });\n",
    'packages/app/shimmed/index.ts': `import './shim.ts';\nconst url = process.env.API_URL;\n${SHOW("'shimmed ' + url")}`,
    // A parameter's default is not evaluated when its argument is given (probe51b F3b).
    'packages/app/given/index.ts': `function apiUrl(url = process.env.API_URL) {\n  return url;\n}\nconst url = apiUrl('given');\n${SHOW("'default ' + url")}`,
    // A read after a return is never reached (probe52 P1: it was an error, and core dist wrote it).
    'packages/app/unreachable/index.ts': `function apiUrl() {\n  return 'early';\n  process.env.API_URL;\n}\nconst url = apiUrl();\n${SHOW("'unreachable ' + url")}`,
    // A polyfill module of the workspace, imported for its effects, runs first (probe52 P2: it was an error).
    'packages/app/polyfill/index.ts': "Object.assign(globalThis, { process: { env: { API_URL: 'polyfill' } } });\nexport {};\n",
    'packages/app/polyfilled/index.ts': `import '@g/app/polyfill';\nconst url = process.env.API_URL;\n${SHOW("'polyfilled ' + url")}`,
    // The subclass constructed has its own init, which reads nothing: the base class's never runs (judge53).
    'packages/app/overridden/index.ts': `class Base {\n  url = '';\n  constructor() {\n    this.init();\n  }\n  init(): void {\n    this.url = process.env.API_URL as string;\n  }\n}\nclass Api extends Base {\n  init(): void {\n    this.url = 'own';\n  }\n}\nconst api = new Api();\n${SHOW("'overridden ' + api.url")}`,
    // A private method after an optional link a nullish value ends: never called (judge53).
    'packages/app/optional/index.ts': `class Config {\n  #read(): string {\n    return process.env.API_URL as string;\n  }\n  static url(config?: Config): string {\n    return config?.#read() ?? 'none';\n  }\n}\nconst url = Config.url(undefined);\n${SHOW("'optional ' + url")}`,
    'packages/app/guarded/index.ts': `const url = typeof process !== 'undefined' && process.env.API_URL;\n${SHOW("'guarded ' + String(url)")}`,
    'packages/ui/package.json': json({ name: '@g/ui', version: '1.0.0', exports: { './view': './view/index.tsx' }, dependencies: { react: '18.0.0' } }),
    'packages/ui/tsconfig.json': json({ compilerOptions: { jsx: 'react-jsx' } }),
    'packages/ui/view/index.tsx': "const view = <p id=\"shown\">{'rendered'} <b>by jsx</b></p>;\ndocument.body.append(view as unknown as Node);\n",
    // A tiny react whose automatic runtime makes DOM elements: enough for the page to show the JSX ran.
    'node_modules/react/package.json': json({ name: 'react', version: '18.0.0', type: 'module', exports: { '.': './index.js', './jsx-runtime': './jsx-runtime.js' } }),
    'node_modules/react/index.js': 'export default {};\n',
    'node_modules/react/jsx-runtime.js': [
      'export const Fragment = Symbol.for("react.fragment");',
      'export function jsx(type, props) {',
      '  const element = document.createElement(type);',
      '  for (const [name, value] of Object.entries(props)) if (name !== "children") element.setAttribute(name, value);',
      '  element.append(...[props.children ?? []].flat());',
      '  return element;',
      '}',
      'export const jsxs = jsx;',
      '',
    ].join('\n'),
  });
}

describe('names no browser defines, in Chromium', function () {
  // Two builds and a page for each of some thirty modules: minutes on a loaded machine.
  this.timeout(600_000);
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

  it('runs the code esbuild writes for each module /state calls invalid, and it throws on the page', async function () {
    const statuses = new Map((await service.report()).modules.map((m) => [m.specifier, m.status]));
    const cases = [
      ...Object.entries(THROWING).map(([name, { entry, thrown }]) => ({ name, specifier: `@g/app/${name}`, dir: `packages/app/${name}`, entry: `packages/app/${entry}`, thrown })),
      ...Object.entries(THROWING_JSX).map(([name, { thrown }]) => ({ name, specifier: `@g/${name}/view`, dir: `packages/${name}/view`, entry: `packages/${name}/view/index.tsx`, thrown })),
    ];
    for (const { name, specifier, dir, entry, thrown } of cases) {
      expect(statuses.get(specifier), name).to.equal('invalid');
      for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
        const target: BundleTarget = { specifier, subpath: 'view', dir, entry, assets: [], platforms: ['web'] };
        const built = await esbuildApi.build(esbuildOptions(root, [target], variant));
        const code = built.outputFiles!.find((file) => file.path.endsWith('.js'))!.text;
        const watched = await openPage(browser);
        try {
          await watched.page.setContent('<!doctype html><html><body></body></html>');
          await watched.page.addScriptTag({ type: 'module', content: code });
          await until(() => watched.errors.length > 0, `${name} (${variant.env}) to throw`);
          expect(watched.errors.join(' | '), `${name} ${variant.env}`).to.include(thrown);
          expect(await watched.page.locator('#shown').count(), `${name} ${variant.env}`).to.equal(0);
        } finally {
          await watched.page.close();
        }
      }
    }
  });

  it('runs on the preview a module guarding process with typeof, and JSX compiled by jsx: react-jsx, both valid', async function () {
    const statuses = new Map((await service.report()).modules.map((m) => [m.specifier, m.status]));
    const shown: Record<string, string | null> = {};
    for (const specifier of ['@g/app/guarded', '@g/ui/view', '@g/app/guards', '@g/hbound/view', '@g/app/held', '@g/app/shimmed', '@g/app/given', '@g/app/unreachable', '@g/app/polyfilled', '@g/app/overridden', '@g/app/optional']) {
      expect(statuses.get(specifier), specifier).to.equal('valid');
      const watched = await openPage(browser);
      try {
        await watched.page.goto(new URL(`/preview/?entry=${encodeURIComponent(specifier)}`, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForSelector('#shown', { timeout: 15_000 }).catch(() => {
          throw new Error(`${specifier} never ran; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
        });
        shown[specifier] = await watched.page.locator('#shown').textContent();
        expect(watched.errors, specifier).to.deep.equal([]);
      } finally {
        await watched.page.close();
      }
    }
    expect(shown).to.deep.equal({ '@g/app/guarded': 'guarded false', '@g/ui/view': 'rendered by jsx', '@g/app/guards': 'guards false', '@g/hbound/view': 'h bound', '@g/app/held': 'held replaced', '@g/app/shimmed': 'shimmed shim', '@g/app/given': 'default given', '@g/app/unreachable': 'unreachable early', '@g/app/polyfilled': 'polyfilled polyfill', '@g/app/overridden': 'overridden own', '@g/app/optional': 'optional none' });
    // The guard held in a variable guards the module's reads that may not run (the replaced method's too): not even a warning.
    const held = (await service.report()).modules.find((m) => m.specifier === '@g/app/held')!;
    expect((held.warnings ?? []).map(({ kind, line }) => ({ kind, line }))).to.deep.equal([]);
    // The read the shim provides is told as a warning: whether its write comes first is the code's order.
    const shimmed = (await service.report()).modules.find((m) => m.specifier === '@g/app/shimmed')!;
    expect((shimmed.warnings ?? []).map(({ kind, file, line }) => ({ kind, file, line }))).to.deep.equal([{ kind: 'BUNDLE_WARNING', file: 'packages/app/shimmed/index.ts', line: 2 }]);
    // The module imported for its effects may be the shim: the read is taken as defined, a warning naming it.
    const polyfilled = (await service.report()).modules.find((m) => m.specifier === '@g/app/polyfilled')!;
    expect((polyfilled.warnings ?? []).map(({ kind, file, line, message }) => ({ kind, file, line, names: message.includes('imports @g/app/polyfill for its effects') }))).to.deep.equal([{ kind: 'BUNDLE_WARNING', file: 'packages/app/polyfilled/index.ts', line: 2, names: true }]);
  });
});
