// Names no browser defines, in the code esbuild wrote (README "Bundling real code"): a Node global
// read when the module is imported, and JSX compiled to React.createElement with nothing binding
// React, make the module invalid in every variant of its browser build, at the read; a read inside
// a function only is a warning; a `typeof` guard, a local binding, a `target=node` module and JSX
// compiled by a tsconfig's `jsx: react-jsx` are never told. A shared file reading one makes every
// module importing it invalid.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';

const MODULES = ['env', 'names', 'lazy', 'guarded', 'local', 'nodeenv', 'jsx', 'server', 'one', 'two', 'called', 'named', 'after', 'guards'];

const workspace = () =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/ui', 'packages/h', 'packages/pre'] }),
    'packages/app/package.json': json({ name: '@g/app', version: '1.0.0', exports: Object.fromEntries(MODULES.map((name) => [`./${name}`, `./${name}/index.${name === 'jsx' ? 'tsx' : 'ts'}`])) }),
    'packages/app/env/index.ts': '// the address of the API\nexport const url = process.env.API_URL;\n',
    'packages/app/names/index.ts': [
      'export const name = global.name;',
      "export const bytes = Buffer.from('a');",
      'export const dir = __dirname;',
      'export const file = __filename;',
      'module.exports.extra = 1;',
      '',
    ].join('\n'),
    'packages/app/lazy/index.ts': 'export function url() {\n  return process.env.API_URL;\n}\n',
    'packages/app/guarded/index.ts': "export const url = typeof process !== 'undefined' ? process.env.API_URL : undefined;\n",
    'packages/app/local/index.ts': "const process = { env: { API_URL: 'here' } };\nexport const url = process.env.API_URL + { module: 1 }.module;\n",
    'packages/app/nodeenv/index.ts': "export const production = process.env.NODE_ENV === 'production';\n",
    'packages/app/jsx/index.tsx': 'export function view() {\n  return <div>hi</div>;\n}\n',
    'packages/app/server/module.json': json({ platforms: ['node'] }),
    'packages/app/server/index.ts': 'export const port = process.env.PORT;\n',
    'packages/app/shared/config.ts': 'export const api = process.env.API_URL;\n',
    'packages/app/one/index.ts': "import { api } from '../shared/config.ts';\nexport const one = api;\n",
    'packages/app/two/index.ts': "import { api } from '../shared/config.ts';\nexport const two = api;\n",
    'packages/app/called/index.ts': [
      'export const url = (() => process.env.API_URL)();',
      'export class Config {',
      '  static title = global.name;',
      '}',
      '',
    ].join('\n'),
    'packages/app/named/index.ts': 'function apiUrl() {\n  return process.env.API_URL;\n}\nexport const url = apiUrl();\n',
    'packages/app/after/index.ts': "export const node = typeof process !== 'undefined';\nexport const url = process.env.API_URL;\n",
    'packages/app/guards/index.ts': [
      'if (globalThis.process) console.log(process.env.API_URL);',
      "export const inNode = 'process' in globalThis && process.env.API_URL;",
      "(function () { if (typeof process === 'undefined') return; console.log(process.env.API_URL); })();",
      '',
    ].join('\n'),
    'packages/h/package.json': json({ name: '@g/h', version: '1.0.0', exports: { './free': './free/index.tsx', './bound': './bound/index.tsx' } }),
    'packages/h/tsconfig.json': json({ compilerOptions: { jsx: 'react', jsxFactory: 'h', jsxFragmentFactory: 'Fragment' } }),
    'packages/h/free/index.tsx': 'export const view = () => <b>hi</b>;\n',
    'packages/h/bound/index.tsx': "import { h } from '../dom.ts';\nexport const view = () => <b>hi</b>;\n",
    'packages/h/dom.ts': 'export const h = (type: string) => type;\n',
    'packages/pre/package.json': json({ name: '@g/pre', version: '1.0.0', exports: { './view': './view/index.tsx' } }),
    'packages/pre/tsconfig.json': json({ compilerOptions: { jsx: 'preserve' } }),
    'packages/pre/view/index.tsx': 'export const view = <b>hi</b>;\n',
    'packages/ui/package.json': json({ name: '@g/ui', version: '1.0.0', exports: { './view': './view/index.tsx' }, dependencies: { react: '18.0.0' } }),
    'packages/ui/tsconfig.json': json({ compilerOptions: { jsx: 'react-jsx' } }),
    'packages/ui/view/index.tsx': 'export const view = <div>hi</div>;\n',
    'node_modules/react/package.json': json({ name: 'react', version: '18.0.0', type: 'module', exports: { '.': './index.js', './jsx-runtime': './jsx-runtime.js' } }),
    'node_modules/react/index.js': 'export default {};\n',
    'node_modules/react/jsx-runtime.js': 'export const jsx = () => null, jsxs = jsx, Fragment = {};\n',
  });

