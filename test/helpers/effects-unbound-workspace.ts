// A workspace whose modules use names nothing binds (not Node's) where their import runs, each
// after an import for effects (README "Bundling real code", names nothing binds and Shims): an
// implicit global written (`cache = {}`), a page script's global called (`gtag('js')`), in
// JavaScript and declared in TypeScript for its checker, after `@p/lib/setup`, which writes no such
// name (edited by the tests to write both), and after a module handing the global object on. Each
// importer shows the value it got in `<p id="shown">`.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SHOW = "document.body.insertAdjacentHTML('beforeend', '<p id=\"shown\">' + x + '</p>');\n";

/** `@p/lib/setup` as first written: it writes nothing on the global object. */
export const SETUP = "document.title = 'set up';\n";
/** The shim the tests add to `@p/lib/setup`: both names, as members of the global object. */
export const SHIM = "globalThis.cache = {};\nwindow.gtag = (what) => 'shimmed ' + what;\n";

/** The importers, each with the file its code is in and what it shows once the shim runs first. */
export const IMPORTERS = {
  written: { file: 'written.js', shown: 'written' },
  called: { file: 'called.js', shown: 'shimmed js' },
  typed: { file: 'typed.ts', shown: 'shimmed ts' },
} as const;

export const effectsUnboundWorkspace = (): string =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/lib', 'packages/app'] }),
    'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './setup': './setup.js', './handed': './handed.js' } }),
    'packages/lib/setup.js': SETUP,
    // The global object handed to other code may be given any member: no name is known unwritten.
    'packages/lib/handed.js': "const target = globalThis;\ntarget.title = 'handed';\n",
    'packages/app/package.json': json({
      name: '@p/app',
      version: '1.0.0',
      exports: { './written': './written.js', './called': './called.js', './typed': './typed.ts', './handed': './handed.js' },
      dependencies: { '@p/lib': '1.0.0' },
    }),
    'packages/app/written.js': `import '@p/lib/setup';\ncache = { x: 'written' };\nconst x = cache.x;\n${SHOW}`,
    'packages/app/called.js': `import '@p/lib/setup';\nconst x = gtag('js');\n${SHOW}`,
    'packages/app/typed.ts': `import '@p/lib/setup';\ndeclare function gtag(what: string): string;\nconst x = gtag('ts');\n${SHOW}export {};\n`,
    'packages/app/handed.js': `import '@p/lib/handed';\ncache = { x: 'handed' };\nconst x = cache.x;\n${SHOW}`,
  });
