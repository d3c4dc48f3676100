// Workspaces whose preview loads installed CommonJS code through the local CDN (README "The
// local CDN"). In the first, `cjs-dom` requires another CommonJS package (its root, whose
// `module.exports` is a function, and a subpath), an ES module package (the namespace), and,
// inside a `try`, a declared dependency that is not installed (an optional one). In the second,
// `wrap` is an ES module entry re-exporting a CommonJS file with `export *`, beside a name of its
// own that the file exports too. In the third, two packages are TypeScript's CommonJS output
// (`__esModule` set), one with `exports.default`. The preview entry shows what each gives.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** What the first workspace's entry writes into `document.body.dataset.shown` when every `require` gives what Node's gives. */
export const REQUIRES_SHOWN = '42,extra,named/def,absent';
/** What the second's writes when the names are those Node's `import` gives. */
export const STAR_SHOWN = 'FOO|own';

/** What the third's writes when the names are read off `module.exports` and the default is `exports.default`, as esbuild, Vite and esm.sh give them. */
export const COMPILED_SHOWN = '[x]|hi|help';

export function commonJsRequiresWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@cj/app/main' }),
    'packages/app/package.json': json({ name: '@cj/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { 'cjs-dom': '1.0.0' } }),
    'packages/app/main/index.ts': "import dom from 'cjs-dom';\ndocument.body.dataset.shown = dom;\n",
    'node_modules/cjs-dom/package.json': json({ name: 'cjs-dom', version: '1.0.0', main: 'index.js', dependencies: { 'cjs-core': '1.0.0', 'esm-dep': '1.0.0', 'opt-dep': '1.0.0' } }),
    'node_modules/cjs-dom/index.js': [
      "var core = require('cjs-core');",
      "var extra = require('cjs-core/extra.js');",
      "var esm = require('esm-dep');",
      'var opt;',
      "try { opt = require('opt-dep'); } catch (error) { opt = 'absent'; }",
      "module.exports = [core(2), extra.name, esm.named + '/' + esm.default, opt].join(',');",
      '',
    ].join('\n'),
    'node_modules/cjs-core/package.json': json({ name: 'cjs-core', version: '1.0.0', main: 'index.js' }),
    'node_modules/cjs-core/index.js': 'module.exports = function (n) { return n * 21; };\n',
    'node_modules/cjs-core/extra.js': "exports.name = 'extra';\n",
    'node_modules/esm-dep/package.json': json({ name: 'esm-dep', version: '1.0.0', type: 'module', main: 'index.js' }),
    'node_modules/esm-dep/index.js': "export const named = 'named';\nexport default 'def';\n",
  });
}

export function commonJsStarWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@cj/app/main' }),
    'packages/app/package.json': json({ name: '@cj/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { wrap: '1.0.0' } }),
    'packages/app/main/index.ts': "import { foo, own } from 'wrap';\ndocument.body.dataset.shown = [foo, own].join('|');\n",
    'node_modules/wrap/package.json': json({ name: 'wrap', version: '1.0.0', type: 'module', exports: './index.js' }),
    'node_modules/wrap/index.js': "export * from './lib.cjs';\nexport const own = 'own';\n",
    'node_modules/wrap/lib.cjs': "exports.foo = 'FOO';\nexports.own = 'lib';\n",
  });
}

// TypeScript's CommonJS output of `export function format` and of `export default greet; export const helper`.
const compiledByTsc = (body: string) => `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n${body}`;

export function commonJsCompiledWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@cj/app/main' }),
    'packages/app/package.json': json({ name: '@cj/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { 'ts-named': '1.0.0', 'ts-both': '1.0.0' } }),
    'packages/app/main/index.ts': "import { format } from 'ts-named';\nimport greet, { helper } from 'ts-both';\ndocument.body.dataset.shown = [format('x'), greet(), helper()].join('|');\n",
    'node_modules/ts-named/package.json': json({ name: 'ts-named', version: '1.0.0', main: './index.js' }),
    'node_modules/ts-named/index.js': compiledByTsc("exports.format = void 0;\nfunction format(x) { return '[' + x + ']'; }\nexports.format = format;\n"),
    'node_modules/ts-both/package.json': json({ name: 'ts-both', version: '1.0.0', main: './index.js' }),
    'node_modules/ts-both/index.js': compiledByTsc("exports.helper = void 0;\nfunction greet() { return 'hi'; }\nexports.default = greet;\nexports.helper = () => 'help';\n"),
  });
}

/** What `commonJsOwnExportsWorkspace`'s entry writes when each file of `cjsreg` ran once: one registry, one `Base`. */
export const OWN_EXPORTS_SHOWN = 'index,widgets,extra instanceof=true';

/**
 * A CommonJS package whose exports require one another's entry files: `widgets.js` requires the
 * root export's file by a relative path, `extra.js` the root and `./widgets` by the package's own
 * name. Each file adds its name to the root's registry once it runs.
 */
export function commonJsOwnExportsWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@cj/app/main' }),
    'packages/app/package.json': json({ name: '@cj/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { cjsreg: '1.0.0' } }),
    'packages/app/main/index.ts': [
      "import { registry, Base } from 'cjsreg';",
      "import { Widget } from 'cjsreg/widgets';",
      "import { Extra } from 'cjsreg/extra';",
      "document.body.dataset.shown = registry.join(',') + ' instanceof=' + (new Widget() instanceof Base && new Extra() instanceof Base);",
      '',
    ].join('\n'),
    'node_modules/cjsreg/package.json': json({ name: 'cjsreg', version: '1.0.0', exports: { '.': './index.js', './widgets': './widgets.js', './extra': './extra.js' } }),
    'node_modules/cjsreg/index.js': "exports.registry = ['index'];\nclass Base {}\nexports.Base = Base;\n",
    'node_modules/cjsreg/widgets.js': "var root = require('./index.js');\nroot.registry.push('widgets');\nclass Widget extends root.Base {}\nexports.Widget = Widget;\n",
    'node_modules/cjsreg/extra.js': "var root = require('cjsreg');\nvar widgets = require('cjsreg/widgets');\nroot.registry.push('extra');\nclass Extra extends widgets.Widget {}\nexports.Extra = Extra;\n",
  });
}
