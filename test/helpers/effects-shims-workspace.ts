// A workspace whose modules read process.env.X where their import runs, each after an import for
// effects (README "Bundling real code", Shims): of a workspace module that writes no such name
// (`@p/lib/setup`, edited by the tests to write it), of one that imports the shim for its effects
// (`@p/lib/chain`), of an installed package, and of a module handing the global object on. Each
// importer shows the value it read in `<p id="shown">`.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SHOW = "document.body.insertAdjacentHTML('beforeend', '<p id=\"shown\">' + x + '</p>');\n";

/** `@p/lib/setup` as first written: it writes nothing on the global object. */
export const SETUP = "document.title = 'set up';\n";
/** The shim the tests add to `@p/lib/setup`. */
export const SHIM = "globalThis.process = { env: { X: 'shimmed' } };\n";

export const effectsShimsWorkspace = (): string =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/lib', 'packages/app'] }),
    'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './setup': './setup.js', './shim': './shim.js', './chain': './chain.js', './handed': './handed.js' } }),
    'packages/lib/setup.js': SETUP,
    'packages/lib/shim.js': SHIM,
    'packages/lib/chain.js': "import '@p/lib/shim';\ndocument.title = 'chained';\n",
    // The global object handed to other code may be given any member: no name is known unwritten.
    'packages/lib/handed.js': "const target = globalThis;\ntarget.title = 'process';\n",
    'packages/app/package.json': json({
      name: '@p/app',
      version: '1.0.0',
      exports: { './app': './app.js', './chained': './chained.js', './installed': './installed.js', './handed': './handed.js' },
      dependencies: { '@p/lib': '1.0.0', polyfill: '1.0.0' },
    }),
    'packages/app/app.js': `import '@p/lib/setup';\nexport const x = process.env.X;\n${SHOW}`,
    'packages/app/chained.js': `import '@p/lib/chain';\nexport const x = process.env.X;\n${SHOW}`,
    'packages/app/installed.js': `import 'polyfill';\nexport const x = process.env.X;\n${SHOW}`,
    'packages/app/handed.js': `import '@p/lib/handed';\nexport const x = process.env.X;\n${SHOW}`,
    'node_modules/polyfill/package.json': json({ name: 'polyfill', version: '1.0.0', type: 'module', exports: './index.js' }),
    'node_modules/polyfill/index.js': "document.title = 'polyfill';\n",
  });