describe('names no browser defines, in /state and on /m/', () => {
  let service: Awaited<ReturnType<typeof serve>>;
  let modules: Map<string, Awaited<ReturnType<typeof service.report>>['modules'][number]>;

  before(async () => {
    service = await serve(workspace());
    modules = new Map((await service.report()).modules.map((m) => [m.specifier, m]));
  });
  after(async () => service?.close());

  const placed = (specifier: string) => modules.get(specifier)!.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }));
  const warned = (specifier: string) => (modules.get(specifier)!.warnings ?? []).map(({ kind, file, line, column }) => ({ kind, file, line, column }));

  it('lists process.env.API_URL read when imported invalid at the read, saying what throws and what to write', () => {
    expect(modules.get('@g/app/env')!.status).to.equal('invalid');
    expect(placed('@g/app/env')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/env/index.ts', line: 2, column: 20 }]);
    const { message } = modules.get('@g/app/env')!.diagnostics[0]!;
    expect(message).to.match(/^process\.env\.API_URL is read when the module is imported/).and.to.include('ReferenceError: process is not defined');
    expect(message).to.include('import.meta.env.API_URL').and.to.include('core.define');
  });

  it("lists each of Node's other globals read when imported, at its read", () => {
    expect(modules.get('@g/app/names')!.status).to.equal('invalid');
    const file = 'packages/app/names/index.ts';
    expect(placed('@g/app/names')).to.have.deep.members([
      { kind: 'BUNDLE_ERROR', file, line: 1, column: 21 },
      { kind: 'BUNDLE_ERROR', file, line: 2, column: 22 },
      { kind: 'BUNDLE_ERROR', file, line: 3, column: 20 },
      { kind: 'BUNDLE_ERROR', file, line: 4, column: 21 },
      { kind: 'BUNDLE_ERROR', file, line: 5, column: 1 },
    ]);
    const messages = modules.get('@g/app/names')!.diagnostics.map(({ message }) => message).join('\n');
    for (const remedy of ['globalThis', 'Uint8Array', "new URL('.', import.meta.url)", 'import.meta.url', 'export default']) expect(messages).to.include(remedy);
  });

  it('lists JSX compiled to React.createElement invalid, even inside a function, saying to set jsx in tsconfig or import React', () => {
    expect(modules.get('@g/app/jsx')!.status).to.equal('invalid');
    expect(placed('@g/app/jsx')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/jsx/index.tsx', line: 2, column: 10 }]);
    expect(modules.get('@g/app/jsx')!.diagnostics[0]!.message).to.include('React is not defined').and.to.include('"jsx": "react-jsx"').and.to.include('import React');
  });

  it('lists a read in an arrow called at once, in a function called by its name at the top level, in a static field, and after a typeof guard of other code invalid at the read', () => {
    expect(modules.get('@g/app/called')!.status).to.equal('invalid');
    expect(placed('@g/app/called')).to.have.deep.members([
      { kind: 'BUNDLE_ERROR', file: 'packages/app/called/index.ts', line: 1, column: 27 },
      { kind: 'BUNDLE_ERROR', file: 'packages/app/called/index.ts', line: 3, column: 18 },
    ]);
    expect(modules.get('@g/app/called')!.diagnostics.map(({ message }) => message.split(' ')[0])).to.have.members(['process.env.API_URL', 'global']);
    expect(modules.get('@g/app/named')!.status).to.equal('invalid');
    expect(placed('@g/app/named')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/named/index.ts', line: 2, column: 10 }]);
    expect(modules.get('@g/app/after')!.status).to.equal('invalid');
    expect(modules.get('@g/app/after')!.diagnostics[0]!.message).to.match(/^process\.env\.API_URL is read when the module is imported/);
  });

  it("lists JSX whose tsconfig's jsxFactory nothing binds invalid, and JSX under jsx: preserve judged as the classic JSX esbuild compiles", () => {
    expect(modules.get('@g/h/free')!.status).to.equal('invalid');
    expect(placed('@g/h/free')).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/h/free/index.tsx', line: 1, column: 27 }]);
    expect(modules.get('@g/h/free')!.diagnostics[0]!.message).to.include('h is not defined').and.to.include('packages/h/tsconfig.json');
    expect(modules.get('@g/h/bound')!.status).to.equal('valid');
    expect(modules.get('@g/pre/view')!.status).to.equal('invalid');
    expect(modules.get('@g/pre/view')!.diagnostics[0]!.message).to.include('"jsx": "preserve" of packages/pre/tsconfig.json').and.to.include('React is not defined');
  });

  it('keeps a read inside a function valid with a warning at the read', () => {
    expect(modules.get('@g/app/lazy')!.status).to.equal('valid');
    expect(warned('@g/app/lazy')).to.deep.equal([{ kind: 'BUNDLE_WARNING', file: 'packages/app/lazy/index.ts', line: 2, column: 10 }]);
    expect(modules.get('@g/app/lazy')!.warnings![0]!.message).to.include("typeof process !== 'undefined'");
  });

  it('tells nothing of a typeof, globalThis or in guard, an early return, a local binding or a property name, process.env.NODE_ENV, a module for node, and JSX with jsx: react-jsx', () => {
    for (const specifier of ['@g/app/guarded', '@g/app/local', '@g/app/nodeenv', '@g/app/server', '@g/ui/view', '@g/app/guards']) {
      expect(modules.get(specifier)!.status, specifier).to.equal('valid');
      expect(modules.get(specifier)!.diagnostics, specifier).to.deep.equal([]);
      expect(modules.get(specifier)!.warnings, specifier).to.equal(undefined);
    }
  });

  it('lists every module importing a shared file that reads process.env when imported invalid, at the shared file', () => {
    for (const specifier of ['@g/app/one', '@g/app/two']) {
      expect(modules.get(specifier)!.status, specifier).to.equal('invalid');
      expect(placed(specifier), specifier).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/shared/config.ts', line: 1, column: 20 }]);
    }
  });

  it('answers 422 BUILD_FAILED for the development and the production output of an invalid module, and the code of a valid one', async () => {
    for (const address of ['/m/@g/app@1.0.0/modules/env', `/m/@g/app@1.0.0/modules/env?${PRODUCTION}`, `/m/@g/app@1.0.0/modules/jsx?${PRODUCTION}`]) {
      const answer = await service.get(address);
      expect(answer.status, address).to.equal(422);
      expect(answer.text, address).to.include('BUILD_FAILED');
    }
    expect((await service.get(`/m/@g/app@1.0.0/modules/guarded?${PRODUCTION}`)).status).to.equal(200);
  });
});

// A module imported for its effects may be a shim that runs first (README "Bundling real code",
// "Shims"), unless it is a stylesheet module of the workspace, whose code is empty: importing a
// theme for its effects never defines `process`, and the read still throws on the page.
describe('a read the import makes after an import for effects only', function () {
  this.timeout(60_000);

  it('is an error after a stylesheet module of the workspace, and the "taken as defined" warning after a module that may run code', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/lib', 'packages/app'] }),
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './theme': './theme.css', './shim': './shim.js' } }),
      'packages/lib/theme.css': 'body { color: red; }\n',
      'packages/lib/shim.js': 'globalThis.process = { env: {} };\n',
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './themed': './themed.js', './shimmed': './shimmed.js' }, dependencies: { '@p/lib': '1.0.0' } }),
      'packages/app/themed.js': "import '@p/lib/theme';\nexport const x = process.env.X;\n",
      'packages/app/shimmed.js': "import '@p/lib/shim';\nexport const x = process.env.X;\n",
    });
    const service = await serve(root);
    try {
      const modules = new Map((await service.report()).modules.map((module) => [module.specifier, module]));
      expect(modules.get('@p/app/themed')!.status).to.equal('invalid');
      expect(modules.get('@p/app/themed')!.diagnostics.map(({ kind }) => kind)).to.deep.equal(['BUNDLE_ERROR']);
      expect(modules.get('@p/app/shimmed')!.status).to.equal('valid');
      expect((modules.get('@p/app/shimmed')!.warnings ?? []).map(({ message }) => message)).to.satisfy((messages: string[]) => messages.some((message) => message.includes('first imports @p/lib/shim for its effects')));
    } finally {
      await service.close();
    }
  });
});
